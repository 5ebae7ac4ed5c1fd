package dev.funes.redact;

import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.Provenance;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Each built-in rule on what it must catch and what it must leave alone. */
class RedactorTest {

    private final Redactor redactor = Redactor.standard();
    private final Fake fake = new Fake(20251114L);

    /** Asserts that {@code before} + secret + {@code after} becomes before + placeholder + after, counted once. */
    private void caught(String type, String before, String secret, String after) {
        Redaction r = redactor.redact(before + secret + after);
        assertThat(r.text()).as("redacting %s", before + secret + after)
                .isEqualTo(before + Redactor.placeholder(type) + after);
        assertThat(r.counts()).isEqualTo(Map.of(type, 1));
    }

    private void untouched(String text) {
        Redaction r = redactor.redact(text);
        assertThat(r.text()).as("should not redact anything in: %s", text).isEqualTo(text);
        assertThat(r.changed()).isFalse();
    }

    // ---- secrets with a known shape ------------------------------------------------------------

    @Test
    void awsKeysInCredentialsFileEnvJsonAndCsv() {
        String id = fake.awsKeyId();
        String secret = fake.awsSecret();
        Redaction r = redactor.redact("[default]\naws_access_key_id = " + id + "\naws_secret_access_key = " + secret + "\n");
        assertThat(r.text()).isEqualTo("[default]\naws_access_key_id = [REDACTED:aws-access-key-id]\n"
                + "aws_secret_access_key = [REDACTED:aws-secret-key]\n");
        assertThat(r.counts()).isEqualTo(Map.of("aws-access-key-id", 1, "aws-secret-key", 1));

        caught("aws-secret-key", "export AWS_SECRET_ACCESS_KEY=", secret, "");
        caught("aws-secret-key", "{\"Credentials\": {\"SecretAccessKey\": \"", secret, "\"}}");
        caught("aws-secret-key", "aws configure set aws_secret_access_key ", secret, "");
        r = redactor.redact("User name,Access key ID,Secret access key\nci-bot," + id + "," + secret + "\n");
        assertThat(r.text()).endsWith("ci-bot,[REDACTED:aws-access-key-id],[REDACTED:aws-secret-key]\n");
    }

    @Test
    void githubTokens() {
        for (String prefix : new String[] {"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}) {
            caught("github-token", "export GITHUB_TOKEN=", prefix + fake.of(Fake.BASE62, 36), "");
        }
        caught("github-token", "git remote set-url origin https://x-access-token:", "ghs_" + fake.of(Fake.BASE62, 36),
                "@github.com/acme/api.git");
        caught("github-token", "git clone https://", "ghp_" + fake.of(Fake.BASE62, 36), "@github.com/acme/api.git");
        caught("github-token", "curl -H \"Authorization: token ", "github" + "_pat_" + fake.of(Fake.BASE62, 22) + "_"
                + fake.of(Fake.BASE62, 59), "\" https://api.github.com/user");
    }

    @Test
    void gitlabSlackStripeTokens() {
        caught("gitlab-token", "curl --header \"PRIVATE-TOKEN: ", fake.gitlabToken(), "\" https://gitlab.com/api/v4/projects");
        caught("slack-token", "SLACK_BOT_TOKEN=", "xox" + "b-" + fake.of(Fake.DIGITS, 12) + "-" + fake.of(Fake.DIGITS, 13)
                + "-" + fake.of(Fake.BASE62, 24), "\n");
        caught("slack-token", "token: ", "xox" + "p-" + fake.of(Fake.DIGITS, 11) + "-" + fake.of(Fake.DIGITS, 12) + "-"
                + fake.of(Fake.DIGITS, 13) + "-" + fake.of(Fake.HEX, 32), "");
        String path = fake.slackWebhookPath();
        caught("slack-webhook", "curl -X POST --data '{\"text\":\"done\"}' https://hooks.slack.com/services/", path, "");
        caught("stripe-key", "stripe.api_key = \"", "sk_" + "live_" + fake.of(Fake.BASE62, 24), "\"");
        caught("stripe-key", "STRIPE_KEY=", "rk_" + "test_" + fake.of(Fake.BASE62, 99), "");
    }

    @Test
    void openaiAnthropicAndGoogleKeys() {
        caught("openai-key", "OPENAI_API_KEY=", fake.openaiKey(), "");
        caught("openai-key", "client = OpenAI(api_key=\"", "sk-" + fake.of(Fake.BASE62, 48), "\")");
        caught("anthropic-key", "-H \"x-api-key: ", fake.anthropicKey(), "\"");
        caught("google-api-key", "https://maps.googleapis.com/maps/api/geocode/json?address=Paris&key=", fake.googleKey(), "");
        caught("google-api-key", "  apiKey: \"", fake.googleKey(), "\",");
    }

    @Test
    void jwtsWhereverTheyStand() {
        caught("jwt", "Authorization: Bearer ", fake.jwt(), "");
        caught("jwt", "{\"access_token\":\"", fake.jwt(), "\",\"token_type\":\"Bearer\",\"expires_in\":3600}");
        caught("jwt", "Cookie: session=", fake.jwt(), "; Path=/");
        // A cut that left header and payload only still shows a JWT.
        String jwt = fake.jwt();
        caught("jwt", "token ", jwt.substring(0, jwt.lastIndexOf('.')), "\u2026");
    }

    @Test
    void privateKeysWholeEscapedAndCut() {
        for (String label : new String[] {"RSA", "EC", "OPENSSH", "", "ENCRYPTED"}) {
            caught("private-key", "$ cat key.pem\n", fake.privateKey(label, 300), "\n$ ls");
        }
        String pem = fake.privateKey("", 600);
        String escaped = pem.replace("\n", "\\n") + "\\n";
        caught("private-key", "{\"type\": \"service_account\", \"private_key\": \"", escaped.substring(0, escaped.length() - 2),
                "\\n\", \"client_email\": \"ci@acme.iam.gserviceaccount.com\"}");
        // Cut by the chunker: the beginning with no END, then the end with no BEGIN.
        String[] lines = pem.split("\n");
        caught("private-key", "User: ", lines[0] + "\n" + lines[1] + "\n" + lines[2], " \u2026 [900 chars omitted] \u2026 ");
        caught("private-key", "\u2026 (9 more lines) \u2026\n", lines[lines.length - 2] + "\n" + lines[lines.length - 1], "\nok");
    }

    @Test
    void passwordsInUrlsKeepTheUser() {
        String pw = fake.urlPassword();
        Redaction r = redactor.redact("DATABASE_URL=postgres://app_user:" + pw + "@db.internal:5432/app");
        assertThat(r.text()).isEqualTo("DATABASE_URL=postgres://app_user:[REDACTED:url-password]@db.internal:5432/app");
        caught("url-password", "mongodb+srv://admin:", fake.urlPassword(), "@cluster0.x1y2z.mongodb.net/test");
        caught("url-password", "Caused by: java.net.ConnectException: amqp://guest:", fake.urlPassword(), "@rabbit:5672/ refused");
        caught("password", "curl -u deploy:", fake.urlPassword(), " https://nexus.acme.dev/repository/");
    }

    // ---- secrets known by their context --------------------------------------------------------

    @Test
    void assignmentsInEnvJsonYamlCodeAndFlags() {
        String pw = fake.password();
        caught("password", "DB_PASSWORD=", pw, "\nDB_HOST=localhost");
        caught("password", "export PGPASSWORD=", pw, "; psql -h db -U app");
        caught("password", "{\"username\": \"admin\", \"password\": \"", pw, "\"}");
        caught("password", "  datasource:\n    password: ", pw, "\n    url: jdbc:postgresql://db/app");
        caught("password", "spring.datasource.password=", pw, "");
        caught("password", "mysql -u root --password=", pw, " app");
        caught("password", "vault login -method=userpass username=ci --password ", pw, "");
        caught("password", "conn = psycopg2.connect(host='db', password='", pw, "')");
        caught("password", "{\\\"password\\\":\\\"", pw, "\\\"}");
        caught("password", "DB_PASSWORD=", "Tr0ub4dor&3x", "\n");
        // A quoted value cut short by shortening still shows its name.
        caught("password", "{\"user\":\"admin\",\"password\":\"", "Zq8xV3nB7mK2", "\u2026");
        String token = fake.opaqueToken();
        caught("token", "API_TOKEN=", token, "");
        caught("token", "\"auth_token\": \"", token, "\",");
        caught("token", "Authorization: Bearer ", token, "");
        caught("token", "https://api.acme.dev/v1/items?access_token=", token, "&page=2");
        caught("token", "deploy --token ", token, " --env prod");
        String secret = fake.genericSecret();
        caught("secret", "SECRET_KEY = '", secret, "'");
        caught("secret", "client_secret: ", fake.of(Fake.BASE62, 40), "");
        caught("secret", "-H 'X-Api-Key: ", fake.of(Fake.BASE62, 32), "'");
        caught("secret", "config.apiKey = \"", fake.of(Fake.BASE62, 32), "\";");
    }

    @Test
    void randomStringsJustAfterASecretWord() {
        caught("high-entropy", "the new deploy key is ", fake.randomKey(), ", rotate it monthly");
        caught("high-entropy", "paste this token ", fake.randomKey(), " into the dashboard");
        caught("high-entropy", "send it as bearer ", fake.randomKey(), "");
    }

    // ---- what must stay --------------------------------------------------------------------------

    @ParameterizedTest
    @ValueSource(strings = {
            "commit 3f2a9c1d5e7b8a0c4d6e2f1a9b8c7d6e5f4a3b2c fixed the key lookup",
            "signing key fingerprint 3f2a9c1d5e7b8a0c4d6e2f1a9b8c7d6e5f4a3b2c",
            "token 9b2c3d4e-5f60-4a1b-8c2d-3e4f5a6b7c8d was refreshed",
            "\"leafUuid\":\"9d0a3f7e-1111-4c2b-8e55-0f6a1b2c3d4e\"",
            "content hash sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            "{\"type\":\"image\",\"source\":{\"type\":\"base64\",\"media_type\":\"image/png\",\"data\":\"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==\"}}",
            "const apiKey = process.env.OPENAI_API_KEY;",
            "token: string;",
            "def login(username: str, password: str) -> Token:",
            "password=password",
            "self.token = token",
            "max_tokens=4096, \"input_tokens\": 1234, \"cache_read_input_tokens\": 80213",
            "tokenizer: cl100k_base",
            "next_page_token: CAUQAA",
            "password_policy: strict",
            "public Task Run(CancellationToken cancellationToken)",
            "String header = getAuthToken(); AuthorizationHeaderValueProvider provider;",
            "pip install scikit-learn && cd task-manager-service-v2",
            "API_KEY=your-api-key-here",
            "password: ********",
            "token: ${{ secrets.GITHUB_TOKEN }}",
            "\"password\": \"<password>\"",
            "OPENAI_API_KEY=sk-...",
            "postgres://user:password@localhost:5432/app",
            "https://user:${DB_PASS}@db.internal/app",
            "git@github.com:acme/api.git",
            "docker run -u 1000:1000 app",
            "if line.startswith(\"-----BEGIN RSA PRIVATE KEY-----\"):",
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9 is the base64 of a JWT header",
            "the key is correct; token limit exceeded for src/main/java/dev/funes/redact/Redactor.java",
            "Authorization: Bearer $TOKEN",
            "apiKey: 'proxy-handled', STORAGE_KEY = 'vue-todo-list'",
            "const apiKey = 'sk-ant-' + 'a'.repeat(95);",
            "author: Jorge Luis Borges, credentials: see the vault",
            "primaryKey: userIdCreatedAtIndex2024",
            "[REDACTED:github-token] and password: [REDACTED:password]"})
    void leavesOrdinaryTextAlone(String text) {
        untouched(text);
    }

    @Test
    void redactingTwiceChangesNothingMore() {
        String text = "GITHUB_TOKEN=" + fake.githubToken() + "\npassword: " + fake.password() + "\n" + fake.privateKey("EC", 120);
        Redaction once = redactor.redact(text);
        assertThat(once.total()).isEqualTo(3);
        Redaction twice = redactor.redact(once.text());
        assertThat(twice.text()).isEqualTo(once.text());
        assertThat(twice.changed()).isFalse();
    }

    @Test
    void countsPerCallAndTotals() {
        Redactor fresh = Redactor.standard();
        Redaction r = fresh.redact("a=" + fake.googleKey() + " b=" + fake.googleKey() + " DB_PASSWORD=" + fake.password());
        assertThat(r.counts()).isEqualTo(Map.of("google-api-key", 2, "password", 1));
        assertThat(r.total()).isEqualTo(3);
        fresh.redact("nothing here");
        fresh.redact("GH=" + fake.githubToken());
        assertThat(fresh.totals()).isEqualTo(Map.of("google-api-key", 2L, "password", 1L, "github-token", 1L));
        assertThat(fresh.redact("").changed()).isFalse();
    }

    @Test
    void everyStringOfAMemoryIsRedactedAndItsIdFollows() {
        String token = "gh" + "p_" + fake.of(Fake.BASE62, 36);
        String dir = fake.of(Fake.BASE62, 32);
        Path log = Path.of("/home/dev/.claude/projects/-home-dev-deploy-" + dir + "/s.jsonl");
        Memory m = Memory.builder(MemoryKind.NOTE, "bot " + token, "nothing secret here")
                .session("s " + token).project("/home/dev/deploy-" + dir).metadata("k " + token, "v")
                .provenance(new Provenance(log, 1, 2, 0, 99, List.of("r-" + token))).build();
        RedactedMemory r = redactor.redact(m);
        Memory out = r.memory();
        String all = String.join("|", out.agent(), out.session(), out.project(), out.metadata().toString(),
                out.provenance().source().toString(), out.provenance().recordIds().toString(), out.text());
        assertThat(all).doesNotContain(token).doesNotContain(dir.substring(0, 12));
        assertThat(out.provenance().source()).isEqualTo(redactor.redactPath(log));
        assertThat(out.id()).isNotEqualTo(m.id()).isEqualTo(Memory.idOf(out.kind(), out.agent(), out.session(),
                out.provenance(), out.text()));
        assertThat(redactor.redact(out).changed()).isFalse();
    }

    @Test
    void pathsWithSecretsStayApartAndStable() {
        Path a = Path.of("/home/dev/" + fake.of(Fake.BASE62, 32) + "/.aider.chat.history.md");
        Path b = Path.of("/home/dev/" + fake.of(Fake.BASE62, 32) + "/.aider.chat.history.md");
        Path ra = redactor.redactPath(a);
        assertThat(ra.toString()).matches("/home/dev/\\[REDACTED:high-entropy]~[0-9a-f]{8}/\\.aider\\.chat\\.history\\.md");
        assertThat(redactor.redactPath(b)).isNotEqualTo(ra);
        assertThat(redactor.redactPath(a)).isEqualTo(ra);
        assertThat(redactor.redactPath(ra)).isEqualTo(ra);
        Path plain = Path.of("/home/dev/app/session.jsonl");
        assertThat(redactor.redactPath(plain)).isSameAs(plain);
    }

    @Test
    void aSpecificRuleWinsOverAnAssignment() {
        Redaction r = redactor.redact("OPENAI_API_KEY=" + fake.openaiKey() + "\nAuthorization: Bearer " + fake.jwt());
        assertThat(r.counts()).isEqualTo(Map.of("openai-key", 1, "jwt", 1));
    }

    @Test
    void base64OfASecretGoesWhole() {
        // Anyone can decode base64: the blob of a credentials file holds its secret.
        String blob = Base64.getEncoder().encodeToString(("aws_secret_access_key = " + fake.awsSecret()).getBytes());
        caught("encoded-secret", "{\"data\":\"", blob, "\"}");
        // Base64 of ordinary text or of binary data stays.
        untouched("{\"data\":\"" + Base64.getEncoder().encodeToString("just a note about the deploy".getBytes()) + "\"}");
        untouched("{\"data\":\"" + Base64.getEncoder().encodeToString(fake.bytes(300)) + "\"}");
    }
}
