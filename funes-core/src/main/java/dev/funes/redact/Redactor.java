package dev.funes.redact;

import dev.funes.Memory;
import dev.funes.Provenance;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Map.Entry;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Pattern;

/**
 * Finds secrets in text and replaces each with a typed placeholder, {@code [REDACTED:<type>]}.
 *
 * <pre>{@code
 * Redactor redactor = Redactor.standard();
 * Redaction r = redactor.redact("export GITHUB_TOKEN=ghp_...");
 * r.text();    // "export GITHUB_TOKEN=[REDACTED:github-token]"
 * r.counts();  // {github-token=1}
 * }</pre>
 *
 * <h2>Contract</h2>
 * <ul>
 *   <li><b>Rules.</b> The built-in rules find secrets with a known shape first (private keys,
 *       JWTs, cloud and SaaS tokens, passwords in URLs), then the user's rules, then secrets
 *       known by their context (values assigned to names such as {@code password} or
 *       {@code api_key}, random-looking strings after such words). Where two findings overlap,
 *       the earlier rule's is kept and the other is not counted. The types and what each rule
 *       catches and misses are listed in docs/REDACTION.md.</li>
 *   <li><b>What is replaced.</b> Only the secret: {@code password: hunter2} becomes
 *       {@code password: [REDACTED:password]}, {@code https://bob:pw@host} becomes
 *       {@code https://bob:[REDACTED:url-password]@host}. A placeholder is never found again, so
 *       redacting twice changes nothing the second time.</li>
 *   <li><b>Counts.</b> Each call returns its counts per type; {@link #totals()} adds up every
 *       call made on this redactor.</li>
 *   <li><b>Threads.</b> Immutable but for the totals, which are updated atomically: one redactor
 *       may serve any number of threads.</li>
 * </ul>
 */
public final class Redactor {

    /** What every placeholder looks like; group 1 is the type. */
    public static final Pattern PLACEHOLDER = Pattern.compile("\\[REDACTED:([a-z0-9]+(?:-[a-z0-9]+)*)\\]");

    private final List<Rule> rules;
    private final List<RedactionRule> userRules;
    private final Map<String, LongAdder> totals = new ConcurrentHashMap<>();

    private Redactor(List<Rule> rules, List<RedactionRule> userRules) {
        this.rules = List.copyOf(rules);
        this.userRules = List.copyOf(userRules);
    }

    /** A redactor with the built-in rules only. */
    public static Redactor standard() {
        return builder().build();
    }

    /** A builder that starts from the built-in rules. */
    public static Builder builder() {
        return new Builder();
    }

    /** The placeholder that replaces a secret of {@code type}: {@code [REDACTED:<type>]}. */
    public static String placeholder(String type) {
        return "[REDACTED:" + type + "]";
    }

    /**
     * Replaces every secret found in {@code text} by its placeholder.
     *
     * @return the redacted text and the counts per type; the same text and no counts when
     *         nothing was found
     */
    public Redaction redact(String text) {
        Objects.requireNonNull(text, "text");
        if (text.isEmpty()) {
            return new Redaction(text, Map.of());
        }
        TreeMap<Integer, Finding> kept = new TreeMap<>();
        List<int[]> placeholders = placeholders(text);
        Rule.Input input = new Rule.Input(text);
        for (Rule rule : rules) {
            rule.find(input, (start, end, type) -> keep(kept, placeholders, new Finding(start, end, type)));
        }
        if (kept.isEmpty()) {
            return new Redaction(text, Map.of());
        }
        StringBuilder out = new StringBuilder(text.length());
        Map<String, Integer> counts = new TreeMap<>();
        int at = 0;
        for (Finding f : kept.values()) {
            out.append(text, at, f.start()).append(placeholder(f.type()));
            at = f.end();
            counts.merge(f.type(), 1, Integer::sum);
        }
        out.append(text, at, text.length());
        for (Entry<String, Integer> e : counts.entrySet()) {
            totals.computeIfAbsent(e.getKey(), k -> new LongAdder()).add(e.getValue());
        }
        return new Redaction(out.toString(), counts);
    }

    /**
     * Redacts a memory before it is stored: every string of it. Its text, project, agent,
     * session, metadata keys and values, provenance record ids, and its provenance path (see
     * {@link #redactPath}).
     *
     * <p>When something was replaced and the memory's id is the one {@link Memory#idOf} derives
     * from its raw fields, the id is derived again from the redacted ones: an id hashed from the
     * raw text would let anyone holding the store test guesses of a short secret offline (every
     * other input of the hash is stored). An id set explicitly (not derived from the text) is kept.
     * Redacting a redacted memory changes nothing, so its id is stable.
     *
     * @return the redacted memory and the counts per type; the same memory and no counts when
     *         nothing was found
     */
    public RedactedMemory redact(Memory memory) {
        Objects.requireNonNull(memory, "memory");
        Map<String, Integer> counts = new TreeMap<>();
        String text = field(memory.text(), counts);
        String project = field(memory.project(), counts);
        String agent = field(memory.agent(), counts);
        String session = field(memory.session(), counts);
        Map<String, String> metadata = new TreeMap<>();
        for (Map.Entry<String, String> e : memory.metadata().entrySet()) {
            metadata.put(field(e.getKey(), counts), field(e.getValue(), counts));
        }
        Provenance provenance = memory.provenance();
        if (provenance != null) {
            Redaction path = redact(provenance.source().toString());
            path.counts().forEach((type, n) -> counts.merge(type, n, Integer::sum));
            List<String> records = new ArrayList<>(provenance.recordIds().size());
            boolean changed = path.changed();
            for (String id : provenance.recordIds()) {
                String r = field(id, counts);
                changed |= !r.equals(id);
                records.add(r);
            }
            if (changed) {
                provenance = new Provenance(path.changed() ? withDigest(provenance.source().toString(), path.text())
                        : provenance.source(), provenance.lineStart(), provenance.lineEnd(), provenance.byteStart(),
                        provenance.byteEnd(), records);
            }
        }
        if (counts.isEmpty()) {
            return new RedactedMemory(memory, Map.of());
        }
        Memory m = memory;
        String derived = Memory.idOf(m.kind(), m.agent(), m.session(), m.provenance(), m.text());
        String id = m.id().equals(derived) ? Memory.idOf(m.kind(), agent, session, provenance, text) : m.id();
        return new RedactedMemory(new Memory(id, m.kind(), text, m.startedAt(), m.endedAt(), agent, project, session,
                provenance, metadata), counts);
    }

    /**
     * A path with its secrets replaced, for storing where a file was read from (a memory's
     * provenance, a checkpoint): {@code /home/dev/ghp_.../s.jsonl} becomes
     * {@code /home/dev/[REDACTED:github-token]~1a2b3c4d/s.jsonl}. The eight hex digits after the
     * first placeholder are the start of a SHA-256 of the whole raw path, so that two files
     * whose paths differ only in their secrets keep apart (their memories and checkpoints are
     * not mixed up); the same path always gives the same result. A path without secrets is
     * returned as it is.
     */
    public Path redactPath(Path path) {
        Objects.requireNonNull(path, "path");
        String raw = path.toString();
        Redaction r = redact(raw);
        return r.changed() ? withDigest(raw, r.text()) : path;
    }

    private static Path withDigest(String raw, String redacted) {
        int close = redacted.indexOf(']', redacted.indexOf("[REDACTED:"));
        String digest;
        try {
            digest = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(raw.getBytes(StandardCharsets.UTF_8))).substring(0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
        return Path.of(redacted.substring(0, close + 1) + "~" + digest + redacted.substring(close + 1));
    }

    private String field(String value, Map<String, Integer> counts) {
        if (value == null || value.isEmpty()) {
            return value;
        }
        Redaction r = redact(value);
        r.counts().forEach((type, n) -> counts.merge(type, n, Integer::sum));
        return r.text();
    }

    /** Secrets replaced by every call so far, per type, sorted by type; a snapshot. */
    public Map<String, Long> totals() {
        Map<String, Long> copy = new TreeMap<>();
        totals.forEach((type, n) -> copy.put(type, n.sum()));
        return Collections.unmodifiableMap(copy);
    }

    /** The user's rules, in the order they were added. */
    public List<RedactionRule> userRules() {
        return userRules;
    }

    private record Finding(int start, int end, String type) {
    }

    /** Placeholders already in the text, which no rule may redact again. */
    private static List<int[]> placeholders(String text) {
        if (!text.contains("[REDACTED:")) {
            return List.of();
        }
        List<int[]> spans = new ArrayList<>();
        var m = PLACEHOLDER.matcher(text);
        while (m.find()) {
            spans.add(new int[] {m.start(), m.end()});
        }
        return spans;
    }

    private static void keep(TreeMap<Integer, Finding> kept, List<int[]> placeholders, Finding f) {
        for (int[] p : placeholders) {
            if (f.start() < p[1] && p[0] < f.end()) {
                return;
            }
        }
        Entry<Integer, Finding> before = kept.floorEntry(f.start());
        if (before != null && before.getValue().end() > f.start()) {
            return;
        }
        Entry<Integer, Finding> after = kept.ceilingEntry(f.start());
        if (after != null && after.getKey() < f.end()) {
            return;
        }
        kept.put(f.start(), f);
    }

    @Override
    public String toString() {
        return "Redactor[" + rules.size() + " rules]";
    }

    /** Builds a {@link Redactor} from the built-in rules and the user's; not thread-safe. */
    public static final class Builder {
        private final List<RedactionRule> userRules = new ArrayList<>();

        private Builder() {
        }

        /**
         * Adds a rule: text matching {@code pattern} (or its group named {@code secret}) is a
         * secret of {@code type}. User rules run after the built-in rules for secrets with a
         * known shape and before the contextual ones (assignments, random strings after a
         * keyword), in the order added.
         *
         * @throws IllegalArgumentException if the type is malformed (see {@link RedactionRule})
         */
        public Builder addRule(String type, Pattern pattern) {
            return addRule(new RedactionRule(type, pattern));
        }

        /** Adds a rule (see {@link #addRule(String, Pattern)}). */
        public Builder addRule(RedactionRule rule) {
            userRules.add(Objects.requireNonNull(rule, "rule"));
            return this;
        }

        /** Adds rules in order (see {@link #addRule(String, Pattern)}). */
        public Builder addRules(Collection<RedactionRule> rules) {
            rules.forEach(this::addRule);
            return this;
        }

        /**
         * Adds the rules of a rules file (format in {@link RedactionRule#readAll}).
         *
         * @throws dev.funes.FunesException naming the file and line if it cannot be read or a
         *                                  line is not a rule
         */
        public Builder addRules(Path file) {
            return addRules(RedactionRule.readAll(file));
        }

        /** Builds the redactor. */
        public Redactor build() {
            List<Rule> rules = new ArrayList<>(StandardRules.SPECIFIC);
            for (RedactionRule r : userRules) {
                rules.add(PatternRule.of(r));
            }
            rules.addAll(StandardRules.CONTEXTUAL);
            // Base64 of a secret: decoded text is redacted with every rule, base64 in it once more.
            List<Rule> inner = new ArrayList<>(rules);
            inner.add(new EncodedSecretRule(rules));
            rules.add(new EncodedSecretRule(inner));
            return new Redactor(rules, userRules);
        }
    }
}
