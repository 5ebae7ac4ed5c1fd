package dev.funes.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.funes.Memory;
import dev.funes.Provenance;
import dev.funes.ScoreParts;
import dev.funes.SearchHit;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The JSON form of search hits: the contract in docs/CLI.md that tools and tests rely on. */
final class HitJson {

    static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private HitJson() {
    }

    /** A JSON array of the hits, best first. */
    static String array(List<SearchHit> hits) {
        ArrayNode array = MAPPER.createArrayNode();
        for (SearchHit hit : hits) {
            array.add(hit(hit));
        }
        try {
            return MAPPER.writeValueAsString(array);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("a tree of strings and numbers always serializes", e);
        }
    }

    static ObjectNode hit(SearchHit hit) {
        Memory memory = hit.memory();
        ObjectNode node = MAPPER.createObjectNode();
        node.put("text", memory.text());
        node.put("score", hit.score());
        node.put("kind", memory.kind().label());
        node.put("agent", memory.agent());
        node.put("session", memory.session());
        node.put("timestamp", timestamp(memory));
        Provenance provenance = memory.provenance();
        if (provenance != null) {
            ObjectNode source = node.putObject("source");
            source.put("path", provenance.source().toString());
            source.put("lineStart", provenance.lineStart());
            source.put("lineEnd", provenance.lineEnd());
            source.put("byteStart", provenance.byteStart());
            source.put("byteEnd", provenance.byteEnd());
            String changed = memory.metadata().get(dev.funes.SourceState.CHANGED_KEY);
            if (changed != null) {
                source.put("changedSince", changed);
            }
        } else {
            node.putNull("source");
        }
        if (hit.passage() != null && hit.passage().provenance() != null) {
            passage(node.putObject("passage"), hit.passage());
            if (!hit.morePassages().isEmpty()) {
                ArrayNode more = node.putArray("morePassages");
                for (Memory p : hit.morePassages()) {
                    if (p.provenance() != null) {
                        passage(more.addObject(), p);
                    }
                }
            }
        }
        node.put("id", memory.id());
        node.put("project", memory.project());
        node.put("startedAt", memory.startedAt() == null ? null : memory.startedAt().toString());
        node.put("endedAt", memory.endedAt() == null ? null : memory.endedAt().toString());
        ScoreParts parts = hit.parts();
        ObjectNode explain = node.putObject("scoreParts");
        if (parts.denseRank() > 0) {
            explain.put("denseRank", parts.denseRank());
            explain.put("denseSimilarity", parts.denseSimilarity());
        }
        if (parts.lexicalRank() > 0) {
            explain.put("lexicalRank", parts.lexicalRank());
            explain.put("lexicalScore", parts.lexicalScore());
        }
        if (parts.hasContributions()) {
            explain.put("dense", parts.denseContribution());
            explain.put("lexical", parts.lexicalContribution());
            explain.put("rerank", parts.rerankAdjustment());
        }
        explain.put("fused", parts.fused());
        ObjectNode metadata = node.putObject("metadata");
        // Sorted: the same hit prints the same bytes in every process (an immutable map's order is not).
        for (Map.Entry<String, String> entry : new TreeMap<>(memory.metadata()).entrySet()) {
            metadata.put(entry.getKey(), entry.getValue());
        }
        return node;
    }

    /** One passage: its words, the header line that says where they were said, and what it cites. */
    private static void passage(ObjectNode p, Memory passage) {
        p.put("text", SearchHit.body(passage));
        p.put("context", SearchHit.header(passage));
        p.put("lineStart", passage.provenance().lineStart());
        p.put("lineEnd", passage.provenance().lineEnd());
        p.put("byteStart", passage.provenance().byteStart());
        p.put("byteEnd", passage.provenance().byteEnd());
        p.put("id", passage.id());
        String changed = passage.metadata().get(dev.funes.SourceState.CHANGED_KEY);
        if (changed != null) {
            p.put("changedSince", changed);
        }
    }

    /** When the memory happened: its start, else its end; {@code null} when the log had no times. */
    static String timestamp(Memory memory) {
        Instant t = memory.startedAt() != null ? memory.startedAt() : memory.endedAt();
        return t == null ? null : t.toString();
    }
}
