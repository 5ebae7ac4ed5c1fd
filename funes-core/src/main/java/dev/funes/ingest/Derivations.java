package dev.funes.ingest;

import dev.funes.Memory;
import dev.funes.MemoryKind;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What the {@link Classifier} derives from one log, read in order: the decisions, conventions and
 * lookups of each exchange memory, then those of the full content of its records (the pieces a
 * reader hands a {@link PassageSink}), which the exchange's rendering cuts to its head and tail.
 * A sentence found in both, or in two parts of one exchange, is derived once. One instance per
 * read of a file; not thread-safe.
 */
final class Derivations {

    /** Pieces headed by one of these are what a person or the agent said; tool inputs and outputs are not. */
    private static final String[][] SPEAKERS = {
            {"User command", null},
            {"User", "User: "},
            {"Task from the parent agent", "Task from the parent agent: "},
            {"Assistant", "Assistant: "},
            {"Thinking", "Thinking: "},
    };

    private final Classifier classifier;
    /** Whether the pieces of each exchange follow it: then they, not its rendering, give what it cut. */
    private final boolean pieces;
    /** The sentences of the decisions and conventions this exchange gave so far. */
    private final Set<String> seen = new HashSet<>();
    /** The exchange memory read last: the files its tools edited go with what its records give. */
    private Memory exchange;

    /**
     * @param classifier the rules
     * @param pieces     whether the read hands on each exchange's pieces after it
     */
    Derivations(Classifier classifier, boolean pieces) {
        this.classifier = classifier;
        this.pieces = pieces;
    }

    /**
     * The memories derived from an exchange memory; its first part ({@link #begins}) forgets what
     * the exchanges before it gave.
     *
     * @param exchange an {@link MemoryKind#EXCHANGE} memory as it is stored
     */
    List<Memory> exchange(Memory exchange) {
        if (begins(exchange)) {
            seen.clear();
        }
        this.exchange = exchange;
        return classifier.classify(exchange, exchange, seen, pieces);
    }

    /**
     * The memories derived from the full content of one record of the last exchange, those its
     * exchange did not already give; none for a tool's input or output.
     *
     * @param piece      a {@link MemoryKind#PASSAGE} piece as a reader hands it ({@link Passages#HEADER_KEY})
     * @param exchangeId the id its exchange is stored under, which derived memories name
     */
    List<Memory> piece(Memory piece, String exchangeId) {
        String prefix = prefix(piece.metadata().get(Passages.HEADER_KEY));
        if (prefix == null || piece.metadata().containsKey(Passages.OUTPUT_KEY) || exchangeId == null
                || exchange == null) {
            return List.of();
        }
        // One record read as an exchange of its own: its speaker's prefix, then every line it
        // holds; the exchange's metadata (branch, model, ...) goes with what it gives.
        Memory record = new Memory(exchangeId, MemoryKind.EXCHANGE, prefix + piece.text(), piece.startedAt(),
                piece.endedAt(), piece.agent(), piece.project(), piece.session(), piece.provenance(),
                exchange.metadata());
        return classifier.classify(record, exchange, seen, false);
    }

    /**
     * Whether {@code exchange} is an exchange's first memory: an exchange too long for one
     * memory is cut in parts ({@code part} metadata {@code i/n}), and where the cuts fall
     * depends on how long it is, so a growing exchange is replaced from its first part on.
     */
    static boolean begins(Memory exchange) {
        String part = exchange.metadata().get("part");
        return part == null || part.startsWith("1/");
    }

    /** The entry prefix a piece's header stands for; null for what no person or agent said. */
    static String prefix(String header) {
        if (header == null) {
            return null;
        }
        for (String[] s : SPEAKERS) {
            if (header.equals(s[0]) || header.startsWith(s[0] + " \u00b7")) {
                return s[1];
            }
        }
        return null;
    }
}
