package dev.funes.redact;

import dev.funes.FunesException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Rules the user adds, in code or in a rules file. */
class UserRulesTest {

    @TempDir
    Path tmp;

    private final Fake fake = new Fake(7L);

    @Test
    void aRuleReplacesTheWholeMatchOrItsSecretGroup() {
        Redactor redactor = Redactor.builder()
                .addRule("acme-token", Pattern.compile("acme_[a-z0-9]{32}"))
                .addRule("db-password", Pattern.compile("(?i)dbpass=(?<secret>\\S+)"))
                .build();
        String token = "acme_" + fake.of(Fake.LOWER + Fake.DIGITS, 32);

        Redaction r = redactor.redact("use " + token + " and DBPASS=Tr0ub4dor now");

        assertThat(r.text()).isEqualTo("use [REDACTED:acme-token] and DBPASS=[REDACTED:db-password] now");
        assertThat(r.counts()).isEqualTo(Map.of("acme-token", 1, "db-password", 1));
        assertThat(redactor.userRules()).extracting(RedactionRule::type).containsExactly("acme-token", "db-password");
    }

    @Test
    void userRulesComeAfterKnownShapesAndBeforeContextualRules() {
        Redactor redactor = Redactor.builder()
                .addRule("acme-token", Pattern.compile("acme_[a-z0-9]{32}"))
                .addRule("too-greedy", Pattern.compile("ghp_\\w+"))
                .build();
        String acme = "acme_" + fake.of(Fake.LOWER + Fake.DIGITS, 32);
        String github = "ghp_" + fake.of(Fake.BASE62, 36);

        // Without the user rule this would be a generic "token" assignment.
        assertThat(redactor.redact("API_TOKEN=" + acme).counts()).isEqualTo(Map.of("acme-token", 1));
        // A built-in shape is not renamed by a user rule that also matches it.
        assertThat(redactor.redact("GITHUB_TOKEN=" + github).counts()).isEqualTo(Map.of("github-token", 1));
    }

    @Test
    void rulesFileIsReadWithCommentsAndBlankLines() throws IOException {
        Path file = Files.writeString(tmp.resolve(RedactionRule.FILE_NAME), """
                # internal tokens
                acme-token   acme_[a-z0-9]{32}

                  db-password\t(?i)dbpass=(?<secret>\\S+)
                """);

        List<RedactionRule> rules = RedactionRule.readAll(file);

        assertThat(rules).extracting(RedactionRule::type).containsExactly("acme-token", "db-password");
        assertThat(rules.get(1).pattern().pattern()).isEqualTo("(?i)dbpass=(?<secret>\\S+)");
        assertThat(rules.get(1).hasSecretGroup()).isTrue();
        Redactor redactor = Redactor.builder().addRules(file).build();
        assertThat(redactor.redact("dbpass=x1y2z3").text()).isEqualTo("dbpass=[REDACTED:db-password]");
    }

    @Test
    void badRulesFilesNameTheFileAndLine() throws IOException {
        Path noRegex = Files.writeString(tmp.resolve("a.txt"), "# fine\nacme-token\n");
        Path badRegex = Files.writeString(tmp.resolve("b.txt"), "ok x+\nacme-token acme_[a-z\n");
        Path badType = Files.writeString(tmp.resolve("c.txt"), "Acme_Token acme_[a-z]+\n");

        assertThatThrownBy(() -> RedactionRule.readAll(noRegex)).isInstanceOf(FunesException.class)
                .hasMessageStartingWith(noRegex + ":2: expected '<type> <regular expression>'");
        assertThatThrownBy(() -> RedactionRule.readAll(badRegex)).isInstanceOf(FunesException.class)
                .hasMessageStartingWith(badRegex + ":2: bad regular expression");
        assertThatThrownBy(() -> RedactionRule.readAll(badType)).isInstanceOf(FunesException.class)
                .hasMessageStartingWith(badType + ":1: redaction type 'Acme_Token' must be");
        assertThatThrownBy(() -> RedactionRule.readAll(tmp.resolve("missing.txt"))).isInstanceOf(FunesException.class)
                .hasMessageContaining("missing.txt: redaction rules cannot be read");
    }

    @Test
    void typesMustMakeWellFormedPlaceholders() {
        assertThatThrownBy(() -> new RedactionRule("has space", Pattern.compile("x")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RedactionRule("trailing-", Pattern.compile("x")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RedactionRule("x".repeat(41), Pattern.compile("x")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(Redactor.PLACEHOLDER.matcher(Redactor.placeholder(new RedactionRule("k8s-token-2", Pattern.compile("x")).type()))
                .matches()).isTrue();
    }
}
