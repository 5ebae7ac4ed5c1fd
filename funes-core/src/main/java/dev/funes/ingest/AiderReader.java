package dev.funes.ingest;

import dev.funes.Memory;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads one Aider chat history, line by line, into memories; one instance per file and call.
 *
 * <p>The file is Markdown that Aider appends to: a header per session, the person's input as
 * {@code #### } lines, Aider's own messages as {@code > } lines, and the model's replies as
 * plain Markdown (with SEARCH/REPLACE edit blocks). Lines are grouped into blocks by that prefix;
 * inside a fenced code block, every line belongs to the reply. A block longer than
 * {@link Chunker#MAX_LINES} is cited in pieces, so each memory stays focused. This class decides
 * which block each line belongs to; an {@link AiderReply} reads each of the model's replies.
 * See docs/FORMATS.md.
 *
 * <p>A read may start at a request ({@link Resume}): there every earlier block has ended, and
 * what the reader still needs of the past (the session's id, start, project, settings and
 * commits, the last request and reply it compares with) is small and saved with the point.
 */
final class AiderReader {

    private static final Logger LOG = LoggerFactory.getLogger(AiderReader.class);

    static final String HEADER = "# aider chat started at ";
    /** Lines of one piece handed to the chunker: a long reply or request is cited in pieces. */
    static final int PIECE_LINES = Chunker.MAX_LINES;

    private static final DateTimeFormatter HEADER_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss", Locale.ROOT);
    private static final DateTimeFormatter SESSION_TIME = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss", Locale.ROOT);
    private static final Pattern APPLIED = Pattern.compile("^Applied edit to (.+?)\\s*$");
    private static final Pattern COMMIT = Pattern.compile("^Commit ([0-9a-f]{7,40}) (.+)$");
    private static final Pattern ADDED = Pattern.compile("^Added (.+?) to the chat(?: \\(read-only\\))?\\.?$");
    private static final Pattern CONFIRM = Pattern.compile("\\? \\(Y\\)es/\\(N\\)o.*]: ?\\S*\\s*$");
    private static final Pattern VERSION = Pattern.compile("^Aider v(\\S+)");
    private static final Pattern MODEL = Pattern.compile("^(?:Main model|Model): (\\S+)");
    private static final Pattern WORKING_DIR = Pattern.compile("^(?:Git working dir|Git repository created in):? (.+)$");
    /** A file name as Aider prints it. */
    static final Pattern PATH = Pattern.compile("^[\\w.@~+-]*[\\w@~+-]+(?:[/\\\\][\\w.@~+ -]+)*\\.?[\\w-]*$");
    private static final List<String> NOISE = List.of("Tokens: ", "You can use /undo", "Retrying in ", "Cost estimates",
            "Copied code context", "Repo-map can't", "Restored previous conversation", "All chat history cleared",
            "https://aider.chat/", "For more info", "Scraping ", "Warning: ", "Cur working dir:", "Git working dir:",
            "Skipping edits to", "Use /help", "Add .aider* to .gitignore", "Added .aider* to .gitignore",
            "Allow edits to file", "Create new file?", "Add file to the chat?", "Add URL to the chat?",
            "Run shell command?", "Add command output to the chat?", "Fix lint errors", "Attempt to fix");
    private static final Pattern USER_PROMPT = Pattern.compile("<UserPrompt>(.*?)(?:</UserPrompt>|$)", Pattern.DOTALL);
    private static final Pattern SYSTEM_PROMPT = Pattern.compile("<SystemPrompt>.*?(?:</SystemPrompt>|$)", Pattern.DOTALL);
    static final String WATCH_REQUEST = "(a request written as an AI! comment in the code)";
    /** Commands whose argument is a request to the model; every other command is an instruction to Aider. */
    private static final Set<String> ASKING = Set.of("/ask", "/code", "/architect", "/context", "/help");

    private final Path file;
    private final Consumer<Memory> sink;
    private final Problems problems;
    private final Chunker chunker;
    private final ArrayDeque<Memory> ready = new ArrayDeque<>();
    private final String fileProject;

    private long records;
    private long skipped;
    private long checkpointBytes;
    private long checkpointLines;

    // ---- resuming ----
    private Resume.Plan plan = Resume.Plan.full();
    private Resume.Point mark;
    /** The last line read, and the last one read with its newline. */
    private Resume.Check lastLine;
    private Resume.Check lastEnded;
    private long lastEnd;
    /**
     * Whether the line being read ends with its newline. A block is only known to be whole once
     * a complete line after it ended it: a request that the end of the file ends, or that a line
     * still being written ends, may turn out longer (or to be Aider's echo of a reply), so it is no
     * point to resume at.
     */
    private boolean lineEnded;

    // ---- session ----
    private String session;
    private Instant sessionStart;
    private String project;
    private String version;
    private String model;
    private Map<String, String> meta = Map.of();
    private boolean sessionHasRequest;
    private final LinkedHashSet<String> commits = new LinkedHashSet<>();

    // ---- blocks ----
    private enum Kind { NONE, USER, TOOL, REPLY }

    private Kind kind = Kind.NONE;
    private final List<Line> userLines = new ArrayList<>();
    private Piece toolOther;
    private Piece toolAdded;
    private boolean toolInterrupted;

    /** The reply being read, or null outside one. */
    private AiderReply reply;
    /** The digest of the last reply's words ({@link AiderReply#digest}), or null. */
    private byte[] lastReply;

    private String requestKey;
    private boolean answeredSinceRequest;

    /** One line of the file: number, byte range, content without newline and trailing spaces. */
    record Line(int number, long start, long end, String text, boolean hardBreak) {
    }

    /** Lines gathered into one piece for the chunker. */
    static final class Piece {
        final Line first;
        Line last;
        final StringBuilder text = new StringBuilder();
        int lines;
        /** The last line with content: trailing blank lines are not cited. */
        Line lastContent;
        private Line beforeLast;
        private int lengthBeforeLast;
        private Line contentBeforeLast;

        Piece(Line first) {
            this.first = first;
            this.last = first;
        }

        void add(Line line, String content) {
            beforeLast = lines == 0 ? null : last;
            lengthBeforeLast = text.length();
            contentBeforeLast = lastContent;
            if (lines > 0) {
                text.append('\n');
            }
            text.append(content);
            last = line;
            if (!content.isBlank()) {
                lastContent = line;
            }
            lines++;
        }

        /** Takes back the last line added; false when it was the only one. */
        boolean removeLast() {
            if (beforeLast == null) {
                return false;
            }
            text.setLength(lengthBeforeLast);
            last = beforeLast;
            lastContent = contentBeforeLast;
            beforeLast = null;
            lines--;
            return true;
        }
    }

    AiderReader(Path file, Consumer<Memory> sink) {
        this.file = file;
        this.sink = sink;
        this.problems = new Problems(file);
        this.chunker = new Chunker(file, AiderFormat.NAME, ready::add, PassageSink.wants(sink));
        Path name = file.getFileName();
        this.fileProject = name != null && AiderFormat.FILE_NAME.equals(name.toString()) && file.getParent() != null
                ? file.getParent().toString() : null;
        this.project = fileProject;
        this.session = sessionId(null, 1);
    }

    ParseResult read() {
        return read(Resume.Plan.full());
    }

    /**
     * Reads from the plan's start to the end of the file, and tells the plan where the next read
     * may start.
     *
     * @throws Resume.Mismatch if the plan's check line is not where it was
     */
    ParseResult read(Resume.Plan plan) {
        this.plan = plan;
        long from = plan.from == null ? 0 : plan.from.offset();
        if (plan.from != null) {
            try {
                restore(plan.from.context());
            } catch (RuntimeException e) {
                throw new Resume.Mismatch("the resume point's reader state cannot be read (" + e.getMessage() + ")");
            }
            checkpointBytes = from;
            checkpointLines = plan.from.line() - 1L;
        }
        lastEnd = from;
        boolean complete = LineReader.readFile(file, from, plan.from == null ? 1 : plan.from.line(),
                JsonLinesReader.MAX_LINE_BYTES, problems, () -> PassageSink.stopped(sink), lines -> {
                    lastEnd = lines.end();
                    plan.reached(lastEnd);
                    if (!plan.verified) {
                        verify(lines);
                    }
                    Resume.Check check = new Resume.Check(lines.start(), lines.length(), lines.crc());
                    lastLine = check;
                    if (lines.terminated()) {
                        lastEnded = check;
                    }
                    lineEnded = lines.terminated();
                    line(lines);
                    drain();
                });
        plan.bytesRead = lastEnd - from;
        if (complete && !plan.verified) {
            throw new Resume.Mismatch("the file ends before the last line read before");
        }
        lineEnded = false;
        try {
            endBlock();
            chunker.finishAll();
        } catch (RuntimeException e) {
            problems.add(0, "could not finish the last exchange (" + e + ")");
            LOG.debug("{}: could not finish the last exchange", file, e);
        }
        drain();
        plan.next = mark;
        // A last line still being written would not match once complete: the check is the last
        // ended line, unless that lies before the point.
        plan.last = lastEnded != null && (mark == null || lastEnded.start() >= mark.offset()) ? lastEnded : lastLine;
        return new ParseResult(records, skipped, checkpointBytes, checkpointLines, complete, problems.list());
    }

    /** Compares the line at the check's offset with the one read before; a moved or changed one ends the read. */
    private void verify(LineReader lines) {
        Resume.Check check = plan.check;
        if (lines.start() < check.start()) {
            return;
        }
        if (lines.start() > check.start() || lines.length() != check.length() || lines.crc() != check.crc()) {
            throw new Resume.Mismatch("line " + lines.number() + " is not the line read there before");
        }
        plan.verified = true;
    }

    /**
     * The reader's state before a request at {@code line}: with every earlier block ended, this is
     * all a read starting there needs to give what a read of the whole file gives from there on.
     */
    private ObjectNode context() {
        ObjectNode c = JsonNodeFactory.instance.objectNode();
        c.put("session", session);
        if (sessionStart != null) {
            c.put("start", sessionStart.toString());
        }
        c.put("project", project);
        c.put("version", version);
        c.put("model", model);
        c.put("hasRequest", sessionHasRequest);
        ArrayNode cs = c.putArray("commits");
        commits.forEach(cs::add);
        c.put("requestKey", requestKey);
        c.put("answered", answeredSinceRequest);
        if (lastReply != null) {
            c.put("lastReply", HexFormat.of().formatHex(lastReply));
        }
        // Watch mode's request comes inside a block of Aider's messages.
        c.put("inTool", kind == Kind.TOOL);
        c.put("interrupted", toolInterrupted);
        return c;
    }

    /** Takes back what {@link #context()} saved. */
    private void restore(ObjectNode c) {
        session = Json.text(c, "session");
        JsonNode start = c.get("start");
        sessionStart = start != null && start.isTextual() ? Instant.parse(start.asText()) : null;
        project = Json.text(c, "project");
        version = Json.text(c, "version");
        model = Json.text(c, "model");
        sessionHasRequest = c.path("hasRequest").asBoolean();
        commits.clear();
        c.path("commits").forEach(sha -> commits.add(sha.asText()));
        requestKey = Json.text(c, "requestKey");
        answeredSinceRequest = c.path("answered").asBoolean();
        JsonNode reply = c.get("lastReply");
        lastReply = reply != null && reply.isTextual() ? HexFormat.of().parseHex(reply.asText()) : null;
        kind = c.path("inTool").asBoolean() ? Kind.TOOL : Kind.NONE;
        toolInterrupted = c.path("interrupted").asBoolean();
        if (session == null) {
            throw new IllegalArgumentException("resume point of " + file + " has no session");
        }
        updateMeta();
    }

    /** Marks the line of a request about to be handed to the chunker as a point the next read may start at. */
    private void resumeHere(Line line, ObjectNode context) {
        if (lineEnded) {
            mark = new Resume.Point(line.start(), line.number(), context);
        }
    }

    private void drain() {
        while (!ready.isEmpty()) {
            sink.accept(ready.poll());
        }
    }

    // ---- lines -------------------------------------------------------------------------------

    private void line(LineReader lines) {
        int n = lines.number();
        checkpointBytes = lines.end();
        checkpointLines = n;
        if (lines.oversize()) {
            records++;
            skipped++;
            problems.add(n, String.format(Locale.ROOT, "line is %.1f MB, over the %d MB limit; skipped",
                    lines.length() / 1e6, JsonLinesReader.MAX_LINE_BYTES >> 20));
            return;
        }
        byte[] bytes = lines.bytes();
        int from = n == 1 ? Heads.skipBom(Arrays.copyOf(bytes, Math.min(3, lines.size()))) : 0;
        String raw = new String(bytes, from, lines.size() - from, StandardCharsets.UTF_8);
        if (raw.indexOf('\uFFFD') >= 0 && !Arrays.equals(raw.getBytes(StandardCharsets.UTF_8),
                Arrays.copyOfRange(bytes, from, lines.size()))) {
            problems.add(n, "invalid UTF-8; replaced by U+FFFD");
        }
        if (raw.endsWith("\r")) {
            raw = raw.substring(0, raw.length() - 1);
        }
        String content = raw.stripTrailing();
        if (!content.isEmpty()) {
            records++;
        }
        // Aider ends the lines it writes for the person and for itself with a Markdown hard break.
        Line line = new Line(n, lines.start(), lines.end(), content, raw.endsWith("  "));
        try {
            classify(line);
        } catch (RuntimeException e) {
            // A line shaped in a way no rule foresaw must not stop the file.
            problems.add(n, "line could not be read (" + e + "); skipped");
            LOG.debug("{}:{}: line could not be read", file, n, e);
        }
    }

    private void classify(Line line) {
        String s = line.text();
        if (s.startsWith(HEADER)) {
            endBlock();
            newSession(line);
            return;
        }
        boolean aiderLine = line.hardBreak() && (s.startsWith("> ") || s.startsWith(">") && s.isBlank() || s.startsWith("#### "));
        if (kind == Kind.REPLY && reply.inBlock() && !aiderLine) {
            reply.line(line);
            return;
        }
        if (s.startsWith("####") && (s.length() == 4 || s.charAt(4) == ' ')) {
            if (kind != Kind.USER) {
                endBlock();
                kind = Kind.USER;
            }
            userLines.add(line);
            return;
        }
        if (s.startsWith(">")) {
            if (kind != Kind.TOOL) {
                endBlock();
                kind = Kind.TOOL;
            }
            toolLine(line, s.length() > 1 && s.charAt(1) == ' ' ? s.substring(2).strip() : s.substring(1).strip());
            return;
        }
        if (s.isBlank()) {
            if (kind == Kind.USER || kind == Kind.TOOL) {
                endBlock();
            } else if (kind == Kind.REPLY) {
                reply.line(line);
            }
            return;
        }
        if (kind == Kind.TOOL) {
            // Aider's own message goes on (a command line with a multi-line argument): a reply
            // always starts after a blank line.
            toolLine(line, s.strip());
            return;
        }
        if (kind != Kind.REPLY) {
            endBlock();
            kind = Kind.REPLY;
            reply = new AiderReply(line, chunker, this::rec, this::answered);
        }
        reply.line(line);
    }

    private void endBlock() {
        switch (kind) {
            case USER -> userBlock();
            case TOOL -> endTool();
            case REPLY -> endReply();
            default -> {
            }
        }
        kind = Kind.NONE;
    }

    // ---- sessions ----------------------------------------------------------------------------

    private void newSession(Line line) {
        chunker.finishAll();
        String when = line.text().substring(HEADER.length()).strip();
        LocalDateTime local = null;
        try {
            local = LocalDateTime.parse(when, HEADER_TIME);
        } catch (DateTimeParseException e) {
            problems.add(line.number(), "session header has no readable time: '" + Text.oneLine(when, 60) + "'");
        }
        // Aider writes local time without a zone; the machine that reads the log is taken to be
        // the one that wrote it.
        sessionStart = local == null ? null : local.atZone(ZoneId.systemDefault()).toInstant();
        session = sessionId(local, line.number());
        project = fileProject;
        version = null;
        model = null;
        commits.clear();
        sessionHasRequest = false;
        requestKey = null;
        lastReply = null;
        updateMeta();
    }

    /**
     * {@code aider-<start time>-<hash>}: the hash of the file's path and the header's line keeps
     * sessions of different projects apart when they started in the same second.
     */
    private String sessionId(LocalDateTime start, int headerLine) {
        String hash = Sha256.hex(file + "#" + headerLine, 8);
        return "aider-" + (start == null ? "L" + headerLine : SESSION_TIME.format(start)) + "-" + hash;
    }

    private void updateMeta() {
        Map<String, String> m = new TreeMap<>();
        if (version != null) {
            m.put("agentVersion", version);
        }
        if (model != null) {
            m.put("model", model);
        }
        meta = Map.copyOf(m);
    }

    private Rec rec(Line first, Line last) {
        return new Rec(first.number(), last.number(), first.start(), last.end(), null, sessionStart, session, project,
                false, meta);
    }

    // ---- the person's input ------------------------------------------------------------------

    private void userBlock() {
        List<Line> lines = new ArrayList<>(userLines);
        userLines.clear();
        if (lines.isEmpty()) {
            return;
        }
        StringBuilder sb = new StringBuilder();
        for (Line l : lines) {
            String s = l.text().length() > 5 ? l.text().substring(5) : "";
            sb.append(sb.length() == 0 ? "" : "\n").append(s.stripTrailing());
        }
        String typed = unwrap(sb.toString().strip());
        Rec all = rec(lines.get(0), lines.get(lines.size() - 1));
        if (typed.isEmpty() || "<blank>".equals(typed) || CONFIRM.matcher(typed).find()) {
            // No input, or the answer to one of Aider's yes/no questions.
            chunker.passive(all);
            return;
        }
        byte[] digest = AiderReply.digest(typed);
        if (lastReply != null && Arrays.equals(digest, lastReply)) {
            // Architect mode hands the architect's reply to the editor model as a user message.
            chunker.passive(all);
            return;
        }
        String key = normal(typed);
        if (key.equals(requestKey) && !answeredSinceRequest) {
            // "/ask x" is echoed as "x" once the command is parsed.
            chunker.repeat(all);
            return;
        }
        Chunker.RequestKind requestKind = Chunker.RequestKind.TYPED;
        String command = typed.startsWith("/") ? typed.split("\\s", 2)[0] : null;
        if (command != null) {
            String argument = typed.substring(command.length()).strip();
            if (ASKING.contains(command) && !argument.isEmpty()) {
                key = normal(argument);
            } else {
                requestKind = Chunker.RequestKind.COMMAND;
            }
        }
        ObjectNode context = context();
        sessionHasRequest = true;
        requestKey = key;
        answeredSinceRequest = false;
        // A long input is cited in pieces: the request, then what follows it.
        for (int i = 0; i < lines.size(); i += PIECE_LINES) {
            List<Line> slice = lines.subList(i, Math.min(lines.size(), i + PIECE_LINES));
            StringBuilder part = new StringBuilder();
            for (Line l : slice) {
                String s = l.text().length() > 5 ? l.text().substring(5) : "";
                part.append(part.length() == 0 ? "" : "\n").append(s.stripTrailing());
            }
            Rec rec = rec(slice.get(0), slice.get(slice.size() - 1));
            if (i == 0) {
                if (chunker.request(rec, unwrap(part.toString().strip()), requestKind)) {
                    resumeHere(slice.get(0), context);
                }
            } else if (!part.toString().isBlank()) {
                chunker.requestContinued(rec, part.toString());
            }
        }
    }

    // ---- Aider's own messages ----------------------------------------------------------------

    private void toolLine(Line line, String s) {
        Rec rec = rec(line, line);
        if (s.startsWith("Processing your request")) {
            // Watch mode: the request is an "AI!" comment in a source file, not typed here.
            flushTool();
            ObjectNode context = context();
            sessionHasRequest = true;
            requestKey = null;
            answeredSinceRequest = false;
            if (chunker.request(rec, WATCH_REQUEST, Chunker.RequestKind.TYPED)) {
                resumeHere(line, context);
            }
            return;
        }
        if (!sessionHasRequest) {
            startup(s);
            chunker.passive(rec);
            return;
        }
        Matcher m;
        if (s.isEmpty()) {
            chunker.passive(rec);
        } else if ((m = APPLIED.matcher(s)).matches()) {
            flushTool();
            chunker.toolResult(rec, AiderReply.editId(m.group(1)), s, false);
            answered();
        } else if ((m = COMMIT.matcher(s)).matches()) {
            flushTool();
            commits.add(m.group(1));
            chunker.output(rec, "[commit] " + m.group(1) + " " + m.group(2));
            chunker.annotate("commits", String.join(",", commits));
            answered();
        } else if (s.startsWith("^C")) {
            flushTool();
            if (!toolInterrupted) {
                chunker.output(rec, "(interrupted)");
                toolInterrupted = true;
                answered();
            } else {
                chunker.passive(rec);
            }
        } else if ((m = ADDED.matcher(s)).matches()) {
            flushOther();
            if (toolAdded == null) {
                toolAdded = new Piece(line);
            }
            toolAdded.add(line, m.group(1));
            if (toolAdded.lines >= PIECE_LINES) {
                flushTool();
            }
        } else if (noise(s)) {
            chunker.passive(rec);
        } else {
            startup(s);
            flushAdded();
            if (toolOther == null) {
                toolOther = new Piece(line);
            }
            toolOther.add(line, s);
            if (toolOther.lines >= PIECE_LINES) {
                flushOther();
            }
        }
    }

    private void endTool() {
        flushTool();
        toolInterrupted = false;
    }

    private void flushTool() {
        flushAdded();
        flushOther();
    }

    private void flushAdded() {
        if (toolAdded == null) {
            return;
        }
        Piece p = toolAdded;
        toolAdded = null;
        String added = "Added to the chat: " + p.text.toString().replace("\n", ", ");
        chunker.output(rec(p.first, p.last), Text.oneLine(added, ToolRender.RESULT_CHARS), added);
        answered();
    }

    private void flushOther() {
        if (toolOther == null) {
            return;
        }
        Piece p = toolOther;
        toolOther = null;
        List<String> lines = Text.meaningfulLines(p.text.toString());
        if (lines.isEmpty()) {
            chunker.passive(rec(p.first, p.last));
            return;
        }
        StringBuilder s = new StringBuilder("Aider:");
        int shown = ToolRender.HEAD_LINES + ToolRender.TAIL_LINES;
        if (lines.size() == 1) {
            s.append(' ').append(Text.oneLine(lines.get(0), 2 * ToolRender.RESULT_LINE_CHARS));
        } else {
            List<String> head = lines.size() <= shown ? lines : lines.subList(0, ToolRender.HEAD_LINES);
            for (String l : head) {
                s.append("\n    ").append(Text.oneLine(l, ToolRender.RESULT_LINE_CHARS));
            }
            if (lines.size() > shown) {
                s.append("\n    ").append(Text.ELLIPSIS).append(" (").append(lines.size() - shown).append(" more lines) ")
                 .append(Text.ELLIPSIS);
                for (String l : lines.subList(lines.size() - ToolRender.TAIL_LINES, lines.size())) {
                    s.append("\n    ").append(Text.oneLine(l, ToolRender.RESULT_LINE_CHARS));
                }
            }
        }
        chunker.output(rec(p.first, p.last), Text.headTail(s.toString(), ToolRender.RESULT_CHARS),
                "Aider:\n" + String.join("\n", lines));
        answered();
    }

    /** Session settings Aider prints when it starts (and when they change). */
    private void startup(String s) {
        Matcher m;
        if ((m = VERSION.matcher(s)).find()) {
            version = m.group(1);
        } else if ((m = MODEL.matcher(s)).find()) {
            model = m.group(1);
        } else if ((m = WORKING_DIR.matcher(s)).matches()) {
            project = m.group(1).strip();
        } else {
            return;
        }
        updateMeta();
    }

    private static boolean noise(String s) {
        for (String prefix : NOISE) {
            if (s.startsWith(prefix)) {
                return true;
            }
        }
        // A bare file name: Aider names the file before asking about it.
        return s.length() < 200 && PATH.matcher(s).matches() && (s.contains(".") || s.contains("/") || s.contains("\\"))
                && !s.contains(" ");
    }

    private void endReply() {
        lastReply = reply.end();
        reply = null;
    }

    private void answered() {
        answeredSinceRequest = true;
    }

    // ---- helpers -----------------------------------------------------------------------------

    /**
     * The request inside a prompt an IDE plugin wrapped ({@code <SystemPrompt>...</SystemPrompt>
     * <UserPrompt>...</UserPrompt>}): the system part is injected instructions.
     */
    static String unwrap(String typed) {
        Matcher user = USER_PROMPT.matcher(typed);
        if (user.find()) {
            return user.group(1).strip();
        }
        return SYSTEM_PROMPT.matcher(typed).replaceAll("").strip();
    }

    private static String normal(String s) {
        return s.strip().replaceAll("\\s+", " ");
    }
}
