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

    static final String AGENT = "claude-code";

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
        int lastLine;
        final String messageId;
        final StringBuilder text;
        String toolName;
        String toolLabel;

        Entry(EntryKind kind, int line, String messageId, String text) {
            this.kind = kind;
            this.line = line;
            this.lastLine = line;
            this.messageId = messageId;
            this.text = new StringBuilder(text);
        }
    }

    /** The part being built: its entries and every record seen since it opened. */
    private static final class Part {
        final String header;
        final List<Entry> entries = new ArrayList<>();
        final List<Rec> records = new ArrayList<>();
        final List<Integer> contributing = new ArrayList<>();

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
            if (records.isEmpty() || records.get(records.size() - 1).line() != r.line()) {
                records.add(r);
            }
            if (contributes && (contributing.isEmpty() || contributing.get(contributing.size() - 1) != r.line())) {
                contributing.add(r.line());
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

        Exchange(Rec first, String context, int requestLine, boolean command) {
            this.first = first;
            this.sidechain = first.sidechain();
            this.context = context;
            this.requestLine = requestLine;
            this.command = command;
        }
    }

    private final Path file;
    private final Consumer<Memory> out;
    private Exchange main;
    private Exchange side;
    private boolean onSide;

    /**
     * @param file the log file, absolute
     * @param out  receives each memory once its exchange has ended
     */
    Chunker(Path file, Consumer<Memory> out) {
        this.file = file;
        this.out = out;
    }

    // ---- events, in file order ---------------------------------------------------------------

    /**
     * A record that adds no text but may lie inside the range of the current part; whatever its
     * chain, so that the ids of every record inside a cited range are known.
     */
    void passive(Rec r) {
        Exchange ex = current();
        if (ex != null && ex.open != null && r.line() - ex.open.firstLine() < MAX_LINES) {
            ex.open.observe(r, false);
        }
    }

    /** A request: ends the current exchange of the record's chain and starts a new one. */
    void request(Rec r, String text, RequestKind kind) {
        switchTo(r.sidechain());
        finish(current());
        String label = r.sidechain() ? "Task from the parent agent: "
                : kind == RequestKind.COMMAND ? "User command: " : "User: ";
        Exchange ex = new Exchange(r, Text.oneLine(text, CONTEXT_CHARS), r.line(), kind == RequestKind.COMMAND);
        setCurrent(ex);
        add(ex, r, new Entry(EntryKind.REQUEST, r.line(), null, label + Text.headTail(text, REQUEST_CHARS)));
    }

    /** A text block of an assistant message; consecutive blocks of one message are merged. */
    void text(Rec r, String messageId, String text) {
        Exchange ex = exchangeFor(r);
        ex.answered = true;
        String body = Text.headTail(Text.clean(text), TEXT_CHARS);
        Entry last = lastEntry(ex);
        if (last != null && last.kind == EntryKind.TEXT && messageId.equals(last.messageId)
                && last.text.length() + 1 + body.length() <= TEXT_CHARS + "Assistant: ".length()
                && fits(ex.open, r.line(), body.length() + 1)) {
            last.text.append('\n').append(body);
            last.lastLine = r.line();
            ex.open.observe(r, true);
            return;
        }
        add(ex, r, new Entry(EntryKind.TEXT, r.line(), messageId, "Assistant: " + body));
    }

    /** A thinking block of an assistant message. */
    void thinking(Rec r, String messageId, String text) {
        Exchange ex = exchangeFor(r);
        ex.answered = true;
        add(ex, r, new Entry(EntryKind.THINKING, r.line(), messageId,
                "Thinking: " + Text.headTail(Text.clean(text), THINKING_CHARS)));
    }

    /** A tool call; its result, when it comes, is joined to it by {@code toolUseId}. */
    void toolCall(Rec r, String messageId, String toolUseId, String toolName, String label) {
        Exchange ex = exchangeFor(r);
        ex.answered = true;
        Entry e = new Entry(EntryKind.CALL, r.line(), messageId, label);
        e.toolName = toolName;
        e.toolLabel = label;
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
        String result = ToolRender.result(call == null ? null : call.toolName, content, error);
        Part p = ex.open;
        if (call != null && p != null && p.entries.contains(call)) {
            if (fits(p, r.line(), result.length() + 3)) {
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
        add(ex, r, new Entry(EntryKind.RESULT, r.line(), null, about + result));
    }

    /** A mark in the current exchange, such as an interruption; ignored outside any exchange. */
    void marker(Rec r, String text) {
        switchTo(r.sidechain());
        Exchange ex = current();
        if (ex == null) {
            return;
        }
        add(ex, r, new Entry(EntryKind.MARKER, r.line(), null, text));
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
        call.lastLine = Math.max(call.lastLine, r.line());
        p.observe(r, true);
    }

    private void add(Exchange ex, Rec r, Entry e) {
        if (ex.open != null && !fits(ex.open, r.line(), e.text.length())) {
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
        if (r.line() - from + 1 > MAX_LINES || chars + extraChars + 1 > MAX_CHARS) {
            return false;
        }
        Part next = new Part(header);
        next.entries.addAll(p.entries.subList(k, p.entries.size()));
        p.entries.subList(k, p.entries.size()).clear();
        for (Rec rec : p.records) {
            if (rec.line() >= from) {
                next.records.add(rec);
            }
        }
        p.records.removeIf(rec -> rec.line() >= from);
        for (Integer line : p.contributing) {
            if (line >= from) {
                next.contributing.add(line);
            }
        }
        p.contributing.removeIf(line -> line >= from);
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
        for (Entry e : p.entries) {
            lineStart = Math.min(lineStart, e.line);
            lineEnd = Math.max(lineEnd, e.lastLine);
        }
        long byteStart = -1;
        long byteEnd = -1;
        List<String> ids = new ArrayList<>();
        Instant startedAt = null;
        Instant endedAt = null;
        for (Rec rec : p.records) {
            if (rec.line() < lineStart || rec.line() > lineEnd) {
                continue;
            }
            if (byteStart < 0) {
                byteStart = rec.start();
            }
            byteEnd = rec.end();
            if (rec.uuid() != null) {
                ids.add(rec.uuid());
            }
            if (rec.time() != null && p.contributing.contains(rec.line())) {
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
            Memory.Builder b = Memory.builder(MemoryKind.EXCHANGE, AGENT, c.text())
                    .time(c.startedAt(), c.endedAt())
                    .project(f.cwd())
                    .session(f.session())
                    .provenance(new Provenance(file, c.lineStart(), c.lineEnd(), c.byteStart(), c.byteEnd(), c.recordIds()))
                    .metadata("gitBranch", blankToNull(f.gitBranch()))
                    .metadata("agentVersion", blankToNull(f.version()))
                    .metadata("parentSession", f.parentSession())
                    .metadata("agentId", blankToNull(f.agentId()))
                    .metadata("sidechain", ex.sidechain ? "true" : null)
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

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
