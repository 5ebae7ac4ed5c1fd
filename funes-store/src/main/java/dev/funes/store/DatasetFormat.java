package dev.funes.store;

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
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
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
    static final int VERSION = 1;
    static final String DATA = "data";
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

    private DatasetFormat() {
    }

    /** One shard as its origin's manifest lists it. */
    record Shard(String path, String type, String origin, int sequence, long records, long bytes, String sha256,
                 String vectorModel, int dimension) {
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

    // ---------------------------------------------------------------- records

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
            n.putNull("source");
        } else {
            ObjectNode s = n.putObject("source");
            s.put("path", p.source().toString());
            s.put("lineStart", p.lineStart());
            s.put("lineEnd", p.lineEnd());
            s.put("byteStart", p.byteStart());
            s.put("byteEnd", p.byteEnd());
            ArrayNode ids = s.putArray("recordIds");
            p.recordIds().forEach(ids::add);
        }
        ObjectNode meta = n.putObject("metadata");
        new TreeMap<>(m.metadata()).forEach(meta::put);
        n.put("contentHash", m.contentHash());
        if (vector != null) {
            n.put("vector", Base64.getEncoder().encodeToString(Rows.vectorBytes(vector)));
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
     * Reads a memory record.
     *
     * @throws IllegalArgumentException saying which field is wrong
     */
    static MemoryRecord parseMemory(JsonNode n, Shard shard) {
        requireObject(n);
        String id = text(n, "id", true);
        String text = text(n, "text", true);
        Provenance provenance = null;
        JsonNode s = n.get("source");
        if (s != null && !s.isNull()) {
            requireObject(s);
            List<String> recordIds = new ArrayList<>();
            JsonNode ids = s.get("recordIds");
            if (ids != null && !ids.isNull()) {
                if (!ids.isArray()) {
                    throw new IllegalArgumentException("source.recordIds is not an array");
                }
                for (JsonNode r : ids) {
                    if (!r.isTextual()) {
                        throw new IllegalArgumentException("source.recordIds holds a non-string");
                    }
                    recordIds.add(r.asText());
                }
            }
            provenance = new Provenance(Path.of(text(s, "path", true)), integer(s, "lineStart"),
                    integer(s, "lineEnd"), number(s, "byteStart"), number(s, "byteEnd"), recordIds);
        }
        Map<String, String> metadata = new TreeMap<>();
        JsonNode meta = n.get("metadata");
        if (meta != null && !meta.isNull()) {
            requireObject(meta);
            for (Iterator<Map.Entry<String, JsonNode>> it = meta.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (!e.getValue().isTextual()) {
                    throw new IllegalArgumentException("metadata." + e.getKey() + " is not a string");
                }
                metadata.put(e.getKey(), e.getValue().asText());
            }
        }
        Memory memory = new Memory(id, MemoryKind.fromLabel(text(n, "kind", true)), text, instant(n, "startedAt", false),
                instant(n, "endedAt", false), text(n, "agent", true), text(n, "project", false),
                text(n, "session", false), provenance, metadata);
        String hash = text(n, "contentHash", true);
        if (!hash.equals(memory.contentHash())) {
            throw new IllegalArgumentException("contentHash " + hash + " is not the SHA-256 of the text ("
                    + memory.contentHash() + "): the text was changed after export");
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
            for (float f : vector) {
                if (!Float.isFinite(f)) {
                    throw new IllegalArgumentException("vector holds " + f);
                }
            }
        }
        return new MemoryRecord(memory, instant(n, "addedAt", true), vector, shard.vectorModel());
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
            if (s.vectorModel() != null) {
                ObjectNode v = o.putObject("vectors");
                v.put("model", s.vectorModel());
                v.put("dimension", s.dimension());
                v.put("encoding", "base64 float32 little-endian");
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
            shards.add(new Shard(path, type, origin, Integer.parseInt(m.group(3)), records, bytes, sha, model,
                    dimension));
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
