package dev.funes.bench.corpus;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.funes.Memory;
import dev.funes.ingest.AgentLogs;
import dev.funes.ingest.Indexer;
import dev.funes.ingest.LogFormat;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The real texts a corpus is made of: chunks of the memories the project's own log readers make
 * of agent logs, and the turns and questions of LoCoMo conversations.
 */
final class RealTexts {

    /** A chunk is closed once it holds at least this many characters. */
    static final int CHUNK_CHARS = 200;
    /** Lines longer than this are cut at a space near {@link #PIECE_CHARS}. */
    static final int LONG_LINE = 800;
    static final int PIECE_CHARS = 500;
    /** Shorter chunks (a lone "ok", a bracket) carry no meaning worth a vector. */
    static final int MIN_CHARS = 40;

    private static final ObjectMapper JSON = new ObjectMapper();

    /** One text and who wrote it (the agent format, or {@code locomo}). */
    record Text(String agent, String text) {
    }

    private RealTexts() {
    }

    /** The log files under {@code root}, sorted, with at most {@code maxFiles} of them (0: all). */
    static List<Path> logFiles(Path root, int maxFiles) throws IOException {
        if (!Files.isDirectory(root)) {
            throw new IOException("no fixtures folder at " + root);
        }
        try (Stream<Path> files = Files.walk(root)) {
            List<Path> all = files.filter(Files::isRegularFile).sorted().toList();
            return maxFiles > 0 ? all.subList(0, Math.min(maxFiles, all.size())) : all;
        }
    }

    /**
     * Chunks of the memories parsed from {@code files} by the first format of
     * {@link AgentLogs#formats()} that reads each (files no format reads are skipped), in file
     * order, without duplicates.
     */
    static List<Text> logChunks(List<Path> files) throws IOException {
        List<LogFormat> formats = AgentLogs.formats();
        Map<String, Text> chunks = new LinkedHashMap<>();
        for (Path file : files) {
            byte[] head;
            try (InputStream in = Files.newInputStream(file)) {
                head = in.readNBytes(Indexer.HEAD_BYTES);
            }
            LogFormat format = null;
            for (LogFormat f : formats) {
                if (f.canRead(file, head)) {
                    format = f;
                    break;
                }
            }
            if (format == null) {
                continue;
            }
            String agent = format.name();
            format.parse(file, (Memory memory) -> {
                for (String chunk : chunks(memory.text())) {
                    chunks.putIfAbsent(chunk, new Text(agent, chunk));
                }
            });
        }
        return new ArrayList<>(chunks.values());
    }

    /**
     * Splits a memory's text into chunks of whole lines of at least {@link #CHUNK_CHARS}
     * characters; a very long line is cut at spaces first. Chunks shorter than
     * {@link #MIN_CHARS} are dropped.
     */
    static List<String> chunks(String text) {
        List<String> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String raw : text.split("\n")) {
            String line = raw.strip();
            if (line.isEmpty()) {
                continue;
            }
            for (String piece : pieces(line)) {
                if (current.length() > 0) {
                    current.append('\n');
                }
                current.append(piece);
                if (current.length() >= CHUNK_CHARS) {
                    emit(out, current);
                }
            }
        }
        emit(out, current);
        return out;
    }

    private static List<String> pieces(String line) {
        if (line.length() <= LONG_LINE) {
            return List.of(line);
        }
        List<String> pieces = new ArrayList<>();
        int start = 0;
        while (line.length() - start > LONG_LINE) {
            int cut = line.lastIndexOf(' ', start + PIECE_CHARS);
            if (cut <= start) {
                cut = start + PIECE_CHARS;
            }
            pieces.add(line.substring(start, cut).strip());
            start = cut;
        }
        pieces.add(line.substring(start).strip());
        return pieces;
    }

    private static void emit(List<String> out, StringBuilder current) {
        String chunk = current.toString().strip();
        if (chunk.length() >= MIN_CHARS) {
            out.add(chunk);
        }
        current.setLength(0);
    }

    /** Every turn of every LoCoMo conversation in {@code file}, as "speaker: text", in file order. */
    static List<Text> locomoTurns(Path file) throws IOException {
        List<Text> turns = new ArrayList<>();
        for (JsonNode conversation : read(file)) {
            JsonNode sessions = conversation.path("conversation");
            List<String> names = new ArrayList<>();
            sessions.fieldNames().forEachRemaining(names::add);
            // session_1 .. session_N in number order; the *_date_time fields are not lists.
            names.removeIf(n -> !n.matches("session_\\d+") || !sessions.get(n).isArray());
            names.sort((a, b) -> Integer.compare(number(a), number(b)));
            for (String name : names) {
                for (JsonNode turn : sessions.get(name)) {
                    String text = turn.path("text").asText("").strip();
                    if (!text.isEmpty()) {
                        turns.add(new Text("locomo", turn.path("speaker").asText("?") + ": " + text));
                    }
                }
            }
        }
        return turns;
    }

    /**
     * The other texts of the LoCoMo file, written about the conversations: every observation
     * (a fact about a speaker), session summary and event summary, in file order.
     */
    static List<Text> locomoNotes(Path file) throws IOException {
        List<Text> notes = new ArrayList<>();
        for (JsonNode conversation : read(file)) {
            for (JsonNode session : conversation.path("observation")) {
                for (JsonNode facts : session) {
                    for (JsonNode fact : facts) {
                        add(notes, fact.isArray() ? fact.path(0) : fact);
                    }
                }
            }
            for (JsonNode summary : conversation.path("session_summary")) {
                add(notes, summary);
            }
            for (JsonNode session : conversation.path("event_summary")) {
                for (JsonNode events : session) {
                    if (events.isArray()) {
                        for (JsonNode event : events) {
                            add(notes, event);
                        }
                    }
                }
            }
        }
        return notes;
    }

    private static void add(List<Text> notes, JsonNode node) {
        String text = node.isTextual() ? node.asText().strip() : "";
        if (!text.isEmpty()) {
            notes.add(new Text("locomo-notes", text));
        }
    }

    /** Every LoCoMo question in {@code file}, in file order, without duplicates. */
    static List<String> locomoQuestions(Path file) throws IOException {
        List<String> questions = new ArrayList<>();
        for (JsonNode conversation : read(file)) {
            for (JsonNode qa : conversation.path("qa")) {
                String q = qa.path("question").asText("").strip();
                if (!q.isEmpty() && !questions.contains(q)) {
                    questions.add(q);
                }
            }
        }
        return questions;
    }

    private static List<JsonNode> read(Path file) throws IOException {
        JsonNode root = JSON.readTree(file.toFile());
        if (!root.isArray()) {
            throw new IOException(file + ": expected a list of LoCoMo conversations");
        }
        List<JsonNode> list = new ArrayList<>();
        for (Iterator<JsonNode> it = root.elements(); it.hasNext(); ) {
            list.add(it.next());
        }
        return list;
    }

    private static int number(String sessionName) {
        return Integer.parseInt(sessionName.substring(sessionName.indexOf('_') + 1));
    }

    /** Up to {@code count} consecutive words of {@code text} from word {@code start % words}. */
    static String phrase(String text, int start, int count) {
        String[] words = text.strip().split("\\s+");
        int from = Math.floorMod(start, Math.max(1, words.length - count + 1));
        return String.join(" ", Arrays.copyOfRange(words, from, Math.min(words.length, from + count)));
    }
}
