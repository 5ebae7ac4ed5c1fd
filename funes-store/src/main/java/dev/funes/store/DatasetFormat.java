package dev.funes.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.Provenance;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The dataset folder's layout and records (docs/DATASET.md): what is written and how it is read
 * back, field by field, with the checks that make a damaged or edited record an error.
 */
final class DatasetFormat {

    static final String FORMAT = "funes-dataset";
    /**
     * The manifest version written. Version 1 manifests (and their shards, whose memory records
     * have a free {@code metadata} object, a {@code source} object and base64 vectors) are still
     * read; a version 2 manifest names each shard's record schema, 1 or 2.
     */
    static final int VERSION = 2;
    /** The memory record schema written: fixed columns, declared in the card (docs/DATASET.md). */
    static final int SCHEMA = 2;
    static final String DATA = "data";
    /** The live memories, one file per history shard, rewritten by every export: the card's default config. */
    static final String VIEW = "memories";
    static final String MANIFESTS = "manifests";
    static final String CARD = "README.md";
    static final String MEMORIES = "memories";
    static final String DELETIONS = "deletions";
    /**
     * Shard types this version reads. Another type (a future {@code links} shard, say) is still
     * verified against its manifest, then skipped and reported, so an older Funes can import what
     * it understands of a newer dataset of the same format version.
     */
    static final List<String> KNOWN_TYPES = List.of(MEMORIES, DELETIONS);
    /** {@code data/<type>-<origin>-<sequence>.jsonl.gz}; the origin makes names unique per store. */
    static final Pattern SHARD_PATH = Pattern.compile("data/([a-z][a-z0-9]*)-([0-9a-f]{12})-([0-9]{5,9})\\.jsonl\\.gz");
    static final Pattern ORIGIN = Pattern.compile("[0-9a-f]{12}");
    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");

    static final ObjectMapper JSON = new ObjectMapper();
    /** Reads records; decimals stay exact until a vector component is rounded once, to float32. */
    static final ObjectMapper RECORDS = new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    /**
     * The columns of a schema-2 memory record, in the order written, with their Hugging Face
     * feature type ({@code dtype} or {@code sequence} of one): every record has every column,
     * null where a value is absent. The card declares exactly these.
     */
    static final Map<String, String> MEMORY_COLUMNS = columns(
            "id", "string", "kind", "string", "text", "string", "agent", "string", "project", "string",
            "session", "string", "startedAt", "string", "endedAt", "string", "addedAt", "string",
            "sourcePath", "string", "sourceLineStart", "int64", "sourceLineEnd", "int64",
            "sourceByteStart", "int64", "sourceByteEnd", "int64", "sourceRecordIds", "sequence:string",
            "metadata", "string", "contentHash", "string", "vector", "sequence:float32");
    /** The columns of a deletion record. */
    static final Map<String, String> DELETION_COLUMNS = columns("id", "string", "deletedAt", "string");

    private static Map<String, String> columns(String... pairs) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            m.put(pairs[i], pairs[i + 1]);
        }
        return java.util.Collections.unmodifiableMap(m);
    }

    private DatasetFormat() {
    }

    /** One shard as its origin's manifest lists it. */
    record Shard(String path, String type, String origin, int sequence, long records, long bytes, String sha256,
                 String vectorModel, int dimension, int schema) {
    }

    /** One origin's manifest: the store that wrote it and its shards, oldest first. */
    record Manifest(String origin, String storeId, List<Shard> shards) {
    }

    /** A memory record: the memory, when it was first stored, and its vector if exported. */
    record MemoryRecord(Memory memory, Instant addedAt, float[] vector, String vectorModel) {
    }

    /** A tombstone: the memory with this id was deleted at that time. */
    record Deletion(String id, Instant deletedAt) {
    }

    /** The origin name of a store: the first 12 hex digits of its id. */
    static String origin(String storeId) {
        String hex = storeId.replace("-", "").toLowerCase(java.util.Locale.ROOT);
        if (hex.length() < 12) {
            throw new IllegalArgumentException("store id too short: " + storeId);
        }
        return hex.substring(0, 12);
    }

    static String shardPath(String type, String origin, int sequence) {
        return String.format(java.util.Locale.ROOT, "%s/%s-%s-%05d.jsonl.gz", DATA, type, origin, sequence);
    }

    static String manifestPath(String origin) {
        return MANIFESTS + "/" + origin + ".json";
    }

    /** The live view of a history shard: {@code memories/<origin>-<n>.jsonl.gz}. */
    static String viewPath(Shard shard) {
        return String.format(java.util.Locale.ROOT, "%s/%s-%05d.jsonl.gz", VIEW, shard.origin(), shard.sequence());
    }

    // ---------------------------------------------------------------- records

    /** A schema-2 memory record: every column of {@link #MEMORY_COLUMNS}, in order, null where absent. */
    static ObjectNode memoryRecord(Memory m, Instant addedAt, float[] vector) {
        ObjectNode n = JSON.createObjectNode();
        n.put("id", m.id());
        n.put("kind", m.kind().label());
        n.put("text", m.text());
        n.put("agent", m.agent());
        n.put("project", m.project());
        n.put("session", m.session());
        n.put("startedAt", m.startedAt() == null ? null : m.startedAt().toString());
        n.put("endedAt", m.endedAt() == null ? null : m.endedAt().toString());
        n.put("addedAt", addedAt.toString());
        Provenance p = m.provenance();
        if (p == null) {
            n.putNull("sourcePath");
            n.putNull("sourceLineStart");
            n.putNull("sourceLineEnd");
            n.putNull("sourceByteStart");
            n.putNull("sourceByteEnd");
            n.putNull("sourceRecordIds");
        } else {
            n.put("sourcePath", p.source().toString());
            n.put("sourceLineStart", (long) p.lineStart());
            n.put("sourceLineEnd", (long) p.lineEnd());
            n.put("sourceByteStart", p.byteStart());
            n.put("sourceByteEnd", p.byteEnd());
            ArrayNode ids = n.putArray("sourceRecordIds");
            p.recordIds().forEach(ids::add);
        }
        ObjectNode meta = JSON.createObjectNode();
        new TreeMap<>(m.metadata()).forEach(meta::put);
        try {
            n.put("metadata", JSON.writeValueAsString(meta));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write metadata as JSON", e);
        }
        n.put("contentHash", m.contentHash());
        if (vector == null) {
            n.putNull("vector");
        } else {
            ArrayNode v = n.putArray("vector");
            for (float f : vector) {
                v.add(f);
            }
        }
        return n;
    }

    static ObjectNode deletionRecord(Deletion d) {
        ObjectNode n = JSON.createObjectNode();
        n.put("id", d.id());
        n.put("deletedAt", d.deletedAt().toString());
        return n;
    }

    /**
     * Reads a memory record of its shard's schema.
     *
     * @throws IllegalArgumentException saying which field is wrong
     */
    static MemoryRecord parseMemory(JsonNode n, Shard shard) {
        requireObject(n);
        return shard.schema() == 1 ? parseMemoryV1(n, shard) : parseMemoryV2(n, shard);
    }

    /** Schema 2: the fixed columns, every one present, none other. */
    private static MemoryRecord parseMemoryV2(JsonNode n, Shard shard) {
        for (String column : MEMORY_COLUMNS.keySet()) {
            if (!n.has(column)) {
                throw new IllegalArgumentException("column '" + column + "' is missing");
            }
        }
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
            String column = it.next();
            if (!MEMORY_COLUMNS.containsKey(column)) {
                throw new IllegalArgumentException("column '" + column + "' is not one of this schema's");
            }
        }
        Provenance provenance = null;
        String sourcePath = text(n, "sourcePath", false);
        if (sourcePath != null) {
            provenance = new Provenance(Path.of(sourcePath), integer(n, "sourceLineStart"), integer(n, "sourceLineEnd"),
                    number(n, "sourceByteStart"), number(n, "sourceByteEnd"), strings(n.get("sourceRecordIds"),
                            "sourceRecordIds"));
        }
        Map<String, String> metadata = new TreeMap<>();
        String metaText = text(n, "metadata", true);
        JsonNode meta;
        try {
            meta = JSON.readTree(metaText);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("metadata is not a JSON object: " + e.getOriginalMessage(), e);
        }
        metadata(meta, metadata);
        float[] vector = null;
        JsonNode v = n.get("vector");
        if (!v.isNull()) {
            if (shard.vectorModel() == null) {
                throw new IllegalArgumentException("a vector, but the manifest names no vector model for this shard");
            }
            if (!v.isArray()) {
                throw new IllegalArgumentException("vector is not a list of numbers");
            }
            if (v.size() != shard.dimension()) {
                throw new IllegalArgumentException("vector has " + v.size() + " numbers, expected " + shard.dimension());
            }
            vector = new float[v.size()];
            for (int i = 0; i < vector.length; i++) {
                JsonNode f = v.get(i);
                if (!f.isNumber()) {
                    throw new IllegalArgumentException("vector holds a non-number at " + i);
                }
                vector[i] = f.isBigDecimal() ? new BigDecimal(f.asText()).floatValue() : f.floatValue();
            }
            finite(vector);
        }
        return memory(n, provenance, metadata, vector, shard);
    }

    /** Schema 1 (manifest version 1): {@code source} and {@code metadata} objects, a base64 vector. */
    private static MemoryRecord parseMemoryV1(JsonNode n, Shard shard) {
        Provenance provenance = null;
        JsonNode s = n.get("source");
        if (s != null && !s.isNull()) {
            requireObject(s);
            provenance = new Provenance(Path.of(text(s, "path", true)), integer(s, "lineStart"),
                    integer(s, "lineEnd"), number(s, "byteStart"), number(s, "byteEnd"),
                    strings(s.get("recordIds"), "source.recordIds"));
        }
        Map<String, String> metadata = new TreeMap<>();
        JsonNode meta = n.get("metadata");
        if (meta != null && !meta.isNull()) {
            metadata(meta, metadata);
        }
        float[] vector = null;
        String encoded = text(n, "vector", false);
        if (encoded != null) {
            if (shard.vectorModel() == null) {
                throw new IllegalArgumentException("a vector, but the manifest names no vector model for this shard");
            }
            byte[] bytes;
            try {
                bytes = Base64.getDecoder().decode(encoded);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("vector is not base64: " + e.getMessage(), e);
            }
            if (bytes.length != shard.dimension() * Float.BYTES) {
                throw new IllegalArgumentException("vector has " + bytes.length + " bytes, expected "
                        + shard.dimension() * Float.BYTES + " (" + shard.dimension() + " float32)");
            }
            vector = new float[shard.dimension()];
            ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(vector);
            finite(vector);
        }
        return memory(n, provenance, metadata, vector, shard);
    }

    private static MemoryRecord memory(JsonNode n, Provenance provenance, Map<String, String> metadata, float[] vector,
                                       Shard shard) {
        String text = text(n, "text", true);
        Memory memory = new Memory(text(n, "id", true), MemoryKind.fromLabel(text(n, "kind", true)), text,
                instant(n, "startedAt", false), instant(n, "endedAt", false), text(n, "agent", true),
                text(n, "project", false), text(n, "session", false), provenance, metadata);
        String hash = text(n, "contentHash", true);
        if (!hash.equals(memory.contentHash())) {
            throw new IllegalArgumentException("contentHash " + hash + " is not the SHA-256 of the text ("
                    + memory.contentHash() + "): the text was changed after export");
        }
        return new MemoryRecord(memory, instant(n, "addedAt", true), vector, shard.vectorModel());
    }

    private static List<String> strings(JsonNode ids, String field) {
        List<String> out = new ArrayList<>();
        if (ids != null && !ids.isNull()) {
            if (!ids.isArray()) {
                throw new IllegalArgumentException(field + " is not an array");
            }
            for (JsonNode r : ids) {
                if (!r.isTextual()) {
                    throw new IllegalArgumentException(field + " holds a non-string");
                }
                out.add(r.asText());
            }
        }
        return out;
    }

    private static void metadata(JsonNode meta, Map<String, String> into) {
        if (meta == null || !meta.isObject()) {
            throw new IllegalArgumentException("metadata is not a JSON object");
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = meta.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (!e.getValue().isTextual()) {
                throw new IllegalArgumentException("metadata." + e.getKey() + " is not a string");
            }
            into.put(e.getKey(), e.getValue().asText());
        }
    }

    private static void finite(float[] vector) {
        for (float f : vector) {
            if (!Float.isFinite(f)) {
                throw new IllegalArgumentException("vector holds " + f);
            }
        }
    }

    static Deletion parseDeletion(JsonNode n) {
        requireObject(n);
        return new Deletion(text(n, "id", true), instant(n, "deletedAt", true));
    }

    // ---------------------------------------------------------------- manifests

    static ObjectNode manifestJson(Manifest m) {
        ObjectNode n = JSON.createObjectNode();
        n.put("format", FORMAT);
        n.put("version", VERSION);
        n.put("origin", m.origin());
        n.put("store", m.storeId());
        ArrayNode shards = n.putArray("shards");
        for (Shard s : m.shards()) {
            ObjectNode o = shards.addObject();
            o.put("path", s.path());
            o.put("type", s.type());
            o.put("records", s.records());
            o.put("bytes", s.bytes());
            o.put("sha256", s.sha256());
            o.put("schema", s.schema());
            if (s.vectorModel() != null) {
                ObjectNode v = o.putObject("vectors");
                v.put("model", s.vectorModel());
                v.put("dimension", s.dimension());
                v.put("encoding", s.schema() == 1 ? "base64 float32 little-endian" : "list of float32");
            }
        }
        return n;
    }

    /**
     * Reads a manifest.
     *
     * @throws IllegalArgumentException saying what is wrong
     */
    static Manifest parseManifest(JsonNode n, String expectedOrigin) {
        requireObject(n);
        if (!FORMAT.equals(text(n, "format", true))) {
            throw new IllegalArgumentException("format is '" + n.get("format").asText() + "', not " + FORMAT);
        }
        int version = integer(n, "version");
        if (version > VERSION) {
            throw new IllegalArgumentException("written by a newer Funes (dataset format version " + version
                    + "; this Funes reads up to " + VERSION + "): upgrade Funes to import it");
        }
        String origin = text(n, "origin", true);
        if (!origin.equals(expectedOrigin)) {
            throw new IllegalArgumentException("origin '" + origin + "' does not match the file name");
        }
        JsonNode array = n.get("shards");
        if (array == null || !array.isArray()) {
            throw new IllegalArgumentException("shards is missing or not an array");
        }
        List<Shard> shards = new ArrayList<>();
        for (JsonNode s : array) {
            requireObject(s);
            String path = text(s, "path", true);
            Matcher m = SHARD_PATH.matcher(path);
            if (!m.matches()) {
                throw new IllegalArgumentException("shard path '" + path + "' is not data/<type>-<origin>-<n>.jsonl.gz");
            }
            if (!m.group(2).equals(origin)) {
                throw new IllegalArgumentException("shard " + path + " belongs to another origin than " + origin);
            }
            String type = text(s, "type", true);
            if (!type.equals(m.group(1))) {
                throw new IllegalArgumentException("shard " + path + " has type '" + type + "', not " + m.group(1));
            }
            String sha = text(s, "sha256", true);
            if (!SHA256.matcher(sha).matches()) {
                throw new IllegalArgumentException("shard " + path + " has a malformed sha256 '" + sha + "'");
            }
            long records = number(s, "records");
            long bytes = number(s, "bytes");
            if (records < 0 || bytes < 0) {
                throw new IllegalArgumentException("shard " + path + " has negative counts");
            }
            String model = null;
            int dimension = 0;
            JsonNode v = s.get("vectors");
            if (v != null && !v.isNull()) {
                requireObject(v);
                model = text(v, "model", true);
                dimension = integer(v, "dimension");
                if (dimension < 1) {
                    throw new IllegalArgumentException("shard " + path + " has vector dimension " + dimension);
                }
            }
            int schema = 1;
            JsonNode sc = s.get("schema");
            if (sc != null && !sc.isNull()) {
                schema = integer(s, "schema");
                if (schema < 1 || schema > SCHEMA || (version == 1 && schema != 1)) {
                    throw new IllegalArgumentException("shard " + path + " has record schema " + schema
                            + "; this Funes reads 1 to " + SCHEMA);
                }
            }
            shards.add(new Shard(path, type, origin, Integer.parseInt(m.group(3)), records, bytes, sha, model,
                    dimension, schema));
        }
        return new Manifest(origin, text(n, "store", true), shards);
    }

    // ---------------------------------------------------------------- fields

    private static void requireObject(JsonNode n) {
        if (n == null || !n.isObject()) {
            throw new IllegalArgumentException("expected a JSON object");
        }
    }

    private static String text(JsonNode n, String field, boolean required) {
        JsonNode v = n.get(field);
        if (v == null || v.isNull()) {
            if (required) {
                throw new IllegalArgumentException("'" + field + "' is missing");
            }
            return null;
        }
        if (!v.isTextual()) {
            throw new IllegalArgumentException("'" + field + "' is not a string");
        }
        return v.asText();
    }

    private static long number(JsonNode n, String field) {
        JsonNode v = n.get(field);
        if (v == null || !v.canConvertToLong() || !v.isIntegralNumber()) {
            throw new IllegalArgumentException("'" + field + "' is missing or not an integer");
        }
        return v.asLong();
    }

    private static int integer(JsonNode n, String field) {
        JsonNode v = n.get(field);
        if (v == null || !v.isIntegralNumber() || !v.canConvertToInt()) {
            throw new IllegalArgumentException("'" + field + "' is missing or not an integer");
        }
        return v.asInt();
    }

    private static Instant instant(JsonNode n, String field, boolean required) {
        String t = text(n, field, required);
        if (t == null) {
            return null;
        }
        try {
            return Instant.parse(t);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("'" + field + "' is not an ISO-8601 instant: " + t, e);
        }
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
