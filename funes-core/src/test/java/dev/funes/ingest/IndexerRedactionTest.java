package dev.funes.ingest;

import dev.funes.Memory;
import dev.funes.redact.Redactor;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** The Indexer's redaction hook: what reaches the store, the ids, the report. */
class IndexerRedactionTest {

    // Secret-shaped values assembled at run time, so no file holds one.
    private static final String GITHUB = "ghp" + "_" + "Xb3kQ9mZ2vL7pW4nR8tY1uC6dF0gH5jK2sA9";
    private static final String GOOGLE = "AI" + "za" + "SyB3kQ9mZ2vL7pW4nR8tY1uC6dF0gH5jK2s";
    private static final String PASSWORD = "Tr0ub4dor&3x";
    private static final String ACME = "acme_" + "4f9d2c7b1a8e3f6d0c5b9a2e7d4f1c8b";

    @TempDir
    Path tmp;

    private Path session() {
        String branch = "\"gitBranch\":\"main\"";
        return Records.write(tmp.resolve("p").resolve(Records.SESSION + ".jsonl"), List.of(
                Records.request(1, "CI fails with my token " + GITHUB + ", why?")
                        .replace(branch, "\"gitBranch\":\"ci/" + GOOGLE + "\""),
                Records.answer(2, "msg_1", "The DSN postgres://app:" + PASSWORD + "@db:5432/app rejects you."),
                Records.bash(3, "msg_1", "toolu_1", "psql --password " + PASSWORD + " -c 'select 1'"),
                Records.result(4, "toolu_1", "ERROR: token " + GITHUB + " expired", true),
                "{\"type\":\"user\",\"message\":" + GITHUB + "}",
                Records.request(5, "Deploy with " + ACME)));
    }

    @Test
    void nothingSecretReachesTheStoreAndIdsHashTheRedactedText() {
        InMemoryStore store = new InMemoryStore();
        IndexReport report = Indexer.builder(store).build().index(List.of(session()));

        List<Memory> stored = store.all();
        assertThat(stored).isNotEmpty();
        for (Memory m : stored) {
            String all = m.text() + " " + m.project() + " " + m.metadata();
            assertThat(all).doesNotContain(GITHUB, GOOGLE, PASSWORD);
            assertThat(m.id()).isEqualTo(Memory.idOf(m.kind(), m.agent(), m.session(), m.provenance(), m.text()));
        }
        Memory first = stored.get(0);
        assertThat(first.text()).contains("my token [REDACTED:github-token], why?",
                "postgres://app:[REDACTED:url-password]@db:5432/app", "--password [REDACTED:password]");
        assertThat(first.metadata()).containsEntry("gitBranch", "ci/[REDACTED:google-api-key]");
        // The malformed line's parser message quotes the token: the problem is redacted too.
        assertThat(report.problems()).hasSize(1);
        assertThat(report.problems().get(0).message()).doesNotContain(GITHUB).contains("[REDACTED:github-token]");
        // Counted in every stored text: the exchange's rendering and the passages of its records.
        assertThat(report.redactions()).containsEntry("github-token", 6L).containsEntry("url-password", 2L)
                .containsEntry("password", 2L);
        assertThat(report.redactions().get("google-api-key")).isPositive();
        assertThat(report.summary()).contains(report.secretsRedacted() + " secrets redacted");
        // Without a user rule the unknown token shape goes through.
        assertThat(store.all().get(store.all().size() - 1).text()).contains(ACME);
    }

    @Test
    void aBuilderRedactorAddsUserRules() {
        InMemoryStore store = new InMemoryStore();
        Redactor redactor = Redactor.builder().addRule("acme-token", Pattern.compile("acme_[0-9a-f]{32}")).build();

        IndexReport report = Indexer.builder(store).passages(false).redactor(redactor).build().index(List.of(session()));

        assertThat(store.all()).allSatisfy(m -> assertThat(m.text()).doesNotContain(ACME));
        assertThat(report.redactions()).containsEntry("acme-token", 1L);
        assertThat(redactor.totals()).containsEntry("acme-token", 1L);
    }

    @Test
    void reportCountsAreSortedAndSummedInTheSummary() {
        IndexReport report = new IndexReport(1, 1, 0, 0, 0, 2, 0, 2, 0, Map.of("jwt", 2L, "aws-access-key-id", 1L),
                List.of(), java.time.Duration.ofMillis(100), 0, 0, 0, 0, 0, 0, List.of());

        assertThat(report.redactions().keySet()).containsExactly("aws-access-key-id", "jwt");
        assertThat(report.secretsRedacted()).isEqualTo(3);
        assertThat(report.summary()).isEqualTo("1 file: 1 indexed, 0 unchanged, 0 failed; 2 memories added, 0 unchanged, "
                + "2 embedded; 0 records skipped; 3 secrets redacted; 0 problems; 0.1 s");
    }
}
