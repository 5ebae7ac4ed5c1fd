package dev.funes.ingest;

import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;

import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.Provenance;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Reads one Gemini CLI chat recording into memories. Messages become pieces (the request, the
 * text, each thought, each tool call with its result) that cite their own lines; the two
 * layouts differ only in how messages arrive. See docs/FORMATS.md.
 */
final class GeminiReader {

    private static final Logger LOG = LoggerFactory.getLogger(GeminiReader.class);

    private static final String REFERENCED_FILES = "--- Content from referenced files ---";
    private static final String SNAPSHOT = "<state_snapshot>";

    private GeminiReader() {
    }

    /** Where the parts of a message lie. */
    private interface Spans {
        /** The span of an object inside the message (the message itself, a tool call, a thought). */
        JsonDoc.Span of(JsonNode container);

        /** The span of one field of an object inside the message; null when absent. */
        JsonDoc.Span field(JsonNode object, String name);

        /** A span cut to at most {@link Chunker#MAX_LINES} lines. */
        JsonDoc.Span capped(JsonDoc.Span span);
    }

    /** One piece of a message, ready for the chunker. */
    private record Piece(Kind kind, JsonDoc.Span span, Instant time, String text, String callId, String tool,
                         JsonDoc.Span resultSpan, String result, boolean error, String input) {

        Piece(Kind kind, JsonDoc.Span span, Instant time, String text, String callId, String tool,
              JsonDoc.Span resultSpan, String result, boolean error) {
            this(kind, span, time, text, callId, tool, resultSpan, result, error, null);
        }
    }

    private enum Kind { REQUEST, COMMAND, TEXT, THINKING, CALL, MARKER }

    /** A message's pieces and its model. */
    private record Message(String id, List<Piece> pieces, String model) {
        int firstLine() {
            return pieces.isEmpty() ? Integer.MAX_VALUE : pieces.get(0).span().firstLine();
        }
    }

    /** What both layouts share: the session's fields, the chunker, and the messages' pieces. */
    private static final class Session {
        final Path file;
        final Problems problems;
        final Chunker chunker;
        final Consumer<Memory> emit;
        String sessionId;
        String projectHash;
        String project;
        String parentSession;
        final Runnable skip;

        Session(Path file, Problems problems, Consumer<Memory> emit, Runnable skip, boolean passages) {
            this.file = file;
            this.problems = problems;
            this.emit = emit;
            this.skip = skip;
            this.chunker = new Chunker(file, GeminiFormat.NAME, emit, passages);
            Path parent = file.getParent();
            // Sub-agent recordings live in chats/<parent session>/<id>.jsonl.
            if (parent != null && parent.getFileName() != null && !"chats".equals(parent.getFileName().toString())
                    && parent.getParent() != null && parent.getParent().getFileName() != null
                    && "chats".equals(parent.getParent().getFileName().toString())) {
                parentSession = parent.getFileName().toString();
            }
        }

        void metadata(JsonNode node) {
            String id = Json.nonBlank(node, "sessionId");
            if (id != null && sessionId == null) {
                sessionId = id;
            }
            String hash = Json.nonBlank(node, "projectHash");
            if (hash != null) {
                projectHash = hash;
            }
            directories(node.get("directories"));
        }

        void directories(JsonNode dirs) {
            if (dirs != null && dirs.isArray() && dirs.size() > 0 && dirs.get(0).isTextual() && project == null) {
                project = dirs.get(0).asText();
            }
        }

        String session() {
            if (sessionId != null) {
                return sessionId;
            }
            String name = file.getFileName() == null ? "" : file.getFileName().toString();
            return name.replaceFirst("\\.jsonl?$", "");
        }

        Map<String, String> meta() {
            Map<String, String> m = new TreeMap<>();
            if (projectHash != null) {
                m.put("projectHash", projectHash);
            }
            if (parentSession != null) {
                m.put("parentSession", parentSession);
            }
            return m;
        }

        Rec rec(JsonDoc.Span span, String id, Instant time) {
            return Rec.of(span, id, time, session(), project, false, meta());
        }

        /** The pieces of one message, in file order; null when the message is unusable (reported). */
        Message message(JsonNode m, Spans spans, int line) {
            String id = Json.nonBlank(m, "id");
            String type = Json.text(m, "type");
            if (id == null || type == null) {
                skip.run();
                problems.add(line, "message has no " + (id == null ? "\"id\"" : "\"type\"") + "; skipped");
                return null;
            }
            Instant time = Json.instant(m.get("timestamp"));
            List<Piece> pieces = new ArrayList<>();
            JsonDoc.Span whole = spans.capped(spans.of(m));
            switch (type) {
                case "user" -> {
                    JsonNode shown = m.has("displayContent") && !m.get("displayContent").isNull() ? m.get("displayContent")
                            : m.get("content");
                    String text = typed(contentText(shown));
                    if (!text.isEmpty()) {
                        if (text.startsWith(SNAPSHOT)) {
                            summary(whole, id, time, text);
                        } else {
                            boolean command = text.startsWith("/") || text.startsWith("!");
                            pieces.add(new Piece(command ? Kind.COMMAND : Kind.REQUEST, whole, time, text,
                                    null, null, null, null, false));
                        }
                    }
                }
                case "gemini" -> gemini(m, spans, time, pieces);
                case "error" -> {
                    String text = contentText(m.get("content"));
                    if (!text.isBlank()) {
                        pieces.add(new Piece(Kind.MARKER, whole, time, "(error: " + Text.oneLine(text, 300) + ")",
                                null, null, null, null, false));
                    }
                }
                default -> {
                    // info and warning: the CLI's notes to the person, not part of the conversation
                }
            }
            pieces.sort(Comparator.comparingInt(p -> p.span().firstLine()));
            return new Message(id, pieces, Json.nonBlank(m, "model"));
        }

        private void gemini(JsonNode m, Spans spans, Instant time, List<Piece> pieces) {
            JsonNode thoughts = Json.array(m, "thoughts");
            if (thoughts != null) {
                for (JsonNode t : thoughts) {
                    String subject = Json.nonBlank(t, "subject");
                    String description = Json.nonBlank(t, "description");
                    if (subject == null && description == null) {
                        continue;
                    }
                    String text = subject == null ? description : description == null ? subject : subject + ": " + description;
                    Instant at = Json.instant(t.get("timestamp"));
                    pieces.add(new Piece(Kind.THINKING, spans.capped(spans.of(t)), at != null ? at : time, text,
                            null, null, null, null, false));
                }
            }
            String text = contentText(m.get("content"));
            if (!text.isBlank()) {
                JsonDoc.Span content = spans.field(m, "content");
                pieces.add(new Piece(Kind.TEXT, spans.capped(content != null ? content : spans.of(m)), time, text,
                        null, null, null, null, false));
            }
            JsonNode calls = Json.array(m, "toolCalls");
            if (calls != null) {
                for (JsonNode call : calls) {
                    if (call.isObject()) {
                        pieces.add(toolCall(call, spans, time));
                    }
                }
            }
        }

        private Piece toolCall(JsonNode call, Spans spans, Instant time) {
            String name = Json.nonBlank(call, "name");
            name = name == null ? "tool" : name;
            JsonNode args = call.get("args");
            String label = ToolRender.call(name, args, project);
            String status = Json.text(call, "status");
            StringBuilder output = new StringBuilder();
            boolean error = "error".equals(status) || "cancelled".equals(status);
            JsonNode result = call.get("result");
            if (result != null && result.isArray()) {
                for (JsonNode part : result) {
                    JsonNode response = part.path("functionResponse").path("response");
                    String out = response.path("output").isTextual() ? response.path("output").asText()
                            : response.path("error").isTextual() ? response.path("error").asText()
                            : part.path("text").isTextual() ? part.path("text").asText() : null;
                    if (response.path("error").isTextual()) {
                        error = true;
                    }
                    if (out != null) {
                        output.append(output.length() == 0 ? "" : "\n").append(out);
                    }
                }
            }
            if (output.length() == 0 && call.path("resultDisplay").isTextual()) {
                output.append(call.path("resultDisplay").asText());
            }
            if ("cancelled".equals(status) && output.length() == 0) {
                output.append("cancelled");
            }
            Instant at = Json.instant(call.get("timestamp"));
            JsonDoc.Span whole = spans.of(call);
            JsonDoc.Span callSpan = whole;
            JsonDoc.Span resultSpan = whole;
            if (whole.lines() > Chunker.MAX_LINES) {
                // A long call is cited in two parts: the call up to its arguments, and its result.
                JsonDoc.Span argsSpan = spans.field(call, "args");
                callSpan = argsSpan == null ? whole : new JsonDoc.Span(whole.firstLine(), argsSpan.lastLine(),
                        whole.start(), argsSpan.end());
                JsonDoc.Span resultField = spans.field(call, "result");
                resultSpan = resultField != null ? resultField : callSpan;
            }
            String id = Json.nonBlank(call, "id");
            return new Piece(Kind.CALL, spans.capped(callSpan), at != null ? at : time, label, id == null ? "call:" + label : id,
                    name, spans.capped(resultSpan), output.toString(), error, ToolRender.input(call.get("args")));
        }

        /** Hands a message's pieces to the chunker. */
        void feed(Message message) {
            String messageId = "message:" + message.id();
            for (Piece p : message.pieces()) {
                Rec rec = rec(p.span(), message.id(), p.time());
                switch (p.kind()) {
                    case REQUEST -> chunker.request(rec, p.text(), Chunker.RequestKind.TYPED);
                    case COMMAND -> chunker.request(rec, p.text(), Chunker.RequestKind.COMMAND);
                    case TEXT -> chunker.text(rec, messageId, p.text());
                    case THINKING -> chunker.thinking(rec, messageId, p.text());
                    case MARKER -> chunker.marker(rec, p.text());
                    case CALL -> {
                        chunker.toolCall(rec, messageId, p.callId(), p.tool(), p.text(), p.input());
                        chunker.toolResult(rec(p.resultSpan(), message.id(), p.time()), p.callId(), p.result(), p.error());
                    }
                    default -> {
                    }
                }
            }
            chunker.annotate("model", message.model());
        }

        /** A session summary or the summary a compression wrote: a SUMMARY memory of its own. */
        void summary(JsonDoc.Span span, String id, Instant time, String text) {
            if (Text.isBlank(text)) {
                return;
            }
            Memory.Builder b = Memory.builder(MemoryKind.SUMMARY, GeminiFormat.NAME,
                            Text.headTail(Text.clean(Privacy.strip(text)), Chunker.MAX_CHARS))
                    .time(time, time)
                    .project(project)
                    .session(session())
                    .provenance(new Provenance(file, span.firstLine(), span.lastLine(), span.start(), span.end(),
                            id == null ? List.of() : List.of(id)))
                    .metadata("compaction", text.strip().startsWith(SNAPSHOT) ? "true" : null);
            meta().forEach(b::metadata);
            emit.accept(b.build());
        }
    }

    /** The text of a message's content: a string, or parts whose {@code text} is joined; files and images by name. */
    static String contentText(JsonNode content) {
        if (content == null || content.isNull()) {
            return "";
        }
        if (content.isTextual()) {
            return content.asText();
        }
        if (content.isObject()) {
            return content.path("text").isTextual() ? content.path("text").asText() : "";
        }
        if (!content.isArray()) {
            return "";
        }
        StringBuilder s = new StringBuilder();
        for (JsonNode part : content) {
            String piece = part.isTextual() ? part.asText()
                    : part.path("thought").asBoolean(false) ? null
                    : part.path("text").isTextual() ? part.path("text").asText()
                    : part.has("inlineData") ? "[" + part.path("inlineData").path("mimeType").asText("data") + "]"
                    : part.has("fileData") ? "[" + part.path("fileData").path("fileUri").asText("file") + "]"
                    : null;
            if (piece != null && !piece.isEmpty()) {
                s.append(piece);
            }
        }
        return s.toString();
    }

    /** What the person typed: the files an {@code @path} pulled in are not part of it. */
    private static String typed(String text) {
        int at = text.indexOf(REFERENCED_FILES);
        return (at >= 0 ? text.substring(0, at) : text).strip();
    }

    // ---- the whole-file JSON layout ---------------------------------------------------------

    /** A {@code session-*.json} document, read as a stream one message at a time. */
    static final class Document extends JsonDocReader {
        private final Session session;

        Document(Path file, Consumer<Memory> sink) {
            super(file, sink);
            this.session = new Session(file, problems, this::emit, () -> skipped++, PassageSink.wants(sink));
        }

        @Override
        void finish() {
            session.chunker.finishAll();
        }

        @Override
        void walk(JsonDoc doc) throws IOException {
            var p = doc.parser();
            JsonToken first = p.nextToken();
            if (first != JsonToken.START_OBJECT) {
                problems.add(first == null ? 0 : doc.tokenLine(), "expected a JSON object with \"messages\", found " + found(first));
                return;
            }
            fields(doc);
        }

        private void fields(JsonDoc doc) throws IOException {
            var p = doc.parser();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                int line = doc.tokenLine();
                switch (name) {
                    case "messages" -> {
                        if (value != JsonToken.START_ARRAY) {
                            problems.add(line, "\"messages\" is not an array; skipped");
                            p.skipChildren();
                            continue;
                        }
                        while (p.nextToken() != JsonToken.END_ARRAY) {
                            if (p.currentToken() == null) {
                                throw new java.io.EOFException("end of file inside \"messages\"");
                            }
                            message(doc);
                            drain();
                        }
                    }
                    case "summary" -> {
                        JsonDoc.Located s = doc.readLocated();
                        if (s.node.isTextual()) {
                            session.summary(doc.firstLines(s.span, Chunker.MAX_LINES), null, null, s.node.asText());
                        }
                    }
                    default -> {
                        JsonDoc.Located v = doc.readLocated();
                        switch (name) {
                            case "sessionId", "projectHash" -> session.metadata(wrap(name, v.node));
                            case "directories" -> session.directories(v.node);
                            default -> {
                            }
                        }
                    }
                }
            }
        }

        private static JsonNode wrap(String name, JsonNode value) {
            return JsonLinesReader.JSON.createObjectNode().set(name, value);
        }

        private void message(JsonDoc doc) throws IOException {
            int line = doc.tokenLine();
            JsonDoc.Located m = doc.readLocated();
            records++;
            if (!m.node.isObject()) {
                skipped++;
                problems.add(line, "message is " + Json.kind(m.node) + ", expected an object; skipped");
                return;
            }
            Spans spans = new Spans() {
                @Override
                public JsonDoc.Span of(JsonNode container) {
                    JsonDoc.Span s = m.span(container);
                    return s != null ? s : m.span;
                }

                @Override
                public JsonDoc.Span field(JsonNode object, String name) {
                    return m.field(object, name);
                }

                @Override
                public JsonDoc.Span capped(JsonDoc.Span span) {
                    return doc.firstLines(span, Chunker.MAX_LINES);
                }
            };
            try {
                Message message = session.message(m.node, spans, line);
                if (message != null) {
                    session.feed(message);
                }
            } catch (RuntimeException e) {
                skipped++;
                problems.add(line, "message could not be read (" + e + "); skipped");
                LOG.debug("{}:{}: message could not be read", file, line, e);
            }
        }

    }

    // ---- the JSON Lines layout --------------------------------------------------------------

    /**
     * A {@code session-*.jsonl} log: a metadata line, message records (a message is written
     * again, whole, each time it changes: the last version wins), {@code $set} metadata updates
     * and {@code $rewindTo} records that undo the messages from the one named on. Messages are
     * held until the end of the file, since a later line may replace or undo them.
     */
    static final class Lines extends JsonLinesReader {
        private final Session session;
        private final LinkedHashMap<String, Message> messages = new LinkedHashMap<>();

        Lines(Path file, Consumer<Memory> sink) {
            super(file, sink);
            this.session = new Session(file, problems, this::emit, this::skip, PassageSink.wants(sink));
        }

        @Override
        void record(int line, long start, long end, JsonNode node) {
            JsonDoc.Span span = new JsonDoc.Span(line, line, start, end);
            if (node.has("$rewindTo")) {
                rewind(node.get("$rewindTo"), line);
            } else if (node.has("$set")) {
                JsonNode set = node.get("$set");
                if (!set.isObject()) {
                    skip();
                    problems.add(line, "\"$set\" is " + Json.kind(set) + ", expected an object; skipped");
                    return;
                }
                session.metadata(set);
                if (set.path("summary").isTextual()) {
                    session.summary(span, null, null, set.get("summary").asText());
                }
                JsonNode history = set.get("messages");
                if (history != null && history.isArray()) {
                    // A rewritten history (after compression): only what it adds is new.
                    for (JsonNode m : history) {
                        String id = Json.nonBlank(m, "id");
                        if (id != null && !messages.containsKey(id) && "user".equals(Json.text(m, "type"))) {
                            String text = contentText(m.get("content"));
                            if (text.strip().startsWith(SNAPSHOT)) {
                                session.summary(span, id, Json.instant(m.get("timestamp")), text);
                            }
                        }
                    }
                }
            } else if (node.has("id") || node.has("type") && !node.has("sessionId")) {
                Spans spans = new Spans() {
                    @Override
                    public JsonDoc.Span of(JsonNode container) {
                        return span;
                    }

                    @Override
                    public JsonDoc.Span field(JsonNode object, String name) {
                        return span;
                    }

                    @Override
                    public JsonDoc.Span capped(JsonDoc.Span s) {
                        return s;
                    }
                };
                Message message = session.message(node, spans, line);
                if (message != null) {
                    messages.put(message.id(), message);
                }
            } else if (node.has("sessionId")) {
                session.metadata(node);
            } else {
                unknown("(no id, $set or $rewindTo)", line);
            }
        }

        private void rewind(JsonNode target, int line) {
            if (target == null || !target.isTextual()) {
                skip();
                problems.add(line, "\"$rewindTo\" is " + Json.kind(target) + ", expected a message id; skipped");
                return;
            }
            boolean found = false;
            for (Iterator<String> ids = messages.keySet().iterator(); ids.hasNext(); ) {
                String id = ids.next();
                found |= id.equals(target.asText());
                if (found) {
                    ids.remove();
                }
            }
            if (!found) {
                // As Gemini CLI does: an unknown target undoes everything.
                messages.clear();
            }
        }

        @Override
        void finish() {
            List<Message> ordered = new ArrayList<>(messages.values());
            messages.clear();
            // The versions kept are read in file order, so each cited range stays in order.
            ordered.sort(Comparator.comparingInt(Message::firstLine));
            for (Message m : ordered) {
                session.feed(m);
            }
            session.chunker.finishAll();
        }
    }
}
