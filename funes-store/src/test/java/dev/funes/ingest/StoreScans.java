package dev.funes.ingest;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** Looks for planted secrets where a store keeps bytes: its files and its full-text vocabulary. */
final class StoreScans {

    /** A run of this many characters of a secret is a leak. */
    static final int WINDOW = 12;

    private StoreScans() {
    }

    /** Every store file (database, WAL, shared memory, index files) read as Latin-1: the secrets are ASCII. */
    static Map<Path, String> storeFiles(Path dir) throws IOException {
        Map<Path, String> files = new TreeMap<>();
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                files.put(p, new String(Files.readAllBytes(p), StandardCharsets.ISO_8859_1));
            }
        }
        assertThat(files.keySet()).anyMatch(p -> p.getFileName().toString().equals("funes.db"));
        return files;
    }

    /** FTS5 keeps its terms lower-cased and stemmed, out of reach of a byte scan: its vocabulary. */
    static List<String> ftsTerms(Path db) throws Exception {
        List<String> terms = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
             Statement s = c.createStatement()) {
            s.execute("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, memories_fts, 'row')");
            try (ResultSet rs = s.executeQuery("SELECT term FROM temp.vocab")) {
                while (rs.next()) {
                    terms.add(rs.getString(1));
                }
            }
        }
        return terms;
    }

    /** No term of {@link #WINDOW} characters or more is a piece of a secret; {@code types} name them. */
    static void assertNoFtsTerm(Path db, List<String> secrets, List<String> types) throws Exception {
        List<String> lowered = secrets.stream().map(v -> v.toLowerCase(Locale.ROOT)).toList();
        List<String> terms = ftsTerms(db);
        for (String term : terms) {
            if (term.length() < WINDOW) {
                continue;
            }
            for (int i = 0; i < lowered.size(); i++) {
                assertThat(lowered.get(i)).as("FTS term %s is a piece of a planted %s secret", term, types.get(i))
                        .doesNotContain(term);
            }
        }
        assertThat(terms.size()).isGreaterThan(100);
    }

    /** No content holds any of the fragments; the error names the secret's type and shows where. */
    static void assertNoFragment(SecretIndex fragments, Map<Path, String> contents) {
        for (Map.Entry<Path, String> e : contents.entrySet()) {
            long[] found = new long[fragments.size()];
            if (fragments.count(e.getValue(), found) == 0) {
                continue;
            }
            for (int i = 0; i < found.length; i++) {
                if (found[i] > 0) {
                    String content = e.getValue();
                    int at = content.indexOf(fragments.get(i).value());
                    throw new AssertionError("a piece of a planted " + fragments.get(i).type() + " secret ("
                            + fragments.get(i).value() + ") survived in " + e.getKey() + ": ..."
                            + content.substring(Math.max(0, at - 120), Math.min(content.length(), at + 60)) + "...");
                }
            }
        }
    }
}
