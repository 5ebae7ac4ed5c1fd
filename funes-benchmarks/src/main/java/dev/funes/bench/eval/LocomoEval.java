package dev.funes.bench.eval;

import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.Provenance;
import dev.funes.embed.Embedders;
import dev.funes.store.FunesStore;
import dev.funes.store.StoreOptions;

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
 * as LoCoMo's own retrieval code formats turns, then the line {@code on: Speaker: <previous turn>}
 * with the first {@value #CONTEXT_CHARS} characters of the turn before it in its session: what a
 * Funes passage's header gives of the request it answers, so that a reply is found by what it
 * replied to (docs/EVALUATION.md measures it). Provenance = {@code locomo10.json} itself with
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
    /**
     * Characters of the previous turn a turn's text ends with: as many as a passage header gives
     * the request it answers ({@code Passages.CONTEXT_CHARS} in funes-core).
     */
    static final int CONTEXT_CHARS = 100;

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
     * @param index    its 0-based position among its conversation's questions (skipped ones
     *                 included), which decides its {@link Split}
     */
    record Item(String sampleId, Locomo.Question question, Set<String> evidence, int index) {

        /** The split this question belongs to: even index tune, odd index held out. */
        Split split() {
            return index % 2 == 0 ? Split.TUNE : Split.HELDOUT;
        }
    }

    /**
     * Which questions a run scores. Questions alternate within each conversation: the 1st, 3rd,
     * 5th, ... question of every conversation is {@link #TUNE} (the half fusion and rerank settings
     * were chosen on), the 2nd, 4th, ... {@link #HELDOUT}. Every conversation and category is in
     * both halves.
     */
    enum Split {
        /** Even question index within its conversation. */
        TUNE,
        /** Odd question index within its conversation. */
        HELDOUT,
        /** Every question. */
        ALL;

        /** The split for {@code tune}, {@code heldout} or {@code all}. */
        static Split of(String label) {
            for (Split s : values()) {
                if (s.name().equalsIgnoreCase(label)) {
                    return s;
                }
            }
            throw new IllegalArgumentException("unknown split " + label + " (splits: tune, heldout, all)");
        }

        boolean contains(Item item) {
            return this == ALL || item.split() == this;
        }
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
            Locomo.Turn previous = null;
            for (Locomo.Turn t : c.turns()) {
                memories.add(memory(absolute, c, t, previous != null && previous.session() == t.session() ? previous : null));
                previous = t;
                turnIds.add(t.diaId());
            }
            int index = 0;
            for (Locomo.Question q : c.questions()) {
                int position = index++;
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
                    items.add(new Item(c.sampleId(), q, Set.copyOf(evidence), position));
                }
            }
        }
        return new Prepared(absolute, List.copyOf(conversations), List.copyOf(memories), List.copyOf(items),
                List.copyOf(notes));
    }

    /** The memory of one turn; see the class comment. */
    static Memory memory(Path file, Locomo.Conversation c, Locomo.Turn t, Locomo.Turn previous) {
        String date = c.sessionDates().get(t.session());
        Instant time = instant(date);
        String text = text(date, t, previous);
        return Memory.builder(MemoryKind.EXCHANGE, AGENT, text)
                .session(c.sampleId())
                .time(time, time)
                .provenance(new Provenance(file, t.lineStart(), t.lineEnd(), t.byteStart(), t.byteEnd(),
                        List.of(t.diaId())))
                .metadata("diaId", t.diaId())
                .metadata("locomoSession", Integer.toString(t.session()))
                .metadata("speaker", t.speaker())
                .build();
    }

    /**
     * {@code (date) Speaker said, "text"}, plus {@code  and shared <caption>} for an image, plus a
     * line {@code on: Other: <the previous turn>} when one precedes it in its session.
     */
    static String text(String date, Locomo.Turn t, Locomo.Turn previous) {
        StringBuilder s = new StringBuilder();
        if (date != null && !date.isBlank()) {
            s.append('(').append(date).append(") ");
        }
        s.append(t.speaker()).append(" said, \"").append(t.text()).append('"');
        if (t.blipCaption() != null) {
            s.append(" and shared ").append(t.blipCaption());
        }
        if (previous != null) {
            String said = previous.text().replaceAll("\\s+", " ").strip();
            if (said.length() > CONTEXT_CHARS) {
                int cut = CONTEXT_CHARS - 1;
                if (Character.isHighSurrogate(said.charAt(cut - 1))) {
                    cut--;
                }
                said = said.substring(0, cut) + "\u2026";
            }
            s.append("\non: ").append(previous.speaker()).append(": ").append(said);
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
     * @param split   the questions {@code scores} covers
     * @param scores  configuration name -> category -> mean scores over the split's questions,
     *                configurations in report order
     * @param halves  configuration name -> {tune, held-out} means over categories 1 to 5, whatever
     *                the split
     * @param runs    what building and searching each model's store took
     */
    record Result(Split split, Map<String, Map<Integer, Metrics.Mean>> scores, Map<String, Metrics.Mean[]> halves,
                  List<Run> runs) {

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
     * @param embedded      texts embedded to build its store (0 when a cached store was complete)
     * @param buildSeconds  time to build or complete the store
     * @param searchSeconds time for all questions (one search per configuration each)
     * @param searches      searches run
     */
    record Run(String modelId, Path store, int memories, int embedded, double buildSeconds, double searchSeconds,
               int searches) {
    }

    /** The configuration name of the lexical ranking. */
    static final String LEXICAL = Configs.LEXICAL;

    /**
     * Builds (or reuses) one store per model and scores every question with each configuration
     * of {@link Configs}: the lexical one with the first model's store (it does not depend on the
     * model), the others with every model's.
     *
     * @param split       which questions {@link Result#scores()} covers
     * @param lexicalOnly score only the lexical ranking (the store is still built: the store
     *                    embeds what it stores)
     * @param tuned       the options of {@code hybrid min-max + rerank}
     */
    static Result run(Prepared data, List<String> models, StoreDirs dirs, Split split, boolean lexicalOnly,
                      StoreOptions tuned, PrintStream log) throws IOException {
        Map<String, Map<Integer, Metrics.Mean>> scores = new LinkedHashMap<>();
        Map<String, Metrics.Mean[]> halves = new LinkedHashMap<>();
        for (String config : lexicalOnly ? List.of(LEXICAL) : Configs.names(models)) {
            scores.put(config, new TreeMap<>());
            halves.put(config, new Metrics.Mean[] {new Metrics.Mean(), new Metrics.Mean()});
        }
        List<String> ids = data.memories().stream().map(Memory::id).toList();
        List<Run> runs = new ArrayList<>();
        for (String model : lexicalOnly ? models.subList(0, 1) : models) {
            try (Embedder embedder = Embedders.forModelId(model)) {
                Path dir = dirs.dirFor("locomo", model, ids);
                List<Configs.Group> groups = lexicalOnly ? Configs.lexicalOnly()
                        : Configs.groups(model, model.equals(models.get(0)), tuned);
                int embedded = 0;
                double build = 0;
                double search = 0;
                int searches = 0;
                for (Configs.Group group : groups) {
                    try (MemoryStore store = FunesStore.open(dir, embedder, group.options())) {
                        if (group == groups.get(0)) {
                            long t0 = System.nanoTime();
                            embedded = Batches.add(store, data.memories(), "locomo " + model, log);
                            build = (System.nanoTime() - t0) / 1e9;
                        }
                        long t1 = System.nanoTime();
                        int done = 0;
                        for (Item item : data.items()) {
                            for (Configs.Config config : group.configs()) {
                                List<Memory> ranked = Configs.ranking(store, item.question().question(),
                                        item.sampleId(), config.mode());
                                searches++;
                                Metrics.Mean one = new Metrics.Mean();
                                score(one, ranked, item.evidence());
                                if (split.contains(item)) {
                                    scores.get(config.name()).computeIfAbsent(item.question().category(),
                                            c -> new Metrics.Mean()).addAll(List.of(one));
                                }
                                halves.get(config.name())[item.split() == Split.TUNE ? 0 : 1].addAll(List.of(one));
                            }
                            if (++done % 500 == 0) {
                                log.printf(Locale.ROOT, "locomo %s (%s): %d/%d questions%n", model, group.label(), done,
                                        data.items().size());
                            }
                        }
                        search += (System.nanoTime() - t1) / 1e9;
                    }
                }
                log.printf(Locale.ROOT, "locomo %s: store built in %.1f s (%d embedded), %d searches in %.1f s%n",
                        model, build, embedded, searches, search);
                runs.add(new Run(model, dir, data.memories().size(), embedded, build, search, searches));
            }
        }
        return new Result(split, scores, halves, runs);
    }

    private static void score(Metrics.Mean into, List<Memory> ranked, Set<String> evidence) {
        List<String> diaIds = ranked.stream().map(m -> m.metadata().get("diaId")).toList();
        double[] recall = new double[Metrics.CUTOFFS.size()];
        for (int i = 0; i < recall.length; i++) {
            recall[i] = Metrics.recallAt(diaIds, evidence, Metrics.CUTOFFS.get(i));
        }
        into.add(recall, Metrics.reciprocalRank(diaIds, evidence::contains));
    }
}
