package dev.funes.store;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** The rerank stage's stemmer, against the algorithm's published examples and the full-text index's own. */
class PorterStemmerTest {

    @Test
    void theAlgorithmsExamplesStemAsPublished() {
        Map<String, String> examples = new TreeMap<>();
        String[] pairs = {
                "caresses", "caress", "ponies", "poni", "ties", "ti", "cats", "cat", "feed", "feed", "agreed", "agre",
                "plastered", "plaster", "bled", "bled", "motoring", "motor", "sing", "sing", "conflated", "conflat",
                "troubled", "troubl", "sized", "size", "hopping", "hop", "tanned", "tan", "falling", "fall",
                "hissing", "hiss", "fizzed", "fizz", "failing", "fail", "filing", "file", "happy", "happi",
                "sky", "sky", "relational", "relat", "conditional", "condit", "rational", "ration",
                "digitizer", "digit", "vietnamization", "vietnam", "operator", "oper", "feudalism", "feudal",
                "decisiveness", "decis", "hopefulness", "hope", "sensibiliti", "sensibl", "triplicate", "triplic",
                "formative", "form", "electrical", "electr", "goodness", "good", "revival", "reviv",
                "allowance", "allow", "airliner", "airlin", "adjustable", "adjust", "defensible", "defens",
                "replacement", "replac", "adoption", "adopt", "communism", "commun", "homologous", "homolog",
                "effective", "effect", "probate", "probat", "rate", "rate", "cease", "ceas", "controll", "control",
                "roll", "roll", "topology", "topolog", "possibly", "possibl"};
        for (int i = 0; i < pairs.length; i += 2) {
            examples.put(pairs[i], pairs[i + 1]);
        }
        examples.forEach((word, stem) -> assertThat(PorterStemmer.stem(word)).as(word).isEqualTo(stem));
    }

    @Test
    void inflectionsOfOneWordShareAStem() {
        // The suffix-stripping this replaced stemmed "files" to "fil" and "committing" to "committ".
        assertThat(Stream.of("file", "files", "filed").map(PorterStemmer::stem)).containsOnly("file");
        assertThat(Stream.of("commit", "commits", "committed", "committing").map(PorterStemmer::stem))
                .containsOnly("commit");
        assertThat(Stream.of("query", "queries").map(PorterStemmer::stem)).containsOnly("queri");
        assertThat(Rerank.matched("The files were committed.", Rerank.stems(List.of("file", "commit"))))
                .containsExactlyInAnyOrder("file", "commit");
        // Not all lower-case ASCII letters, or too short: as given.
        assertThat(PorterStemmer.stem("utf8")).isEqualTo("utf8");
        assertThat(PorterStemmer.stem("données")).isEqualTo("données");
        assertThat(PorterStemmer.stem("is")).isEqualTo("is");
    }

    @Test
    void wordsStemAsTheFullTextIndexStemsThem() throws IOException, SQLException {
        TreeSet<String> words = realWords();
        assertThat(words).hasSizeGreaterThan(3000);

        Map<String, String> index = new TreeMap<>();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite::memory:");
             Statement s = c.createStatement()) {
            s.execute("CREATE VIRTUAL TABLE t USING fts5(text, tokenize = '" + Schema.FTS_TOKENIZE + "')");
            s.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)");
            List<String> list = new ArrayList<>(words);
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO t(rowid, text) VALUES (?, ?)")) {
                for (int i = 0; i < list.size(); i++) {
                    insert.setInt(1, i);
                    insert.setString(2, list.get(i));
                    insert.addBatch();
                }
                insert.executeBatch();
            }
            try (ResultSet rs = s.executeQuery("SELECT doc, term FROM v")) {
                while (rs.next()) {
                    index.put(list.get(rs.getInt(1)), rs.getString(2));
                }
            }
        }
        Map<String, String> differ = new TreeMap<>();
        index.forEach((w, stem) -> {
            if (!PorterStemmer.stem(w).equals(stem)) {
                differ.put(w, PorterStemmer.stem(w) + " (index: " + stem + ")");
            }
        });
        assertThat(index).hasSameSizeAs(words);
        assertThat(differ).isEmpty();
    }

    @Test
    void aWordsOwnStemIsNeverSkipped() throws IOException {
        // The rerank stage stems a word only when its first two letters begin a query stem.
        for (String w : realWords()) {
            String stem = PorterStemmer.stem(w);
            assertThat(Rerank.mayStemTo(w, Rerank.heads(List.of(stem)))).as(w + " -> " + stem).isTrue();
        }
        assertThat(Rerank.mayStemTo("committed", Rerank.heads(List.of("file", "test")))).isFalse();
        assertThat(Rerank.mayStemTo("committed", Rerank.heads(List.of("file", "a")))).isTrue();
    }

    /** Real English prose: this project's own docs, and an agent log of ../shared when present. */
    private static TreeSet<String> realWords() throws IOException {
        TreeSet<String> words = new TreeSet<>();
        List<Path> texts = new ArrayList<>();
        try (Stream<Path> docs = Files.list(Path.of("..", "docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).forEach(texts::add);
        }
        Path fixture = Path.of(System.getProperty("funes.shared.dir", "../../shared"))
                .resolve("fixtures/claude-code/episodic-memory-large.jsonl");
        if (Files.isRegularFile(fixture)) {
            texts.add(fixture);
        }
        Pattern word = Pattern.compile("[a-z]{4,24}");
        for (Path text : texts) {
            Matcher m = word.matcher(Files.readString(text).toLowerCase(Locale.ROOT));
            while (m.find()) {
                words.add(m.group());
            }
        }
        return words;
    }
}
