package dev.funes;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One ranked result: a memory and, when its {@linkplain MemoryKind#PASSAGE passages} are what
 * matched, the passage that answers best, whose provenance cites only the record holding the
 * answer, and the further passages of the same memory that matched nearly as well or hold query
 * words the passages before them lack.
 *
 * @param memory       the memory found
 * @param score        its fused score; higher is better; comparable only within one result list
 * @param parts        what the score is made of (the best-matching passage's, when there is one)
 * @param passage      the passage of {@code memory} that answers best, or {@code null} when the
 *                     memory's own text matched best or it has no passages
 * @param morePassages further passages of {@code memory} that matched nearly as well as
 *                     {@code passage} or hold query words the passages before them lack, best
 *                     first (a search returns at most two); empty without {@code passage}
 */
public record SearchHit(Memory memory, double score, ScoreParts parts, Memory passage, List<Memory> morePassages) {

    /** Checks for nulls and that the passages are passages. */
    public SearchHit {
        Objects.requireNonNull(memory, "memory");
        Objects.requireNonNull(parts, "parts");
        morePassages = morePassages == null ? List.of() : List.copyOf(morePassages);
        if (passage == null && !morePassages.isEmpty()) {
            throw new IllegalArgumentException("further passages need a best passage");
        }
        if (passage != null) {
            requirePassage(passage);
        }
        morePassages.forEach(SearchHit::requirePassage);
    }

    private static void requirePassage(Memory p) {
        if (p.kind() != MemoryKind.PASSAGE) {
            throw new IllegalArgumentException("a hit's passage must be of kind passage, was " + p.kind().label());
        }
    }

    /** A hit with at most one passage. */
    public SearchHit(Memory memory, double score, ScoreParts parts, Memory passage) {
        this(memory, score, parts, passage, List.of());
    }

    /** A hit without a passage. */
    public SearchHit(Memory memory, double score, ScoreParts parts) {
        this(memory, score, parts, null, List.of());
    }

    /** Every passage the hit returns, best first: {@link #passage()} and {@link #morePassages()}; empty without one. */
    public List<Memory> passages() {
        return passage == null ? List.of() : prepend(passage, morePassages);
    }

    /**
     * What the hit hands a reader or an agent: its passages, each with the header line that says
     * where it was said, separated by a blank line; the memory's text when it has no passage.
     */
    public String returnedText() {
        if (passage == null) {
            return memory.text();
        }
        StringBuilder text = new StringBuilder(passage.text());
        for (Memory more : morePassages) {
            text.append("\n\n").append(more.text());
        }
        return text.toString();
    }

    /**
     * The passage's own words, without the header line that says where they were said; {@code null}
     * without a passage.
     */
    public String passageText() {
        return passage == null ? null : body(passage);
    }

    /**
     * A passage's own words: its text without the header line that says where they were said.
     *
     * @param passage a {@link MemoryKind#PASSAGE} memory, such as one of {@link #passages()}
     */
    public static String body(Memory passage) {
        String text = passage.text();
        int newline = text.indexOf('\n');
        return newline < 0 ? text : text.substring(newline + 1);
    }

    /**
     * A passage's header line: what was said where (speaker or tool and its key input, date, the
     * request); empty when it has none.
     *
     * @param passage a {@link MemoryKind#PASSAGE} memory, such as one of {@link #passages()}
     */
    public static String header(Memory passage) {
        String text = passage.text();
        return text.substring(0, text.length() - body(passage).length()).strip();
    }

    /** Where the answer lies: the passage's provenance when there is one, else the memory's; may be null. */
    public Provenance cited() {
        return passage != null && passage.provenance() != null ? passage.provenance() : memory.provenance();
    }

    private static List<Memory> prepend(Memory first, List<Memory> rest) {
        List<Memory> all = new ArrayList<>(rest.size() + 1);
        all.add(first);
        all.addAll(rest);
        return List.copyOf(all);
    }
}
