package dev.funes.springai;

import dev.funes.MemoryStore;
import dev.funes.store.FunesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.ai.document.Document;
import org.springframework.ai.vectorstore.SearchRequest;
import org.springframework.ai.vectorstore.VectorStore;
import org.springframework.ai.vectorstore.filter.Filter;
import org.springframework.ai.vectorstore.filter.FilterExpressionBuilder;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Spring AI's documented {@link VectorStore} behaviour (the javadoc of {@code VectorStore} and
 * {@code SearchRequest}, and the filter language of {@code FilterExpressionTextParser}), checked on
 * a real Funes store with the real MiniLM model. Spring AI 2.0.1 ships no reusable contract suite
 * for vector stores, so this is one written from those documents.
 */
class FunesVectorStoreContractTest {

    @TempDir
    Path dir;
    private MemoryStore memory;
    private VectorStore store;

    private final Document sofia = new Document("sofia", "Sofia is the capital of Bulgaria, at the foot of Vitosha mountain",
            Map.of("country", "BG", "year", 2020, "active", true, "price", 134.34));
    private final Document plovdiv = new Document("plovdiv", "Plovdiv is an old Bulgarian city built on seven hills",
            Map.of("country", "BG", "year", 2023, "active", false, "city", "Plovdiv"));
    private final Document amsterdam = new Document("amsterdam", "Amsterdam is the Dutch capital, known for its canals",
            Map.of("country", "NL", "year", 2023, "active", true, "price", 99.5, "city", "Amsterdam"));
    private final Document recipe = new Document("recipe", "Whisk two eggs with flour and milk to make pancakes",
            Map.of("kind", "note", "year", 2019L));

    @BeforeEach
    void open() {
        memory = FunesStore.open(dir, TestModel.embedder());
        store = FunesVectorStore.builder(memory, TestModel.embedder()).build();
        store.add(List.of(sofia, plovdiv, amsterdam, recipe));
    }

    @AfterEach
    void close() {
        memory.close();
    }

    private List<Document> search(String query, int topK, double threshold, Filter.Expression filter) {
        return store.similaritySearch(SearchRequest.builder().query(query).topK(topK).similarityThreshold(threshold)
                .filterExpression(filter).build());
    }

    private Set<String> ids(List<Document> documents) {
        return documents.stream().map(Document::getId).collect(Collectors.toSet());
    }

    @Test
    void addedDocumentsAreFoundWithTheirIdTextMetadataAndAScoreBestFirst() {
        List<Document> found = store.similaritySearch(SearchRequest.builder().query("capital of Bulgaria").topK(4).build());
        assertThat(found).extracting(Document::getId).hasSize(4).first().isEqualTo("sofia");
        Document first = found.get(0);
        assertThat(first.getText()).isEqualTo(sofia.getText());
        assertThat(first.getMetadata()).containsAllEntriesOf(sofia.getMetadata());
        assertThat(first.getMetadata().get("year")).isInstanceOf(Integer.class);
        assertThat(first.getMetadata().get("price")).isInstanceOf(Double.class);
        assertThat(first.getMetadata().get("active")).isEqualTo(true);
        assertThat(first.getMetadata()).containsEntry("distance", 1 - first.getScore());
        assertThat(found).extracting(Document::getScore).isSortedAccordingTo((a, b) -> Double.compare(b, a));
        assertThat(first.getScore()).isBetween(0.3, 1.0);
    }

    @Test
    void theStringFormSearchesWithTheDefaultTopK() {
        Document extra = new Document("extra", "Varna is a Bulgarian city on the Black Sea", Map.of());
        store.add(List.of(extra));
        assertThat(store.similaritySearch("Bulgarian city")).hasSize(SearchRequest.DEFAULT_TOP_K);
    }

    @Test
    void topKLimitsTheAnswerToTheBestDocuments() {
        List<Document> all = search("a city in Bulgaria", 100, 0, null);
        assertThat(all).hasSize(4);
        assertThat(search("a city in Bulgaria", 2, 0, null)).extracting(Document::getId)
                .containsExactlyElementsOf(all.subList(0, 2).stream().map(Document::getId).toList());
        assertThat(search("a city in Bulgaria", 0, 0, null)).isEmpty();
    }

    @Test
    void theSimilarityThresholdKeepsExactlyTheDocumentsScoringAtLeastIt() {
        List<Document> all = search("Bulgarian city on hills", 100, 0, null);
        double between = (all.get(1).getScore() + all.get(2).getScore()) / 2;
        assertThat(search("Bulgarian city on hills", 100, between, null)).extracting(Document::getId)
                .containsExactly(all.get(0).getId(), all.get(1).getId());
        // 1.0 asks for an exact match: the text itself.
        assertThat(search(plovdiv.getText(), 100, 1.0, null)).extracting(Document::getId).containsExactly("plovdiv");
        assertThat(search("Bulgarian city on hills", 100, 1.0, null)).isEmpty();
    }

    @Test
    void addingAnIdAgainReplacesTheDocument() {
        store.add(List.of(new Document("sofia", "Sofia has a metro with three lines", Map.of("country", "BG"))));
        List<Document> found = search("metro lines", 1, 0, null);
        assertThat(found).extracting(Document::getId).containsExactly("sofia");
        assertThat(found.get(0).getText()).isEqualTo("Sofia has a metro with three lines");
        assertThat(found.get(0).getMetadata()).doesNotContainKey("year");
        assertThat(search("capital", 100, 0, null)).hasSize(4);
    }

    @Test
    void deleteByIdRemovesThoseDocumentsOnlyAndIgnoresUnknownIds() {
        store.delete(List.of("sofia", "no-such-id"));
        assertThat(ids(search("capital", 100, 0, null))).containsExactlyInAnyOrder("plovdiv", "amsterdam", "recipe");
        assertThat(memory.get("sofia")).isEmpty();
        store.delete(List.of("plovdiv"));
        assertThat(ids(search("capital", 100, 0, null))).containsExactlyInAnyOrder("amsterdam", "recipe");
    }

    @Test
    void deleteByFilterExpressionRemovesTheMatchingDocuments() {
        store.delete(new FilterExpressionBuilder().eq("country", "BG").build());
        assertThat(ids(search("capital", 100, 0, null))).containsExactlyInAnyOrder("amsterdam", "recipe");
        store.delete("year >= 2023 && active == true");
        assertThat(ids(search("capital", 100, 0, null))).containsExactly("recipe");
    }

    /** The documented text form, parsed by Spring AI's FilterExpressionTextParser, against the expected ids. */
    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
            "country == 'BG' ; sofia plovdiv",
            "country != 'BG' ; amsterdam recipe",
            "year == 2023 ; plovdiv amsterdam",
            "year == 2019 ; recipe",
            "year > 2020 ; plovdiv amsterdam",
            "year >= 2020 ; sofia plovdiv amsterdam",
            "year < 2023 ; sofia recipe",
            "year <= 2020 ; sofia recipe",
            "price < 134.34 ; amsterdam",
            "price <= 134.34 ; sofia amsterdam",
            "active == true ; sofia amsterdam",
            "active == false ; plovdiv",
            "city IN ['Plovdiv', 'Amsterdam'] ; plovdiv amsterdam",
            "city NOT IN ['Plovdiv'] ; sofia amsterdam recipe",
            "country == 'BG' && year >= 2021 ; plovdiv",
            "country == 'NL' || year == 2020 ; sofia amsterdam",
            "country == 'BG' && (city NOT IN ['Sofia', 'Plovdiv'] || price < 134.34) ; sofia",
            "NOT(country == 'BG') ; amsterdam recipe",
            "city IS NULL ; sofia recipe",
            "city IS NOT NULL ; plovdiv amsterdam",
            "city > 'B' ; plovdiv",
            "kind == 'note' ; recipe",
            "country == 'BG' && country == 'NL' ; ''",
    })
    void filterExpressionsInTheTextForm(String text, String expected) {
        Set<String> want = expected.isBlank() ? Set.of() : Set.of(expected.trim().split(" +"));
        List<Document> found = store.similaritySearch(SearchRequest.builder().query("a place").topK(100)
                .filterExpression(text).build());
        assertThat(ids(found)).as(text).isEqualTo(want);
    }

    @Test
    void filterExpressionsBuiltInCode() {
        FilterExpressionBuilder b = new FilterExpressionBuilder();
        assertThat(ids(search("x", 100, 0, b.and(b.eq("country", "BG"), b.eq("active", true)).build())))
                .containsExactly("sofia");
        assertThat(ids(search("x", 100, 0, b.in("year", 2019, 2020).build()))).containsExactlyInAnyOrder("sofia", "recipe");
        assertThat(ids(search("x", 100, 0, b.nin("country", "BG", "NL").build()))).containsExactly("recipe");
        assertThat(ids(search("x", 100, 0, b.not(b.group(b.or(b.eq("country", "BG"), b.lt("year", 2020)))).build())))
                .containsExactly("amsterdam");
        // Numbers compare as numbers whatever their Java type: the Long 2019 equals 2019, the Integer 2023 2023.0.
        assertThat(ids(search("x", 100, 0, b.eq("year", 2019).build()))).containsExactly("recipe");
        assertThat(ids(search("x", 100, 0, b.eq("year", 2023.0).build()))).containsExactlyInAnyOrder("plovdiv", "amsterdam");
        // A filter with the threshold and topK: all three apply.
        List<Document> two = search("Bulgaria", 1, 0, b.eq("country", "BG").build());
        assertThat(two).extracting(Document::getId).containsExactly("sofia");
    }

    @Test
    void anExpressionFunesCannotEvaluateIsRefusedNamingIt() {
        Filter.Expression orderedBoolean = new Filter.Expression(Filter.ExpressionType.GT, new Filter.Key("active"),
                new Filter.Value(true));
        assertThatThrownBy(() -> search("x", 10, 0, orderedBoolean)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Funes cannot apply the filter expression")
                .hasMessageContaining(orderedBoolean.toString()).hasMessageContaining("does not order Booleans");

        Filter.Expression inWithoutList = new Filter.Expression(Filter.ExpressionType.IN, new Filter.Key("city"),
                new Filter.Value("Sofia"));
        Filter.Expression nested = new Filter.Expression(Filter.ExpressionType.AND,
                new Filter.Expression(Filter.ExpressionType.EQ, new Filter.Key("country"), new Filter.Value("BG")),
                inWithoutList);
        assertThatThrownBy(() -> search("x", 10, 0, nested)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(nested.toString()).hasMessageContaining("(in " + inWithoutList + ")")
                .hasMessageContaining("IN needs a list of values");

        Filter.Expression keyOnTheRight = new Filter.Expression(Filter.ExpressionType.EQ, new Filter.Value("BG"),
                new Filter.Key("country"));
        assertThatThrownBy(() -> search("x", 10, 0, keyOnTheRight)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("EQ needs a metadata key on its left");

        Filter.Expression mapValue = new Filter.Expression(Filter.ExpressionType.EQ, new Filter.Key("country"),
                new Filter.Value(Map.of("a", 1)));
        assertThatThrownBy(() -> search("x", 10, 0, mapValue)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not one metadata can hold");

        Filter.Expression andOfKeys = new Filter.Expression(Filter.ExpressionType.AND, new Filter.Key("a"),
                new Filter.Key("b"));
        // Refused before anything is deleted.
        assertThatThrownBy(() -> store.delete(andOfKeys)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("AND needs expressions as operands");
        assertThat(search("x", 100, 0, null)).hasSize(4);
    }
}
