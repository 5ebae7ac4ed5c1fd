package dev.funes.ingest;

import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.Provenance;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * Groups the records of one log, in file order, into EXCHANGE memories: a request with the
 * agent's reasoning, answers and tool calls, split into parts that each cite a focused range.
 *
 * <p>A part closes when the next contribution would make it span more than {@link #MAX_LINES}
 * lines or more than {@link #MAX_CHARS} characters. Parts after the first repeat the request,
 * shortened, so each part can be found and understood on its own. An exchange's parts are held
 * until the exchange ends, because each part's metadata says {@code part i/n}.
 *
 * <p>Records of the main conversation and of a sub-agent (sidechain) are kept apart: switching
 * from one to the other closes the current part, so a cited range never mixes them.
 */
final class Chunker {

    /** Most lines one memory cites: a hit must point at something a person can read at once. */
    static final int MAX_LINES = 40;
    /** Most characters of one memory's text: a few paragraphs, well past an embedder's window. */
    static final int MAX_CHARS = 4000;
    /** Characters of the request kept in the part that holds it. */
    static final int REQUEST_CHARS = 1500;
    /** Characters of the request repeated as context at the top of later parts. */
    static final int CONTEXT_CHARS = 300;
    /** Characters of one assistant text (an answer or an explanation between tool calls). */
    static final int TEXT_CHARS = 1500;
    /** Characters of one thinking block: the reasoning is useful, its full length is not. */
    static final int THINKING_CHARS = 600;

    /** How a request came to be. */
    enum RequestKind {
        /** Typed by the person. */
        TYPED,
        /** A slash command or shell escape; dropped if the agent never answered it. */
        COMMAND
    }

    private enum EntryKind { REQUEST, TEXT, THINKING, CALL, RESULT, MARKER }

    /**
     * One record's whole contribution, before any rendering shortened it: what becomes the
     * exchange's passages.
     *
     * @param header  what heads each of its passages: who or which tool, and the date
     * @param context the request it answers, or null; shortened only after redaction
     * @param text    the full text
     * @param rec     the record holding it
     * @param output  whether it is a tool's output, found by meaning through its exchange's
     *                embedding rather than one of its own
     * @param docs    whether it is what the agent read to learn (documentation, an issue), whose
     *                passages keep embeddings of their own even where the exchange reads them whole
     */
    private record Piece(String header, String context, String text, Rec rec, boolean output, boolean docs) {
    }

    /** One rendered piece of a part. */
    private static final class Entry {
        final EntryKind kind;
        final int line;
        final long start;
        int lastLine;
        long end;
        final String messageId;
        final StringBuilder text;
        String toolName;
        String toolLabel;
        /** Whether this call ran Funes itself: its result is not remembered. */
        boolean self;
        /** The full content of the records this entry renders. */
        final List<Piece> pieces = new ArrayList<>(1);

        Entry(EntryKind kind, Rec r, String messageId, String text) {
            this.kind = kind;
            this.line = r.line();
            this.start = r.start();
            this.lastLine = r.lastLine();
            this.end = r.end();
            this.messageId = messageId;
            this.text = new StringBuilder(text);
        }

        /** Extends the entry to the end of {@code r}, which holds more of it (a result, a merged block). */
        void extendTo(Rec r) {
            if (r.lastLine() >= lastLine) {
                lastLine = r.lastLine();
                end = r.end();
            }
        }
    }

    /** A record seen while a part was open, and whether it added to the part's text. */
    private static final class Seen {
        final Rec rec;
        boolean contributes;

        Seen(Rec rec, boolean contributes) {
            this.rec = rec;
            this.contributes = contributes;
        }
    }

    /** The part being built: its entries and every record seen since it opened. */
    private static final class Part {
        final String header;
        final List<Entry> entries = new ArrayList<>();
        final List<Seen> records = new ArrayList<>();

        Part(String header) {
            this.header = header;
        }

        int firstLine() {
            return entries.get(0).line;
        }

        int chars() {
            int n = header == null ? 0 : header.length() + 1;
            for (Entry e : entries) {
                n += e.text.length() + 1;
            }
            return n;
        }

        void observe(Rec r, boolean contributes) {
            Seen last = records.isEmpty() ? null : records.get(records.size() - 1);
            if (last != null && last.rec == r) {
                last.contributes |= contributes;
            } else {
                records.add(new Seen(r, contributes));
            }
        }
    }

    /** A closed part, waiting for its exchange to end. */
    private record Closed(String text, int lineStart, int lineEnd, long byteStart, long byteEnd,
                          List<String> recordIds, Instant startedAt, Instant endedAt, List<Piece> pieces) {
    }

    /** One request and what the agent did about it. */
    private static final class Exchange {
        final Rec first;
        final boolean sidechain;
        final String context;
        final int requestLine;
        final boolean command;
        boolean answered;
        final List<Closed> closed = new ArrayList<>();
        Part open;
        final Map<String, Entry> calls = new HashMap<>();
        final Map<String, String> annotations = new TreeMap<>();

        Exchange(Rec first, String context, int requestLine, boolean command) {
            this.first = first;
            this.sidechain = first.sidechain();
            this.context = context;
            this.requestLine = requestLine;
            this.command = command;
        }
    }

    private final Path file;
    private final String agent;
    private final Consumer<Memory> out;
    private final boolean passages;
    private Exchange main;
    private Exchange side;
    private boolean onSide;

    /**
     * @param file  the log file, absolute
     * @param agent the agent name the memories carry
     * @param out   receives each memory once its exchange has ended
     */
    Chunker(Path file, String agent, Consumer<Memory> out) {
        this(file, agent, out, false);
    }

    /**
     * @param passages whether each exchange memory is followed by its pieces: one
     *                 {@link MemoryKind#PASSAGE} memory per record holding its full content (cut
     *                 into passages by {@link Passages#split} after redaction)
     */
    Chunker(Path file, String agent, Consumer<Memory> out, boolean passages) {
        this.file = file;
        this.agent = agent;
        this.out = out;
        this.passages = passages;
    }

    // ---- events, in file order ---------------------------------------------------------------

    /**
     * A record that adds no text but may lie inside the range of the current part; whatever its
     * chain, so that the ids of every record inside a cited range are known.
     */
    void passive(Rec r) {
        Exchange ex = current();
        if (ex != null && ex.open != null && r.lastLine() - ex.open.firstLine() < MAX_LINES) {
            ex.open.observe(r, false);
        }
    }

    /**
     * A record that repeats what the last piece of the current exchange already says (one
     * message logged twice, as a response item and as an event): cited with that piece when the
     * part has room, so the range covers both, and adds no text.
     */
    void repeat(Rec r) {
        Exchange ex = current();
        Entry last = ex == null ? null : lastEntry(ex);
        if (last != null && fits(ex.open, r.lastLine(), 0)) {
            last.extendTo(r);
            ex.open.observe(r, true);
        } else {
            passive(r);
        }
    }

    /** Metadata for the current exchange's memories, such as a commit seen after its request; null is ignored. */
    void annotate(String key, String value) {
        Exchange ex = current();
        if (ex != null && value != null && !value.isBlank()) {
            ex.annotations.put(key, value);
        }
    }

    /** Whether an exchange is open on the current chain (a request or agent output was seen). */
    boolean inExchange() {
        return current() != null;
    }

    /**
     * A request: ends the current exchange of the record's chain and starts a new one.
     *
     * @return whether every exchange begun before {@code r} is now ended, so that a read starting
     *         at {@code r} with a new chunker gives the same memories from here on: a point a
     *         reader may resume from
     */
    boolean request(Rec r, String text, RequestKind kind) {
        text = Privacy.strip(text);
        switchTo(r.sidechain());
        finish(current());
        String label = r.sidechain() ? "Task from the parent agent: "
                : kind == RequestKind.COMMAND ? "User command: " : "User: ";
        Exchange ex = new Exchange(r, Text.oneLine(text, CONTEXT_CHARS), r.line(), kind == RequestKind.COMMAND);
        if (kind == RequestKind.TYPED && Privacy.isIgnoreDirective(text)) {
            ex.annotations.put(Privacy.DIRECTIVE_KEY, "true");
        }
        setCurrent(ex);
        Entry e = new Entry(EntryKind.REQUEST, r, null, label + Text.headTail(text, REQUEST_CHARS));
        piece(e, ex, label.strip().replace(":", ""), text, r);
        add(ex, r, e);
        return (onSide ? main : side) == null;
    }

    /** A text block of an assistant message; consecutive blocks of one message are merged. */
    void text(Rec r, String messageId, String text) {
        Exchange ex = exchangeFor(r);
        ex.answered = true;
        String full = Text.clean(Privacy.strip(text));
        String body = Text.headTail(full, TEXT_CHARS);
        Entry last = lastEntry(ex);
        if (last != null && last.kind == EntryKind.TEXT && messageId.equals(last.messageId)
                && last.text.length() + 1 + body.length() <= TEXT_CHARS + "Assistant: ".length()
                && fits(ex.open, r.lastLine(), body.length() + 1)) {
            last.text.append('\n').append(body);
            last.extendTo(r);
            piece(last, ex, "Assistant", full, r);
            ex.open.observe(r, true);
            return;
        }
        Entry e = new Entry(EntryKind.TEXT, r, messageId, "Assistant: " + body);
        piece(e, ex, "Assistant", full, r);
        add(ex, r, e);
    }

    /** A thinking block of an assistant message. */
    void thinking(Rec r, String messageId, String text) {
        Exchange ex = exchangeFor(r);
        ex.answered = true;
        String full = Text.clean(Privacy.strip(text));
        Entry e = new Entry(EntryKind.THINKING, r, messageId, "Thinking: " + Text.headTail(full, THINKING_CHARS));
        piece(e, ex, "Thinking", full, r);
        add(ex, r, e);
    }

    /** A tool call; its result, when it comes, is joined to it by {@code toolUseId}. */
    void toolCall(Rec r, String messageId, String toolUseId, String toolName, String label) {
        toolCall(r, messageId, toolUseId, toolName, label, null);
    }

    /**
     * A tool call with its input in full (a written file's content, an edit's strings, a patch,
     * a whole command), which its passages hold when it says more than the label.
     */
    void toolCall(Rec r, String messageId, String toolUseId, String toolName, String label, String input) {
        toolCall(r, messageId, toolUseId, toolName, label, input, r);
    }

    /**
     * A tool call whose input in full lies in more of the log than the call cites ({@code inputRec}):
     * a whole file written in a reply is cited by its first lines, its content by all of them.
     */
    void toolCall(Rec r, String messageId, String toolUseId, String toolName, String label, String input,
                  Rec inputRec) {
        Exchange ex = exchangeFor(r);
        ex.answered = true;
        label = Privacy.strip(label);
        Entry e = new Entry(EntryKind.CALL, r, messageId, label);
        e.toolName = toolName;
        e.toolLabel = label;
        e.self = Privacy.isSelfCall(toolName, label);
        if (input != null && !label.contains(input.strip())) {
            piece(e, ex, label, Privacy.strip(input), inputRec);
        }
        add(ex, r, e);
        if (toolUseId != null) {
            ex.calls.put(toolUseId, e);
        }
    }

    /**
     * A tool result. Joined to its call when the call is in the current part and the part has
     * room (or can be made to have room by moving the call's message into a new part);
     * otherwise it stands alone, naming the call it answers.
     */
    void toolResult(Rec r, String toolUseId, String content, boolean error) {
        Exchange ex = exchangeFor(r);
        Entry call = toolUseId == null ? null : ex.calls.remove(toolUseId);
        boolean self = call != null && call.self;
        String full = self ? null : Privacy.strip(content);
        String result = self ? Privacy.SELF_RESULT
                : ToolRender.result(call == null ? null : call.toolName, full, error);
        String about = call != null ? "Result of " + call.toolLabel : "Tool result";
        // What a passage of the output is headed by: "Error of [Bash] npm test" when it failed.
        String header = !error ? about : call != null ? "Error of " + call.toolLabel : "Tool error";
        Part p = ex.open;
        if (call != null && p != null && p.entries.contains(call)) {
            if (fits(p, r.lastLine(), result.length() + 3)) {
                output(call, ex, header, full, r, readsDocs(call));
                attach(p, call, r, result);
                return;
            }
            int k = p.entries.indexOf(call);
            while (k > 0 && call.messageId != null && call.messageId.equals(p.entries.get(k - 1).messageId)) {
                k--;
            }
            if (moveTailToNewPart(ex, k, r, result.length() + 3)) {
                output(call, ex, header, full, r, readsDocs(call));
                attach(ex.open, call, r, result);
                return;
            }
        }
        Entry e = new Entry(EntryKind.RESULT, r, null, about + " \u2192 " + result);
        output(e, ex, header, full, r, readsDocs(call));
        add(ex, r, e);
    }

    /** A mark in the current exchange, such as an interruption; ignored outside any exchange. */
    void marker(Rec r, String text) {
        text = Privacy.strip(text);
        switchTo(r.sidechain());
        Exchange ex = current();
        if (ex == null) {
            return;
        }
        add(ex, r, new Entry(EntryKind.MARKER, r, null, text));
    }

    /**
     * More of a long request, on lines of its own (Aider cites a long input in slices): rendered
     * as {@code User (continued): } with its head and tail, and kept whole for the passages.
     */
    void requestContinued(Rec r, String text) {
        switchTo(r.sidechain());
        Exchange ex = current();
        if (ex == null) {
            return;
        }
        String full = Text.clean(Privacy.strip(text));
        Entry e = new Entry(EntryKind.MARKER, r, null, "User (continued): " + Text.headTail(full, REQUEST_CHARS));
        piece(e, ex, "User", full, r);
        add(ex, r, e);
    }

    /**
     * Output of the agent's own program rather than its model (Aider's notes, a commit it made):
     * a piece of the current exchange, or of one without a request, that counts as an answer.
     */
    void output(Rec r, String text) {
        String shown = Privacy.strip(text);
        output(r, shown, shown, false);
    }

    /**
     * {@link #output(Rec, String)} of a program's output that the entry shows as
     * {@code rendering} (its head and tail, long lines cut) and whose whole text, {@code full},
     * becomes its passages. Like a tool's output, they use their exchange's embedding.
     */
    void output(Rec r, String rendering, String full) {
        output(r, Privacy.strip(rendering), Privacy.strip(full), true);
    }

    private void output(Rec r, String shown, String whole, boolean toolOutput) {
        Exchange ex = exchangeFor(r);
        ex.answered = true;
        Entry e = new Entry(EntryKind.MARKER, r, null, shown);
        piece(e, ex, "Output", whole, r, toolOutput, false);
        add(ex, r, e);
    }

    /** Ends every open exchange; call once at the end of the file. */
    void finishAll() {
        finish(side);
        side = null;
        finish(main);
        main = null;
    }

    // ---- parts -------------------------------------------------------------------------------

    private void attach(Part p, Entry call, Rec r, String result) {
        call.text.append(" \u2192 ").append(result);
        call.extendTo(r);
        p.observe(r, true);
    }

    private void add(Exchange ex, Rec r, Entry e) {
        if (ex.open != null && !fits(ex.open, r.lastLine(), e.text.length())) {
            // Keep the blocks of one assistant message (parallel tool calls) in one part if possible.
            int k = ex.open.entries.size();
            while (k > 0 && e.messageId != null && e.messageId.equals(ex.open.entries.get(k - 1).messageId)) {
                k--;
            }
            if (k == ex.open.entries.size() || !moveTailToNewPart(ex, k, r, e.text.length())) {
                close(ex);
            }
        }
        if (ex.open == null) {
            ex.open = new Part(ex.closed.isEmpty() || ex.context == null ? null : "Request (continued): " + ex.context);
        }
        ex.open.entries.add(e);
        ex.open.observe(r, true);
    }

    private static boolean fits(Part p, int line, int extraChars) {
        return p != null && (p.entries.isEmpty()
                || (line - p.firstLine() + 1 <= MAX_LINES && p.chars() + extraChars + 1 <= MAX_CHARS));
    }

    private static Entry lastEntry(Exchange ex) {
        return ex.open == null || ex.open.entries.isEmpty() ? null : ex.open.entries.get(ex.open.entries.size() - 1);
    }

    /**
     * Closes the open part without its entries from index {@code k} on, which open a new part:
     * so a tool call and its result, or the blocks of one assistant message, stay together when
     * the next record does not fit. Only when the old part keeps something, the moved entries and
     * the incoming record fit the new part, and the two ranges stay disjoint.
     */
    private boolean moveTailToNewPart(Exchange ex, int k, Rec r, int extraChars) {
        Part p = ex.open;
        if (k <= 0 || k >= p.entries.size()) {
            return false;
        }
        int from = p.entries.get(k).line;
        for (int i = 0; i < k; i++) {
            if (p.entries.get(i).lastLine >= from) {
                return false;
            }
        }
        String header = ex.context == null ? null : "Request (continued): " + ex.context;
        int chars = header == null ? 0 : header.length() + 1;
        for (int i = k; i < p.entries.size(); i++) {
            chars += p.entries.get(i).text.length() + 1;
        }
        if (r.lastLine() - from + 1 > MAX_LINES || chars + extraChars + 1 > MAX_CHARS) {
            return false;
        }
        Part next = new Part(header);
        next.entries.addAll(p.entries.subList(k, p.entries.size()));
        p.entries.subList(k, p.entries.size()).clear();
        for (Seen seen : p.records) {
            if (seen.rec.line() >= from) {
                next.records.add(seen);
            }
        }
        p.records.removeIf(seen -> seen.rec.line() >= from);
        close(ex);
        ex.open = next;
        return true;
    }

    private void close(Exchange ex) {
        Part p = ex.open;
        ex.open = null;
        if (p == null || p.entries.isEmpty()) {
            return;
        }
        int lineStart = Integer.MAX_VALUE;
        int lineEnd = 0;
        long byteStart = 0;
        long byteEnd = 0;
        for (Entry e : p.entries) {
            if (e.line < lineStart) {
                lineStart = e.line;
                byteStart = e.start;
            }
            if (e.lastLine > lineEnd) {
                lineEnd = e.lastLine;
                byteEnd = e.end;
            }
        }
        List<String> ids = new ArrayList<>();
        Instant startedAt = null;
        Instant endedAt = null;
        for (Seen seen : p.records) {
            Rec rec = seen.rec;
            if (rec.line() < lineStart || rec.line() > lineEnd) {
                continue;
            }
            // Parts of one record (the thoughts and tool calls of one JSON message) share its id: list it once.
            if (rec.id() != null && (ids.isEmpty() || !ids.get(ids.size() - 1).equals(rec.id()))) {
                ids.add(rec.id());
            }
            if (rec.time() != null && seen.contributes) {
                startedAt = startedAt == null || rec.time().isBefore(startedAt) ? rec.time() : startedAt;
                endedAt = endedAt == null || rec.time().isAfter(endedAt) ? rec.time() : endedAt;
            }
        }
        StringBuilder text = new StringBuilder();
        if (p.header != null) {
            text.append(p.header).append('\n');
        }
        for (Entry e : p.entries) {
            text.append(e.text).append('\n');
        }
        String body = Text.headTail(text.toString().strip(), MAX_CHARS);
        List<Piece> pieces = new ArrayList<>();
        for (Entry e : p.entries) {
            pieces.addAll(e.pieces);
        }
        ex.closed.add(new Closed(body, lineStart, lineEnd, byteStart, byteEnd, ids, startedAt, endedAt, pieces));
    }

    private void finish(Exchange ex) {
        if (ex == null) {
            return;
        }
        close(ex);
        if (ex.command && !ex.answered) {
            return;
        }
        int n = ex.closed.size();
        for (int i = 0; i < n; i++) {
            Closed c = ex.closed.get(i);
            Rec f = ex.first;
            Memory.Builder b = Memory.builder(MemoryKind.EXCHANGE, agent, c.text())
                    .time(c.startedAt(), c.endedAt())
                    .project(f.cwd())
                    .session(f.session())
                    .provenance(new Provenance(file, c.lineStart(), c.lineEnd(), c.byteStart(), c.byteEnd(), c.recordIds()));
            f.meta().forEach(b::metadata);
            ex.annotations.forEach(b::metadata);
            b.metadata("sidechain", ex.sidechain ? "true" : null)
                    .metadata("part", n > 1 ? (i + 1) + "/" + n : null)
                    .metadata("requestLine", i > 0 && ex.context != null ? String.valueOf(ex.requestLine) : null);
            Memory memory = b.build();
            out.accept(memory);
            for (Piece piece : c.pieces()) {
                out.accept(piece(memory, ex, piece));
            }
        }
        ex.closed.clear();
    }

    /**
     * Keeps a tool's whole output, which the entry renders as its head and tail or not at all.
     * Outputs use their exchange's embedding, except what the agent read to learn (documentation,
     * a web page, an issue): that is prose a question paraphrases, found by its own.
     */
    private void output(Entry e, Exchange ex, String header, String text, Rec r, boolean docs) {
        piece(e, ex, header, text, r, !docs, docs);
    }

    /**
     * Whether a call read documentation, the web or an issue tracker: a documentation lookup of
     * {@link ClassifierRules#lookupRule}, or a tracker's show/view command.
     */
    static boolean readsDocs(Entry call) {
        if (call == null || call.toolName == null || call.toolLabel == null) {
            return false;
        }
        int close = call.toolLabel.indexOf("] ");
        String input = close < 0 ? "" : call.toolLabel.substring(close + 2).strip();
        return ClassifierRules.lookupRule(call.toolName, input) != null
                || ClassifierRules.SHELL_TOOLS.contains(call.toolName) && TRACKER_READ.matcher(input).find();
    }

    /** Shell commands that print an issue, a pull request or a ticket. */
    private static final Pattern TRACKER_READ = Pattern.compile(
            "^(?:gh\\s+(?:issue|pr)\\s+view|glab\\s+(?:issue|mr)\\s+view|bd\\s+show|jira\\s+(?:issue\\s+)?view"
                    + "|linear\\s+issue\\s+view|tea\\s+issues?\\s+\\d)\\b");

    /** Keeps the full content of a record an entry renders, when passages are wanted and it holds any. */
    private void piece(Entry e, Exchange ex, String header, String text, Rec r) {
        piece(e, ex, header, text, r, false, false);
    }

    private void piece(Entry e, Exchange ex, String header, String text, Rec r, boolean output, boolean docs) {
        if (passages && text != null && text.strip().length() >= Passages.MIN_CHARS) {
            String date = r.time() == null ? null : r.time().toString().substring(0, 10);
            boolean conversation = e.kind == EntryKind.REQUEST || e.kind == EntryKind.TEXT
                    || e.kind == EntryKind.THINKING || e.kind == EntryKind.MARKER;
            // A tool's input or output is headed by the tool and its key input alone, so the same
            // file written or output read again has the same passages: one text, embedded at most
            // once, cited from each place.
            String full = !conversation ? header : header + (date == null ? "" : " \u00b7 " + date);
            e.pieces.add(new Piece(full, conversation && e.kind != EntryKind.REQUEST ? ex.context : null, text, r,
                    output, docs));
        }
    }

    /** The memory holding a piece whole, handed on to be redacted and cut into passages. */
    private Memory piece(Memory of, Exchange ex, Piece piece) {
        Rec r = piece.rec();
        return Memory.builder(MemoryKind.PASSAGE, agent, piece.text())
                .time(r.time(), r.time())
                .project(of.project())
                .session(of.session())
                // The record's lines, and the bytes of its value: where the value begins inside a
                // line (a JSON array written as one line), its passages are looked for there.
                .provenance(new Provenance(file, r.line(), r.lastLine(), r.valueStart(), r.valueEnd(),
                        r.id() == null ? List.of() : List.of(r.id())))
                .metadata(Memory.PASSAGE_OF, of.id())
                .metadata(Passages.HEADER_KEY, piece.header())
                .metadata(Passages.CONTEXT_KEY, piece.context())
                .metadata(Passages.OUTPUT_KEY, piece.output() ? "true" : null)
                .metadata(Passages.DOCS_KEY, piece.docs() ? "true" : null)
                .metadata("sidechain", ex.sidechain ? "true" : null)
                .build();
    }

    // ---- chains ------------------------------------------------------------------------------

    private Exchange exchangeFor(Rec r) {
        switchTo(r.sidechain());
        Exchange ex = current();
        if (ex == null) {
            // The file starts in the middle of a run (a resumed or continued session).
            ex = new Exchange(r, null, 0, false);
            setCurrent(ex);
        }
        return ex;
    }

    private void switchTo(boolean sidechain) {
        if (sidechain == onSide) {
            return;
        }
        if (onSide) {
            // A sub-agent run embedded in the main log ends when the main conversation resumes.
            finish(side);
            side = null;
        } else if (main != null) {
            close(main);
        }
        onSide = sidechain;
    }

    private Exchange current() {
        return onSide ? side : main;
    }

    private void setCurrent(Exchange ex) {
        if (onSide) {
            side = ex;
        } else {
            main = ex;
        }
    }

}
