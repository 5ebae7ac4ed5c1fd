package dev.funes.ingest;

import dev.funes.Memory;
import dev.funes.MemoryKind;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Cuts the full content of one record into passages a search can return as the answer: a few
 * sentences or lines each, at most {@link #MAX_CHARS} characters, cut at blank lines (paragraphs,
 * code blocks) where a passage has enough in it, else at line ends, and only inside an overlong
 * line at a space.
 */
final class Passages {

    /** Most characters of one passage's body: about 150-230 tokens, inside an embedder's window with a header. */
    static final int MAX_CHARS = 640;
    /** A blank line ends a passage once it holds this much. */
    static final int PARAGRAPH_CHARS = 240;
    /** Most characters of one record that are cut into passages; what lies past it is named as skipped. */
    static final int MAX_CONTENT_CHARS = 1 << 20;
    /** Pieces with fewer non-space characters than this hold nothing worth a passage of their own. */
    static final int MIN_CHARS = 8;

    /**
     * Metadata of a piece (a {@link MemoryKind#PASSAGE} memory holding one record's whole content,
     * as the {@link Chunker} hands it on): the line that heads each of its passages.
     */
    static final String HEADER_KEY = "passageHeader";
    /** Metadata of a piece: the request it answers, shortened into the header after redaction. */
    static final String CONTEXT_KEY = "passageContext";
    /**
     * Metadata of a piece: it is a tool's output, whose passages use the embedding of their
     * exchange ({@link Memory#VECTOR_OF}): outputs are most of what agents log, and embedding them
     * all would multiply the cost of indexing; their words are still all indexed.
     */
    static final String OUTPUT_KEY = "passageOutput";
    /**
     * Metadata of a piece: it is what the agent read to learn (documentation, an issue), whose
     * passages keep embeddings of their own even in an exchange short enough to share its
     * embedding ({@link #SHARED_EXCHANGE_CHARS}): a question paraphrases such prose.
     */
    static final String DOCS_KEY = "passageDocs";
    /**
     * An exchange whose text is at most this long is embedded in one window of the bundled models
     * (256 tokens), so its embedding reads all of it: a request, answer, thought or tool input it
     * holds whole uses the exchange's embedding ({@link Memory#VECTOR_OF}) instead of one of its
     * own. On the coding set that embeds 11% fewer texts with the same recall (docs/EVALUATION.md,
     * "What passages cost").
     */
    static final int SHARED_EXCHANGE_CHARS = 1000;
    /** Metadata that describes a piece to this class and is not stored with its passages. */
    private static final Set<String> PIECE_KEYS = Set.of(HEADER_KEY, CONTEXT_KEY, OUTPUT_KEY, DOCS_KEY);
    /** Characters of the request a header names. */
    static final int CONTEXT_CHARS = 100;

    private Passages() {
    }

    /**
     * The passages of a piece: its text cut by {@link #cut}, each headed by the piece's header
     * line (what was said where: speaker or tool, date, the request) and citing the piece's
     * record. Cut after redaction, so that no cut splits a secret into pieces a rule would miss.
     */
    static List<Memory> split(Memory piece) {
        String header = piece.metadata().get(HEADER_KEY);
        String context = piece.metadata().get(CONTEXT_KEY);
        if (header != null && context != null) {
            header = header + " \u00b7 on: " + Text.oneLine(context, CONTEXT_CHARS);
        }
        List<String> bodies = cut(piece.text());
        List<Memory> out = new ArrayList<>(bodies.size());
        for (int i = 0; i < bodies.size(); i++) {
            Memory.Builder b = Memory.builder(MemoryKind.PASSAGE, piece.agent(),
                            header == null ? bodies.get(i) : header + "\n" + bodies.get(i))
                    .time(piece.startedAt(), piece.endedAt())
                    .project(piece.project())
                    .session(piece.session())
                    .provenance(piece.provenance());
            for (Map.Entry<String, String> e : piece.metadata().entrySet()) {
                if (!PIECE_KEYS.contains(e.getKey())) {
                    b.metadata(e.getKey(), e.getValue());
                }
            }
            b.metadata("passage", bodies.size() > 1 ? (i + 1) + "/" + bodies.size() : null);
            out.add(b.build());
        }
        return out;
    }

    /** The passages of {@code text}, in order; none for a blank or tiny text. */
    static List<String> cut(String text) {
        List<String> out = new ArrayList<>();
        if (text == null || text.strip().length() < MIN_CHARS) {
            return out;
        }
        String skipped = null;
        if (text.length() > MAX_CONTENT_CHARS) {
            int end = Text.cutBefore(text, MAX_CONTENT_CHARS);
            skipped = "[" + (text.length() - end) + " more characters not indexed]";
            text = text.substring(0, end);
        }
        StringBuilder current = new StringBuilder();
        for (String line : text.split("\n", -1)) {
            line = line.stripTrailing();
            if (line.isEmpty()) {
                if (current.length() >= PARAGRAPH_CHARS) {
                    flush(current, out);
                } else if (current.length() > 0) {
                    current.append('\n');
                }
                continue;
            }
            if (current.length() > 0 && current.length() + 1 + line.length() > MAX_CHARS) {
                flush(current, out);
            }
            while (line.length() > MAX_CHARS) {
                int cut = Text.cutBefore(line, MAX_CHARS);
                if (Character.isHighSurrogate(line.charAt(cut - 1))) {
                    cut--;
                }
                current.append(line, 0, cut);
                flush(current, out);
                line = line.substring(cut).stripLeading();
            }
            if (!line.isEmpty()) {
                current.append(current.length() == 0 ? "" : "\n").append(line);
            }
        }
        flush(current, out);
        if (skipped != null) {
            out.add(skipped);
        }
        return out;
    }

    private static void flush(StringBuilder current, List<String> out) {
        String s = current.toString().strip();
        if (s.length() >= MIN_CHARS) {
            out.add(s);
        }
        current.setLength(0);
    }
}
