package dev.funes.langchain4j;

import dev.funes.adapter.FieldMetadata;
import dev.funes.adapter.FilterPushdown;
import dev.langchain4j.store.embedding.filter.Filter;
import dev.langchain4j.store.embedding.filter.comparison.IsEqualTo;
import dev.langchain4j.store.embedding.filter.comparison.IsGreaterThan;
import dev.langchain4j.store.embedding.filter.comparison.IsGreaterThanOrEqualTo;
import dev.langchain4j.store.embedding.filter.comparison.IsIn;
import dev.langchain4j.store.embedding.filter.comparison.IsLessThan;
import dev.langchain4j.store.embedding.filter.comparison.IsLessThanOrEqualTo;
import dev.langchain4j.store.embedding.filter.logical.And;

import java.math.BigDecimal;
import java.util.UUID;

/**
 * The part of a LangChain4j {@link Filter} that Funes can apply in SQL ({@link FilterPushdown}):
 * equality on {@code project}, {@code agent}, {@code session}, equality or membership on
 * {@code kind}, and ranges on {@code timestamp}, in conjunctions ({@link And}) at the top of the
 * filter. Everything else (other keys, {@code Or}, {@code Not}, other comparisons) is left to the
 * exact evaluation of the whole filter on each candidate's metadata, which always follows.
 */
final class Pushdown {

    private Pushdown() {
    }

    /** The pushed-down part of {@code filter}; {@code null} filters nothing. */
    static FilterPushdown of(Filter filter) {
        FilterPushdown p = new FilterPushdown();
        if (filter != null) {
            add(p, filter);
        }
        return p;
    }

    private static void add(FilterPushdown p, Filter f) {
        if (f instanceof And and) {
            add(p, and.left());
            add(p, and.right());
        } else if (f instanceof IsEqualTo eq) {
            if (FieldMetadata.KIND.equals(eq.key())) {
                p.kind(eq.comparisonValue());
            } else {
                // LangChain4j matches a UUID value with its string form, as the memory field holds it.
                Object v = eq.comparisonValue();
                p.equal(eq.key(), v instanceof String || v instanceof UUID ? v.toString() : null);
            }
        } else if (f instanceof IsIn in && FieldMetadata.KIND.equals(in.key())) {
            p.kindIn(in.comparisonValues());
        } else if (f instanceof IsGreaterThan gt && FieldMetadata.TIMESTAMP.equals(gt.key())) {
            p.after(exact(gt.comparisonValue()));
        } else if (f instanceof IsGreaterThanOrEqualTo ge && FieldMetadata.TIMESTAMP.equals(ge.key())) {
            p.after(exact(ge.comparisonValue()));
        } else if (f instanceof IsLessThan lt && FieldMetadata.TIMESTAMP.equals(lt.key())) {
            p.before(exact(lt.comparisonValue()));
        } else if (f instanceof IsLessThanOrEqualTo le && FieldMetadata.TIMESTAMP.equals(le.key())) {
            p.before(exact(le.comparisonValue()));
        }
    }

    /** A finite number as an exact decimal; {@code null} (not pushed down) for anything else. */
    private static BigDecimal exact(Object value) {
        if (!(value instanceof Number n)) {
            return null;
        }
        if ((n instanceof Double d && !Double.isFinite(d)) || (n instanceof Float f && !Float.isFinite(f))) {
            return null;
        }
        try {
            return new BigDecimal(n.toString());
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
