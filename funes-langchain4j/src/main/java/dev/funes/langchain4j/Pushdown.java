package dev.funes.langchain4j;

import dev.funes.MemoryKind;
import dev.funes.SearchRequest;
import dev.langchain4j.store.embedding.filter.Filter;
import dev.langchain4j.store.embedding.filter.comparison.IsEqualTo;
import dev.langchain4j.store.embedding.filter.comparison.IsGreaterThan;
import dev.langchain4j.store.embedding.filter.comparison.IsGreaterThanOrEqualTo;
import dev.langchain4j.store.embedding.filter.comparison.IsIn;
import dev.langchain4j.store.embedding.filter.comparison.IsLessThan;
import dev.langchain4j.store.embedding.filter.comparison.IsLessThanOrEqualTo;
import dev.langchain4j.store.embedding.filter.logical.And;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Set;
import java.util.UUID;

/**
 * The part of a LangChain4j {@link Filter} that Funes can apply in SQL: equality on
 * {@code project}, {@code agent}, {@code session}, equality or membership on {@code kind}, and
 * ranges on {@code timestamp}, in conjunctions ({@link And}) at the top of the filter. Everything
 * else (other keys, {@code Or}, {@code Not}, other comparisons) is left to the exact evaluation
 * of the whole filter on each candidate's metadata, which always follows.
 *
 * <p>The pushed-down conditions are only ever wider than the filter: every memory whose metadata
 * passes the filter passes them (the time bounds are widened by a millisecond each side so no
 * rounding of a fractional bound can cut a match). So results are exactly those of the filter.
 */
final class Pushdown {

    private String project;
    private String agent;
    private String session;
    private Set<MemoryKind> kinds; // null: any kind
    private Long afterMs;          // inclusive
    private Long beforeMs;         // exclusive
    private boolean impossible;

    private Pushdown() {
    }

    /** The pushed-down part of {@code filter}; {@code null} filters nothing. */
    static Pushdown of(Filter filter) {
        Pushdown p = new Pushdown();
        if (filter != null) {
            p.add(filter);
        }
        if (p.afterMs != null && p.beforeMs != null && p.afterMs >= p.beforeMs) {
            p.impossible = true;
        }
        return p;
    }

    /** Whether no memory can pass: two different values for one field, or an empty range. */
    boolean impossible() {
        return impossible;
    }

    /** A request for {@code query} with these conditions as its filters. Not for an impossible pushdown. */
    SearchRequest request(String query, int limit) {
        SearchRequest.Builder b = SearchRequest.builder(query).limit(limit)
                .project(project).agent(agent).session(session);
        if (kinds != null) {
            b.kinds(kinds.toArray(MemoryKind[]::new));
        }
        if (afterMs != null) {
            b.after(Instant.ofEpochMilli(afterMs));
        }
        if (beforeMs != null) {
            b.before(Instant.ofEpochMilli(beforeMs));
        }
        return b.build();
    }

    /** Whether it filters at all. */
    boolean isEmpty() {
        return project == null && agent == null && session == null && kinds == null && afterMs == null
                && beforeMs == null;
    }

    private void add(Filter f) {
        if (f instanceof And and) {
            add(and.left());
            add(and.right());
        } else if (f instanceof IsEqualTo eq) {
            equal(eq.key(), eq.comparisonValue());
        } else if (f instanceof IsIn in && Segments.KIND.equals(in.key())) {
            Set<MemoryKind> set = EnumSet.noneOf(MemoryKind.class);
            for (Object v : in.comparisonValues()) {
                MemoryKind kind = Segments.exactKind(v);
                if (kind == null) {
                    return; // a value that is no kind's label: its entries are stored as notes; leave it exact
                }
                set.add(kind);
            }
            kinds(set);
        } else if (f instanceof IsGreaterThan gt && Segments.TIMESTAMP.equals(gt.key())) {
            after(gt.comparisonValue());
        } else if (f instanceof IsGreaterThanOrEqualTo ge && Segments.TIMESTAMP.equals(ge.key())) {
            after(ge.comparisonValue());
        } else if (f instanceof IsLessThan lt && Segments.TIMESTAMP.equals(lt.key())) {
            before(lt.comparisonValue());
        } else if (f instanceof IsLessThanOrEqualTo le && Segments.TIMESTAMP.equals(le.key())) {
            before(le.comparisonValue());
        }
    }

    private void equal(String key, Object value) {
        // LangChain4j matches a UUID value with its string form, as the memory field holds it.
        String name = value instanceof String || value instanceof UUID ? value.toString() : null;
        switch (key) {
            case Segments.PROJECT -> project = same(project, name);
            case Segments.AGENT -> agent = same(agent, name);
            case Segments.SESSION -> session = same(session, name);
            case Segments.KIND -> {
                MemoryKind kind = Segments.exactKind(value);
                if (kind != null) {
                    kinds(EnumSet.of(kind));
                }
            }
            default -> {
            }
        }
    }

    private String same(String current, String value) {
        if (value == null) {
            return current;
        }
        if (current != null && !current.equals(value)) {
            impossible = true;
        }
        return value;
    }

    private void kinds(Set<MemoryKind> set) {
        if (kinds == null) {
            kinds = EnumSet.allOf(MemoryKind.class);
        }
        kinds.retainAll(set);
        if (kinds.isEmpty()) {
            impossible = true;
        }
    }

    /** {@code timestamp > v} or {@code >= v}: every match is at or after floor(v) - 1 ms. */
    private void after(Object value) {
        Long floor = floor(value);
        if (floor == null) {
            return;
        }
        long bound = floor - 1;
        if (bound > Segments.MAX_TIMESTAMP) {
            impossible = true;
        } else if (bound > Segments.MIN_TIMESTAMP) {
            afterMs = afterMs == null ? bound : Math.max(afterMs, bound);
        }
    }

    /** {@code timestamp < v} or {@code <= v}: every match is before floor(v) + 2 ms. */
    private void before(Object value) {
        Long floor = floor(value);
        if (floor == null) {
            return;
        }
        long bound = floor + 2;
        if (bound <= Segments.MIN_TIMESTAMP) {
            impossible = true;
        } else if (bound <= Segments.MAX_TIMESTAMP) {
            beforeMs = beforeMs == null ? bound : Math.min(beforeMs, bound);
        }
    }

    /** floor of a finite number within a safe range, else {@code null} (not pushed down). */
    private static Long floor(Object value) {
        if (!(value instanceof Number n)) {
            return null;
        }
        if ((n instanceof Double d && !Double.isFinite(d)) || (n instanceof Float f && !Float.isFinite(f))) {
            return null;
        }
        BigDecimal floor;
        try {
            floor = new BigDecimal(n.toString()).setScale(0, RoundingMode.FLOOR);
        } catch (NumberFormatException e) {
            return null;
        }
        // Far outside the store's years: clamp, keeping the comparison's meaning.
        BigDecimal limit = BigDecimal.valueOf(Segments.MAX_TIMESTAMP).multiply(BigDecimal.TEN);
        if (floor.abs().compareTo(limit) > 0) {
            floor = floor.signum() > 0 ? limit : limit.negate();
        }
        return floor.longValueExact();
    }

    @Override
    public String toString() {
        return "Pushdown[project=" + project + ", agent=" + agent + ", session=" + session + ", kinds=" + kinds
                + ", after=" + afterMs + ", before=" + beforeMs + (impossible ? ", impossible" : "") + "]";
    }
}
