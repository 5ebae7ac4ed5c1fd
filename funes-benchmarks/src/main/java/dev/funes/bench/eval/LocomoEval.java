package dev.funes.bench.eval;

import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.Provenance;
import dev.funes.embed.Embedders;
import dev.funes.store.FunesStore;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The LoCoMo evidence-recall evaluation: every turn of every conversation becomes one memory in a
 * store per model, every question is searched within its own conversation, and the evidence
 * turns found among the results are counted.
 *
 * <h2>Turns as memories</h2>
 * Kind {@link MemoryKind#EXCHANGE} (a turn is conversation read from a log, not a note recorded
 * through the API), agent {@value #AGENT}, session = the conversation's {@code sample_id} (so a
 * question searches its own conversation through {@code SearchRequest.session}), time = its
 * session's date, text {@code (date) Speaker said, "text"} followed by
 * {@code  and shared <caption>} when the turn shared an image (LoCoMo's {@code blip_caption}),
 * as LoCoMo's own retrieval code formats turns. Provenance = {@code locomo10.json} itself with
 * the line and byte range of the turn's JSON object and its {@code dia_id} as record id; the
 * {@code dia_id} is also in the metadata ({@code diaId}), with the LoCoMo session number
 * ({@code locomoSession}) and the speaker.
 *
 * <h2>Questions</h2>
 * Evidence ids are normalised by {@link EvidenceIds}; a question left without evidence (four have
 * none in the data set) cannot be scored and is skipped. Category 5 (adversarial: the answer is
 * not in the conversation) is measured and reported on its own but kept out of the headline,
 * which averages categories 1 to 4.
 */
final class LocomoEval {

    /** The agent name of LoCoMo memories. */
    static final String AGENT = "locomo";
    /** The adversarial category, also reported on its own. */
    static final int ADVERSARIAL = 5;

    private static final DateTimeFormatter SESSION_DATE = new DateTimeFormatterBuilder()
            .parseCaseInsensitive()
            .appendPattern("h:mm a 'on' d MMMM, yyyy")
            .toFormatter(Locale.ENGLISH);

    private LocomoEval() {
    }

    /**
     * A question that can be scored.
     *
     * @param sampleId its conversation
     * @param evidence its normalised evidence ids, never empty
     */
    record Item(String sampleId, Locomo.Question question, Set<String> evidence) {
    }

    /**
     * The data turned into memories and scorable questions.
     *
     * @param file          the data file, absolute
     * @param conversations the conversations used
     * @param memories      one per turn
     * @param items         the questions that can be scored
     * @param notes         every repaired or dropped evidence id and every skipped question, for
     *                      the report
     */
    record Prepared(Path file, List<Locomo.Conversation> conversations, List<Memory> memories, List<Item> items,
                    List<String> notes) {
    }

    /**
     * Reads the data set.
     *
     * @param only the {@code sample_id}s to use, or empty for all conversations
     * @throws IllegalArgumentException if the file is not LoCoMo's layout or a requested
     *                                  conversation is not in it
     */
    static Prepared prepare(Path file, Set<String> only) throws IOException {
        Path absolute = file.toAbsolutePath().normalize();
        List<Locomo.Conversation> conversations = new ArrayList<>();
        Set<String> found = new HashSet<>();
        for (Locomo.Conversation c : Locomo.read(absolute)) {
            found.add(c.sampleId());
            if (only.isEmpty() || only.contains(c.sampleId())) {
                conversations.add(c);
            }
        }
        for (String id : only) {
            if (!found.contains(id)) {
                throw new IllegalArgumentException(absolute + " has no conversation " + id + "; it has " + found);
            }
        }
        List<Memory> memories = new ArrayList<>();
        List<Item> items = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        for (Locomo.Conversation c : conversations) {
            Set<String> turnIds = new HashSet<>();
            for (Locomo.Turn t : c.turns()) {
                memories.add(memory(absolute, c, t));
                turnIds.add(t.diaId());
            }
            for (Locomo.Question q : c.questions()) {
                Set<String> evidence = new LinkedHashSet<>();
                for (String raw : q.evidence()) {
                    EvidenceIds.Normalised n = EvidenceIds.normalise(raw, turnIds::contains);
                    evidence.addAll(n.ids());
                    if (!n.clean()) {
                        notes.add(String.format(Locale.ROOT, "%s line %d (category %d): evidence \"%s\" -> %s%s",
                                c.sampleId(), q.line(), q.category(), raw,
                                n.ids().isEmpty() ? "nothing" : String.join(", ", n.ids()),
                                n.dropped().isEmpty() ? "" : " (dropped: " + String.join(", ", n.dropped()) + ")"));
                    }
                }
                if (evidence.isEmpty()) {
                    notes.add(String.format(Locale.ROOT, "%s line %d (category %d): no usable evidence, question skipped: %s",
                            c.sampleId(), q.line(), q.category(), q.question()));
                } else {
                    items.add(new Item(c.sampleId(), q, Set.copyOf(evidence)));
                }
            }
        }
        return new Prepared(absolute, List.copyOf(conversations), List.copyOf(memories), List.copyOf(items),
                List.copyOf(notes));
    }

    /** The memory of one turn; see the class comment. */
    static Memory memory(Path file, Locomo.Conversation c, Locomo.Turn t) {
        String date = c.sessionDates().get(t.session());
        Instant time = instant(date);
        return Memory.builder(MemoryKind.EXCHANGE, AGENT, text(date, t))
                .session(c.sampleId())
                .time(time, time)
                .provenance(new Provenance(file, t.lineStart(), t.lineEnd(), t.byteStart(), t.byteEnd(),
                        List.of(t.diaId())))
                .metadata("diaId", t.diaId())
                .metadata("locomoSession", Integer.toString(t.session()))
                .metadata("speaker", t.speaker())
                .build();
    }

    /** {@code (date) Speaker said, "text"}, plus {@code  and shared <caption>} for an image. */
    static String text(String date, Locomo.Turn t) {
        StringBuilder s = new StringBuilder();
        if (date != null && !date.isBlank()) {
            s.append('(').append(date).append(") ");
        }
        s.append(t.speaker()).append(" said, \"").append(t.text()).append('"');
        if (t.blipCaption() != null) {
            s.append(" and shared ").append(t.blipCaption());
        }
        return s.toString();
    }

    /** A session date such as {@code 1:56 pm on 8 May, 2023}, taken as UTC; null if unreadable. */
    static Instant instant(String date) {
        if (date == null) {
            return null;
        }
        try {
            return LocalDateTime.parse(date.trim(), SESSION_DATE).toInstant(ZoneOffset.UTC);
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    /**
     * Scores, per configuration name, per category.
     *
     * @param scores configuration name -> category -> mean scores, configurations in report order
     * @param runs   what building and searching each model's store took
     */
    record Result(Map<String, Map<Integer, Metrics.Mean>> scores, List<Run> runs) {

        /** The headline of one configuration: every scored question. */
        Metrics.Mean headline(String config) {
            Metrics.Mean mean = new Metrics.Mean();
            mean.addAll(scores.get(config).values());
            return mean;
        }

        /** One configuration's scores over the questions of every category but {@code category}. */
        Metrics.Mean excluding(String config, int category) {
            Metrics.Mean mean = new Metrics.Mean();
            List<Metrics.Mean> parts = new ArrayList<>();
            scores.get(config).forEach((c, m) -> {
                if (c != category) {
                    parts.add(m);
                }
            });
            mean.addAll(parts);
            return mean;
        }
    }

    /**
     * One model's run.
     *
     * @param embedded     texts embedded to build its store (0 when a cached store was complete)
     * @param buildSeconds time to build or complete the store
     * @param searchSeconds time for all questions (two searches each)
     */
    record Run(String modelId, Path store, int memories, int embedded, double buildSeconds, double searchSeconds) {
    }

    /** The configuration name of the lexical ranking. */
    static final String LEXICAL = "BM25 (FTS5)";

    static String dense(String model) {
        return "dense " + model;
    }

    static String hybrid(String model) {
        return "hybrid RRF " + model;
    }

    /**
     * Builds (or reuses) one store per model and scores every question with the lexical ranking
     * (taken from the first model's store; it does not depend on the model), each model's dense
     * ranking and each model's hybrid search.
     *
     * @param lexicalOnly score only the lexical ranking (the stores are still built: the store
     *                    embeds what it stores)
     */
    static Result run(Prepared data, List<String> models, StoreDirs dirs, boolean lexicalOnly, PrintStream log)
            throws IOException {
        Map<String, Map<Integer, Metrics.Mean>> scores = new LinkedHashMap<>();
        scores.put(LEXICAL, new TreeMap<>());
        if (!lexicalOnly) {
            models.forEach(m -> scores.put(dense(m), new TreeMap<>()));
            models.forEach(m -> scores.put(hybrid(m), new TreeMap<>()));
        }
        List<String> ids = data.memories().stream().map(Memory::id).toList();
        List<Run> runs = new ArrayList<>();
        for (String model : lexicalOnly ? models.subList(0, 1) : models) {
            try (Embedder embedder = Embedders.forModelId(model)) {
                Path dir = dirs.dirFor("locomo", model, ids);
                try (MemoryStore store = FunesStore.open(dir, embedder)) {
                    long t0 = System.nanoTime();
                    int embedded = Batches.add(store, data.memories(), "locomo " + model, log);
                    double build = (System.nanoTime() - t0) / 1e9;
                    long t1 = System.nanoTime();
                    int done = 0;
                    for (Item item : data.items()) {
                        Retrieval r = Retrieval.of(store, item.question().question(), item.sampleId());
                        int category = item.question().category();
                        if (model.equals(models.get(0))) {
                            score(scores.get(LEXICAL), category, r.lexical(), item.evidence());
                        }
                        if (!lexicalOnly) {
                            score(scores.get(dense(model)), category, r.dense(), item.evidence());
                            score(scores.get(hybrid(model)), category, r.hybrid(), item.evidence());
                        }
                        if (++done % 250 == 0) {
                            log.printf(Locale.ROOT, "locomo %s: %d/%d questions%n", model, done, data.items().size());
                        }
                    }
                    double search = (System.nanoTime() - t1) / 1e9;
                    log.printf(Locale.ROOT, "locomo %s: store built in %.1f s (%d embedded), %d questions in %.1f s%n",
                            model, build, embedded, data.items().size(), search);
                    runs.add(new Run(model, dir, data.memories().size(), embedded, build, search));
                }
            }
        }
        return new Result(scores, runs);
    }

    private static void score(Map<Integer, Metrics.Mean> byCategory, int category, List<Memory> ranked,
                              Set<String> evidence) {
        List<String> diaIds = ranked.stream().map(m -> m.metadata().get("diaId")).toList();
        double[] recall = new double[Metrics.CUTOFFS.size()];
        for (int i = 0; i < recall.length; i++) {
            recall[i] = Metrics.recallAt(diaIds, evidence, Metrics.CUTOFFS.get(i));
        }
        byCategory.computeIfAbsent(category, c -> new Metrics.Mean())
                .add(recall, Metrics.reciprocalRank(diaIds, evidence::contains));
    }
}
