package dev.funes.store;

import dev.funes.Memory;
import dev.funes.redact.Redactor;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;

/**
 * The {@code redactions} table: how many placeholders of each type the stored memories hold.
 * Counted from the stored text rather than taken from a redactor's report, so memories redacted
 * before they reached the store (by the Indexer, an agent tool, another machine's export) count
 * the same as those the store redacted itself.
 */
final class Redactions {

    private Redactions() {
    }

    /** Adds the placeholders of {@code m}'s text, project and metadata values to {@code counts}. */
    static void count(Memory m, Map<String, Long> counts) {
        count(m.text(), counts);
        if (m.project() != null) {
            count(m.project(), counts);
        }
        for (String value : m.metadata().values()) {
            count(value, counts);
        }
    }

    private static void count(String text, Map<String, Long> counts) {
        if (!text.contains("[REDACTED:")) {
            return;
        }
        Matcher matcher = Redactor.PLACEHOLDER.matcher(text);
        while (matcher.find()) {
            counts.merge(matcher.group(1), 1L, Long::sum);
        }
    }

    /** Adds {@code delta} (negative to subtract) to the table, inside the caller's transaction. */
    static void apply(Connection c, Map<String, Long> delta) throws SQLException {
        if (delta.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO redactions (type, count) VALUES (?, ?)"
                + " ON CONFLICT (type) DO UPDATE SET count = count + excluded.count")) {
            for (Map.Entry<String, Long> e : delta.entrySet()) {
                ps.setString(1, e.getKey());
                ps.setLong(2, e.getValue());
                ps.addBatch();
            }
            ps.executeBatch();
        }
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM redactions WHERE count <= 0")) {
            ps.executeUpdate();
        }
    }

    /** The table, sorted by type. */
    static Map<String, Long> read(Connection c) throws SQLException {
        Map<String, Long> counts = new TreeMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT type, count FROM redactions");
             var rs = ps.executeQuery()) {
            while (rs.next()) {
                counts.put(rs.getString(1), rs.getLong(2));
            }
        }
        return counts;
    }
}
