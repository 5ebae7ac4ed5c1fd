package dev.funes.redact;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Base64;
import java.util.Locale;
import java.util.function.Function;
import java.util.stream.Stream;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Whole tool outputs of up to a MiB go through the redactor: texts built to make each rule work
 * hardest (long runs, a rule's trigger repeated thousands of times, triggers with nothing after
 * them) are redacted through to their end, where a real secret waits. Each prints how long it
 * took, for the record; nothing here asserts a time, but an expression that backtracked on such
 * input would not finish.
 */
class LongInputTest {

    private static final int SIZE = 1 << 20;
    private static final Fake FAKE = new Fake(20260201L);

    /** {@code unit} repeated to about a MiB. */
    private static String repeat(String unit) {
        StringBuilder s = new StringBuilder(SIZE + unit.length());
        while (s.length() < SIZE) {
            s.append(unit);
        }
        return s.toString();
    }

    private static String base64Lines(int width) {
        String body = Base64.getEncoder().encodeToString(FAKE.bytes(SIZE * 3 / 4));
        StringBuilder s = new StringBuilder("the private key (id_rsa, PRIVATE KEY):\n");
        for (int i = 0; i < body.length(); i += width) {
            s.append(body, i, Math.min(body.length(), i + width)).append('\n');
        }
        return s.toString();
    }

    static Stream<Arguments> inputs() {
        String uuid = FAKE.uuid();
        String b64Text = Base64.getEncoder().encodeToString(repeat("plain words of a note, nothing secret. ").substring(0, 6000)
                .getBytes(UTF_8));
        return Stream.of(
                Arguments.of("one letter", repeat("a")),
                Arguments.of("one random run", FAKE.of(Fake.BASE62, SIZE)),
                Arguments.of("base64 lines of 64", base64Lines(64)),
                Arguments.of("base64 lines of 76", base64Lines(76)),
                Arguments.of("BEGIN lines", repeat("-----BEGIN PRIVATE KEY-----\n")),
                Arguments.of("END lines", repeat("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n")),
                Arguments.of("URL users without host", repeat("x://u:" + "@".repeat(30) + "a".repeat(40) + " ")),
                Arguments.of("URL passwords without @", repeat("postgres://app:" + "p".repeat(300))),
                Arguments.of("pgpass ports", repeat("db.internal:5432:")),
                Arguments.of("sig parameters", repeat("&sig=abcdefgh")),
                Arguments.of("SAS queries", repeat("?sv=2022&sp=r&sig=")),
                Arguments.of("heroku and UUIDs", repeat("heroku " + uuid + " ")),
                Arguments.of("cut marks", repeat("\u2026 " + FAKE.of(Fake.BASE62, 30) + " ")),
                Arguments.of("one long path", repeat("/aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vWx")),
                Arguments.of("command words", repeat("mysql -pX ")),
                Arguments.of("echo pipes", repeat("echo a | ")),
                Arguments.of("login flags", repeat("docker login -p ")),
                Arguments.of("prose", repeat("the password is ")),
                Arguments.of("prose far", repeat("token for the prod cluster in the EU region is: ")),
                Arguments.of("names without values", repeat("- name: DB_PASSWORD\n  ")),
                Arguments.of("encoded separators", repeat("password%3D")),
                Arguments.of("JWT headers", repeat("eyJhbGciOiJIUzI1NiJ9.")),
                Arguments.of("glued keywords", repeat("keypasswordtoken")),
                Arguments.of("spaced keywords", repeat("key token secret auth ")),
                Arguments.of("glued prefixes", repeat("ghp_")),
                Arguments.of("AKIA and a long run", "AKIA" + "A".repeat(SIZE)),
                Arguments.of("netrc words", repeat("machine x login y ")),
                Arguments.of("openai markers", repeat("sk-T3BlbkF")),
                Arguments.of("escaped quotes", "password: \"" + repeat("a\\\"")),
                Arguments.of("escaped newlines", repeat("\\n")),
                Arguments.of("base64 of text", repeat(b64Text + " ")),
                Arguments.of("spaces after a flag", "curl -u" + " ".repeat(SIZE)),
                Arguments.of("spaces after a name", "password" + " ".repeat(SIZE) + "x"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("inputs")
    void longAdversarialInputsAreRedactedToTheirEnd(String name, String input) {
        Redactor redactor = Redactor.standard();
        String token = "gh" + "p_" + FAKE.of(Fake.BASE62, 36);
        String text = input + "\nexport GITHUB_TOKEN=" + token + "\n";
        long start = System.nanoTime();
        Redaction r = redactor.redact(text);
        long ms = (System.nanoTime() - start) / 1_000_000;
        System.out.printf(Locale.ROOT, "%-24s %8d chars  %6d ms  %s%n", name, text.length(), ms, r.counts());
        assertThat(r.text()).doesNotContain(token).endsWith("GITHUB_TOKEN=[REDACTED:github-token]\n");
        assertThat(r.counts()).containsEntry("github-token", 1);
    }

    /** Redacting what these inputs became finds nothing more: no rule depends on text that a placeholder replaced. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("inputs")
    void redactingTheRedactedChangesNothing(String name, String whole) {
        // A quarter of each input is enough to show it; the full size is tried above.
        String input = whole.substring(0, whole.length() / 4);
        Function<String, Redaction> redact = Redactor.standard()::redact;
        Redaction r = redact.apply(input);
        // Whatever was found was replaced by placeholders; the rest of the text is as it was.
        String withoutPlaceholders = Redactor.PLACEHOLDER.matcher(r.text()).replaceAll("");
        assertThat(withoutPlaceholders.length()).isLessThanOrEqualTo(input.length());
        assertThat(redact.apply(r.text()).text()).isEqualTo(r.text());
    }
}
