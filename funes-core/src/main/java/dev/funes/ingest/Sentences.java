package dev.funes.ingest;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The prose sentences of a piece of chat text, for the classifier's cue patterns. What is not
 * prose is left out, because a cue word there was not said by anyone: fenced code blocks,
 * indented code, quoted lines ({@code > ...}), table rows, headings, pasted terminal output
 * (lines led by a prompt sign). Inline code stays in the sentence but is masked for matching,
 * so {@code `--instead-of`} or {@code `always()`} do not fire a rule while
 * "use {@code `npm install`} instead of {@code `npm ci`}" still names what was chosen.
 */
final class Sentences {

    /**
     * One sentence.
     *
     * @param text   as written (markdown emphasis and inline code included)
     * @param masked the same length, with inline code spans replaced by {@code x}, lower-cased
     */
    record Sentence(String text, String masked) {
    }

    private static final Pattern INLINE_CODE = Pattern.compile("`[^`\n]*`");
    /**
     * A sentence ends at . ! ? and space, unless the dot ends a common abbreviation. People type
     * lower-case sentences to agents, so the next sentence need not start with a capital.
     */
    private static final Pattern BOUNDARY = Pattern.compile(
            "(?<!\\b(?:e\\.g|i\\.e|etc|vs|cf|approx|incl|resp|mr|ms|dr|no))(?<=[.!?])[\"')\\]*]*\\s+(?=\\S)",
            Pattern.CASE_INSENSITIVE);
    private static final Pattern ENDS_SENTENCE = Pattern.compile("[.!?:;]['\")*]*$");
    private static final Pattern BULLET = Pattern.compile("^(?:[-*+\u2022]|\\d{1,2}[.)])\\s+");
    private static final Pattern PROMPT = Pattern.compile("^(?:[$\u276F%>#]|\\w+@[\\w.-]+[:$])\\s");
    private static final Pattern EMOJI_FLAGS = Pattern.compile("^[\u2705\u274C\u26A0\uFE0F\\s]+");
    static final int MAX_SENTENCE_CHARS = 500;

    private Sentences() {
    }

    /** The sentences of {@code text}, in order. */
    static List<Sentence> of(String text) {
        List<Sentence> out = new ArrayList<>();
        StringBuilder paragraph = new StringBuilder();
        boolean fenced = false;
        for (String raw : text.split("\n", -1)) {
            String line = raw.stripTrailing();
            String trimmed = line.strip();
            if (trimmed.startsWith("```") || trimmed.startsWith("~~~")) {
                flush(paragraph, out);
                fenced = !fenced;
                continue;
            }
            if (fenced) {
                continue;
            }
            boolean code = line.startsWith("    ") && !BULLET.matcher(trimmed).find() || line.startsWith("\t");
            if (trimmed.isEmpty() || code || trimmed.startsWith(">") || trimmed.startsWith("|")
                    || trimmed.startsWith("#") || PROMPT.matcher(trimmed).find() || isFrame(trimmed)) {
                flush(paragraph, out);
                continue;
            }
            Matcher bullet = BULLET.matcher(trimmed);
            if (bullet.find()) {
                // A bullet is a statement of its own.
                flush(paragraph, out);
                trimmed = trimmed.substring(bullet.end());
            }
            trimmed = EMOJI_FLAGS.matcher(trimmed).replaceFirst("");
            // A line break ends a sentence unless the text was hard-wrapped mid-sentence.
            if (paragraph.length() > 0 && (ENDS_SENTENCE.matcher(paragraph).find()
                    || !Character.isLowerCase(trimmed.codePointAt(0)))) {
                flush(paragraph, out);
            }
            paragraph.append(paragraph.length() == 0 ? "" : " ").append(trimmed);
        }
        flush(paragraph, out);
        return out;
    }

    private static boolean isFrame(String line) {
        int letters = 0;
        for (int i = 0; i < line.length(); i++) {
            if (Character.isLetterOrDigit(line.charAt(i))) {
                letters++;
            }
        }
        return letters * 2 < line.length();
    }

    private static void flush(StringBuilder paragraph, List<Sentence> out) {
        if (paragraph.length() == 0) {
            return;
        }
        String p = paragraph.toString();
        paragraph.setLength(0);
        String masked = mask(p);
        Matcher m = BOUNDARY.matcher(masked);
        int start = 0;
        while (m.find()) {
            add(p.substring(start, m.start()), masked.substring(start, m.start()), out);
            start = m.end();
        }
        add(p.substring(start), masked.substring(start), out);
    }

    private static void add(String text, String masked, List<Sentence> out) {
        String t = text.strip();
        if (t.isEmpty() || t.length() > MAX_SENTENCE_CHARS) {
            // A "sentence" this long is a pasted log or a list run together, not a statement.
            return;
        }
        int lead = text.indexOf(t);
        out.add(new Sentence(t, masked.substring(lead, lead + t.length()).toLowerCase(java.util.Locale.ROOT).replace('\u2019', '\'')));
    }

    /** {@code s} with every inline code span's characters replaced by {@code x} (same length). */
    static String mask(String s) {
        Matcher m = INLINE_CODE.matcher(s);
        if (!m.find()) {
            return s;
        }
        StringBuilder b = new StringBuilder(s);
        do {
            for (int i = m.start(); i < m.end(); i++) {
                b.setCharAt(i, 'x');
            }
        } while (m.find());
        return b.toString();
    }
}
