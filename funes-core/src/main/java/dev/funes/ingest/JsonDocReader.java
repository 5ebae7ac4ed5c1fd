package dev.funes.ingest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.io.JsonEOFException;

import dev.funes.Memory;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.function.Consumer;

/**
 * The reading frame shared by the whole-file JSON formats (Gemini CLI documents, Cline
 * histories, OpenHands and SWE-agent trajectories): the document is opened as a
 * {@link JsonDoc}, a subclass walks it, and the ways a document can be broken are reported the
 * same way for every agent. One instance per file and call.
 *
 * <p>A document that ends early (still being written) or is malformed gives what was read
 * before the break and a problem at the break's line; its checkpoint then stops short of the
 * file's end, so it is read again next time. Memories a subclass {@link #emit}s reach the sink
 * after each {@link #drain()} and at the end, so the sink's exceptions propagate unchanged.
 */
abstract class JsonDocReader {

    private static final Logger LOG = LoggerFactory.getLogger(JsonDocReader.class);

    final Path file;
    final Problems problems;
    private final Consumer<Memory> sink;
    private final ArrayDeque<Memory> ready = new ArrayDeque<>();
    long records;
    long skipped;

    JsonDocReader(Path file, Consumer<Memory> sink) {
        this.file = file;
        this.sink = sink;
        this.problems = new Problems(file);
    }

    /** Reads the document; the parser is before its first token. */
    abstract void walk(JsonDoc doc) throws IOException;

    /** Called once at the end, even after a break: flush what is still held. */
    abstract void finish();

    /** What the document holds, for messages: "the JSON array", "the JSON document". */
    String what() {
        return "the JSON document";
    }

    final void emit(Memory memory) {
        ready.add(memory);
    }

    final void drain() {
        while (!ready.isEmpty()) {
            sink.accept(ready.poll());
        }
    }

    final ParseResult read() {
        boolean complete = true;
        long checkpointBytes = 0;
        long checkpointLines = 0;
        JsonDoc doc = null;
        try {
            doc = JsonDoc.open(file);
            walk(doc);
            checkpointBytes = doc.size();
            checkpointLines = doc.lineCount();
        } catch (NoSuchFileException e) {
            problems.add(0, "file not found");
            complete = false;
        } catch (AccessDeniedException e) {
            problems.add(0, "permission denied");
            complete = false;
        } catch (JsonProcessingException e) {
            long at = e.getLocation() == null ? -1 : e.getLocation().getByteOffset();
            // A reading limit's exception carries no location: the parser's current token has it.
            problems.add(doc == null ? 0 : at >= 0 ? doc.lineOf(at) : doc.tokenLine(), e instanceof StreamConstraintsException limit
                    ? Json.limitExceeded(limit) + "; the rest of the file was not read"
                    : (e instanceof JsonEOFException
                    ? "file ends inside " + what() + " (still being written?); the rest was not read: "
                    : "malformed JSON; the rest of the file was not read: ") + Text.oneLine(jacksonMessage(e), 160));
        } catch (IOException e) {
            if (doc == null) {
                problems.add(0, "read failed: " + e.getMessage());
                complete = false;
            } else {
                problems.add(doc.tokenLine(), "file ends inside " + what() + "; the rest was not read: " + e.getMessage());
            }
        } finally {
            if (doc != null) {
                try {
                    doc.close();
                } catch (IOException e) {
                    LOG.debug("{}: close failed", file, e);
                }
            }
        }
        try {
            finish();
        } catch (RuntimeException e) {
            problems.add(0, "could not finish the last exchange (" + e + ")");
            LOG.debug("{}: could not finish the last exchange", file, e);
        }
        drain();
        return new ParseResult(records, skipped, checkpointBytes, checkpointLines, complete, problems.list());
    }

    /** Jackson's message without the source location it appends (the problem names file and line). */
    static String jacksonMessage(JsonProcessingException e) {
        String m = String.valueOf(e.getOriginalMessage());
        int at = m.indexOf(" (start marker at");
        return at >= 0 ? m.substring(0, at) : m;
    }

    /** The first token's description, for "expected ..., found ..." problems. */
    static String found(com.fasterxml.jackson.core.JsonToken token) {
        return token == null ? "nothing" : token.asString() != null ? "'" + token.asString() + "'" : token.name();
    }
}
