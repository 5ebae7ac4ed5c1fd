package dev.funes.springai;

import org.springframework.ai.vectorstore.filter.Filter.Expression;
import org.springframework.ai.vectorstore.filter.Filter.ExpressionType;
import org.springframework.ai.vectorstore.filter.Filter.Group;
import org.springframework.ai.vectorstore.filter.Filter.Key;
import org.springframework.ai.vectorstore.filter.Filter.Operand;
import org.springframework.ai.vectorstore.filter.Filter.Value;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.Collection;
import java.util.Date;
import java.util.Map;

/**
 * Spring AI filter expressions evaluated exactly on a document's metadata (docs/SPRING-AI.md,
 * "Filters"). {@link #check} refuses, before any search, what has no meaning here (an operand of
 * the wrong shape, a value of a type metadata cannot hold, an ordering on a Boolean, {@code IN}
 * without a list), with the offending expression in the message; {@link #test} then never fails.
 *
 * <p>Values compare by kind: numbers numerically whatever their Java type ({@code 3 == 3L ==
 * 3.0}), Strings by {@link String#compareTo}, Booleans by equality; a {@link Date} or
 * {@link Instant} in an expression is its epoch milliseconds (the type of {@code timestamp} on
 * memories read from logs). A document whose value is of another kind, or that lacks the key,
 * does not match a comparison; {@code !=} and {@code NOT IN} are the negations of {@code ==} and
 * {@code IN}, so they match it.
 */
final class Expressions {

    private Expressions() {
    }

    /**
     * Checks that every part of the expression can be evaluated.
     *
     * @throws IllegalArgumentException naming the expression and the part that cannot
     */
    static void check(Expression expression) {
        if (expression == null) {
            throw new IllegalArgumentException("filter expression cannot be null");
        }
        check(expression, expression);
    }

    private static void check(Expression whole, Expression e) {
        ExpressionType type = e.type();
        if (type == null) {
            throw unsupported(whole, e, "it has no type");
        }
        switch (type) {
            case AND, OR -> {
                check(whole, operand(whole, e, e.left()));
                check(whole, operand(whole, e, e.right()));
            }
            case NOT -> check(whole, operand(whole, e, e.left()));
            case ISNULL, ISNOTNULL -> key(whole, e);
            case EQ, NE -> {
                key(whole, e);
                scalar(whole, e, value(whole, e), false);
            }
            case GT, GTE, LT, LTE -> {
                key(whole, e);
                scalar(whole, e, value(whole, e), true);
            }
            case IN, NIN -> {
                key(whole, e);
                if (!(value(whole, e) instanceof Collection<?> values)) {
                    throw unsupported(whole, e, type + " needs a list of values");
                }
                for (Object v : values) {
                    scalar(whole, e, v, false);
                }
            }
            default -> throw unsupported(whole, e, "Funes does not know the operator " + type);
        }
    }

    private static Expression operand(Expression whole, Expression e, Operand operand) {
        if (operand instanceof Expression inner) {
            return inner;
        }
        if (operand instanceof Group group && group.content() != null) {
            return group.content();
        }
        throw unsupported(whole, e, e.type() + " needs expressions as operands, not " + operand);
    }

    private static String key(Expression whole, Expression e) {
        if (!(e.left() instanceof Key key) || key.key() == null || key.key().isBlank()) {
            throw unsupported(whole, e, e.type() + " needs a metadata key on its left, not " + e.left());
        }
        return key.key();
    }

    private static Object value(Expression whole, Expression e) {
        if (!(e.right() instanceof Value value)) {
            throw unsupported(whole, e, e.type() + " needs a value on its right, not " + e.right());
        }
        return value.value();
    }

    private static void scalar(Expression whole, Expression e, Object v, boolean ordering) {
        if (v instanceof Number n) {
            if (decimal(n) == null) {
                throw unsupported(whole, e, "the number " + n + " is not finite");
            }
        } else if (v instanceof Boolean) {
            if (ordering) {
                throw unsupported(whole, e, e.type() + " does not order Booleans");
            }
        } else if (!(v instanceof String || v instanceof Date || v instanceof Instant)) {
            throw unsupported(whole, e, "a value of type " + (v == null ? "null" : v.getClass().getName())
                    + " is not one metadata can hold (String, Number, Boolean, or a Date or Instant for epoch"
                    + " milliseconds)");
        }
    }

    private static IllegalArgumentException unsupported(Expression whole, Expression part, String why) {
        return new IllegalArgumentException("Funes cannot apply the filter expression " + whole
                + (part == whole ? "" : " (in " + part + ")") + ": " + why);
    }

    /** Whether metadata passes the expression; the expression must have passed {@link #check}. */
    static boolean test(Expression e, Map<String, Object> metadata) {
        return switch (e.type()) {
            case AND -> test(inner(e.left()), metadata) && test(inner(e.right()), metadata);
            case OR -> test(inner(e.left()), metadata) || test(inner(e.right()), metadata);
            case NOT -> !test(inner(e.left()), metadata);
            case ISNULL -> metadata.get(keyOf(e)) == null;
            case ISNOTNULL -> metadata.get(keyOf(e)) != null;
            case EQ -> equal(metadata.get(keyOf(e)), valueOf(e));
            case NE -> !equal(metadata.get(keyOf(e)), valueOf(e));
            case GT -> compare(metadata.get(keyOf(e)), valueOf(e), c -> c > 0);
            case GTE -> compare(metadata.get(keyOf(e)), valueOf(e), c -> c >= 0);
            case LT -> compare(metadata.get(keyOf(e)), valueOf(e), c -> c < 0);
            case LTE -> compare(metadata.get(keyOf(e)), valueOf(e), c -> c <= 0);
            case IN -> in(metadata.get(keyOf(e)), (Collection<?>) valueOf(e));
            case NIN -> !in(metadata.get(keyOf(e)), (Collection<?>) valueOf(e));
            default -> throw new IllegalStateException("unchecked expression " + e);
        };
    }

    private static Expression inner(Operand operand) {
        return operand instanceof Group group ? group.content() : (Expression) operand;
    }

    static String keyOf(Expression e) {
        return ((Key) e.left()).key();
    }

    static Object valueOf(Expression e) {
        return ((Value) e.right()).value();
    }

    private static boolean in(Object actual, Collection<?> values) {
        for (Object v : values) {
            if (equal(actual, v)) {
                return true;
            }
        }
        return false;
    }

    private static boolean equal(Object actual, Object expected) {
        if (actual == null) {
            return false;
        }
        Object a = normal(actual);
        Object b = normal(expected);
        if (a instanceof BigDecimal x && b instanceof BigDecimal y) {
            return x.compareTo(y) == 0;
        }
        return a.equals(b);
    }

    private interface Outcome {
        boolean of(int comparison);
    }

    private static boolean compare(Object actual, Object expected, Outcome outcome) {
        if (actual == null) {
            return false;
        }
        Object a = normal(actual);
        Object b = normal(expected);
        if (a instanceof BigDecimal x && b instanceof BigDecimal y) {
            return outcome.of(x.compareTo(y));
        }
        if (a instanceof String x && b instanceof String y) {
            return outcome.of(x.compareTo(y));
        }
        return false;
    }

    /** Numbers (and times, as epoch milliseconds) as BigDecimal; anything else as it is. */
    private static Object normal(Object v) {
        if (v instanceof Number n) {
            BigDecimal d = decimal(n);
            return d == null ? v : d;
        }
        if (v instanceof Date date) {
            return BigDecimal.valueOf(date.getTime());
        }
        if (v instanceof Instant instant) {
            return BigDecimal.valueOf(instant.toEpochMilli());
        }
        return v;
    }

    /** The exact value of a finite number; {@code null} for NaN and infinities. */
    static BigDecimal decimal(Number n) {
        if (n instanceof BigDecimal d) {
            return d;
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
