package dev.funes;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One remembered thing: an exchange, a summary, a decision, a note.
 *
 * <p>Immutable. The {@link #id()} is derived from where the memory came from and what it says
 * (see {@link #idOf}), so indexing the same log twice yields the same ids and stores nothing new.
 * The {@link #contentHash()} depends on the text alone: two memories with equal text share one
 * embedding.
 *
 * @param id        stable identifier, 32 lower-case hex characters
 * @param kind      what this memory is
 * @param text      the text that is searched and shown; never blank
 * @param startedAt time of the first record, or {@code null} when the log has no timestamps
 * @param endedAt   time of the last record, or {@code null}; not before {@code startedAt}
 * @param agent     the agent that wrote the log, for example {@code claude-code}
 * @param project   the project (usually a working directory) the session ran in, or {@code null}
 * @param session   the agent's session id, or {@code null}
 * @param provenance where in which file the memory came from, or {@code null} for notes recorded
 *                  through the API
 * @param metadata  extra string attributes (for example {@code parentSession}, {@code gitBranch});
 *                  sorted by key
 */
public record Memory(String id, MemoryKind kind, String text, Instant startedAt, Instant endedAt,
                     String agent, String project, String session, Provenance provenance,
                     Map<String, String> metadata) {

    /** Metadata of a {@link MemoryKind#PASSAGE}: the id of the memory it is a passage of. */
    public static final String PASSAGE_OF = "passageOf";

    /**
     * Metadata naming the {@link #contentHash() content hash} of another text whose embedding a
     * store uses for this memory instead of embedding its own text, when it holds that embedding
     * (else it embeds this memory's text): a tool output's passages are found by meaning through
     * their exchange, by their words through their own text; so are the passages of an exchange
     * short enough to be embedded in one window, which holds them whole.
     */
    public static final String VECTOR_OF = "vectorOf";

    /** Validates the fields and copies the metadata. */
    public Memory {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(agent, "agent");
        if (text.isBlank()) {
            throw new IllegalArgumentException("memory text is blank (id " + id + ")");
        }
        if (startedAt != null && endedAt != null && endedAt.isBefore(startedAt)) {
            throw new IllegalArgumentException("endedAt " + endedAt + " is before startedAt " + startedAt);
        }
        metadata = metadata == null ? Map.of() : Map.copyOf(new TreeMap<>(metadata));
    }

    /** A builder; {@code id} is computed by {@link Builder#build()} unless set explicitly. */
    public static Builder builder(MemoryKind kind, String agent, String text) {
        return new Builder(kind, agent, text);
    }

    /** SHA-256 of the text, hex; equal texts share one embedding in the store. */
    public String contentHash() {
        return hex(sha256(text), 64);
    }

    /**
     * The id a memory gets from its agent, session, source range, kind and text: the first 128
     * bits of a SHA-256, hex. Re-reading the same records gives the same id.
     */
    public static String idOf(MemoryKind kind, String agent, String session, Provenance provenance, String text) {
        String key = String.join("\u0000", kind.label(), agent, session == null ? "" : session,
                provenance == null ? "" : provenance.source() + ":" + provenance.lineStart() + ":" + provenance.lineEnd(),
                text);
        return hex(sha256(key), 32);
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    private static String hex(byte[] digest, int chars) {
        return HexFormat.of().formatHex(digest).substring(0, chars);
    }

    /** Builds a {@link Memory}; not thread-safe. */
    public static final class Builder {
        private final MemoryKind kind;
        private final String agent;
        private final String text;
        private String id;
        private Instant startedAt;
        private Instant endedAt;
        private String project;
        private String session;
        private Provenance provenance;
        private final Map<String, String> metadata = new TreeMap<>();

        private Builder(MemoryKind kind, String agent, String text) {
            this.kind = kind;
            this.agent = agent;
            this.text = text;
        }

        /** Sets an explicit id instead of the derived one. */
        public Builder id(String id) {
            this.id = id;
            return this;
        }

        /** Sets the time span of the records; either may be {@code null}. */
        public Builder time(Instant startedAt, Instant endedAt) {
            this.startedAt = startedAt;
            this.endedAt = endedAt;
            return this;
        }

        /** Sets the project. */
        public Builder project(String project) {
            this.project = project;
            return this;
        }

        /** Sets the session id. */
        public Builder session(String session) {
            this.session = session;
            return this;
        }

        /** Sets the provenance. */
        public Builder provenance(Provenance provenance) {
            this.provenance = provenance;
            return this;
        }

        /** Adds one metadata entry; a {@code null} value is ignored. */
        public Builder metadata(String key, String value) {
            if (value != null) {
                metadata.put(key, value);
            }
            return this;
        }

        /** Builds the memory, deriving the id with {@link Memory#idOf} when none was set. */
        public Memory build() {
            String theId = id != null ? id : idOf(kind, agent, session, provenance, text);
            return new Memory(theId, kind, text, startedAt, endedAt, agent, project, session, provenance, metadata);
        }
    }
}
