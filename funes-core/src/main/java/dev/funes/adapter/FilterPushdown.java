package dev.funes.adapter;

import dev.funes.MemoryKind;
import dev.funes.SearchRequest;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.util.Collection;
import java.util.EnumSet;
import java.util.Set;

/**
 * The conditions of a framework's metadata filter that Funes can apply in SQL, collected from the
 * filter's top-level conjunction: equality on {@code project}, {@code agent}, {@code session},
 * equality or membership on {@code kind}, bounds on {@code timestamp} (the keys of
 * {@link FieldMetadata}). An adapter walks its own filter language and adds what it finds here;
 * the whole filter is still evaluated exactly on each candidate afterwards.
 *
 * <p>What is collected is only ever wider than the filter: time bounds are widened by a
 * millisecond each side, so no rounding of a fractional bound can cut a match, and a value that
 * cannot be pushed down is skipped. Conditions that contradict each other make it
 * {@link #impossible()}: no memory can pass, and no search is needed.
 */
public final class FilterPushdown {

    private String project;
    private String agent;
    private String session;
    private Set<MemoryKind> kinds; // null: any kind
    private Long afterMs;          // inclusive
    private Long beforeMs;         // exclusive
    private String file;
    private boolean contradiction;

    /** Adds {@code key == name}; a key other than project, agent or session, or a {@code null} name, adds nothing. */
    public FilterPushdown equal(String key, String name) {
        if (name == null) {
            return this;
        }
        switch (key) {
            case FieldMetadata.PROJECT -> project = same(project, name);
            case FieldMetadata.AGENT -> agent = same(agent, name);
            case FieldMetadata.SESSION -> session = same(session, name);
            default -> {
            }
        }
        return this;
    }

    private String same(String current, String value) {
        if (current != null && !current.equals(value)) {
            contradiction = true;
        }
        return value;
    }

    /** Adds {@code kind == value} when the value is exactly a kind's label, else nothing. */
    public FilterPushdown kind(Object value) {
        MemoryKind kind = FieldMetadata.exactKind(value);
        if (kind != null) {
            kinds(EnumSet.of(kind));
        }
        return this;
    }

    /**
     * Adds {@code kind IN values} when every value is exactly a kind's label; otherwise nothing (a
     * value that is no label matches memories stored as notes, which only the exact filter tells).
     */
    public FilterPushdown kindIn(Collection<?> values) {
        Set<MemoryKind> set = EnumSet.noneOf(MemoryKind.class);
        for (Object v : values) {
            MemoryKind kind = FieldMetadata.exactKind(v);
            if (kind == null) {
                return this;
            }
            set.add(kind);
        }
        kinds(set);
        return this;
    }

    private void kinds(Set<MemoryKind> set) {
        if (kinds == null) {
            kinds = EnumSet.allOf(MemoryKind.class);
        }
        kinds.retainAll(set);
        if (kinds.isEmpty()) {
            contradiction = true;
        }
    }

    /**
     * Adds {@code timestamp > ms} or {@code timestamp >= ms} (epoch milliseconds, maybe
     * fractional): every match is at or after floor(ms) − 1 ms. {@code null} adds nothing.
     */
    public FilterPushdown after(BigDecimal ms) {
        Long floor = floor(ms);
        if (floor == null) {
            return this;
        }
        long bound = floor - 1;
        if (bound > FieldMetadata.MAX_TIMESTAMP) {
            contradiction = true;
        } else if (bound > FieldMetadata.MIN_TIMESTAMP) {
            afterMs = afterMs == null ? bound : Math.max(afterMs, bound);
        }
        return this;
    }

    /**
     * Adds {@code timestamp < ms} or {@code timestamp <= ms} (epoch milliseconds, maybe
     * fractional): every match is before floor(ms) + 2 ms. {@code null} adds nothing.
     */
    public FilterPushdown before(BigDecimal ms) {
        Long floor = floor(ms);
        if (floor == null) {
            return this;
        }
        long bound = floor + 2;
        if (bound <= FieldMetadata.MIN_TIMESTAMP) {
            contradiction = true;
        } else if (bound <= FieldMetadata.MAX_TIMESTAMP) {
            beforeMs = beforeMs == null ? bound : Math.min(beforeMs, bound);
        }
        return this;
    }

    /** The floor of an exact number, clamped far outside the store's years (keeping the comparison's meaning). */
    private static Long floor(BigDecimal exact) {
        if (exact == null) {
            return null;
        }
        BigDecimal floor = exact.setScale(0, RoundingMode.FLOOR);
        BigDecimal limit = BigDecimal.valueOf(FieldMetadata.MAX_TIMESTAMP).multiply(BigDecimal.TEN);
        if (floor.abs().compareTo(limit) > 0) {
            floor = floor.signum() > 0 ? limit : limit.negate();
        }
        return floor.longValueExact();
    }

    /** Adds Funes' own file filter (no framework's metadata names it); {@code null} for none. */
    public FilterPushdown file(String file) {
        this.file = file;
        return this;
    }

    /** Whether no memory can pass: two different values for one field, no kind left, or an empty time range. */
    public boolean impossible() {
        return contradiction || (afterMs != null && beforeMs != null && afterMs >= beforeMs);
    }

    /** Whether it filters at all. */
    public boolean isEmpty() {
        return project == null && agent == null && session == null && kinds == null && afterMs == null
                && beforeMs == null && file == null;
    }

    /**
     * A request for {@code query} with these conditions as its filters.
     *
     * @throws IllegalStateException if it is {@link #impossible()}
     */
    public SearchRequest request(String query, int limit) {
        if (impossible()) {
            throw new IllegalStateException("no memory can pass " + this + ": nothing to search");
        }
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

    @Override
    public String toString() {
        return "FilterPushdown[project=" + project + ", agent=" + agent + ", session=" + session + ", kinds=" + kinds
                + ", after=" + afterMs + ", before=" + beforeMs + ", file=" + file
                + (impossible() ? ", impossible" : "") + "]";
    }
}
