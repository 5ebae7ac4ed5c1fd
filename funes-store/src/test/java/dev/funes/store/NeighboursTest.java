package dev.funes.store;

import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.Provenance;
import dev.funes.Retrieval;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * The neighbours' share of the rerank stage ({@link RerankOptions#neighbourWeight()}) in a real
 * store: an exchange next to a strongly matching one in its log file climbs above an equal match
 * elsewhere; an exchange two places away, or in another file, gains nothing; the bonus is the
 * rerank part, so a hit's parts still add up. Lexical retrieval and no other rerank adjustment, so
 * the scores are the words' alone.
 */
class NeighboursTest {

    private static final RerankOptions NEIGHBOURS_ONLY = new RerankOptions(0, 0, 0.8, 100, 0, 0.25);

    private final Embedder embedder = TestModel.shared();

    @Test
    void theTurnNextToAStrongMatchClimbsAboveAnEqualMatchElsewhere(@TempDir Path dir) throws Exception {
        Path talk = log(dir.resolve("talk.jsonl"),
                "Melanie: I signed up for a pottery class at the community studio last week",
                "Caroline: lovely! my first bowl cracked, the glaze ran too thin",
                "Melanie: the kids want to camp by the lake this summer",
                "Caroline: my first bowl cracked too, the glaze ran far too thin in the old kiln at the studio");
        Path other = log(dir.resolve("other.jsonl"),
                "Caroline: my cousin says a bowl glaze can crack, glaze thin and glaze thick");
        Memory pottery = turn(talk, 1);
        Memory next = turn(talk, 2);
        Memory camping = turn(talk, 3);
        Memory twoAway = turn(talk, 4);
        Memory elsewhere = turn(other, 1);
        List<Memory> all = new ArrayList<>(List.of(pottery, next, camping, twoAway, elsewhere));
        all.addAll(chatter(dir));

        String query = "pottery class glaze";
        List<String> plain;
        try (MemoryStore store = FunesStore.open(dir.resolve("plain"), embedder,
                StoreOptions.builder().rerank(new RerankOptions(0, 0, 0.8, 100, 0, 0)).build())) {
            store.addAll(all);
            plain = ids(search(store, query, 10));
        }
        // Words alone: the other file's turn says "glaze" three times and comes before both turns
        // that say it once.
        assertThat(plain).containsExactly(pottery.id(), elsewhere.id(), next.id(), twoAway.id());

        try (MemoryStore store = FunesStore.open(dir.resolve("neighbours"), embedder,
                StoreOptions.builder().rerank(NEIGHBOURS_ONLY).build())) {
            store.addAll(all);
            List<SearchHit> hits = search(store, query, 10);
            assertThat(ids(hits)).containsExactly(pottery.id(), next.id(), elsewhere.id(), twoAway.id());
            SearchHit first = hits.get(0);
            SearchHit climbed = hits.get(1);
            // The reply gains a quarter of the pottery turn's score (before that turn's own bonus,
            // words alone here); its parts add up.
            assertThat(climbed.parts().rerankAdjustment())
                    .isCloseTo(0.25 * first.parts().lexicalContribution(), within(1e-9));
            assertThat(climbed.parts().denseContribution() + climbed.parts().lexicalContribution()
                    + climbed.parts().rerankAdjustment()).isCloseTo(climbed.score(), within(1e-9));
            // The pottery turn's better neighbour is that reply: it gains a quarter of the reply's
            // score before the bonus.
            assertThat(first.parts().rerankAdjustment())
                    .isCloseTo(0.25 * climbed.parts().lexicalContribution(), within(1e-9));
            // Two turns away (the camping turn, unranked, lies between) and in another file: nothing.
            assertThat(hits.get(2).parts().rerankAdjustment()).isZero();
            assertThat(hits.get(3).parts().rerankAdjustment()).isZero();

            // Two hits asked for: the reply's neighbour counts though the reply alone would rank third.
            assertThat(ids(search(store, query, 2))).containsExactly(pottery.id(), next.id());
        }
    }

    @Test
    void onlyExchangesHaveNeighboursAndANoteBetweenTwoTurnsDoesNotSeparateThem(@TempDir Path dir) throws Exception {
        Path talk = log(dir.resolve("talk.jsonl"),
                "Melanie: I signed up for a pottery class at the community studio last week",
                "Decided: buy the kiln",
                "Caroline: my first bowl cracked, the glaze ran too thin");
        Memory pottery = turn(talk, 1);
        Memory decision = Memory.builder(MemoryKind.DECISION, "locomo", "Decided: buy the kiln, the glaze needs it")
                .session("talk").provenance(provenance(talk, 2)).build();
        Memory reply = turn(talk, 3);
        try (MemoryStore store = FunesStore.open(dir.resolve("store"), embedder,
                StoreOptions.builder().rerank(NEIGHBOURS_ONLY).build())) {
            List<Memory> all = new ArrayList<>(List.of(pottery, decision, reply));
            all.addAll(chatter(dir));
            store.addAll(all);
            List<SearchHit> hits = search(store, "pottery class glaze", 10);
            SearchHit replyHit = hits.stream().filter(h -> h.memory().id().equals(reply.id())).findFirst().orElseThrow();
            SearchHit decisionHit = hits.stream().filter(h -> h.memory().id().equals(decision.id())).findFirst()
                    .orElseThrow();
            SearchHit potteryHit = hits.get(0);
            assertThat(potteryHit.memory().id()).isEqualTo(pottery.id());
            // The decision between them is no exchange: it gains nothing, and the two turns are
            // each other's neighbours across it.
            assertThat(decisionHit.parts().rerankAdjustment()).isZero();
            assertThat(replyHit.parts().rerankAdjustment())
                    .isCloseTo(0.25 * potteryHit.parts().lexicalContribution(), within(1e-9));
        }
    }

    @Test
    void aStoreOfSchema10IsGivenTheIndexTheNeighboursAreReadThrough(@TempDir Path dir) throws Exception {
        Path talk = log(dir.resolve("talk.jsonl"), "Melanie: pottery", "Caroline: glaze");
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            store.addAll(List.of(turn(talk, 1), turn(talk, 2)));
        }
        OldStores.downgradeToVersion10(dir);
        assertThat(indexColumns(dir)).containsExactly("source_path");
        try (MemoryStore store = FunesStore.open(dir, embedder,
                StoreOptions.builder().rerank(NEIGHBOURS_ONLY).build())) {
            assertThat(FunesStore.openReport(store).schemaVersion()).isEqualTo(Schema.CURRENT_VERSION);
            assertThat(search(store, "pottery", 10)).hasSize(1);
        }
        assertThat(indexColumns(dir)).containsExactly("source_path", "line_start");
        // Each neighbour is one step of that index, not a sort of the log's memories.
        String plan = String.join("\n", column(dir, "EXPLAIN QUERY PLAN SELECT id FROM memories WHERE source_path = 'x'"
                + " AND line_start < 5 AND kind = 'exchange' ORDER BY line_start DESC LIMIT 1", "detail"));
        assertThat(plan).contains("USING INDEX memories_source").doesNotContain("TEMP B-TREE");
    }

    @Test
    void aNegativeNeighbourWeightIsRefused() {
        assertThatThrownBy(() -> RerankOptions.DEFAULT.withNeighbourWeight(-0.1)).hasMessageContaining("weights");
        assertThat(RerankOptions.DEFAULT.neighbourWeight()).isZero();
        assertThat(RerankOptions.NONE.withNeighbourWeight(0.25).enabled()).isTrue();
    }

    /**
     * Turns of a third log that match no query word: with them, a word three turns say is rare
     * enough for BM25 to count it.
     */
    private static List<Memory> chatter(Path dir) throws Exception {
        Path file = log(dir.resolve("chatter.jsonl"), "Melanie: the kids loved the museum trip",
                "Caroline: I started running in the mornings", "Melanie: we adopted a second cat",
                "Caroline: my mentor called about the conference", "Melanie: the violin lessons are going well",
                "Caroline: I painted a sunrise over the bay");
        List<Memory> turns = new ArrayList<>();
        for (int line = 1; line <= 6; line++) {
            turns.add(turn(file, line));
        }
        return turns;
    }

    private static List<String> indexColumns(Path dir) throws SQLException {
        return column(dir, "PRAGMA index_info(memories_source)", "name");
    }

    /** The values of one column of a statement's rows, read from the store's database. */
    private static List<String> column(Path dir, String sql, String column) throws SQLException {
        List<String> values = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(SqliteMemoryStore.DATABASE_FILE));
             Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                values.add(rs.getString(column));
            }
        }
        return values;
    }

    /** Writes one turn per line and returns the file. */
    private static Path log(Path file, String... turns) throws Exception {
        Files.writeString(file, String.join("\n", turns) + "\n", StandardCharsets.UTF_8);
        return file;
    }

    /** The exchange of line {@code line} of the log: that line's text, cited there. */
    private static Memory turn(Path log, int line) throws Exception {
        String text = Files.readAllLines(log, StandardCharsets.UTF_8).get(line - 1);
        return Memory.builder(MemoryKind.EXCHANGE, "locomo", text).session("talk").provenance(provenance(log, line))
                .build();
    }

    private static Provenance provenance(Path log, int line) throws Exception {
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        long start = 0;
        for (int i = 0; i < line - 1; i++) {
            start += lines.get(i).getBytes(StandardCharsets.UTF_8).length + 1;
        }
        long end = start + lines.get(line - 1).getBytes(StandardCharsets.UTF_8).length + 1;
        return new Provenance(log, line, line, start, end, List.of());
    }

    private static List<SearchHit> search(MemoryStore store, String query, int limit) {
        return store.search(SearchRequest.builder(query).retrieval(Retrieval.LEXICAL).limit(limit).build());
    }

    private static List<String> ids(List<SearchHit> hits) {
        return hits.stream().map(h -> h.memory().id()).toList();
    }
}
