package dev.funes.store;

import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.Retrieval;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The full-text index holds a passage without the request its header quotes (the exchange's
 * words, held by the exchange itself), in Java and in SQLite alike, in a new store and in one
 * made before this rule, which opening upgrades.
 */
class LexicalTextTest {

    private static final String REQUEST = "wire the parseZanzibarFlux helper into the build";
    private static final String HEADER = "Assistant \u00b7 2025-10-14 \u00b7 on: " + REQUEST;

    private final Embedder embedder = TestModel.shared();

    @Test
    void aPassageHeaderLosesTheRequestItQuotesAndNothingElse() {
        assertThat(LexicalText.of("passage", HEADER + "\nthe capacitor was replaced\nand tested"))
                .isEqualTo("Assistant \u00b7 2025-10-14\nthe capacitor was replaced\nand tested");
        // Only the header line quotes a request: the same words further down are the passage's own.
        String quoted = "Result of [Bash] grep -n on: notes.md\n3: Assistant \u00b7 2025-10-14 \u00b7 on: the build";
        assertThat(LexicalText.of("passage", quoted)).isEqualTo(quoted);
        assertThat(LexicalText.of("passage", HEADER)).isEqualTo(HEADER);
        assertThat(LexicalText.of("exchange", HEADER + "\nbody")).isEqualTo(HEADER + "\nbody");
        assertThat(LexicalText.of("decision", HEADER + "\nbody")).isEqualTo(HEADER + "\nbody");
    }

    @Test
    void sqliteLeavesOutTheSameTextAsJava() throws SQLException {
        List<String> texts = List.of(
                HEADER + "\nthe capacitor was replaced",
                "Thinking \u00b7 2025-10-08 \u00b7 on: \u276f ./run.sh \ud83d\udc33 Building container image\u2026\n\u00c9t\u00e9: \u65e5\u672c\u8a9e \ud83d\udc33 done",
                "User \u00b7 2025-10-14\nno request here \u00b7 on: but this line is body",
                HEADER,
                "",
                "\n\u00b7 on: x\ny");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite::memory:");
             Statement s = c.createStatement()) {
            s.execute("CREATE TABLE memories (kind TEXT, text TEXT)");
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO memories (kind, text) VALUES (?, ?)")) {
                for (String kind : new String[] {"passage", "exchange"}) {
                    for (String text : texts) {
                        insert.setString(1, kind);
                        insert.setString(2, text);
                        insert.executeUpdate();
                    }
                }
            }
            int rows = 0;
            int changed = 0;
            try (ResultSet rs = s.executeQuery("SELECT kind, text, " + LexicalText.sql("memories") + " FROM memories")) {
                while (rs.next()) {
                    rows++;
                    String expected = LexicalText.of(rs.getString(1), rs.getString(2));
                    assertThat(rs.getString(3)).as("%s %s", rs.getString(1), rs.getString(2)).isEqualTo(expected);
                    changed += expected.equals(rs.getString(2)) ? 0 : 1;
                }
            }
            assertThat(rows).isEqualTo(2 * texts.size());
            assertThat(changed).isEqualTo(2); // the two passages whose header quotes a request
        }
    }

    @Test
    void aPassageIsNotFoundByTheRequestItsHeaderQuotesButItsExchangeIs(@TempDir Path dir) throws SQLException {
        Memory exchange = exchange();
        Memory passage = passage(exchange);
        try (MemoryStore store = storeWith(dir, exchange, passage)) {
            assertSearches(store, exchange, passage);
        }
        assertIndexed(dir, exchange, passage);
    }

    @Test
    void aVersion9StoreIsUpgradedAndItsPassagesNoLongerMatchTheirRequest(@TempDir Path dir) throws SQLException {
        Memory exchange = exchange();
        Memory passage = passage(exchange);
        storeWith(dir, exchange, passage).close();
        OldStores.downgradeToVersion9(dir);
        try (Connection c = connect(dir)) {
            assertThat(Rows.single(c, "PRAGMA user_version")).isEqualTo(9L);
            // As that version indexed it: the passage matches its request's words and identifier parts.
            assertThat(matches(c, "zanzibar")).containsExactlyInAnyOrder(exchange.id(), passage.id());
            assertThat(terms(c, passage)).contains("zanzibar");
        }
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            assertThat(FunesStore.openReport(store).schemaVersionFound()).isEqualTo(9);
            assertThat(FunesStore.openReport(store).schemaVersion()).isEqualTo(Schema.CURRENT_VERSION);
            assertSearches(store, exchange, passage);
        }
        assertIndexed(dir, exchange, passage);
        CheckReport report = FunesStore.check(dir, embedder, false);
        assertThat(report.problems()).isEmpty();
        assertThat(report.findings()).anySatisfy(f -> assertThat(f.message())
                .isEqualTo("the full-text index matches the memories"));
    }

    /** A new store at {@code dir} holding {@code memories}, open. */
    private MemoryStore storeWith(Path dir, Memory... memories) {
        MemoryStore store = FunesStore.open(dir, embedder);
        store.addAll(List.of(memories));
        return store;
    }

    private static void assertSearches(MemoryStore store, Memory exchange, Memory passage) {
        // The request's words find the exchange, by its own text, not through the passage.
        List<SearchHit> byRequest = store.search(SearchRequest.builder("zanzibar flux")
                .retrieval(Retrieval.LEXICAL).build());
        assertThat(byRequest).singleElement().satisfies(hit -> {
            assertThat(hit.memory().id()).isEqualTo(exchange.id());
            assertThat(hit.passages()).extracting(Memory::id).doesNotContain(passage.id());
        });
        // The passage's own words find it, and its text still shows the request.
        SearchHit byBody = store.search(SearchRequest.builder("capacitor").retrieval(Retrieval.LEXICAL).build()).get(0);
        assertThat(byBody.memory().id()).isEqualTo(exchange.id());
        assertThat(byBody.passage().id()).isEqualTo(passage.id());
        assertThat(byBody.passage().text()).startsWith(HEADER);
    }

    private static void assertIndexed(Path dir, Memory exchange, Memory passage) throws SQLException {
        try (Connection c = connect(dir)) {
            assertThat(matches(c, "zanzibar")).containsExactly(exchange.id());
            assertThat(matches(c, "capacitor")).containsExactly(passage.id());
            assertThat(matches(c, "assistant")).containsExactly(passage.id());
            assertThat(terms(c, passage)).doesNotContain("zanzibar");
            assertThat(terms(c, exchange)).contains("zanzibar");
        }
    }

    private static Memory exchange() {
        return Memory.builder(MemoryKind.EXCHANGE, "claude-code", "User: " + REQUEST + "\n[Edit] build.gradle").session("s1").build();
    }

    private static Memory passage(Memory of) {
        return Memory.builder(MemoryKind.PASSAGE, "claude-code", HEADER + "\nthe capacitor was replaced").session("s1")
                .metadata(Memory.PASSAGE_OF, of.id()).build();
    }

    private static Connection connect(Path dir) throws SQLException {
        return DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(SqliteMemoryStore.DATABASE_FILE));
    }

    /** The ids of the memories whose full-text row matches {@code word}. */
    private static List<String> matches(Connection c, String word) throws SQLException {
        List<String> ids = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT m.id FROM memories_fts f JOIN memories m ON m.seq = f.rowid"
                + " WHERE memories_fts MATCH ?")) {
            ps.setString(1, word);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getString(1));
                }
            }
        }
        return ids;
    }

    private static String terms(Connection c, Memory m) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT terms FROM memories WHERE id = ?")) {
            ps.setString(1, m.id());
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).isTrue();
                return rs.getString(1);
            }
        }
    }
}
