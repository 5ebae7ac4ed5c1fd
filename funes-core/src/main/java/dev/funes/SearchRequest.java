package dev.funes;

import java.time.Instant;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * A query and the filters it runs under. Built with {@link #builder(String)}, validated on
 * construction, immutable.
 *
 * <pre>{@code
 * SearchRequest request = SearchRequest.builder("why did CI check the wrong branch")
 *         .limit(5)
 *         .agent("claude-code")
 *         .kinds(MemoryKind.EXCHANGE)
 *         .build();
 * }</pre>
 *
 * <p>A {@code null} filter matches everything. {@code after} is inclusive and {@code before}
 * exclusive, compared with the memory's {@link Memory#endedAt()} (falling back to its start);
 * memories without timestamps never match a time filter.
 *
 * @param query   the text to search for; never blank
 * @param limit   maximum number of hits, 1 to {@value #MAX_LIMIT}
 * @param project only memories of this project
 * @param agent   only memories written by this agent
 * @param session only memories of this session
 * @param kinds   only memories of these kinds; empty means all kinds
 * @param after   only memories at or after this instant
 * @param before  only memories before this instant
 * @param file    only memories that name this file in their text, tool lines or metadata: a
 *                path written there ends with it (at a {@code /} or {@code \\} boundary), or its
 *                file name equals it; {@code null} for any
 * @param retrieval which retrievers rank the hits; {@link Retrieval#HYBRID} when {@code null}
 */
public record SearchRequest(String query, int limit, String project, String agent, String session,
                            Set<MemoryKind> kinds, Instant after, Instant before, String file,
                            Retrieval retrieval) {

    /** The default number of hits. */
    public static final int DEFAULT_LIMIT = 10;
    /** The largest accepted limit. */
    public static final int MAX_LIMIT = 1000;

    /** Validates the request. */
    public SearchRequest {
        Objects.requireNonNull(query, "query");
        if (query.isBlank()) {
            throw new IllegalArgumentException("query is blank");
        }
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException("limit must be between 1 and " + MAX_LIMIT + ", was " + limit);
        }
        kinds = kinds == null || kinds.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(kinds));
        if (after != null && before != null && !after.isBefore(before)) {
            throw new IllegalArgumentException("empty time range: after " + after + " is not before " + before);
        }
        if (file != null) {
            file = file.strip().replace('\\', '/');
            while (file.startsWith("./")) {
                file = file.substring(2);
            }
            if (file.isEmpty() || file.equals("/")) {
                throw new IllegalArgumentException("the file filter is blank");
            }
        }
        retrieval = retrieval == null ? Retrieval.HYBRID : retrieval;
    }

    /** A request for the query with the default limit and no filters. */
    public static SearchRequest of(String query) {
        return builder(query).build();
    }

    /** A builder for a request with the given query. */
    public static Builder builder(String query) {
        return new Builder(query);
    }

    /** Whether a memory passes this request's filters (the query itself is not considered). */
    public boolean matches(Memory memory) {
        if (project != null && !project.equals(memory.project())) {
            return false;
        }
        if (agent != null && !agent.equals(memory.agent())) {
            return false;
        }
        if (session != null && !session.equals(memory.session())) {
            return false;
        }
        if (!kinds.isEmpty() && !kinds.contains(memory.kind())
                // A passage stands for the exchange it belongs to.
                && !(memory.kind() == MemoryKind.PASSAGE && kinds.contains(MemoryKind.EXCHANGE))) {
            return false;
        }
        if (after != null || before != null) {
            Instant t = memory.endedAt() != null ? memory.endedAt() : memory.startedAt();
            if (t == null || (after != null && t.isBefore(after)) || (before != null && !t.isBefore(before))) {
                return false;
            }
        }
        return file == null || namesFile(memory, file);
    }

    /**
     * Whether the memory names the file: its text or a metadata value holds {@code file} as a
     * path or the end of a path, that is preceded by {@code /} or by a character that cannot be
     * part of a path, and followed by such a character or by {@code :line}, {@code .} or
     * {@code ,} ending a sentence. So {@code Schema.java} matches
     * {@code funes-store/src/Schema.java:12} but not {@code OldSchema.java}, and
     * {@code store/Schema.java} matches {@code /repo/funes-store/store/Schema.java}. Backslashes
     * count as {@code /}; paths are compared case-sensitively.
     *
     * @param memory the memory to look in
     * @param file   a path or file name with {@code /} separators, as the request holds it
     * @return whether it names the file
     */
    public static boolean namesFile(Memory memory, String file) {
        if (mentions(memory.text(), file)) {
            return true;
        }
        for (String value : memory.metadata().values()) {
            if (mentions(value, file)) {
                return true;
            }
        }
        return false;
    }

    private static boolean mentions(String text, String file) {
        if (text == null || file.isEmpty()) {
            return false;
        }
        String t = text.indexOf('\\') >= 0 ? text.replace('\\', '/') : text;
        for (int from = t.indexOf(file); from >= 0; from = t.indexOf(file, from + 1)) {
            int end = from + file.length();
            char before = from == 0 ? ' ' : t.charAt(from - 1);
            if ((before == '/' || !pathChar(before)) && endsPath(t, end)) {
                return true;
            }
        }
        return false;
    }

    private static boolean endsPath(String t, int end) {
        if (end == t.length() || !pathChar(t.charAt(end))) {
            return true;
        }
        char c = t.charAt(end);
        char next = end + 1 < t.length() ? t.charAt(end + 1) : ' ';
        return (c == ':' && Character.isDigit(next)) || ((c == '.' || c == ':') && !pathChar(next));
    }

    private static boolean pathChar(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '-' || c == '.' || c == '/' || c == '$' || c == '@'
                || c == '+' || c == '~' || c == ':';
    }

    /** Builds a {@link SearchRequest}; not thread-safe. */
    public static final class Builder {
        private final String query;
        private int limit = DEFAULT_LIMIT;
        private String project;
        private String agent;
        private String session;
        private final Set<MemoryKind> kinds = EnumSet.noneOf(MemoryKind.class);
        private Instant after;
        private Instant before;
        private String file;
        private Retrieval retrieval = Retrieval.HYBRID;

        private Builder(String query) {
            this.query = query;
        }

        /** Maximum number of hits. */
        public Builder limit(int limit) {
            this.limit = limit;
            return this;
        }

        /** Only this project. */
        public Builder project(String project) {
            this.project = project;
            return this;
        }

        /** Only this agent. */
        public Builder agent(String agent) {
            this.agent = agent;
            return this;
        }

        /** Only this session. */
        public Builder session(String session) {
            this.session = session;
            return this;
        }

        /** Only these kinds (adds to earlier calls). */
        public Builder kinds(MemoryKind... kinds) {
            this.kinds.addAll(Set.of(kinds));
            return this;
        }

        /** Only memories at or after this instant. */
        public Builder after(Instant after) {
            this.after = after;
            return this;
        }

        /** Only memories before this instant. */
        public Builder before(Instant before) {
            this.before = before;
            return this;
        }

        /**
         * Only memories that name this file (a path suffix such as {@code store/Schema.java}, or a
         * file name such as {@code Schema.java}); see {@link SearchRequest#namesFile}.
         */
        public Builder file(String file) {
            this.file = file;
            return this;
        }

        /** Which retrievers rank the hits; {@link Retrieval#HYBRID} by default. */
        public Builder retrieval(Retrieval retrieval) {
            this.retrieval = Objects.requireNonNull(retrieval, "retrieval");
            return this;
        }

        /**
         * Builds the request.
         *
         * @throws IllegalArgumentException if the query is blank, the limit is out of range or the
         *                                  time range is empty
         */
        public SearchRequest build() {
            return new SearchRequest(query, limit, project, agent, session, kinds, after, before, file, retrieval);
        }
    }
}
