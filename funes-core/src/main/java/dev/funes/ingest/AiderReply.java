package dev.funes.ingest;

import dev.funes.ingest.AiderReader.Line;
import dev.funes.ingest.AiderReader.Piece;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One reply of the model in an Aider chat history: plain Markdown, with thinking blocks, code
 * fences, SEARCH/REPLACE edit blocks and whole files written under their name. Its text, thinking
 * and edits go to the chunker as they end, each cited by its lines, a long one in pieces of
 * {@link AiderReader#PIECE_LINES}. The {@link AiderReader} decides which lines are the reply's.
 */
final class AiderReply {

    /** Lines of a fence read before deciding whether it holds an edit. */
    private static final int FENCE_LOOKAHEAD = 3;
    private static final Pattern FENCE = Pattern.compile("^(`{3,}|~{3,})");
    private static final Pattern THINK_OPEN = Pattern.compile("^<(thinking-content-[0-9a-f]+|think|thinking)>\\s*$");
    private static final Pattern PATH = AiderReader.PATH;
    private static final Set<String> TAG_FENCES = Set.of("<source>", "<code>", "<pre>", "<codeblock>", "<sourcecode>");
    private static final int PIECE_LINES = AiderReader.PIECE_LINES;

    private final Chunker chunker;
    private final BiFunction<Line, Line, Rec> recs;
    private final Runnable answered;
    private final MessageDigest replyDigest;
    private final int replyStart;

    private Piece text;
    private Piece thinking;
    /** The line that ends the thinking block being read, or null outside one. */
    private String thinkClose;
    private Fence fence;

    /**
     * @param first    the reply's first line
     * @param chunker  what the reply's pieces go to
     * @param recs     the record citing a range of lines, in the session being read
     * @param answered told whenever the reply answers the request (text, thinking, an edit)
     */
    AiderReply(Line first, Chunker chunker, BiFunction<Line, Line, Rec> recs, Runnable answered) {
        this.chunker = chunker;
        this.recs = recs;
        this.answered = answered;
        this.replyStart = first.number();
        this.replyDigest = Sha256.digest();
    }

    /** Whether a thinking block or a fence is open: then every line but Aider's own belongs to the reply. */
    boolean inBlock() {
        return fence != null || thinkClose != null;
    }

    /** Reads the reply's next line. */
    void line(Line line) {
        String s = line.text();
        if (!s.isBlank()) {
            update(replyDigest, s);
        }
        if (thinkClose != null) {
            thinkingLine(line);
            return;
        }
        if (fence != null) {
            fenceLine(line);
            return;
        }
        Matcher think = THINK_OPEN.matcher(s.strip());
        if (think.matches()) {
            flushText();
            thinkClose = "</" + think.group(1) + ">";
            thinking = new Piece(line);
            return;
        }
        String marker = fenceMarker(s.strip());
        if (marker != null) {
            Line pathAbove = null;
            if (text != null && text.last.number() == line.number() - 1 && isPath(text.last.text())) {
                // Aider names the file on the line above its content: that line belongs to the edit.
                pathAbove = text.last;
                if (!text.removeLast()) {
                    text = null;
                }
            }
            // What comes before the fence is handed over first, so pieces stay in file order.
            flushText();
            fence = new Fence(line, marker, pathAbove);
            fence.lastCited = line;
            return;
        }
        addText(line, s);
    }

    private void thinkingLine(Line line) {
        if (line.text().strip().equals(thinkClose)) {
            thinkClose = null;
            if (thinking == null) {
                thinking = new Piece(line);
            }
            thinking.last = line;
            thinking.lastContent = line;
            flushThinking();
            return;
        }
        if (thinking == null) {
            if (line.text().isBlank()) {
                return;
            }
            thinking = new Piece(line);
        }
        thinking.add(line, line.text());
        // Room for the opening and closing tags within one piece.
        if (thinking.lines >= PIECE_LINES - 2) {
            flushThinking();
        }
    }

    private void addText(Line line, String s) {
        if (text == null) {
            if (s.isBlank()) {
                return;
            }
            text = new Piece(line);
        }
        text.add(line, s);
        if (text.lines >= PIECE_LINES) {
            flushText();
        }
    }

    private void fenceLine(Line line) {
        Fence f = fence;
        String t = line.text().strip();
        f.lastLine = line;
        if (f.pathAbove != null && !t.isEmpty() && line.number() - f.pathAbove.number() < PIECE_LINES) {
            f.lastCited = line;
        }
        if (!f.decided) {
            if (t.equals("<<<<<<< SEARCH")) {
                f.decided = true;
                Line inside = !f.head.isEmpty() && isPath(f.head.get(f.head.size() - 1).text())
                        ? f.head.get(f.head.size() - 1) : null;
                startEdit(f, inside != null ? inside : f.pathAbove, line);
                return;
            }
            if (!f.closes(t) && f.head.size() < FENCE_LOOKAHEAD) {
                f.head.add(line);
                return;
            }
            f.decided = true;
            if (f.pathAbove != null) {
                f.wholeFile = true;
                f.wholeLines = f.head.size();
                // The lines read ahead are the file's first: its passages hold them too.
                for (Line h : f.head) {
                    keep(f, h.text());
                }
            } else {
                // An ordinary code block: part of the reply's text.
                f.code = true;
                addText(f.open, f.open.text());
                for (Line h : f.head) {
                    addText(h, h.text());
                }
            }
        }
        if (f.code) {
            addText(line, line.text());
            if (f.closes(t)) {
                fence = null;
            }
            return;
        }
        if (f.wholeFile) {
            if (f.closes(t)) {
                endWholeFile(f, line);
                fence = null;
            } else {
                f.wholeLines++;
                keep(f, line.text());
            }
            return;
        }
        // SEARCH/REPLACE blocks; fence-like lines inside an edit are the edited file's content.
        if (t.equals("<<<<<<< SEARCH") && f.section == 0) {
            startEdit(f, f.pathInside, line);
            return;
        }
        if (f.section == 0) {
            if (f.closes(t) || !f.marker.startsWith("<") && FENCE.matcher(t).find() && t.chars().allMatch(c -> c == t.charAt(0))) {
                // Aider sometimes closes a four-backtick edit fence with three.
                fence = null;
            } else if (isPath(t)) {
                f.pathInside = line;
            }
            return;
        }
        if (!t.isEmpty() && line.number() - f.editFirst.number() + 1 <= PIECE_LINES) {
            // An edit longer than a piece is cited by its first lines: the file and the start of the change.
            f.editCited = line;
        }
        if (f.section == 1 && t.equals("=======")) {
            f.section = 2;
        } else if (f.section == 2 && t.startsWith(">>>>>>> REPLACE")) {
            endEdit(f);
        } else if (f.section == 1) {
            f.searchLines++;
            if (f.searched.size() < 500) {
                f.searched.add(t);
            }
        } else {
            f.replaceLines++;
            keep(f, line.text());
            if (!t.isEmpty() && !f.searched.contains(t) && f.added.size() < 2) {
                f.added.add(t);
            }
        }
    }

    private void startEdit(Fence f, Line pathLine, Line searchLine) {
        if (pathLine != null) {
            f.editPath = cleanPath(pathLine.text());
        }
        f.editFirst = pathLine != null && searchLine.number() - pathLine.number() < PIECE_LINES ? pathLine : searchLine;
        f.editCited = searchLine;
        f.pathInside = null;
        f.section = 1;
        f.searchLines = 0;
        f.replaceLines = 0;
        f.searched.clear();
        f.added.clear();
        f.content.setLength(0);
    }

    /** Keeps a line of written content up to the passages' cap. */
    private static void keep(Fence f, String text) {
        if (f.content.length() < Passages.MAX_CONTENT_CHARS) {
            f.content.append(text).append('\n');
        }
    }

    private void endEdit(Fence f) {
        String path = f.editPath == null ? "?" : f.editPath;
        StringBuilder label = new StringBuilder("[edit] ").append(path).append(": -").append(f.searchLines)
                .append(" +").append(f.replaceLines).append(f.replaceLines == 1 ? " line" : " lines");
        for (String a : f.added) {
            label.append(" | ").append(a);
        }
        // The call cites the edit's first lines; its replacement text, held whole by its passages,
        // is cited by every line of the edit.
        chunker.toolCall(recs.apply(f.editFirst, f.editCited), "reply:" + replyStart, editId(path), "edit",
                Text.oneLine(label.toString(), ToolRender.LABEL_CHARS), f.content.toString(),
                recs.apply(f.editFirst, f.lastLine));
        answered.run();
        f.section = 0;
        f.editFirst = null;
    }

    private void endWholeFile(Fence f, Line close) {
        String path = cleanPath(f.pathAbove.text());
        Line last = close.number() - f.pathAbove.number() < PIECE_LINES ? close
                : f.lastCited != null ? f.lastCited : f.open;
        // The call cites the file's first lines; the content, held whole by its passages, is cited
        // by every line of the block.
        chunker.toolCall(recs.apply(f.pathAbove, last), "reply:" + replyStart, editId(path), "write",
                Text.oneLine("[write] " + path + " (" + f.wholeLines + (f.wholeLines == 1 ? " line)" : " lines)"),
                        ToolRender.LABEL_CHARS), f.content.toString(), recs.apply(f.pathAbove, close));
        answered.run();
    }

    private void flushText() {
        if (text == null) {
            return;
        }
        Piece p = text;
        text = null;
        String body = p.text.toString().strip();
        if (!body.isEmpty()) {
            chunker.text(recs.apply(p.first, p.lastContent), "reply:" + replyStart, body);
            answered.run();
        }
    }

    private void flushThinking() {
        if (thinking == null) {
            return;
        }
        Piece p = thinking;
        thinking = null;
        String body = p.text.toString().strip();
        if (!body.isEmpty()) {
            chunker.thinking(recs.apply(p.first, p.lastContent), "reply:" + replyStart, body);
            answered.run();
        } else {
            chunker.passive(recs.apply(p.first, p.last));
        }
    }

    /** Hands over what is still held, and returns the digest of the reply's words (see {@link #digest}). */
    byte[] end() {
        Fence f = fence;
        fence = null;
        if (f != null && f.section != 0) {
            endEdit(f);
        } else if (f != null && f.wholeFile) {
            endWholeFile(f, f.lastLine);
        } else if (f != null && !f.decided) {
            if (f.pathAbove != null) {
                f.wholeLines = f.head.size();
                for (Line h : f.head) {
                    keep(f, h.text());
                }
                endWholeFile(f, f.lastLine);
            } else {
                addText(f.open, f.open.text());
                for (Line h : f.head) {
                    addText(h, h.text());
                }
            }
        }
        thinkClose = null;
        flushThinking();
        flushText();
        return replyDigest.digest();
    }

    /** The fence a line opens: a run of backticks or tildes, or one of the tags Aider can fence code with. */
    private static String fenceMarker(String line) {
        Matcher m = FENCE.matcher(line);
        if (m.find()) {
            return m.group(1);
        }
        return TAG_FENCES.contains(line) ? line : null;
    }

    private static boolean isPath(String s) {
        String t = cleanPath(s);
        return !t.isEmpty() && t.length() < 300 && PATH.matcher(t).matches()
                && (t.contains(".") || t.contains("/") || t.contains("\\"));
    }

    /** The file name as Aider prints it above an edit, without Markdown decoration. */
    private static String cleanPath(String s) {
        String t = s.strip();
        while (!t.isEmpty() && "#*`:".indexOf(t.charAt(0)) >= 0) {
            t = t.substring(1).strip();
        }
        while (!t.isEmpty() && "*`:".indexOf(t.charAt(t.length() - 1)) >= 0) {
            t = t.substring(0, t.length() - 1).strip();
        }
        return t;
    }

    /** The id of the edits of one file: Aider's "Applied edit to" line names the same. */
    static String editId(String path) {
        return "edit:" + cleanPath(path).replace('\\', '/');
    }

    /** A digest of the text's words, comparable with a reply's ({@link #end}). */
    static byte[] digest(String text) {
        MessageDigest d = Sha256.digest();
        for (String line : text.split("\n")) {
            if (!line.isBlank()) {
                update(d, line);
            }
        }
        return d.digest();
    }

    /** Adds one non-blank line to a digest of the text's words, so line breaks and indents do not matter. */
    private static void update(MessageDigest d, String line) {
        for (String word : line.strip().split("\\s+")) {
            d.update(word.getBytes(StandardCharsets.UTF_8));
            d.update((byte) ' ');
        }
    }

    /** A fenced block of a reply: code, SEARCH/REPLACE edits, or a whole file named on the line above. */
    private static final class Fence {
        final Line open;
        final String marker;
        /** The file name on the line just above the fence, or null. */
        final Line pathAbove;
        final List<Line> head = new ArrayList<>();
        boolean decided;
        boolean code;
        boolean wholeFile;
        Line lastLine;
        /** For a whole file: its last non-blank line within one piece of the file name. */
        Line lastCited;
        int wholeLines;
        /** The last file name read inside the fence, for the next SEARCH block. */
        Line pathInside;
        String editPath;
        Line editFirst;
        Line editCited;
        int section;
        int searchLines;
        int replaceLines;
        final Set<String> searched = new HashSet<>();
        final List<String> added = new ArrayList<>();
        /** The replacement text of the current edit, or the whole file written, in full (its passages). */
        final StringBuilder content = new StringBuilder();

        Fence(Line open, String marker, Line pathAbove) {
            this.open = open;
            this.marker = marker;
            this.pathAbove = pathAbove;
            this.lastLine = open;
        }

        boolean closes(String line) {
            String t = line.strip();
            if (marker.startsWith("<")) {
                return t.equals("</" + marker.substring(1));
            }
            return t.length() >= marker.length() && t.chars().allMatch(c -> c == marker.charAt(0));
        }
    }
}
