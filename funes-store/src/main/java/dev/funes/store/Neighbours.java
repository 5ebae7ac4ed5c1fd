package dev.funes.store;

import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.ScoreParts;
import dev.funes.SearchHit;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The neighbours' share of the rerank stage ({@link RerankOptions#neighbourWeight()}): over the
 * rolled-up memories, an exchange gains the weight × the score of the better of its two neighbours,
 * the exchanges that begin just before and just after it in the same log file, when that neighbour
 * is among the memories ranked. The bonus is added to the hit's rerank part, so its parts still add
 * up. Neighbours are read through the index of {@code (source_path, line_start)}; exchanges that
 * begin on the same line are not each other's neighbours.
 */
final class Neighbours {

    private static final String PREVIOUS = "SELECT id FROM memories WHERE source_path = ? AND line_start < ?"
            + " AND kind = 'exchange' ORDER BY line_start DESC LIMIT 1";
    private static final String NEXT = "SELECT id FROM memories WHERE source_path = ? AND line_start > ?"
            + " AND kind = 'exchange' ORDER BY line_start LIMIT 1";

    private Neighbours() {
    }

    /**
     * @param ranked memories, best first, each once (what {@link Rollup} returns)
     * @param weight the share of the better neighbour's score, above 0
     * @param limit  most hits returned
     * @return at most {@code limit} hits, best first
     */
    static List<SearchHit> apply(Connection c, List<SearchHit> ranked, double weight, int limit) throws SQLException {
        if (ranked.size() < 2) {
            return ranked;
        }
        Map<String, Double> scores = new HashMap<>();
        for (SearchHit h : ranked) {
            scores.put(h.memory().id(), Math.max(0, h.score()));
        }
        // A hit that cannot reach the last place asked for even with the largest bonus keeps its score:
        // most of them, and their neighbours are not read.
        double largest = weight * Math.max(0, ranked.get(0).score());
        double last = ranked.size() > limit ? ranked.get(limit - 1).score() : Double.NEGATIVE_INFINITY;
        List<SearchHit> hits = new ArrayList<>(ranked.size());
        try (PreparedStatement previous = c.prepareStatement(PREVIOUS);
             PreparedStatement next = c.prepareStatement(NEXT)) {
            for (SearchHit h : ranked) {
                Memory m = h.memory();
                if (m.kind() != MemoryKind.EXCHANGE || m.provenance() == null || h.score() + largest < last) {
                    hits.add(h);
                    continue;
                }
                double better = Math.max(score(previous, m, scores), score(next, m, scores));
                if (better <= 0) {
                    hits.add(h);
                    continue;
                }
                ScoreParts p = h.parts();
                ScoreParts parts = ScoreParts.of(p.denseRank(), p.denseSimilarity(), p.lexicalRank(), p.lexicalScore(),
                        p.denseContribution(), p.lexicalContribution(), p.rerankAdjustment() + weight * better);
                hits.add(new SearchHit(m, parts.fused(), parts, h.passage(), h.morePassages()));
            }
        }
        hits.sort(Comparator.comparingDouble(SearchHit::score).reversed()); // stable: ties keep their order
        return hits.size() > limit ? new ArrayList<>(hits.subList(0, limit)) : hits;
    }

    /** The score among the ranked of the neighbour this statement finds, 0 when it has none or it is not ranked. */
    private static double score(PreparedStatement neighbour, Memory m, Map<String, Double> scores) throws SQLException {
        neighbour.setString(1, m.provenance().source().toString());
        neighbour.setInt(2, m.provenance().lineStart());
        try (ResultSet rs = neighbour.executeQuery()) {
            return rs.next() ? scores.getOrDefault(rs.getString(1), 0.0) : 0;
        }
    }
}
