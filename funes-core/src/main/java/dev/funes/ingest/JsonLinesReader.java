package dev.funes.ingest;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.funes.Memory;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * The reading loop shared by the JSON Lines formats (one JSON object per line): bytes read line
 * by line with their offsets, UTF-8 checked, JSON parsed, and the problems of the line level
 * (too long, malformed, not an object, a last line still being written) handled the same way
 * for every agent. Subclasses say what each record becomes. One instance per file and call.
 *
 * <p>Memories a subclass {@link #emit}s are handed to the sink after each line, so the sink's
 * exceptions propagate unchanged and nothing is held longer than the subclass holds it.
 */
abstract class JsonLinesReader {

    private static final Logger LOG = LoggerFactory.getLogger(JsonLinesReader.class);

    /**
     * Longest line read as a record. Real records reach a few hundred KB (a PDF or screenshot
     * in base64); a longer line is skipped with a warning rather than held in memory.
     */
    static final int MAX_LINE_BYTES = 4 << 20;

    /** Parses records; nesting is bounded so a hostile line costs a message, not a deep recursion. */
    static final ObjectMapper JSON = new ObjectMapper(JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(Json.MAX_NESTING).build())
            .build());

    final Path file;
    final Problems problems;
    private final Consumer<Memory> sink;
    private final ArrayDeque<Memory> ready = new ArrayDeque<>();
    private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    private long records;
    private long skipped;
    private long checkpointBytes;
    private long checkpointLines;
    private Resume.Check last;
    private Resume.Plan plan = Resume.Plan.full();
    private Resume.Point mark;
    private long lastEnd;

    JsonLinesReader(Path file, Consumer<Memory> sink) {
        this.file = file;
        this.sink = sink;
        this.problems = new Problems(file);
    }

    /** One JSON object read from line {@code line}, which spans bytes {@code [start, end)}. */
    abstract void record(int line, long start, long end, JsonNode node);

    /** Called once after the last line (or a read failure): flush what is still held. */
    abstract void finish();

    /**
     * Before the first line of a read that resumes: takes back the state a {@link #resumeHere}
     * point saved. Readers that mark no point never see it.
     */
    void restore(ObjectNode context) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " does not resume");
    }

    /**
     * Marks the record at {@code line}, starting at byte {@code start}, as a point the next read may
     * start at, with the reader's state just before that record in {@code context}: reading from
     * there after {@link #restore restoring} it must give the same memories as reading the whole
     * file, except those the earlier read already gave whose records all lie before the point.
     */
    final void resumeHere(int line, long start, ObjectNode context) {
        mark = new Resume.Point(start, line, context);
    }

    /** Queues a memory for the sink. */
    final void emit(Memory memory) {
        ready.add(memory);
    }

    /** Counts the current record as not usable (its problem is reported separately). */
    final void skip() {
        skipped++;
    }

    /** Counts an unusable record of an unknown type; one problem per file sums them up. */
    final void unknown(String type, long line) {
        skipped++;
        problems.unknownType(type, line);
    }

    final ParseResult read() {
        return read(Resume.Plan.full());
    }

    /**
     * Reads from the plan's start to the end of the file, and tells the plan where the next read
     * may start.
     *
     * @throws Resume.Mismatch if the plan's check record is not where it was
     */
    final ParseResult read(Resume.Plan plan) {
        this.plan = plan;
        long from = plan.from == null ? 0 : plan.from.offset();
        if (plan.from != null) {
            restore(plan.from.context().deepCopy());
            checkpointBytes = from;
            checkpointLines = plan.from.line() - 1L;
        }
        lastEnd = from;
        boolean complete = LineReader.readFile(file, from, plan.from == null ? 1 : plan.from.line(), MAX_LINE_BYTES,
                problems, () -> PassageSink.stopped(sink), lines -> {
                    lastEnd = lines.end();
                    plan.reached(lastEnd);
                    line(lines);
                    drain();
                });
        plan.bytesRead = lastEnd - from;
        if (complete && !plan.verified) {
            throw new Resume.Mismatch("the file ends before the last record read before");
        }
        try {
            finish();
        } catch (RuntimeException e) {
            problems.add(0, "could not finish the last exchange (" + e + ")");
            LOG.debug("{}: could not finish the last exchange", file, e);
        }
        drain();
        plan.next = mark;
        plan.last = last;
        return new ParseResult(records, skipped, checkpointBytes, checkpointLines, complete, problems.list());
    }

    private void line(LineReader lines) {
        int n = lines.number();
        if (!plan.verified) {
            verify(lines);
        }
        if (lines.oversize()) {
            if (lines.terminated()) {
                records++;
                skipped++;
                problems.add(n, String.format(Locale.ROOT, "line is %.1f MB, over the %d MB limit for one record; skipped",
                        lines.length() / 1e6, MAX_LINE_BYTES >> 20));
                checkpoint(lines);
            }
            return;
        }
        byte[] bytes = lines.bytes();
        int from = n == 1 && lines.size() >= 3 && (bytes[0] & 0xFF) == 0xEF && (bytes[1] & 0xFF) == 0xBB
                && (bytes[2] & 0xFF) == 0xBF ? 3 : 0;
        int to = lines.size();
        if (to > from && bytes[to - 1] == '\r') {
            to--;
        }
        String text = new String(bytes, from, to - from, StandardCharsets.UTF_8);
        // Invalid UTF-8 always decodes to U+FFFD: only a line that holds one needs the strict
        // decoder's second pass to tell a bad byte from a U+FFFD written as such.
        long invalidAt = text.indexOf('\uFFFD') < 0 ? -1 : firstInvalidUtf8(bytes, from, to);
        if (text.isBlank()) {
            if (lines.terminated()) {
                checkpoint(lines);
            }
            return;
        }
        JsonNode node;
        try {
            node = JSON.readTree(text);
        } catch (JsonProcessingException e) {
            if (!lines.terminated()) {
                // The last line of a file still being written: read it next time, once complete.
                LOG.debug("{}:{}: incomplete last line left for later", file, n);
                return;
            }
            records++;
            skipped++;
            problems.add(n, e instanceof StreamConstraintsException limit ? Json.limitExceeded(limit) + "; line skipped"
                    : "malformed JSON, line skipped: " + Text.oneLine(String.valueOf(e.getOriginalMessage()), 160));
            checkpoint(lines);
            return;
        }
        records++;
        checkpoint(lines);
        if (invalidAt >= 0) {
            problems.add(n, "invalid UTF-8 at byte " + (invalidAt + 1) + " of the line; replaced by U+FFFD");
        }
        if (node == null || !node.isObject()) {
            skipped++;
            problems.add(n, "expected a JSON object, found " + (node == null ? "nothing" : Json.kind(node)) + "; line skipped");
            return;
        }
        try {
            record(n, lines.start(), lines.end(), node);
        } catch (RuntimeException e) {
            // A record shaped in a way no rule foresaw must not stop the file.
            skipped++;
            problems.add(n, "record could not be read (" + e + "); skipped");
            LOG.debug("{}:{}: record could not be read", file, n, e);
        }
    }

    private void checkpoint(LineReader lines) {
        checkpointBytes = lines.end();
        checkpointLines = lines.number();
        last = new Resume.Check(lines.start(), lines.length(), lines.crc());
    }

    /** Compares the line at the check's offset with the one read before; a moved or changed one ends the read. */
    private void verify(LineReader lines) {
        Resume.Check check = plan.check;
        if (lines.start() < check.start()) {
            return;
        }
        if (lines.start() > check.start() || lines.length() != check.length() || lines.crc() != check.crc()) {
            throw new Resume.Mismatch("line " + lines.number() + " is not the record read there before");
        }
        plan.verified = true;
    }

    private long firstInvalidUtf8(byte[] bytes, int from, int to) {
        ByteBuffer in = ByteBuffer.wrap(bytes, from, to - from);
        CharBuffer out = CharBuffer.allocate(Math.min(8192, Math.max(16, to - from)));
        utf8.reset();
        while (true) {
            CoderResult result = utf8.decode(in, out, true);
            if (result.isError()) {
                return in.position() - from;
            }
            if (result.isOverflow()) {
                out.clear();
                continue;
            }
            result = utf8.flush(out);
            if (result.isOverflow()) {
                out.clear();
                continue;
            }
            return -1;
        }
    }

    private void drain() {
        while (!ready.isEmpty()) {
            sink.accept(ready.poll());
        }
    }
}
