package dev.funes.springai;

import dev.funes.MemoryKind;
import dev.funes.SearchRequest;
import org.springframework.ai.vectorstore.filter.Filter.Expression;
import org.springframework.ai.vectorstore.filter.Filter.Group;
import org.springframework.ai.vectorstore.filter.Filter.Operand;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.util.Collection;
import java.util.Date;
import java.util.EnumSet;
import java.util.Set;

/**
 * The part of a checked Spring AI filter expression that Funes applies in SQL, as the filters of a
 * {@link SearchRequest}: {@code project}, {@code agent}, {@code session} {@code ==} a String;
 * {@code kind} {@code ==} or {@code IN} exact labels; {@code timestamp} {@code >}, {@code >=},
 * {@code <}, {@code <=} a number, Date or Instant; each in a conjunction ({@code AND}, groups) at
 * the top of the expression. The whole expression is always evaluated exactly afterwards
 * ({@link Expressions#test}), so anything else is still applied, only later.
 *
 * <p>The pushed-down conditions are only ever wider than the expression (the time bounds are
 * widened by a millisecond each side), so they never change a result, only its cost.
 */
final class Pushdown {

    private String project;
    private String agent;
    private String session;
    private Set<MemoryKind> kinds; // null: any kind
    private Long afterMs;          // inclusive
    private Long beforeMs;         // exclusive
    private String file;
    private boolean impossible;

    private Pushdown() {
    }

    /** The pushed-down part of a checked {@code expression}; {@code null} filters nothing. */
    static Pushdown of(Expression expression) {
        Pushdown p = new Pushdown();
        if (expression != null) {
            p.add(expression);
        }
        if (p.afterMs != null && p.beforeMs != null && p.afterMs >= p.beforeMs) {
            p.impossible = true;
        }
        return p;
    }

    /** Adds Funes's file filter (not expressible in Spring AI's filter language); {@code null} for none. */
    Pushdown file(String file) {
        this.file = file;
        return this;
    }

    /** Whether no memory can pass: two different values for one field, or an empty range. */
    boolean impossible() {
        return impossible;
    }

    /** Whether it filters at all. */
    boolean isEmpty() {
        return project == null && agent == null && session == null && kinds == null && afterMs == null
                && beforeMs == null && file == null;
    }

    /** A request for {@code query} with these conditions as its filters. Not for an impossible pushdown. */
    SearchRequest request(String query, int limit) {
        SearchRequest.Builder b = SearchRequest.builder(query).limit(limit)
                .project(project).agent(agent).session(session).file(file);
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

    private void add(Operand operand) {
        Expression e = operand instanceof Group group ? group.content() : (Expression) operand;
        switch (e.type()) {
            case AND -> {
                add(e.left());
                add(e.right());
            }
            case EQ -> equal(Expressions.keyOf(e), Expressions.valueOf(e));
            case IN -> {
                if (Documents.KIND.equals(Expressions.keyOf(e))) {
                    Set<MemoryKind> set = EnumSet.noneOf(MemoryKind.class);
                    for (Object v : (Collection<?>) Expressions.valueOf(e)) {
                        MemoryKind kind = Documents.exactKind(v);
                        if (kind == null) {
                            return; // a value that is no kind's label: its documents are stored as notes; leave it exact
                        }
                        set.add(kind);
                    }
                    kinds(set);
                }
            }
            case GT, GTE -> {
                if (Documents.TIMESTAMP.equals(Expressions.keyOf(e))) {
                    after(Expressions.valueOf(e));
                }
            }
            case LT, LTE -> {
                if (Documents.TIMESTAMP.equals(Expressions.keyOf(e))) {
                    before(Expressions.valueOf(e));
                }
            }
            default -> {
                // OR, NOT, NE, NIN, ISNULL, ISNOTNULL: exact evaluation only
            }
        }
    }

    private void equal(String key, Object value) {
        if (!(value instanceof String name)) {
            return;
        }
        switch (key) {
            case Documents.PROJECT -> project = same(project, name);
            case Documents.AGENT -> agent = same(agent, name);
            case Documents.SESSION -> session = same(session, name);
            case Documents.KIND -> {
                MemoryKind kind = Documents.exactKind(name);
                if (kind != null) {
                    kinds(EnumSet.of(kind));
                }
            }
            default -> {
            }
        }
    }

    private String same(String current, String value) {
        if (value.isBlank()) {
            return current; // a blank name is never a field's (Documents.name): exact evaluation only
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
        if (bound > Documents.MAX_TIMESTAMP) {
            impossible = true;
        } else if (bound > Documents.MIN_TIMESTAMP) {
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
        if (bound <= Documents.MIN_TIMESTAMP) {
            impossible = true;
        } else if (bound <= Documents.MAX_TIMESTAMP) {
            beforeMs = beforeMs == null ? bound : Math.min(beforeMs, bound);
        }
    }

    /** floor of a number or time (epoch milliseconds) within a safe range; {@code null}: not pushed down. */
    private static Long floor(Object value) {
        BigDecimal exact;
        if (value instanceof Number n) {
            exact = Expressions.decimal(n);
        } else if (value instanceof Date date) {
            exact = BigDecimal.valueOf(date.getTime());
        } else if (value instanceof Instant instant) {
            exact = BigDecimal.valueOf(instant.toEpochMilli());
        } else {
            return null; // a String: compared as text with String timestamps, exactly only
        }
        if (exact == null) {
            return null;
        }
        BigDecimal floor = exact.setScale(0, RoundingMode.FLOOR);
        // Far outside the store's years: clamp, keeping the comparison's meaning.
        BigDecimal limit = BigDecimal.valueOf(Documents.MAX_TIMESTAMP).multiply(BigDecimal.TEN);
        if (floor.abs().compareTo(limit) > 0) {
            floor = floor.signum() > 0 ? limit : limit.negate();
        }
        return floor.longValueExact();
    }

    @Override
    public String toString() {
        return "Pushdown[project=" + project + ", agent=" + agent + ", session=" + session + ", kinds=" + kinds
                + ", after=" + afterMs + ", before=" + beforeMs + ", file=" + file
                + (impossible ? ", impossible" : "") + "]";
    }
}
