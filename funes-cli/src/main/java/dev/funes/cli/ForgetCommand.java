package dev.funes.cli;

import dev.funes.FunesException;
import dev.funes.Memory;
import dev.funes.MemoryStore;
import dev.funes.SearchRequest;
import dev.funes.store.ForgetReport;
import dev.funes.store.ForgetSelection;
import dev.funes.store.FunesStore;
import java.io.Console;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.Predicate;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code funes forget}: deletes the memories the options select (all of them must hold), with
 * their passages, after a confirmation. Each deletion leaves a tombstone, so the next export,
 * {@code push} or {@code pull} carries it to other stores.
 */
@Command(name = "forget", description = {
    "Delete memories: by id, or every one of a session, project, log file or folder, or older than a date"
        + " (options combine: a memory must match all). Shows the count and asks first (--yes for scripts).",
    "Deletions are remembered as tombstones: export, push and pull carry them to other stores."})
final class ForgetCommand implements Callable<Integer> {

    @Mixin
    StoreOptions storeOptions;

    @Option(names = "--id", paramLabel = "ID", description = "This memory (repeatable); its passages go with it.")
    List<String> ids;

    @Option(names = "--session", paramLabel = "S", description = "Memories of this session id.")
    String session;

    @Option(names = {"-p", "--project"}, paramLabel = "P", description = "Memories of this project (working directory).")
    String project;

    @Option(names = {"-f", "--file"}, paramLabel = "PREFIX", description = "Memories read from this log file,"
            + " or from log files under this folder.")
    Path file;

    @Option(names = "--before", paramLabel = "DATE", converter = OptionValues.Time.class,
            description = "Memories whose last record is older than DATE (ISO date, UTC, or instant);"
                    + " memories without a time are kept.")
    Instant before;

    @Option(names = {"-y", "--yes"}, description = "Do not ask: forget what matches (for scripts).")
    boolean yes;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        if (ids == null && session == null && project == null && file == null && before == null) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "say what to forget: --id, --session, --project, --file or --before");
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try (OpenStore open = OpenStore.existing(storeOptions.dir())) {
            ForgetSelection selection = select(open.store());
            if (selection.isEmpty()) {
                out.println("nothing to forget: no memory matches " + criteria());
                return 0;
            }
            String what = selection.describe() + " matching " + criteria();
            if (!yes) {
                Console console = System.console();
                if (console == null) {
                    throw new FunesException("would forget " + what + "; not asking without a terminal:"
                            + " pass --yes to confirm");
                }
                String answer = console.readLine("forget %s from %s? [y/N] ", what, storeOptions.dir());
                if (answer == null || !answer.strip().toLowerCase(Locale.ROOT).matches("y|yes")) {
                    err.println("funes: not confirmed; nothing forgotten");
                    return 1;
                }
            }
            ForgetReport report = FunesStore.forget(open.store(), selection.ids());
            out.println("forgot " + report.memories() + " memories and " + report.passages() + " passages; "
                    + report.total() + " tombstones for export and sync; " + report.vectorsExpunged()
                    + " vectors dropped from the index files");
        }
        return 0;
    }

    /** The options given, for messages. */
    private String criteria() {
        List<String> parts = new ArrayList<>();
        if (ids != null) {
            parts.add("--id " + String.join(",", ids));
        }
        if (session != null) {
            parts.add("--session " + session);
        }
        if (project != null) {
            parts.add("--project " + project);
        }
        if (file != null) {
            parts.add("--file " + logPrefix());
        }
        if (before != null) {
            parts.add("--before " + before);
        }
        return String.join(" ", parts);
    }

    private ForgetSelection select(MemoryStore store) {
        SearchRequest filters = SearchRequest.builder("forget").session(session).project(project).before(before).build();
        Predicate<Memory> inFile = file == null ? m -> true : fromLogUnder(logPrefix());
        List<Memory> matching = new ArrayList<>();
        if (ids != null) {
            for (String id : new LinkedHashSet<>(ids)) {
                Memory m = store.get(id).orElseThrow(() -> new FunesException("no memory with id " + id + " in "
                        + storeOptions.dir()));
                if (filters.matches(m) && inFile.test(m)) {
                    matching.add(m);
                }
            }
        } else {
            matching.addAll(FunesStore.vectors(store).scan(filters, inFile));
        }
        return FunesStore.toForget(store, matching);
    }

    /**
     * {@code --file} as the indexer cites logs: absolute, through links (the real path) when it
     * exists, so a deleted log's memories can be forgotten too.
     */
    private Path logPrefix() {
        Path absolute = file.toAbsolutePath().normalize();
        try {
            return Files.exists(absolute) ? absolute.toRealPath() : absolute;
        } catch (IOException e) {
            return absolute;
        }
    }

    /** Memories read from this file, or from a file under this folder (whole path components). */
    private static Predicate<Memory> fromLogUnder(Path prefix) {
        return m -> m.provenance() != null && m.provenance().source().toAbsolutePath().normalize().startsWith(prefix);
    }
}
