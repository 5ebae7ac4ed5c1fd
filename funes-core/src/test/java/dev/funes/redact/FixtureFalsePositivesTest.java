package dev.funes.redact;

import dev.funes.Memory;
import dev.funes.ingest.AgentLogs;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * False positives on ordinary text: every file of the real agent logs in the shared fixtures,
 * read line by line, and the memories the Claude Code reader makes of its logs. Every finding
 * is printed with its context so it can be judged by hand; docs/REDACTION.md records the
 * verdicts. The bounds keep the rate where it was measured.
 */
class FixtureFalsePositivesTest {

    /** Findings allowed per MB of fixture text (measured: 0 in 10.3 MB). */
    private static final double MAX_PER_MB = 0.5;

    private static Path fixtures() {
        return Path.of(System.getProperty("funes.shared.dir", "../../shared")).resolve("fixtures");
    }

    @Test
    void fixtureLinesAreLeftAlone() throws IOException {
        Path root = fixtures();
        assumeTrue(Files.isDirectory(root), "skipped: real agent logs not found at " + root.toAbsolutePath());
        Scan scan = scanLines(root, "");
        assertThat(scan.files()).isGreaterThan(20);
        assertThat(scan.findings().size()).isLessThanOrEqualTo((int) (MAX_PER_MB * scan.bytes() / 1e6));
    }

    /**
     * The same measure on any folder, printed for judging by hand (test code holds literal test
     * passwords, so no bound applies), for example a language's standard library:
     * {@code -Dfunes.redact.corpus=/usr/lib/python3.11 -Dfunes.redact.suffix=.py}.
     */
    @Test
    void anotherCorpusIsMeasured() throws IOException {
        String corpus = System.getProperty("funes.redact.corpus");
        assumeTrue(corpus != null, "skipped: set -Dfunes.redact.corpus=DIR (and -Dfunes.redact.suffix=.py) to measure a corpus");
        assertThat(scanLines(Path.of(corpus), System.getProperty("funes.redact.suffix", "")).files()).isPositive();
    }

    private record Scan(int files, long bytes, List<String> findings) {
    }

    private static Scan scanLines(Path root, String suffix) throws IOException {
        Redactor redactor = Redactor.standard();
        List<String> findings = new ArrayList<>();
        long bytes = 0;
        long lines = 0;
        List<Path> files;
        try (Stream<Path> s = Files.walk(root)) {
            files = s.filter(Files::isRegularFile).filter(p -> p.toString().endsWith(suffix)).sorted().toList();
        }
        for (Path file : files) {
            String text = new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
            bytes += Files.size(file);
            String[] split = text.split("\n", -1);
            for (int i = 0; i < split.length; i++) {
                lines++;
                findings(redactor.redact(split[i]), root.relativize(file) + ":" + (i + 1), findings);
            }
        }
        report("lines of " + root, files.size() + " files", bytes, lines, findings);
        return new Scan(files.size(), bytes, findings);
    }

    @Test
    void claudeCodeMemoriesAreLeftAlone() throws IOException {
        Path root = fixtures().resolve("claude-code");
        assumeTrue(Files.isDirectory(root), "skipped: real Claude Code logs not found at " + root.toAbsolutePath());
        Redactor redactor = Redactor.standard();
        List<String> findings = new ArrayList<>();
        List<Memory> memories = new ArrayList<>();
        try (Stream<Path> s = Files.list(root)) {
            for (Path file : s.filter(p -> p.toString().endsWith(".jsonl")).sorted().toList()) {
                AgentLogs.claudeCode().parse(file, memories::add);
            }
        }
        long chars = 0;
        long lines = 0;
        for (Memory m : memories) {
            chars += m.text().getBytes(StandardCharsets.UTF_8).length;
            lines += m.text().lines().count();
            findings(redactor.redact(m.text()), String.valueOf(m.provenance()), findings);
            for (String value : m.metadata().values()) {
                findings(redactor.redact(value), m.provenance() + " (metadata)", findings);
            }
        }
        report("Claude Code memory texts", memories.size() + " memories", chars, lines, findings);
        assertThat(memories).hasSizeGreaterThan(50);
        assertThat(findings.size()).isLessThanOrEqualTo((int) Math.max(1, MAX_PER_MB * chars / 1e6));
    }

    private static void findings(Redaction r, String where, List<String> out) {
        if (!r.changed()) {
            return;
        }
        Matcher m = Redactor.PLACEHOLDER.matcher(r.text());
        while (m.find()) {
            String around = r.text().substring(Math.max(0, m.start() - 80), Math.min(r.text().length(), m.end() + 40));
            out.add(where + " " + m.group(1) + ": " + around.replace('\n', ' '));
        }
    }

    private static void report(String what, String items, long bytes, long lines, List<String> findings) {
        System.out.printf(Locale.ROOT, "%s: %s, %.2f MB, %d lines: %d redactions (%.3f per MB, %.4f per 1000 lines)%n",
                what, items, bytes / 1e6, lines, findings.size(), findings.size() / (bytes / 1e6),
                findings.size() * 1000.0 / lines);
        findings.forEach(f -> System.out.println("  " + f));
    }
}
