package dev.funes.springai;

import dev.funes.adapter.FieldMetadata;
import dev.funes.adapter.FilterPushdown;
import org.springframework.ai.vectorstore.filter.Filter.Expression;
import org.springframework.ai.vectorstore.filter.Filter.Group;
import org.springframework.ai.vectorstore.filter.Filter.Operand;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.Collection;
import java.util.Date;

/**
 * The part of a checked Spring AI filter expression that Funes applies in SQL
 * ({@link FilterPushdown}): {@code project}, {@code agent}, {@code session} {@code ==} a String;
 * {@code kind} {@code ==} or {@code IN} exact labels; {@code timestamp} {@code >}, {@code >=},
 * {@code <}, {@code <=} a number, Date or Instant; each in a conjunction ({@code AND}, groups) at
 * the top of the expression. The whole expression is always evaluated exactly afterwards
 * ({@link Expressions#test}), so anything else is still applied, only later.
 */
final class Pushdown {

    private Pushdown() {
    }

    /** The pushed-down part of a checked {@code expression}; {@code null} filters nothing. */
    static FilterPushdown of(Expression expression) {
        FilterPushdown p = new FilterPushdown();
        if (expression != null) {
            add(p, expression);
        }
        return p;
    }

    private static void add(FilterPushdown p, Operand operand) {
        Expression e = operand instanceof Group group ? group.content() : (Expression) operand;
        switch (e.type()) {
            case AND -> {
                add(p, e.left());
                add(p, e.right());
            }
            case EQ -> {
                String key = Expressions.keyOf(e);
                Object value = Expressions.valueOf(e);
                if (FieldMetadata.KIND.equals(key)) {
                    p.kind(value);
                } else if (value instanceof String name && !name.isBlank()) {
                    // a blank name is never a field's (Documents.name): exact evaluation only
                    p.equal(key, name);
                }
            }
            case IN -> {
                if (FieldMetadata.KIND.equals(Expressions.keyOf(e))) {
                    p.kindIn((Collection<?>) Expressions.valueOf(e));
                }
            }
            case GT, GTE -> {
                if (FieldMetadata.TIMESTAMP.equals(Expressions.keyOf(e))) {
                    p.after(exact(Expressions.valueOf(e)));
                }
            }
            case LT, LTE -> {
                if (FieldMetadata.TIMESTAMP.equals(Expressions.keyOf(e))) {
                    p.before(exact(Expressions.valueOf(e)));
                }
            }
            default -> {
                // OR, NOT, NE, NIN, ISNULL, ISNOTNULL: exact evaluation only
            }
        }
    }

    /**
     * A number, Date or Instant as exact epoch milliseconds; {@code null} (not pushed down) for a
     * String, which is compared as text with String timestamps, exactly only.
     */
    private static BigDecimal exact(Object value) {
        if (value instanceof Number n) {
            return Expressions.decimal(n);
        } else if (value instanceof Date date) {
            return BigDecimal.valueOf(date.getTime());
        } else if (value instanceof Instant instant) {
            return BigDecimal.valueOf(instant.toEpochMilli());
        }
        return null;
    }
}
