package dev.funes.store;

import java.util.function.IntToLongFunction;

/**
 * Numbers bound as one JSON array parameter and read back with {@code json_each(?)}: one statement
 * for any number of keys, where an {@code IN (?, ?, ...)} list would need a statement per length
 * and stay under SQLite's limit on bound parameters.
 */
final class SqlArrays {

    private SqlArrays() {
    }

    /** {@code value(from)} to {@code value(to - 1)} as a JSON array, for {@code json_each}. */
    static String jsonArray(IntToLongFunction value, int from, int to) {
        StringBuilder json = new StringBuilder(12 * (to - from) + 2).append('[');
        for (int i = from; i < to; i++) {
            json.append(i > from ? "," : "").append(value.applyAsLong(i));
        }
        return json.append(']').toString();
    }
}
