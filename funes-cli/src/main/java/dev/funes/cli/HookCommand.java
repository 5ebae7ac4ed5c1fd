package dev.funes.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.funes.FunesException;
import dev.funes.ingest.IndexReport;
import dev.funes.ingest.Indexer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/**
 * {@code funes hook claude-code}: what the Claude Code hook {@code funes setup} installs runs.
 * Claude Code writes the hook's input, a JSON object, on stdin; its {@code transcript_path} is the
 * session's log, which this indexes into the store (only that file, so a session's end costs
 * one file's reading, not a walk of every log).
 */
@Command(name = "hook", description = {
    "Run by an agent's hook ('funes setup' installs it): reads the hook's JSON input on stdin and indexes the"
        + " session log it names (claude-code: its transcript_path)."})
final class HookCommand implements Callable<Integer> {

    /** More than any hook input; a larger stdin is not one. */
    private static final int MAX_INPUT = 1 << 20;

    @Parameters(index = "0", paramLabel = "AGENT", description = "The agent whose hook runs this: claude-code.")
    String agent;

    @Mixin
    StoreOptions storeOptions;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        if (!agent.equals("claude-code")) {
            throw new CommandLine.ParameterException(spec.commandLine(), "unknown agent '" + agent + "'; hooks exist for: claude-code");
        }
        Path transcript = transcriptPath(readInput(System.in));
        if (!Files.isRegularFile(transcript)) {
            throw new FunesException("the hook's transcript_path is not a file: " + transcript);
        }
        IndexReport report;
        try (OpenStore open = OpenStore.open(storeOptions.dir(), null)) {
            report = Indexer.builder(open.store()).redactor(open.redactor()).build().index(List.of(transcript));
        }
        spec.commandLine().getOut().println(report.summary());
        report.problems().forEach(p -> spec.commandLine().getErr().println("funes: " + p));
        return report.problems().isEmpty() && report.filesFailed() == 0 ? 0 : Main.EXIT_PARTIAL;
    }

    private static String readInput(InputStream in) {
        try {
            byte[] bytes = in.readNBytes(MAX_INPUT + 1);
            if (bytes.length > MAX_INPUT) {
                throw new FunesException("the hook's input on stdin is over " + MAX_INPUT + " bytes; not a hook input");
            }
            return new String(bytes, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the hook's input on stdin", e);
        }
    }

    /** The {@code transcript_path} of a Claude Code hook input. */
    static Path transcriptPath(String input) {
        JsonNode json;
        try {
            json = HitJson.MAPPER.readTree(input);
        } catch (JsonProcessingException e) {
            throw new FunesException("stdin:" + e.getLocation().getLineNr() + ": the hook's input is not JSON: "
                    + e.getOriginalMessage());
        }
        if (json == null || !json.path("transcript_path").isTextual() || json.path("transcript_path").asText().isBlank()) {
            throw new FunesException("the hook's input on stdin has no transcript_path (expected Claude Code's hook JSON)");
        }
        return Path.of(json.path("transcript_path").asText());
    }
}
