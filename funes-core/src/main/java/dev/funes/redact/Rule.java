package dev.funes.redact;

/** Finds one kind of secret in a text; immutable and thread-safe. */
interface Rule {

    /** Receives what a rule finds. */
    interface Sink {
        /** The secret at {@code [start, end)} of the text is of {@code type}. */
        void found(int start, int end, String type);
    }

    /** Reports every secret this rule finds in the text, in any order. */
    void find(Input input, Sink sink);

    /**
     * The text being redacted, with an ASCII-lower-cased copy made on first use (the same length
     * as the text, so offsets agree), for the cheap literal checks that let rules skip texts that
     * cannot hold their secrets.
     */
    final class Input {
        final String text;
        private String lower;

        Input(String text) {
            this.text = text;
        }

        String lower() {
            if (lower == null) {
                char[] c = text.toCharArray();
                for (int i = 0; i < c.length; i++) {
                    if (c[i] >= 'A' && c[i] <= 'Z') {
                        c[i] += 'a' - 'A';
                    }
                }
                lower = new String(c);
            }
            return lower;
        }

        /** Whether the text holds one of the literals. */
        boolean containsAny(String[] literals) {
            for (String s : literals) {
                if (text.contains(s)) {
                    return true;
                }
            }
            return false;
        }

        /** Whether the lower-cased text holds one of the (lower-case) literals. */
        boolean lowerContainsAny(String[] literals) {
            String l = lower();
            for (String s : literals) {
                if (l.contains(s)) {
                    return true;
                }
            }
            return false;
        }
    }
}
