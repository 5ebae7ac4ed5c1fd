package dev.funes.cli;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.SequenceInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;

/**
 * {@code funes mcp}'s answer to the client's {@code initialize}, written as soon as the JVM has
 * started, before picocli, Jackson's {@code ObjectMapper}, the MCP SDK's server and Reactor are
 * (about a second and a half of a cold start; docs/BENCHMARKS.md, "Cold start").
 *
 * <p>A thread reads the first line of stdin. When it is an {@code initialize} request whose
 * answer is certain, it writes the answer the SDK's server gives (same protocol version
 * negotiation, capabilities, server info and instructions, byte for byte). Everything it read,
 * that line included, is then handed to {@link McpStdioTransport} as the start of stdin: the SDK's
 * session handles the {@code initialize} as if nothing had been answered, and the transport
 * drops the session's answer to it after comparing it with the one sent (a difference is a bug of
 * this class, reported on stderr). The session's state, the client's info and capabilities, and
 * every message after the first are the SDK's as before.
 *
 * <p>Any doubt leaves the line to the SDK, as if this class did not exist: a first line that is
 * not an {@code initialize} request, is not JSON that {@link McpFrame} would accept, holds a value
 * whose conversion to the SDK's request records could fail (a number, a wrong type, icons), or
 * does not end within {@link #MAX_LINE} bytes.
 */
final class McpEarlyAnswer {

    /** The server's name in {@code serverInfo}; {@link McpCommand#start} gives the SDK the same. */
    static final String SERVER_NAME = "funes";

    /** The server's instructions; {@link McpCommand#start} gives the SDK the same. */
    static final String INSTRUCTIONS = "Funes is the memory of earlier coding-agent sessions. Search it before "
            + "re-deciding something; remember decisions and conventions worth keeping.";

    /**
     * The protocol versions the SDK's server accepts, oldest first: those of the SDK's
     * {@code McpServerTransportProviderBase#protocolVersions()}, which {@link McpStdioTransport}
     * keeps (a test compares the two). A client asking another gets the last.
     */
    static final List<String> PROTOCOL_VERSIONS = List.of("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25");

    /** Longest first line read ahead; an {@code initialize} takes a few hundred bytes. */
    static final int MAX_LINE = 64 * 1024;

    /** Options of {@code funes mcp} that take a value; any other word leaves the start as it was. */
    private static final Set<String> VALUE_OPTIONS = Set.of("--store", "-s", "--team");

    private static volatile McpEarlyAnswer started;

    private final InputStream in;
    private final OutputStream out;
    private final PrintStream log;
    private final String serverVersion;
    private final CountDownLatch done = new CountDownLatch(1);
    // Written by the reading thread before done is counted down, read after.
    private byte[] read = new byte[0];
    private Answered answered;

    /** The answer written for a request: its id and its bytes, without the newline. */
    record Answered(Object id, byte[] bytes) {
    }

    private McpEarlyAnswer(InputStream in, OutputStream out, PrintStream log, String serverVersion) {
        this.in = in;
        this.out = out;
        this.log = log;
        this.serverVersion = serverVersion;
    }

    /**
     * Starts answering on the process's stdin and stdout when {@code args} are {@code mcp} with
     * only options whose meaning is plain ({@code --store}, {@code -s}, {@code --team}); for
     * anything else (help, a mistyped option) the command starts as it did, as it does with
     * {@code -Dfunes.mcp.early=false}. From then on {@code System.out} is stderr: stdout carries
     * the protocol alone.
     */
    static void startOnStdio(String[] args) {
        if (!plain(args) || "false".equals(System.getProperty("funes.mcp.early"))) {
            return;
        }
        System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8));
        started = start(new FileInputStream(FileDescriptor.in), new FileOutputStream(FileDescriptor.out),
                System.err, FunesVersion.current());
    }

    /** The answerer {@link #startOnStdio} started, once; {@code null} when none was. */
    static McpEarlyAnswer take() {
        McpEarlyAnswer taken = started;
        started = null;
        return taken;
    }

    /**
     * Starts reading the first line of {@code in} on a thread of its own and answering it on
     * {@code out}; with {@code -Dfunes.debug=true}, {@code log} is told when it answered.
     */
    static McpEarlyAnswer start(InputStream in, OutputStream out, PrintStream log, String serverVersion) {
        McpEarlyAnswer early = new McpEarlyAnswer(in, out, log, serverVersion);
        // A class, not a lambda: the JVM's first lambda costs about 10 ms to spin, before the answer.
        Thread reader = new Thread(new Runnable() {
            @Override
            public void run() {
                early.readFirstLine();
            }
        }, "funes-mcp-initialize");
        reader.setDaemon(true);
        reader.start();
        return early;
    }

    /** Whether {@code args} are {@code mcp} and only {@code --store}, {@code -s} and {@code --team} with their values. */
    static boolean plain(String[] args) {
        if (args.length == 0 || !args[0].equals("mcp")) {
            return false;
        }
        for (int i = 1; i < args.length; i++) {
            String arg = args[i];
            if (VALUE_OPTIONS.contains(arg)) {
                if (i + 1 == args.length || args[i + 1].startsWith("-") || args[i + 1].isEmpty()) {
                    return false;
                }
                i++;
            } else {
                int equals = arg.indexOf('=');
                if (equals < 0 || !VALUE_OPTIONS.contains(arg.substring(0, equals)) || equals == arg.length() - 1) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * Stdin as the transport must read it: what this class read ahead, then the rest. Waits until
     * the first line is read (or found unusable).
     */
    InputStream input() throws InterruptedException {
        done.await();
        return new SequenceInputStream(new ByteArrayInputStream(read), in);
    }

    /** The answer written, or {@code null} when the first line was left to the SDK; after {@link #input()}. */
    Answered answered() {
        return answered;
    }

    private void readFirstLine() {
        byte[] buffer = new byte[4096];
        int length = 0;
        int newline = -1;
        try {
            while (newline < 0 && length < MAX_LINE) {
                if (length == buffer.length) {
                    buffer = Arrays.copyOf(buffer, Math.min(buffer.length * 2, MAX_LINE));
                }
                int n = in.read(buffer, length, buffer.length - length);
                if (n < 0) {
                    break;
                }
                for (int i = length; i < length + n; i++) {
                    if (buffer[i] == '\n') {
                        newline = i;
                        break;
                    }
                }
                length += n;
            }
            if (newline >= 0) {
                int end = newline > 0 && buffer[newline - 1] == '\r' ? newline - 1 : newline;
                Answered answer = answer(buffer, end, serverVersion);
                if (answer != null) {
                    out.write(answer.bytes());
                    out.write('\n');
                    out.flush();
                    answered = answer;
                    if (Boolean.getBoolean("funes.debug")) {
                        log.println("funes mcp: initialize answered at start");
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // Stdin or stdout failed: the transport finds the same when it reads or writes, and says so.
        } finally {
            read = Arrays.copyOf(buffer, length);
            done.countDown();
        }
    }

    /**
     * The SDK's answer to {@code line} (one line of UTF-8 without its newline) when it is an
     * {@code initialize} request whose answer is certain, else {@code null}.
     */
    static Answered answer(byte[] line, int length, String serverVersion) {
        try (JsonParser p = PARSING.createParser(line, 0, length)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            Object id = null;
            String version = null;
            boolean jsonrpc = false;
            boolean initialize = false;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                boolean sure = switch (name) {
                    case "jsonrpc" -> jsonrpc = value == JsonToken.VALUE_STRING && p.getText().equals("2.0");
                    case "method" -> initialize = value == JsonToken.VALUE_STRING && p.getText().equals("initialize");
                    case "id" -> (id = id(p, value)) != null;
                    case "params" -> value == JsonToken.START_OBJECT && (version = params(p)) != null;
                    default -> false; // JSON-RPC has no other member; whatever it is, the SDK decides
                };
                if (!sure) {
                    return null;
                }
            }
            if (p.currentToken() != JsonToken.END_OBJECT || p.nextToken() != null
                    || !jsonrpc || !initialize || id == null || version == null) {
                return null;
            }
            return new Answered(id, reply(id, negotiate(version), serverVersion));
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** The version the SDK's server answers: the client's when it accepts it, else its latest. */
    static String negotiate(String requested) {
        return PROTOCOL_VERSIONS.contains(requested) ? requested : PROTOCOL_VERSIONS.get(PROTOCOL_VERSIONS.size() - 1);
    }

    /** A string, or an integer that fits a {@code long}, as {@link McpFrame} reads ids; else {@code null}. */
    private static Object id(JsonParser p, JsonToken value) throws IOException {
        if (value == JsonToken.VALUE_STRING) {
            return p.getText();
        }
        if (value == JsonToken.VALUE_NUMBER_INT && (p.getNumberType() == JsonParser.NumberType.INT
                || p.getNumberType() == JsonParser.NumberType.LONG)) {
            return p.getLongValue();
        }
        return null;
    }

    /** The requested protocol version when every member converts to the SDK's records surely; else {@code null}. */
    private static String params(JsonParser p) throws IOException {
        String version = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken value = p.nextToken();
            boolean sure = switch (name) {
                case "protocolVersion" -> {
                    version = value == JsonToken.VALUE_STRING ? p.getText() : null;
                    yield version != null;
                }
                case "capabilities" -> value == JsonToken.VALUE_NULL || value == JsonToken.START_OBJECT && capabilities(p);
                case "clientInfo" -> value == JsonToken.VALUE_NULL || value == JsonToken.START_OBJECT && clientInfo(p);
                case "_meta" -> value == JsonToken.VALUE_NULL || value == JsonToken.START_OBJECT && anyValue(p, value);
                default -> anyValue(p, value); // the SDK's records ignore members they do not know
            };
            if (!sure) {
                return null;
            }
        }
        return version;
    }

    private static boolean capabilities(JsonParser p) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken value = p.nextToken();
            boolean sure = value == JsonToken.VALUE_NULL || switch (name) {
                case "experimental", "sampling" -> value == JsonToken.START_OBJECT && anyValue(p, value);
                case "roots" -> value == JsonToken.START_OBJECT && roots(p);
                case "elicitation" -> value == JsonToken.START_OBJECT && objectsOnly(p);
                case "extensions" -> value == JsonToken.START_OBJECT && objectsOnly(p);
                default -> anyValue(p, value);
            };
            if (!sure) {
                return false;
            }
        }
        return true;
    }

    private static boolean roots(JsonParser p) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken value = p.nextToken();
            boolean sure = name.equals("listChanged")
                    ? value == JsonToken.VALUE_TRUE || value == JsonToken.VALUE_FALSE || value == JsonToken.VALUE_NULL
                    : anyValue(p, value);
            if (!sure) {
                return false;
            }
        }
        return true;
    }

    /** An object whose members are objects or null (elicitation's modes, extensions' settings). */
    private static boolean objectsOnly(JsonParser p) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            JsonToken value = p.nextToken();
            if (value != JsonToken.VALUE_NULL && !(value == JsonToken.START_OBJECT && anyValue(p, value))) {
                return false;
            }
        }
        return true;
    }

    private static boolean clientInfo(JsonParser p) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken value = p.nextToken();
            boolean sure = switch (name) {
                case "name", "title", "version", "description", "websiteUrl" ->
                        value == JsonToken.VALUE_STRING && p.getText() != null || value == JsonToken.VALUE_NULL;
                case "icons" -> false; // a list of records of their own: left to the SDK
                default -> anyValue(p, value);
            };
            if (!sure) {
                return false;
            }
        }
        return true;
    }

    /**
     * Reads the value that starts with {@code first} to its end, decoding every string as
     * {@link McpFrame}'s tree would; {@code false} at any number, which a record member might not
     * take.
     */
    private static boolean anyValue(JsonParser p, JsonToken first) throws IOException {
        int depth = 0;
        JsonToken token = first;
        while (true) {
            switch (token) {
                case START_OBJECT, START_ARRAY -> depth++;
                case END_OBJECT, END_ARRAY -> depth--;
                case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT, VALUE_EMBEDDED_OBJECT, NOT_AVAILABLE -> {
                    return false;
                }
                case VALUE_STRING, FIELD_NAME -> p.getText();
                default -> {
                }
            }
            if (depth == 0) {
                return true;
            }
            token = p.nextToken();
            if (token == null) {
                return false;
            }
        }
    }

    /** The answer, written as the SDK's Jackson writes its {@code JSONRPCResponse} of an {@code InitializeResult}. */
    private static byte[] reply(Object id, String protocolVersion, String serverVersion) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(512);
        try (JsonGenerator g = WRITING.createGenerator(bytes, JsonEncoding.UTF8)) {
            g.writeStartObject();
            g.writeStringField("jsonrpc", "2.0");
            g.writeFieldName("id");
            if (id instanceof Long number) {
                g.writeNumber(number);
            } else {
                g.writeString((String) id);
            }
            g.writeObjectFieldStart("result");
            g.writeStringField("protocolVersion", protocolVersion);
            g.writeObjectFieldStart("capabilities");
            g.writeObjectFieldStart("logging");
            g.writeEndObject();
            g.writeObjectFieldStart("tools");
            g.writeBooleanField("listChanged", false);
            g.writeEndObject();
            g.writeEndObject();
            g.writeObjectFieldStart("serverInfo");
            g.writeStringField("name", SERVER_NAME);
            g.writeStringField("version", serverVersion);
            g.writeEndObject();
            g.writeStringField("instructions", INSTRUCTIONS);
            g.writeEndObject();
            g.writeEndObject();
        }
        return bytes.toByteArray();
    }

    /** A parser factory configured as {@link McpFrame}'s, which reads every line after this one. */
    static JsonFactory parsing() {
        return JsonFactory.builder()
                .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(McpFrame.MAX_NESTING).build())
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .build();
    }

    private static final JsonFactory PARSING = parsing();
    private static final JsonFactory WRITING = new JsonFactory();
}
