package dev.funes.solr;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.Provenance;
import dev.funes.SourceState;
import dev.funes.StoreException;
import dev.funes.store.HybridRanking;
import org.apache.solr.common.SolrDocument;
import org.apache.solr.common.SolrInputDocument;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Memories and log checkpoints as documents of the team collection (schema.xml in the configset). */
final class MemoryDocs {

    static final String MEMORY = "memory";
    static final String SOURCE = "source";
    static final String META = "meta";
    /** The id of the document that records the collection's embedding model. */
    static final String META_ID = "funes:meta";
    /** The fields a search or get reads back (the vector is left out: it is large and unused). */
    static final String FIELDS = "id,doc,kind,text,started_at,ended_at,agent,project,session,metadata_json,"
            + "provenance_json,text_hash,origin,owner";
    /** Separates agent and session in session_key (a character neither holds). */
    static final char SESSION_SEPARATOR = '\u001f';

    private static final ObjectMapper JSON = new ObjectMapper();

    private MemoryDocs() {
    }

    /** The document of a memory, its vector, and who published it (either may be null). */
    static SolrInputDocument memory(Memory m, float[] vector, String batch, String origin, String owner) {
        SolrInputDocument d = new SolrInputDocument();
        d.setField("id", m.id());
        d.setField("doc", MEMORY);
        d.setField("kind", m.kind().label());
        d.setField("text", m.text());
        List<String> lex = new ArrayList<>(2);
        String indexed = HybridRanking.indexText(m);
        lex.add(indexed);
        String terms = HybridRanking.indexTerms(indexed);
        if (!terms.isEmpty()) {
            lex.add(terms);
        }
        d.setField("lex", lex);
        d.setField("text_hash", m.contentHash());
        d.setField("agent", m.agent());
        setIfPresent(d, "project", m.project());
        setIfPresent(d, "session", m.session());
        if (m.session() != null) {
            d.setField("session_key", m.agent() + SESSION_SEPARATOR + m.session());
        }
        if (m.startedAt() != null) {
            d.setField("started_at", m.startedAt().toString());
        }
        if (m.endedAt() != null) {
            d.setField("ended_at", m.endedAt().toString());
        }
        Instant t = m.endedAt() != null ? m.endedAt() : m.startedAt();
        if (t != null) {
            d.setField("time_ns", nanos(t));
            d.setField("start_ns", nanos(m.startedAt() != null ? m.startedAt() : m.endedAt()));
        }
        if (!m.metadata().isEmpty()) {
            d.setField("metadata_json", json(m.metadata()));
        }
        if (m.provenance() != null) {
            Provenance p = m.provenance();
            Map<String, Object> pm = new LinkedHashMap<>();
            pm.put("source", p.source().toString());
            pm.put("lineStart", p.lineStart());
            pm.put("lineEnd", p.lineEnd());
            pm.put("byteStart", p.byteStart());
            pm.put("byteEnd", p.byteEnd());
            pm.put("recordIds", p.recordIds());
            d.setField("provenance_json", json(pm));
            d.setField("source_path", p.source().toString());
        }
        List<Float> v = new ArrayList<>(vector.length);
        for (float f : vector) {
            v.add(f);
        }
        d.setField("vector", v);
        d.setField("batch", batch);
        setIfPresent(d, "origin", origin);
        setIfPresent(d, "owner", owner);
        return d;
    }

    /** The memory a document holds. */
    static Memory memory(SolrDocument d) {
        Provenance provenance = null;
        String pj = (String) d.getFirstValue("provenance_json");
        if (pj != null) {
            Map<String, Object> pm = read(pj, new TypeReference<>() { });
            @SuppressWarnings("unchecked")
            List<String> records = (List<String>) pm.get("recordIds");
            provenance = new Provenance(Path.of((String) pm.get("source")), ((Number) pm.get("lineStart")).intValue(),
                    ((Number) pm.get("lineEnd")).intValue(), ((Number) pm.get("byteStart")).longValue(),
                    ((Number) pm.get("byteEnd")).longValue(), records);
        }
        String mj = (String) d.getFirstValue("metadata_json");
        Map<String, String> metadata = mj == null ? Map.of() : read(mj, new TypeReference<Map<String, String>>() { });
        return new Memory((String) d.getFirstValue("id"), MemoryKind.fromLabel((String) d.getFirstValue("kind")),
                (String) d.getFirstValue("text"), instant(d, "started_at"), instant(d, "ended_at"),
                (String) d.getFirstValue("agent"), (String) d.getFirstValue("project"),
                (String) d.getFirstValue("session"), provenance, metadata);
    }

    /** The stored vector of a document read with the {@code vector} field. */
    static float[] vector(SolrDocument d) {
        Object v = d.getFieldValue("vector");
        List<?> list = v instanceof List<?> l ? l : List.of();
        float[] out = new float[list.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = ((Number) list.get(i)).floatValue();
        }
        return out;
    }

    /** The id of the checkpoint document of a (redacted, normalized) log path. */
    static String sourceId(String path) {
        return "source:" + Memory.builder(MemoryKind.NOTE, "-", path).build().contentHash();
    }

    static SolrInputDocument source(SourceState s, String path, String batch) {
        SolrInputDocument d = new SolrInputDocument();
        d.setField("id", sourceId(path));
        d.setField("doc", SOURCE);
        d.setField("source_path", path);
        d.setField("batch", batch);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("path", path);
        m.put("size", s.size());
        m.put("lastModified", s.lastModified().toString());
        m.put("indexedBytes", s.indexedBytes());
        m.put("indexedLines", s.indexedLines());
        m.put("headFingerprint", s.headFingerprint());
        m.put("format", s.format());
        m.put("indexedAt", s.indexedAt().toString());
        m.put("resume", s.resume());
        d.setField("source_json", json(m));
        return d;
    }

    static SourceState source(SolrDocument d) {
        Map<String, Object> m = read((String) d.getFirstValue("source_json"), new TypeReference<>() { });
        return new SourceState(Path.of((String) m.get("path")), ((Number) m.get("size")).longValue(),
                Instant.parse((String) m.get("lastModified")), ((Number) m.get("indexedBytes")).longValue(),
                ((Number) m.get("indexedLines")).longValue(), (String) m.get("headFingerprint"),
                (String) m.get("format"), Instant.parse((String) m.get("indexedAt")), (String) m.get("resume"));
    }

    /** Nanoseconds since the epoch, clamped to the range of a long (years 1677 to 2262). */
    static long nanos(Instant t) {
        try {
            return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000_000L), t.getNano());
        } catch (ArithmeticException e) {
            return t.getEpochSecond() < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }

    private static Instant instant(SolrDocument d, String field) {
        String s = (String) d.getFirstValue(field);
        return s == null ? null : Instant.parse(s);
    }

    private static void setIfPresent(SolrInputDocument d, String field, String value) {
        if (value != null) {
            d.setField(field, value);
        }
    }

    private static String json(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new StoreException("cannot write a memory field as JSON: " + e.getOriginalMessage(), e);
        }
    }

    private static <T> T read(String json, TypeReference<T> type) {
        try {
            return JSON.readValue(json, type);
        } catch (JsonProcessingException e) {
            throw new StoreException("a team document holds malformed JSON: " + e.getOriginalMessage(), e);
        }
    }
}
