package dev.funes.ingest;

import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.Provenance;
import dev.funes.ingest.ExchangeEntries.Entry;
import dev.funes.ingest.ExchangeEntries.Speaker;
import dev.funes.ingest.Sentences.Sentence;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds, in an exchange, the decisions taken, the conventions the user set and the documentation
 * looked up, without a language model: cue patterns over the exchange's sentences and tool calls
 * (listed in docs/WHY.md). Each finding becomes a memory of its own kind, so "why is it like
 * this?" and "did we read this before?" are answered by a search over a few short memories
 * instead of every exchange.
 *
 * <pre>{@code
 * for (Memory derived : new Classifier().classify(exchange)) {
 *     store.add(derived);   // kind DECISION, CONVENTION or LOOKUP
 * }
 * }</pre>
 *
 * <h2>Contract</h2>
 * <ul>
 *   <li><b>What is recognised.</b> {@link MemoryKind#DECISION}: a sentence of the user or the agent
 *       (answer or reasoning) stating a choice, such as "X instead of Y", "rather than", "decided",
 *       "switched to", "replaced X with Y", "went with", "use X because". {@link MemoryKind#CONVENTION}:
 *       a sentence the <em>user</em> typed setting a standing rule: "always", "never", "don't",
 *       "must", "prefer", "please use", "from now on". {@link MemoryKind#LOOKUP}: a web fetch, a web
 *       search, a documentation tool, or the reading of a documentation file (README, changelog,
 *       markdown, reST, PDF, anything under {@code docs/}), with the first sentences the agent wrote
 *       after it. Questions, conditionals, negated cues ("we have not decided"), code blocks, inline
 *       code, quoted lines and tool output are never read as statements.</li>
 *   <li><b>Text.</b> Built only from the exchange's own text, which the indexer has already
 *       redacted (the indexer also hands this class the whole text of each record of an
 *       exchange, which its rendering may cut: see {@link #classify(LogFormat, Path)}):
 *       {@code Decision (user): <sentence(s)>}, {@code Convention (user): ...},
 *       {@code Lookup: [Tool] input → result} and {@code Concluded: <sentences>}. Nothing is
 *       paraphrased or invented.</li>
 *   <li><b>Provenance.</b> The exchange's file, session, agent, project and times. The line range
 *       is narrowed to the lines holding the recognised sentences (or the call and its conclusion)
 *       when they can be found exactly in the cited lines of the log; otherwise it is the
 *       exchange's range. Record ids are those of the narrowed lines.</li>
 *   <li><b>Metadata.</b> {@code derivedFrom}: the exchange's id; {@code rule}: the rule that fired
 *       (for example {@code decision:instead-of}); {@code files}: a JSON array of the file paths
 *       named in the statement and those the exchange's tools edited (for a lookup: the
 *       documentation file or URL read), possibly empty; {@code speaker}: {@code user},
 *       {@code assistant}, {@code thinking} or {@code parent-agent} for decisions and conventions.
 *       The exchange's own metadata (git branch, ...) is kept.</li>
 *   <li><b>Ids.</b> Derived with {@link Memory#idOf} from the kind, agent, session, narrowed
 *       provenance and text: classifying the same exchange again gives the same memories.</li>
 *   <li><b>Threads.</b> Stateless; {@link #classify} may be called from several threads.</li>
 * </ul>
 */
public final class Classifier {

    /** Characters of a derived memory's statement part. */
    static final int MAX_TEXT = 900;
    /** Characters of a lookup's conclusion. */
    static final int CONCLUSION_CHARS = 500;

    private static final Pattern ANAPHOR = Pattern.compile("^(?:\\W*)(?:this|that|it|these|those|so|which|then)\\b",
            Pattern.CASE_INSENSITIVE);
    private static final Pattern REASON = Pattern.compile("^(?:\\W*)(?:because|since|that's why|this way|so that)\\b|\\bbecause\\b",
            Pattern.CASE_INSENSITIVE);
    private static final Pattern FILE_PATH = Pattern.compile(
            "(?<![\\w@/.:-])((?:[\\w.-]+/)*[\\w-][\\w.-]*\\.(?:java|kt|scala|groovy|ts|tsx|js|jsx|mjs|cjs|py|rb|go|rs|c|h|cc|cpp|hpp|cs|swift"
                    + "|php|md|mdx|rst|adoc|txt|json|jsonl|ya?ml|toml|xml|gradle|properties|sql|sh|css|scss|html|vue|svelte|lock|cfg|ini|pdf))(?![\\w/])");
    private static final Set<String> EDIT_TOOLS = Set.of("Write", "Edit", "MultiEdit", "NotebookEdit", "write_file",
            "replace", "edit", "write", "write_to_file", "replace_in_file", "str_replace_editor", "file_editor");

    /** A classifier with the standard rules. */
    public Classifier() {
    }

    /**
     * The decisions, conventions and lookups found in {@code exchange}.
     *
     * @param exchange a memory of kind {@link MemoryKind#EXCHANGE}; other kinds give an empty list
     * @return the derived memories, in the order their statements appear; empty if none
     */
    public List<Memory> classify(Memory exchange) {
        Objects.requireNonNull(exchange, "exchange");
        return exchange.kind() != MemoryKind.EXCHANGE ? List.of() : classify(exchange, exchange, null, false);
    }

    /**
     * The derived memories of {@code exchange}, leaving out the decisions and conventions whose
     * sentences are all in {@code seen}, and adding to it the sentences of those it gives.
     *
     * @param exchange an exchange memory, or one record of it read as one
     * @param edits    the exchange whose tool calls say which files were edited (the files of a
     *                 decision or convention)
     * @param seen     sentences already derived from this exchange; null to derive everything
     * @param dropCut  whether to leave out a decision or convention holding a sentence its
     *                 rendering cut ({@link Text#headTail}): its record's whole text gives it
     */
    List<Memory> classify(Memory exchange, Memory edits, Set<String> seen, boolean dropCut) {
        List<Entry> entries = ExchangeEntries.parse(exchange.text());
        List<Finding> findings = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            switch (e.speaker()) {
                case USER, PARENT_AGENT, ASSISTANT, THINKING -> statements(e, i, findings);
                case CALL -> lookup(entries, i, findings);
                default -> {
                }
            }
        }
        if (seen != null) {
            findings.removeIf(f -> f.kind() != MemoryKind.LOOKUP && (seen.containsAll(f.parts())
                    || dropCut && f.parts().stream().anyMatch(Text::isHeadTailCut)));
            for (Finding f : findings) {
                if (f.kind() != MemoryKind.LOOKUP) {
                    seen.addAll(f.parts());
                }
            }
        }
        if (findings.isEmpty()) {
            return List.of();
        }
        List<String> edited = editedFiles(edits == exchange ? entries : ExchangeEntries.parse(edits.text()));
        Locator locator = new Locator(exchange.provenance(), entries);
        // Statements of one kind, from one entry, held by the same lines make one memory.
        List<Memory> out = new ArrayList<>();
        Finding group = null;
        Provenance groupAt = null;
        for (Finding f : findings) {
            Provenance at = locator.locate(f);
            if (group != null && f.kind() != MemoryKind.LOOKUP && f.kind() == group.kind() && f.entry() == group.entry()
                    && Objects.equals(at, groupAt)) {
                group = group.merge(f);
                continue;
            }
            if (group != null) {
                out.add(memory(exchange, group, groupAt, edited));
            }
            group = f;
            groupAt = at;
        }
        out.add(memory(exchange, group, groupAt, edited));
        return out;
    }

    /**
     * The decisions, conventions and lookups of a whole log as the indexer derives them, without
     * its redaction: from each exchange and from the full content of its records (a rule deep in
     * a long request that the exchange's rendering cuts, say), each statement once per exchange.
     *
     * @param format the log's format
     * @param file   the log
     * @return the derived memories in the order of the log
     */
    public List<Memory> classify(LogFormat format, Path file) {
        Derivations derivations = new Derivations(this, true);
        List<Memory> out = new ArrayList<>();
        PassageSink sink = m -> {
            if (m.kind() == MemoryKind.EXCHANGE) {
                out.addAll(derivations.exchange(m));
            } else if (m.kind() == MemoryKind.PASSAGE && m.metadata().containsKey(Passages.HEADER_KEY)) {
                out.addAll(derivations.piece(m, m.metadata().get(Memory.PASSAGE_OF)));
            }
        };
        format.parse(Objects.requireNonNull(file, "file"), sink);
        return out;
    }

    // ---- recognising -------------------------------------------------------------------------

    /** What was recognised in one entry: its sentences (or call and conclusion) and the rule. */
    private record Finding(MemoryKind kind, String rule, Speaker speaker, int entry, List<String> parts, String text,
                           String fileHint) {

        /** This statement and {@code other}'s, in order, each sentence once. */
        Finding merge(Finding other) {
            List<String> merged = new ArrayList<>(new LinkedHashSet<>(parts));
            for (String p : other.parts()) {
                if (!merged.contains(p)) {
                    merged.add(p);
                }
            }
            return new Finding(kind, rule, speaker, entry, merged, statementText(kind, speaker, merged), fileHint);
        }
    }

    private static String statementText(MemoryKind kind, Speaker speaker, List<String> parts) {
        String label = kind == MemoryKind.DECISION ? "Decision" : "Convention";
        return label + " (" + speakerName(speaker) + "): " + Text.head(String.join(" ", parts), MAX_TEXT);
    }

    private static void statements(Entry e, int index, List<Finding> out) {
        List<Sentence> sentences = Sentences.of(e.body());
        List<Integer> decisions = new ArrayList<>();
        List<Integer> conventions = new ArrayList<>();
        java.util.Map<Integer, String> decisionRules = new java.util.HashMap<>();
        java.util.Map<Integer, String> conventionRules = new java.util.HashMap<>();
        for (int i = 0; i < sentences.size(); i++) {
            Sentence s = sentences.get(i);
            String m = s.masked();
            if (s.text().endsWith("?") || words(m) < 4 || ClassifierRules.NOT_A_STATEMENT.matcher(m).find()) {
                continue;
            }
            if (e.speaker() == Speaker.USER) {
                ClassifierRules.Rule c = ClassifierRules.first(ClassifierRules.CONVENTION, m);
                if (c != null) {
                    // A standing rule that names a rejected alternative is still a convention.
                    conventions.add(i);
                    conventionRules.put(i, c.name());
                    continue;
                }
            }
            if (ClassifierRules.NEGATED.matcher(m).find() || ClassifierRules.TENTATIVE.matcher(m).find()) {
                continue;
            }
            ClassifierRules.Rule d = ClassifierRules.first(ClassifierRules.DECISION, m);
            if (d != null) {
                decisions.add(i);
                decisionRules.put(i, d.name());
            }
        }
        for (int i : decisions) {
            out.add(finding(MemoryKind.DECISION, "decision:" + decisionRules.get(i), e, index, sentences, i));
        }
        for (int i : conventions) {
            out.add(finding(MemoryKind.CONVENTION, "convention:" + conventionRules.get(i), e, index, sentences, i));
        }
    }

    /** The matched sentence with the context a reader needs: an antecedent, a reason that follows. */
    private static Finding finding(MemoryKind kind, String rule, Entry e, int index, List<Sentence> sentences, int i) {
        List<String> parts = new ArrayList<>();
        Sentence s = sentences.get(i);
        if (i > 0 && (ANAPHOR.matcher(s.text()).find() || words(s.masked()) < 7)) {
            parts.add(sentences.get(i - 1).text());
        }
        parts.add(s.text());
        if (i + 1 < sentences.size() && REASON.matcher(sentences.get(i + 1).text()).find()) {
            parts.add(sentences.get(i + 1).text());
        }
        return new Finding(kind, rule, e.speaker(), index, parts, statementText(kind, e.speaker(), parts), null);
    }

    private static void lookup(List<Entry> entries, int index, List<Finding> out) {
        Entry call = entries.get(index);
        String input = call.callInput();
        String rule = ClassifierRules.lookupRule(call.tool(), input);
        if (rule == null) {
            return;
        }
        StringBuilder text = new StringBuilder("Lookup: ").append(Text.head(call.body(), MAX_TEXT));
        List<String> parts = new ArrayList<>();
        parts.add(input);
        for (int j = index + 1; j < entries.size(); j++) {
            Entry next = entries.get(j);
            if (next.speaker() == Speaker.ASSISTANT) {
                String conclusion = conclusion(next.body());
                if (!conclusion.isEmpty()) {
                    text.append("\nConcluded: ").append(conclusion);
                    parts.add(conclusion);
                }
                break;
            }
            if (next.speaker() == Speaker.USER || next.speaker() == Speaker.USER_COMMAND) {
                break;
            }
        }
        String hint = input;
        Matcher url = Pattern.compile("https?://\\S+").matcher(input);
        if (rule.startsWith("web-fetch") && url.find()) {
            hint = url.group();
        } else if (rule.equals("web-search")) {
            hint = null;
        } else if (rule.equals("doc-read") && ClassifierRules.SHELL_TOOLS.contains(call.tool())) {
            // "cat docs/setup.md | head": the documentation file, not the command.
            for (String token : input.split("\\s+")) {
                String t = token.replaceAll("^[\"']|[\"';|&)]+$", "");
                if (ClassifierRules.DOC_PATH.matcher(t).find()) {
                    hint = t;
                    break;
                }
            }
        }
        out.add(new Finding(MemoryKind.LOOKUP, "lookup:" + rule, Speaker.CALL, index, parts, text.toString(), hint));
    }

    /** The first prose sentences of the agent's answer after a lookup. */
    private static String conclusion(String body) {
        StringBuilder s = new StringBuilder();
        for (Sentence sentence : Sentences.of(body)) {
            if (s.length() > 0 && s.length() + sentence.text().length() > CONCLUSION_CHARS) {
                break;
            }
            s.append(s.length() == 0 ? "" : " ").append(sentence.text());
            if (s.length() >= CONCLUSION_CHARS / 2) {
                break;
            }
        }
        return Text.head(s.toString(), CONCLUSION_CHARS);
    }

    // ---- building ----------------------------------------------------------------------------

    private static Memory memory(Memory exchange, Finding f, Provenance provenance, List<String> edited) {
        Set<String> files = new LinkedHashSet<>();
        if (f.fileHint() != null && !f.fileHint().isBlank()) {
            files.add(f.fileHint().strip());
        }
        Matcher m = FILE_PATH.matcher(f.kind() == MemoryKind.LOOKUP ? "" : String.join(" ", f.parts()));
        while (m.find()) {
            files.add(m.group(1));
        }
        if (f.kind() != MemoryKind.LOOKUP) {
            files.addAll(edited);
        }
        Memory.Builder b = Memory.builder(f.kind(), exchange.agent(), f.text())
                .time(exchange.startedAt(), exchange.endedAt())
                .project(exchange.project())
                .session(exchange.session())
                .provenance(provenance);
        exchange.metadata().forEach((k, v) -> {
            if (!k.equals("part") && !k.equals("requestLine")) {
                b.metadata(k, v);
            }
        });
        b.metadata("derivedFrom", exchange.id())
                .metadata("rule", f.rule())
                .metadata("files", jsonArray(files))
                .metadata("speaker", f.kind() == MemoryKind.LOOKUP ? null : speakerName(f.speaker()));
        return b.build();
    }

    /** Files the exchange's tools wrote or edited, relative as the tool labels show them. */
    private static List<String> editedFiles(List<Entry> entries) {
        Set<String> files = new LinkedHashSet<>();
        for (Entry e : entries) {
            if (e.speaker() != Speaker.CALL) {
                continue;
            }
            String input = e.callInput();
            if (EDIT_TOOLS.contains(e.tool())) {
                String path = input.startsWith("create ") || input.startsWith("str_replace ") || input.startsWith("insert ")
                        ? input.substring(input.indexOf(' ') + 1) : input;
                if (!path.isBlank() && !path.contains(" ")) {
                    files.add(path);
                }
            } else if ("apply_patch".equals(e.tool())) {
                // Patches.summary: "M path (+1 -2), A other".
                for (String item : input.split(", ")) {
                    String[] parts = item.strip().split(" ");
                    if (parts.length >= 2 && parts[0].length() == 1) {
                        files.add(parts[1]);
                    }
                }
            }
        }
        return new ArrayList<>(files);
    }

    private static String speakerName(Speaker s) {
        return switch (s) {
            case USER -> "user";
            case PARENT_AGENT -> "parent-agent";
            case THINKING -> "thinking";
            default -> "assistant";
        };
    }

    private static int words(String s) {
        int n = 0;
        boolean in = false;
        for (int i = 0; i < s.length(); i++) {
            boolean letter = Character.isLetterOrDigit(s.charAt(i));
            if (letter && !in) {
                n++;
            }
            in = letter;
        }
        return n;
    }

    static String jsonArray(Set<String> values) {
        StringBuilder s = new StringBuilder("[");
        for (String v : values) {
            s.append(s.length() == 1 ? "" : ",").append('"');
            for (int i = 0; i < v.length(); i++) {
                char c = v.charAt(i);
                switch (c) {
                    case '"' -> s.append("\\\"");
                    case '\\' -> s.append("\\\\");
                    default -> {
                        if (c < 0x20) {
                            s.append(String.format("\\u%04x", (int) c));
                        } else {
                            s.append(c);
                        }
                    }
                }
            }
            s.append('"');
        }
        return s.append(']').toString();
    }

    // ---- narrowing ---------------------------------------------------------------------------

    /**
     * Finds the lines of the exchange's log that hold each entry, in order: an entry lies at or
     * after the one before it, and after the request (a request is a record of its own).
     */
    private static final class Locator {
        private final Provenance provenance;
        private final List<Entry> entries;
        private SourceLines lines;
        private boolean read;
        private int[] entryLines;
        /** Where the search for each entry began: its sentences lie at or after this line. */
        private int[] entryFrom;

        Locator(Provenance provenance, List<Entry> entries) {
            this.provenance = provenance;
            this.entries = entries;
        }

        Provenance locate(Finding f) {
            if (provenance == null || !load()) {
                return provenance;
            }
            int at = entryLines[f.entry()];
            int from = entryFrom[f.entry()];
            if (at == 0) {
                return provenance;
            }
            int first = Integer.MAX_VALUE;
            int last = 0;
            for (int k = 0; k < f.parts().size(); k++) {
                String part = f.parts().get(k);
                int line;
                if (f.kind() == MemoryKind.LOOKUP) {
                    // The call's input lies in the call's line; the conclusion after it.
                    line = k == 0 ? at : lines.find(part, at, SourceLines.MIN_FRAGMENT);
                } else {
                    line = lines.find(part, from, SourceLines.MIN_FRAGMENT);
                }
                if (line == 0) {
                    if (f.kind() == MemoryKind.LOOKUP && k > 0) {
                        continue;
                    }
                    return provenance;
                }
                first = Math.min(first, line);
                last = Math.max(last, f.kind() == MemoryKind.LOOKUP ? line : lines.repeatedThrough(part, line));
            }
            return lines.narrow(first, last, provenance.recordIds());
        }

        private boolean load() {
            if (!read) {
                read = true;
                lines = SourceLines.read(provenance);
                if (lines != null) {
                    entryLines = new int[entries.size()];
                    entryFrom = new int[entries.size()];
                    int cursor = provenance.lineStart();
                    for (int i = 0; i < entries.size(); i++) {
                        Entry e = entries.get(i);
                        if (e.speaker() == Speaker.CONTEXT) {
                            continue;
                        }
                        String probe = e.speaker() == Speaker.CALL ? e.callInput() : e.body();
                        entryFrom[i] = cursor;
                        // A call's input is short (a path, a command): shorter fragments must do.
                        int line = e.speaker() == Speaker.CALL
                                ? lines.findCall(e.tool(), probe, cursor)
                                : lines.find(probe, cursor, SourceLines.MIN_FRAGMENT);
                        if (line > 0) {
                            entryLines[i] = line;
                            boolean request = e.speaker() == Speaker.USER || e.speaker() == Speaker.USER_COMMAND
                                    || e.speaker() == Speaker.PARENT_AGENT;
                            cursor = request ? Math.min(line + 1, provenance.lineEnd()) : line;
                        }
                    }
                }
            }
            return lines != null;
        }
    }
}
