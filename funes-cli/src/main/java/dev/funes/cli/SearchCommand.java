package dev.funes.cli;

import dev.funes.MemoryKind;
import dev.funes.Retrieval;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import dev.funes.store.FunesStore;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code funes search}: ranked memories for a query. */
@Command(name = "search", description = "Search memories; best first.")
final class SearchCommand implements Callable<Integer> {

    @Mixin
    StoreOptions storeOptions;

    @Option(names = {"-n", "--limit"}, paramLabel = "K", defaultValue = "10", description = "Number of hits (default: ${DEFAULT-VALUE}).")
    int limit;

    @Option(names = {"-j", "--json"}, description = "Print a JSON array of hits (see docs/CLI.md).")
    boolean json;

    @Option(names = {"-a", "--agent"}, description = "Only memories of this agent, e.g. claude-code.")
    String agent;

    @Option(names = {"-p", "--project"}, description = "Only memories of this project (working directory).")
    String project;

    @Option(names = "--session", description = "Only memories of this session id.")
    String session;

    @Option(names = {"-k", "--kind"}, split = ",", description = "Only these kinds: exchange, summary, decision, convention, lookup, note.")
    List<String> kinds;

    @Option(names = "--after", paramLabel = "TIME", description = "Only memories at or after TIME (ISO instant or date).")
    String after;

    @Option(names = "--before", paramLabel = "TIME", description = "Only memories before TIME (ISO instant or date).")
    String before;

    @Option(names = {"-f", "--file"}, paramLabel = "PATH", description = "Only memories that name this file: a path suffix"
            + " (src/store/Schema.java) or a file name (Schema.java).")
    String file;

    @Option(names = "--retrieval", paramLabel = "MODE", defaultValue = "hybrid",
            completionCandidates = OptionValues.RetrievalModes.class,
            description = "hybrid (default), dense (meaning only) or lexical (words and identifiers only).")
    String retrieval;

    @Option(names = "--team", paramLabel = "URL", description = "Also search this team collection (docs/TEAM.md);"
            + " each hit says where it came from.")
    String team;

    @Parameters(arity = "1..*", paramLabel = "QUERY", description = "What to look for.")
    List<String> query;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        SearchRequest.Builder request = SearchRequest.builder(String.join(" ", query))
                .limit(limit).agent(agent).project(project).session(session)
                .after(parseTime("--after", after)).before(parseTime("--before", before)).file(file)
                .retrieval(parseRetrieval(retrieval));
        if (kinds != null) {
            for (String kind : kinds) {
                request.kinds(parseKind(kind));
            }
        }
        SearchRequest built = build(request);
        try (OpenStore open = OpenStore.existing(storeOptions.dir(), built.retrieval() != Retrieval.LEXICAL)) {
            PrintWriter out = spec.commandLine().getOut();
            if (team != null) {
                TeamSearchRun.run(open, storeOptions.dir(), team, built, json, out, spec.commandLine().getErr());
                return 0;
            }
            List<SearchHit> hits = open.store().search(built);
            if (json) {
                out.println(HitJson.array(hits));
            } else {
                HitText.print(hits, out);
            }
        }
        // Answers from a damaged store are not given silently: cheap signs only (two counts and 32 vectors), not a check.
        for (String sign : FunesStore.quickCheck(storeOptions.dir())) {
            spec.commandLine().getErr().println("warning: the store may be damaged: " + sign
                    + "; run 'funes check' to see");
        }
        return 0;
    }

    private SearchRequest build(SearchRequest.Builder request) {
        try {
            return request.build();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    private Retrieval parseRetrieval(String mode) {
        try {
            return Retrieval.fromLabel(mode);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--retrieval: " + e.getMessage());
        }
    }

    private MemoryKind parseKind(String kind) {
        try {
            return MemoryKind.fromLabel(kind);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    private Instant parseTime(String option, String value) {
        if (value == null) {
            return null;
        }
        try {
            return value.length() == 10 ? LocalDate.parse(value).atStartOfDay(ZoneOffset.UTC).toInstant() : Instant.parse(value);
        } catch (DateTimeParseException e) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    option + " '" + value + "' is neither an ISO date (2025-09-19) nor an instant (2025-09-19T17:34:29Z)");
        }
    }
}
