package dev.funes;

/**
 * Which retrievers a search ranks with. {@link #HYBRID} is what callers normally want; the single
 * retrievers are there to see what each side finds on its own (the evaluation harness measures
 * them) and for queries that are only meant one way.
 */
public enum Retrieval {

    /** Dense (embedding) and lexical (FTS5 BM25) candidates, fused; the default. */
    HYBRID,
    /** Dense candidates only: the memories whose embedding is nearest the query's. */
    DENSE,
    /** Lexical candidates only: FTS5 BM25 over the text and its identifier parts. */
    LEXICAL;

    /** The lower-case name used on the command line and in MCP, e.g. {@code hybrid}. */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /**
     * The mode for a label such as {@code dense} (case-insensitive).
     *
     * @throws IllegalArgumentException naming the valid labels if there is no such mode
     */
    public static Retrieval fromLabel(String label) {
        for (Retrieval r : values()) {
            if (r.label().equalsIgnoreCase(label == null ? "" : label.trim())) {
                return r;
            }
        }
        throw new IllegalArgumentException("unknown retrieval mode '" + label + "' (valid: hybrid, dense, lexical)");
    }
}
