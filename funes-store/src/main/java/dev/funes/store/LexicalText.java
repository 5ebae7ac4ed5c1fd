package dev.funes.store;

import dev.funes.Memory;
import dev.funes.MemoryKind;

/**
 * What the full-text index holds of a memory's text: the text, except that a passage's header
 * line loses the request it quotes ({@code Assistant · 2025-10-14 · on: <the request>} is indexed
 * as {@code Assistant · 2025-10-14}). The request is its exchange's: the exchange's own text and
 * the request's passage hold its words already, and counted again in every passage of the
 * exchange they would rank each of them by words that are not theirs (docs/EVALUATION.md, "A
 * passage's header: embedded whole, indexed without its request"). The passage's vector still reads the whole header, so a bare
 * sentence is found by meaning in the situation it was said in.
 *
 * <p>{@link #of} and {@link #sql} give the same text: the first in Java (identifier terms, the
 * rerank's word matches), the second inside SQLite (the full-text index's triggers and the view
 * it is built from, {@code memories_lexical}).
 */
final class LexicalText {

    /** What begins the request in a passage's header line. */
    static final String CONTEXT = " \u00b7 on: ";

    private LexicalText() {
    }

    /** The indexed text of a memory. */
    static String of(Memory memory) {
        return of(memory.kind().label(), memory.text());
    }

    /**
     * The indexed text of a memory of the given kind: for a passage whose first line quotes its
     * request, the text without that quote (up to the line's end); else the text itself.
     *
     * @param kind a {@link MemoryKind#label()}, as in {@code memories.kind}
     */
    static String of(String kind, String text) {
        if (!MemoryKind.PASSAGE.label().equals(kind)) {
            return text;
        }
        int on = text.indexOf(CONTEXT);
        int newline = text.indexOf('\n');
        return on >= 0 && newline > on ? text.substring(0, on) + text.substring(newline) : text;
    }

    /**
     * {@link #of} as an SQL expression over the {@code kind} and {@code text} columns of
     * {@code row} ({@code new}, {@code old} or a table name).
     */
    static String sql(String row) {
        String on = "instr(" + row + ".text, '" + CONTEXT + "')";
        String newline = "instr(" + row + ".text, char(10))";
        return "CASE WHEN " + row + ".kind = '" + MemoryKind.PASSAGE.label() + "' AND " + on + " > 0 AND "
                + newline + " > " + on + " THEN substr(" + row + ".text, 1, " + on + " - 1) || substr("
                + row + ".text, " + newline + ") ELSE " + row + ".text END";
    }
}
