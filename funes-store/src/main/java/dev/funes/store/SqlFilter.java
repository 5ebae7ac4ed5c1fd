package dev.funes.store;

import dev.funes.MemoryKind;
import dev.funes.SearchRequest;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The request's filters as SQL over {@code memories m}: the same conditions as
 * {@link SearchRequest#matches}, which is still applied to every candidate.
 */
record SqlFilter(String sql, List<String> params) {

    /** No filter. */
    static final SqlFilter NONE = new SqlFilter("", List.of());

    static SqlFilter of(SearchRequest r) {
        StringBuilder sql = new StringBuilder();
        List<String> params = new ArrayList<>();
        if (r.project() != null) {
            sql.append(" AND m.project = ?");
            params.add(r.project());
        }
        if (r.agent() != null) {
            sql.append(" AND m.agent = ?");
            params.add(r.agent());
        }
        if (r.session() != null) {
            sql.append(" AND m.session = ?");
            params.add(r.session());
        }
        if (!r.kinds().isEmpty()) {
            sql.append(" AND m.kind IN (");
            String sep = "";
            for (MemoryKind kind : MemoryKind.values()) {
                if (r.kinds().contains(kind)
                        || kind == MemoryKind.PASSAGE && r.kinds().contains(MemoryKind.EXCHANGE)) {
                    sql.append(sep).append('?');
                    params.add(kind.label());
                    sep = ", ";
                }
            }
            sql.append(')');
        }
        if (r.after() != null) {
            sql.append(" AND coalesce(m.ended_at, m.started_at) >= ?");
            params.add(Rows.instant(r.after()));
        }
        if (r.before() != null) {
            sql.append(" AND coalesce(m.ended_at, m.started_at) < ?");
            params.add(Rows.instant(r.before()));
        }
        if (r.file() != null) {
            // A cheap superset (the file name appears somewhere); SearchRequest.matches decides.
            String name = r.file().substring(r.file().lastIndexOf('/') + 1);
            sql.append(" AND (instr(m.text, ?) > 0 OR instr(m.metadata, ?) > 0)");
            params.add(name);
            params.add(name);
        }
        return new SqlFilter(sql.toString(), params);
    }

    boolean isEmpty() {
        return params.isEmpty();
    }

    /** Binds the parameters from index {@code first}; returns the next free index. */
    int bind(PreparedStatement ps, int first) throws SQLException {
        int i = first;
        for (String p : params) {
            ps.setString(i++, p);
        }
        return i;
    }
}
