package dev.funes.ingest;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.funes.redact.Fake;
import dev.funes.redact.Redactor;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A reader's resume context is stored in the checkpoint: its strings are redacted like a
 * memory's, at any depth, and a context without secrets is kept as it is.
 */
class ResumeRedactionTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final MemoryRedactor redactor = new MemoryRedactor(Redactor.standard());
    private final Fake fake = new Fake(20260124L);

    @Test
    void everyStringOfACodexLikeContextIsRedacted() throws Exception {
        String token = "gh" + "p_" + fake.of(Fake.BASE62, 36);
        String dir = fake.of(Fake.BASE62, 32);
        String password = fake.spokenPassword();
        ObjectNode context = JSON.createObjectNode();
        context.put("session", "019a2b3c-0000-7000-8000-000000000001");
        context.put("cwd", "/home/dev/deploy-" + dir);
        context.put("gitBranch", "ci/" + token);
        context.put("lastKey", "u:the password is " + password + " for the staging db");
        context.put("response", 7);
        context.putObject("processes").put("4711", "curl -H 'Authorization: Bearer " + token + "' https://api.acme.dev");
        Resume.Point point = new Resume.Point(1200, 14, context);

        Resume.Point redacted = redactor.redact(point);

        String text = new Resume.Token(redacted, null, new Resume.Check(1100, 90, 42), java.util.List.of()).toText();
        assertThat(text).doesNotContain(token).doesNotContain(dir.substring(0, 12)).doesNotContain(password);
        assertThat(redacted.offset()).isEqualTo(1200);
        assertThat(redacted.line()).isEqualTo(14);
        assertThat(redacted.context().get("response").asInt()).isEqualTo(7);
        assertThat(redacted.context().get("session").asText()).isEqualTo("019a2b3c-0000-7000-8000-000000000001");
        assertThat(redacted.context().get("processes").get("4711").asText()).contains("[REDACTED:github-token]");
        // What a resumed read takes back is what was stored: the checkpoint's text parses to the redacted context.
        assertThat(Resume.Token.parse(text).point().context()).isEqualTo(redacted.context());
        // The reader's own context is not changed.
        assertThat(context.get("gitBranch").asText()).contains(token);
    }

    @Test
    void aContextWithoutSecretsIsTheSameObject() {
        ObjectNode context = JSON.createObjectNode().put("session", "s-1").put("cwd", "/home/dev/app");
        Resume.Point point = new Resume.Point(10, 2, context);
        assertThat(redactor.redact(point)).isSameAs(point);
    }
}
