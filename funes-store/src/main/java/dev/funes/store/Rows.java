package dev.funes.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.Provenance;
import dev.funes.SourceState;
import dev.funes.StoreException;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;

/** Converts memories, checkpoints, instants and vectors to and from their SQLite columns. */
final class Rows {

    /** The memory columns, in the order {@link #memory(ResultSet)} reads them. */
    static final String MEMORY_COLUMNS = "m.seq, m.id, m.kind, m.text, m.started_at, m.ended_at, m.agent, m.project,"
            + " m.session, m.source_path, m.line_start, m.line_end, m.byte_start, m.byte_end, m.record_ids,"
            + " m.metadata, m.vector_id";

    /**
     * A new memory's {@code seq} is past both the newest row and the row the commit linker last
     * scanned up to: SQLite would give a deleted last row's number out again, and a memory stored
     * again after a resumed read (same number, new text) would then never be linked.
     */
    static final String INSERT_MEMORY = "INSERT OR IGNORE INTO memories (seq, id, kind, text, started_at, ended_at,"
            + " agent, project, session, source_path, line_start, line_end, byte_start, byte_end, record_ids,"
            + " metadata, content_hash, vector_id, added_at, terms) VALUES ((SELECT max(coalesce((SELECT max(seq) FROM memories), 0),"
            + " coalesce((SELECT CAST(value AS INTEGER) FROM link_state WHERE key = '" + SqliteLinkTables.SCANNED_KEY + "'), 0))"
            + " + 1),?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";

    static final String UPSERT_SOURCE = "INSERT OR REPLACE INTO sources (path, size, last_modified, indexed_bytes,"
            + " indexed_lines, head_fingerprint, format, indexed_at, resume) VALUES (?,?,?,?,?,?,?,?,?)";

    static final String SOURCE_COLUMNS = "path, size, last_modified, indexed_bytes, indexed_lines,"
            + " head_fingerprint, format, indexed_at, resume";

    /**
     * The row of the sessions table of each {@code (agent, session)} of the memories this is
     * followed by ({@code WHERE ... GROUP BY agent, session}): the store writes it, the check
     * compares it. A session of passages alone still counts one memory.
     */
    static final String SESSION_ROWS = """
            SELECT agent, session, max(project), min(coalesce(started_at, ended_at)),
                   max(coalesce(ended_at, started_at)), max(sum(kind <> 'passage'), 1)
            FROM memories""";

    /*
     * Fixed width, always nine fraction digits, UTC: the text sorts like the instant (for years
     * 0 to 9999), so time filters and min/max work in SQL, and it parses back to the exact instant.
     */
    private static final DateTimeFormatter INSTANT_TEXT =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSSSSS'Z'").withZone(ZoneOffset.UTC);

    /** Ids per {@code IN (...)} list; well below SQLite's limit on bound parameters. */
    static final int IN_LIST_CHUNK = 500;

    /**
     * Made on first use: reading a log's checkpoint (an {@code index} of unchanged logs does
     * nothing else) needs none, and an {@code ObjectMapper} costs hundreds of classes at start.
     */
    private static final class Json {
        static final ObjectMapper MAPPER = new ObjectMapper();
    }

    private static final TypeReference<List<String>> STRING_LIST = new TypeReference<>() { };
    private static final TypeReference<Map<String, String>> STRING_MAP = new TypeReference<>() { };

    private Rows() {
    }

    /** A memory with its row number and vector id, as read from the memories table. */
    record StoredMemory(long seq, long vectorId, Memory memory) {
    }

    static String instant(Instant instant) {
        return instant == null ? null : INSTANT_TEXT.format(instant);
    }

    static Instant instant(String text) {
        return text == null ? null : Instant.parse(text);
    }

    /** Binds the 19 parameters of {@link #INSERT_MEMORY}; the last is the text's {@link Terms}. */
    static void bindMemory(PreparedStatement ps, Memory m, String contentHash, long vectorId, Instant now)
            throws SQLException {
        ps.setString(1, m.id());
        ps.setString(2, m.kind().label());
        ps.setString(3, m.text());
        ps.setString(4, instant(m.startedAt()));
        ps.setString(5, instant(m.endedAt()));
        ps.setString(6, m.agent());
        ps.setString(7, m.project());
        ps.setString(8, m.session());
        Provenance p = m.provenance();
        if (p == null) {
            for (int i = 9; i <= 14; i++) {
                ps.setNull(i, i == 9 || i == 14 ? Types.VARCHAR : Types.INTEGER);
            }
        } else {
            ps.setString(9, p.source().toString());
            ps.setInt(10, p.lineStart());
            ps.setInt(11, p.lineEnd());
            ps.setLong(12, p.byteStart());
            ps.setLong(13, p.byteEnd());
            ps.setString(14, json(p.recordIds()));
        }
        ps.setString(15, json(m.metadata()));
        ps.setString(16, contentHash);
        ps.setLong(17, vectorId);
        ps.setString(18, instant(now));
        ps.setString(19, Terms.of(LexicalText.of(m)));
    }

    /** Reads a row selected with {@link #MEMORY_COLUMNS}. */
    static StoredMemory memory(ResultSet rs) throws SQLException {
        long seq = rs.getLong(1);
        String id = rs.getString(2);
        try {
            Provenance provenance = null;
            String source = rs.getString(10);
            if (source != null) {
                provenance = new Provenance(Path.of(source), rs.getInt(11), rs.getInt(12), rs.getLong(13),
                        rs.getLong(14), Json.MAPPER.readValue(rs.getString(15), STRING_LIST));
            }
            Memory memory = new Memory(id, MemoryKind.fromLabel(rs.getString(3)), rs.getString(4),
                    instant(rs.getString(5)), instant(rs.getString(6)), rs.getString(7), rs.getString(8),
                    rs.getString(9), provenance, Json.MAPPER.readValue(rs.getString(16), STRING_MAP));
            return new StoredMemory(seq, rs.getLong(17), memory);
        } catch (JsonProcessingException | RuntimeException e) {
            throw new StoreException("memory " + id + " (row " + seq + ") cannot be read: " + e.getMessage(), e);
        }
    }

    static void bindSource(PreparedStatement ps, SourceState s) throws SQLException {
        ps.setString(1, s.path().toString());
        ps.setLong(2, s.size());
        ps.setString(3, instant(s.lastModified()));
        ps.setLong(4, s.indexedBytes());
        ps.setLong(5, s.indexedLines());
        ps.setString(6, s.headFingerprint());
        ps.setString(7, s.format());
        ps.setString(8, instant(s.indexedAt()));
        ps.setString(9, s.resume());
    }

    /** Reads a row selected with {@link #SOURCE_COLUMNS}. */
    static SourceState source(ResultSet rs) throws SQLException {
        return new SourceState(Path.of(rs.getString(1)), rs.getLong(2), instant(rs.getString(3)), rs.getLong(4),
                rs.getLong(5), rs.getString(6), rs.getString(7), instant(rs.getString(8)), rs.getString(9));
    }

    /** A {@code metadata} column as a map; null when it is not a JSON object of strings. */
    static Map<String, String> metadata(String json) {
        try {
            return json == null ? null : Json.MAPPER.readValue(json, STRING_MAP);
        } catch (JsonProcessingException e) {
            return null;
        }
    }

    /** The {@code metadata} column of {@code metadata}, as {@link #bindMemory} writes it. */
    static String metadataJson(Map<String, String> metadata) {
        return json(metadata);
    }

    /** float32, little-endian: the layout of the {@code vectors.embedding} BLOB. */
    static byte[] vectorBytes(float[] vector) {
        ByteBuffer buffer = ByteBuffer.allocate(vector.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        buffer.asFloatBuffer().put(vector);
        return buffer.array();
    }

    static float[] vector(byte[] bytes, int dimension, long vectorId) {
        if (bytes == null || bytes.length != dimension * Float.BYTES) {
            throw new StoreException("vector " + vectorId + " has " + (bytes == null ? 0 : bytes.length)
                    + " bytes, expected " + dimension * Float.BYTES + " (dimension " + dimension + "): the store is"
                    + " damaged; re-index into a new store");
        }
        float[] vector = new float[dimension];
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(vector);
        return vector;
    }

    /** Binds one key of an IN list. */
    @FunctionalInterface
    interface Binder<K> {
        void bind(PreparedStatement ps, int index, K key) throws SQLException;
    }

    /** Reads the memories whose {@code column} is one of {@code keys}, in IN lists of {@link #IN_LIST_CHUNK}. */
    static <K> void readRows(Connection c, String column, List<K> keys, Binder<K> binder,
                                     java.util.function.Consumer<Rows.StoredMemory> each) throws SQLException {
        for (int from = 0; from < keys.size(); from += IN_LIST_CHUNK) {
            List<K> chunk = keys.subList(from, Math.min(from + IN_LIST_CHUNK, keys.size()));
            String sql = "SELECT " + Rows.MEMORY_COLUMNS + " FROM memories m WHERE m." + column + " IN ("
                    + "?,".repeat(chunk.size() - 1) + "?)";
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                for (int i = 0; i < chunk.size(); i++) {
                    binder.bind(ps, i + 1, chunk.get(i));
                }
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        each.accept(Rows.memory(rs));
                    }
                }
            }
        }
    }

    /** The first column of the first row of {@code sql} as a number; 0 when there is no row. */
    static long single(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getLong(1) : 0;
        }
    }

    private static String json(Object value) {
        try {
            return Json.MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("lists and maps of strings always serialize", e);
        }
    }
}
