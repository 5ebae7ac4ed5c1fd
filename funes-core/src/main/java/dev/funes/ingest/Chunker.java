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
                          List<String> recordIds, Instant startedAt, Instant endedAt) {
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
    private Exchange main;
    private Exchange side;
    private boolean onSide;

    /**
     * @param file  the log file, absolute
     * @param agent the agent name the memories carry
     * @param out   receives each memory once its exchange has ended
     */
    Chunker(Path file, String agent, Consumer<Memory> out) {
        this.file = file;
        this.agent = agent;
        this.out = out;
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
        add(ex, r, new Entry(EntryKind.REQUEST, r, null, label + Text.headTail(text, REQUEST_CHARS)));
        return (onSide ? main : side) == null;
    }

    /** A text block of an assistant message; consecutive blocks of one message are merged. */
    void text(Rec r, String messageId, String text) {
        Exchange ex = exchangeFor(r);
        ex.answered = true;
        String body = Text.headTail(Text.clean(Privacy.strip(text)), TEXT_CHARS);
        Entry last = lastEntry(ex);
        if (last != null && last.kind == EntryKind.TEXT && messageId.equals(last.messageId)
                && last.text.length() + 1 + body.length() <= TEXT_CHARS + "Assistant: ".length()
                && fits(ex.open, r.lastLine(), body.length() + 1)) {
            last.text.append('\n').append(body);
            last.extendTo(r);
            ex.open.observe(r, true);
            return;
        }
        add(ex, r, new Entry(EntryKind.TEXT, r, messageId, "Assistant: " + body));
    }

    /** A thinking block of an assistant message. */
    void thinking(Rec r, String messageId, String text) {
        Exchange ex = exchangeFor(r);
        ex.answered = true;
        add(ex, r, new Entry(EntryKind.THINKING, r, messageId,
                "Thinking: " + Text.headTail(Text.clean(Privacy.strip(text)), THINKING_CHARS)));
    }

    /** A tool call; its result, when it comes, is joined to it by {@code toolUseId}. */
    void toolCall(Rec r, String messageId, String toolUseId, String toolName, String label) {
        Exchange ex = exchangeFor(r);
        ex.answered = true;
        label = Privacy.strip(label);
        Entry e = new Entry(EntryKind.CALL, r, messageId, label);
        e.toolName = toolName;
        e.toolLabel = label;
        e.self = Privacy.isSelfCall(toolName, label);
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
        String result = call != null && call.self ? Privacy.SELF_RESULT
                : ToolRender.result(call == null ? null : call.toolName, Privacy.strip(content), error);
        Part p = ex.open;
        if (call != null && p != null && p.entries.contains(call)) {
            if (fits(p, r.lastLine(), result.length() + 3)) {
                attach(p, call, r, result);
                return;
            }
            int k = p.entries.indexOf(call);
            while (k > 0 && call.messageId != null && call.messageId.equals(p.entries.get(k - 1).messageId)) {
                k--;
            }
            if (moveTailToNewPart(ex, k, r, result.length() + 3)) {
                attach(ex.open, call, r, result);
                return;
            }
        }
        String about = call != null ? "Result of " + call.toolLabel + " \u2192 " : "Tool result \u2192 ";
        add(ex, r, new Entry(EntryKind.RESULT, r, null, about + result));
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
     * Output of the agent's own program rather than its model (Aider's notes, a commit it made):
     * a piece of the current exchange, or of one without a request, that counts as an answer.
     */
    void output(Rec r, String text) {
        text = Privacy.strip(text);
        Exchange ex = exchangeFor(r);
        ex.answered = true;
        add(ex, r, new Entry(EntryKind.MARKER, r, null, text));
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
        ex.closed.add(new Closed(body, lineStart, lineEnd, byteStart, byteEnd, ids, startedAt, endedAt));
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
            out.accept(b.build());
        }
        ex.closed.clear();
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
