package dev.funes.cli;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * {@code funes mcp}'s answer to the client's {@code initialize}, written as soon as the JVM has
 * started, before picocli, Jackson's {@code ObjectMapper}, the MCP SDK's server and Reactor are
 * (about a second and a half of a cold start; docs/BENCHMARKS.md, "Cold start"); and, while the
 * SDK's session is not ready, the answers of a resident {@code funes serve} to the searches that
 * follow.
 *
 * <p>A thread reads stdin. When its first line is an {@code initialize} request whose answer is
 * certain, it writes the answer the SDK's server gives (same protocol version negotiation,
 * capabilities, server info and instructions, byte for byte). Everything it reads, that line
 * included, is handed to {@link McpStdioTransport} as stdin ({@link #input()}): the SDK's session
 * handles the {@code initialize} as if nothing had been answered, and the transport drops the
 * session's answer to it after comparing it with the one sent (a difference is a bug of this
 * class, reported on stderr). The session's state, the client's info and capabilities, and every
 * message after the first are the SDK's as before, with one exception: until the session can
 * check a call's arguments ({@link #forwardSearches}), a {@code search_memory} call whose
 * arguments surely pass the tool's schema is sent to the store's {@code funes serve}, which runs
 * the tools' own code, and its result is written as the SDK writes it; the transport then reads
 * an empty line in its place. Without a server, the call is the SDK's.
 *
 * <p>Any doubt leaves the line to the SDK, as if this class did not exist: a first line that is
 * not an {@code initialize} request, is not JSON that {@link McpFrame} would accept, holds a value
 * whose conversion to the SDK's request records could fail (a number, a wrong type, icons), or
 * does not end within {@link #MAX_LINE} bytes; a call with an argument the schema might refuse.
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
    /** Stdin as the transport reads it: every line this class did not answer, in order. */
    private final Pipe pipe = new Pipe();
    /** What every writer of stdout holds while it writes a line: this class and the transport. */
    private final Object writing = new Object();
    /** Answers written here to requests the SDK's session also gets, by id, until the transport drops the session's. */
    private final java.util.concurrent.ConcurrentHashMap<Object, Answered> sent = new java.util.concurrent.ConcurrentHashMap<>();
    /** Counted down when {@link #forwardSearches} or {@link #input()} settled whether searches are forwarded. */
    private final CountDownLatch decided = new CountDownLatch(1);
    private volatile Function<String, Optional<Served>> forwarder;
    /** Null until said: the transport reading stdin is then enough to stop forwarding. */
    private volatile BooleanSupplier sessionReady;
    private volatile boolean claimed;
    private volatile boolean decidedOff;

    /** The answer written for a request: its id, its method and its bytes, without the newline. */
    record Answered(Object id, String method, byte[] bytes) {
    }

    /** A {@code search_memory} result as the tools make it: its text, and whether it is an error. */
    record Served(String text, boolean error) {
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
                early.read();
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
     * Lets {@code search_memory} calls that follow an {@code initialize} answered here be answered
     * by {@code forwarder} (a resident {@code funes serve} of the store: the tools' own code) until
     * the transport reads stdin and {@code sessionReady} says the SDK's session can check a call's
     * arguments without first making its validator. A call is forwarded only when the SDK would
     * surely pass its arguments to the tool ({@link #searchArguments}); when {@code forwarder}
     * answers empty (no server), the call goes to the SDK as usual. {@code null} forwards nothing.
     */
    void forwardSearches(Function<String, Optional<Served>> forwarder, BooleanSupplier sessionReady) {
        if (decided.getCount() > 0) {
            this.sessionReady = sessionReady;
            this.forwarder = forwarder;
            this.decidedOff = forwarder == null;
        }
        decided.countDown();
    }

    /**
     * Stdin as the transport must read it: every line this class did not answer, in order (a line
     * it answered is left as an empty line, so line numbers stay stdin's). Waits until the first
     * line is read (or found unusable).
     */
    InputStream input() throws InterruptedException {
        done.await();
        claimed = true;
        if (decided.getCount() > 0) {
            decidedOff = true; // no forwarding if nobody asked for it by now
            decided.countDown();
        }
        return pipe;
    }

    /** What every writer of the process's stdout locks while it writes one line. */
    Object writing() {
        return writing;
    }

    /**
     * The answer written here to the request {@code id} that the SDK's session also handles
     * ({@code initialize}, {@code tools/list}), once: its own answer to that request is then not
     * sent. {@code null} when none was.
     */
    Answered takeAnswer(Object id) {
        return id == null ? null : sent.remove(id);
    }

    /**
     * Reads stdin into {@link #pipe} until it ends: the first line answered when it is a sure
     * {@code initialize}, then, while searches are forwarded, each line looked at, and after that
     * whatever comes, as it comes.
     */
    private void read() {
        byte[] buffer = new byte[4096];
        int length = 0;
        try {
            int newline = -1;
            while (newline < 0 && length < MAX_LINE) {
                if (length == buffer.length) {
                    buffer = Arrays.copyOf(buffer, Math.min(buffer.length * 2, MAX_LINE));
                }
                int n = in.read(buffer, length, buffer.length - length);
                if (n < 0) {
                    break;
                }
                newline = indexOf(buffer, length, length + n);
                length += n;
            }
            Answered answer = null;
            if (newline >= 0) {
                int end = newline > 0 && buffer[newline - 1] == '\r' ? newline - 1 : newline;
                answer = answer(buffer, end, serverVersion);
                if (answer != null) {
                    sent.put(answer.id(), answer);
                    writeLine(answer.bytes());
                    if (Boolean.getBoolean("funes.debug")) {
                        log.println("funes mcp: initialize answered at start");
                    }
                }
            }
            done.countDown();
            if (answer != null) {
                pipe.write(buffer, 0, newline + 1);
                forwardWhileStarting(buffer, newline + 1, length);
            } else {
                pipe.write(buffer, 0, length);
            }
            byte[] chunk = new byte[8192];
            for (int n; (n = in.read(chunk)) >= 0; ) {
                pipe.write(chunk, 0, n);
            }
        } catch (IOException e) {
            pipe.fail(e); // the transport finds it when it reads, and says so
        } catch (RuntimeException e) {
            pipe.fail(new IOException(e));
        } finally {
            done.countDown();
            pipe.close();
        }
    }

    /**
     * While searches may be forwarded: reads line after line, starting with {@code read[from..to)},
     * forwarding each sure {@code search_memory} call and passing every other line to the pipe,
     * then passes on what it read of the next line.
     */
    private void forwardWhileStarting(byte[] read, int from, int to) throws IOException {
        byte[] buffer = Arrays.copyOf(Arrays.copyOfRange(read, from, to), MAX_LINE);
        int length = to - from;
        int scanned = 0;
        while (!(claimed && (sessionReady == null || sessionReady.getAsBoolean()))) {
            int newline = indexOf(buffer, scanned, length);
            if (newline < 0) {
                scanned = length;
                if (length == MAX_LINE) {
                    break; // a line longer than any search: the transport's to read
                }
                int n = in.read(buffer, length, MAX_LINE - length);
                if (n < 0) {
                    break;
                }
                length += n;
                continue;
            }
            int end = newline > 0 && buffer[newline - 1] == '\r' ? newline - 1 : newline;
            if (forwarded(buffer, end)) {
                pipe.write(NEWLINE, 0, 1);
            } else {
                listTools(buffer, end);
                pipe.write(buffer, 0, newline + 1);
            }
            System.arraycopy(buffer, newline + 1, buffer, 0, length - newline - 1);
            length -= newline + 1;
            scanned = 0;
        }
        pipe.write(buffer, 0, length);
    }

    /** Whether the line was a sure search call that the forwarder answered, and its answer is written. */
    private boolean forwarded(byte[] line, int length) throws IOException {
        SearchCall call = decidedOff ? null : searchCall(line, length);
        if (call == null) {
            return false;
        }
        try {
            decided.await(); // until mcp has said whether a server may answer, or the transport reads
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        Function<String, Optional<Served>> to = forwarder;
        if (to == null) {
            return false;
        }
        Optional<Served> served = to.apply(call.arguments());
        byte[] answer;
        try {
            answer = served.isEmpty() ? null : result(call.id(), served.get());
        } catch (IOException e) {
            answer = null; // a result the SDK's way would fail on too: its to answer
        }
        if (answer == null) {
            return false;
        }
        writeLine(answer);
        if (Boolean.getBoolean("funes.debug")) {
            log.println("funes mcp: search_memory answered by funes serve at start");
        }
        return true;
    }

    /**
     * Answers the line when it is a plain {@code tools/list} request whose id no answer written
     * here holds yet; the line still goes to the session, whose answer the transport compares
     * with this one and drops.
     */
    private void listTools(byte[] line, int length) throws IOException {
        Object id = toolsListId(line, length);
        if (id == null) {
            return;
        }
        Answered answer = new Answered(id, "tools/list", toolsList(id));
        if (sent.putIfAbsent(id, answer) == null) {
            writeLine(answer.bytes());
            if (Boolean.getBoolean("funes.debug")) {
                log.println("funes mcp: tools/list answered at start");
            }
        }
    }

    private void writeLine(byte[] bytes) throws IOException {
        synchronized (writing) {
            out.write(bytes);
            out.write('\n');
            out.flush();
        }
    }

    private static int indexOf(byte[] buffer, int from, int to) {
        for (int i = from; i < to; i++) {
            if (buffer[i] == '\n') {
                return i;
            }
        }
        return -1;
    }

    private static final byte[] NEWLINE = {'\n'};

    /**
     * The SDK's answer to {@code line} (one line of UTF-8 without its newline) when it is an
     * {@code initialize} request whose answer is certain, else {@code null}.
     */
    static Answered answer(byte[] line, int length, String serverVersion) {
        Request request = request(line, length, "initialize");
        if (request == null) {
            return null;
        }
        try {
            return new Answered(request.id(), "initialize", reply(request.id(), negotiate((String) request.params()),
                    serverVersion));
        } catch (IOException e) {
            return null;
        }
    }

    /** A request of one method: its id, and what its parameters gave ({@link #params}). */
    private record Request(Object id, Object params) {
    }

    /**
     * The request when {@code line} (UTF-8, without its newline) is a JSON-RPC request of
     * {@code method} with an id, and its parameters are of the form this class answers for that
     * method ({@link #params}); else {@code null}.
     */
    private static Request request(byte[] line, int length, String method) {
        try (JsonParser p = PARSING.createParser(line, 0, length)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            Object id = null;
            Object params = null;
            boolean jsonrpc = false;
            boolean named = false;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                boolean sure = switch (name) {
                    case "jsonrpc" -> jsonrpc = value == JsonToken.VALUE_STRING && p.getText().equals("2.0");
                    case "method" -> named = value == JsonToken.VALUE_STRING && p.getText().equals(method);
                    case "id" -> (id = id(p, value)) != null;
                    case "params" -> (params = params(p, value, method)) != null;
                    default -> false; // JSON-RPC has no other member; whatever it is, the SDK decides
                };
                if (!sure) {
                    return null;
                }
            }
            if (p.currentToken() != JsonToken.END_OBJECT || p.nextToken() != null || !jsonrpc || !named || id == null) {
                return null;
            }
            // tools/list needs no parameters; the others are in doubt without theirs.
            Object given = params != null ? params : method.equals("tools/list") ? Boolean.TRUE : null;
            return given == null ? null : new Request(id, given);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * The parameters of {@code method} starting with {@code value}, read to their end: for
     * {@code initialize} the requested protocol version, for {@code tools/call} of
     * {@code search_memory} the arguments as JSON text, for {@code tools/list} (none, or an empty
     * object) {@code true}; {@code null} when anything is in doubt.
     */
    private static Object params(JsonParser p, JsonToken value, String method) throws IOException {
        return switch (method) {
            case "initialize" -> value == JsonToken.START_OBJECT ? params(p) : null;
            case "tools/call" -> value == JsonToken.START_OBJECT ? callParams(p) : null;
            case "tools/list" -> value == JsonToken.VALUE_NULL
                    || value == JsonToken.START_OBJECT && p.nextToken() == JsonToken.END_OBJECT ? Boolean.TRUE : null;
            default -> null;
        };
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
        try (JsonGenerator g = response(bytes, id)) {
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

    /** The id of a {@code tools/list} request without parameters (or with none given: null, {}), else {@code null}. */
    static Object toolsListId(byte[] line, int length) {
        Request request = request(line, length, "tools/list");
        return request == null ? null : request.id();
    }

    /** The SDK server's answer to {@code tools/list}: {@link McpToolDefinitions#ALL}, written as its Jackson writes them. */
    static byte[] toolsList(Object id) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(8192);
        try (JsonGenerator g = response(bytes, id)) {
            g.writeArrayFieldStart("tools");
            for (McpToolDefinitions.Definition tool : McpToolDefinitions.ALL) {
                g.writeStartObject();
                g.writeStringField("name", tool.name());
                g.writeStringField("title", tool.title());
                g.writeStringField("description", tool.description());
                g.writeFieldName("inputSchema");
                writeValue(g, tool.inputSchema());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
            g.writeEndObject();
        }
        return bytes.toByteArray();
    }

    /** A schema's value: maps in their own order, lists, strings, integers, booleans. */
    private static void writeValue(JsonGenerator g, Object value) throws IOException {
        if (value instanceof java.util.Map<?, ?> map) {
            g.writeStartObject();
            for (java.util.Map.Entry<?, ?> e : map.entrySet()) {
                g.writeFieldName((String) e.getKey());
                writeValue(g, e.getValue());
            }
            g.writeEndObject();
        } else if (value instanceof List<?> list) {
            g.writeStartArray();
            for (Object item : list) {
                writeValue(g, item);
            }
            g.writeEndArray();
        } else if (value instanceof String text) {
            g.writeString(text);
        } else if (value instanceof Integer number) {
            g.writeNumber(number);
        } else if (value instanceof Boolean flag) {
            g.writeBoolean(flag);
        } else {
            throw new IOException("a tool schema value of an unexpected type: " + value);
        }
    }

    /** A {@code search_memory} call: its id, and its arguments as JSON text. */
    record SearchCall(Object id, String arguments) {
    }

    /**
     * The call when {@code line} is a {@code tools/call} of {@code search_memory} whose arguments
     * the SDK would surely pass to the tool ({@link #searchArguments}), else {@code null}.
     */
    static SearchCall searchCall(byte[] line, int length) {
        Request request = request(line, length, "tools/call");
        return request == null ? null : new SearchCall(request.id(), (String) request.params());
    }

    /** The arguments of a {@code tools/call} of {@code search_memory}, or {@code null}. */
    private static String callParams(JsonParser p) throws IOException {
        boolean search = false;
        String arguments = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken value = p.nextToken();
            boolean sure = switch (name) {
                case "name" -> search = value == JsonToken.VALUE_STRING && p.getText().equals(McpTools.SEARCH_MEMORY);
                case "arguments" -> value == JsonToken.START_OBJECT && (arguments = searchArguments(p)) != null;
                // A progress token and the like: the SDK keeps them as a map, the tool does not read them.
                case "_meta" -> value == JsonToken.VALUE_NULL || value == JsonToken.START_OBJECT && p.skipChildren() != null;
                default -> false;
            };
            if (!sure) {
                return null;
            }
        }
        return search ? arguments : null;
    }

    /**
     * The arguments as JSON text when they surely pass the SDK's check against
     * {@code search_memory}'s input schema ({@link McpTools}: a query, known members only, each of
     * its type and within its bounds), else {@code null}. A string's length is counted in UTF-16
     * units, never fewer than the code points the schema's {@code maxLength} counts.
     */
    static String searchArguments(JsonParser p) throws IOException {
        java.io.StringWriter text = new java.io.StringWriter();
        boolean query = false;
        try (JsonGenerator g = WRITING.createGenerator(text)) {
            g.writeStartObject();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                boolean sure = switch (name) {
                    case "limit" -> value == JsonToken.VALUE_NUMBER_INT && p.getNumberType() == JsonParser.NumberType.INT
                            && p.getIntValue() >= 1 && p.getIntValue() <= McpTools.MAX_SEARCH_LIMIT;
                    case "retrieval" -> value == JsonToken.VALUE_STRING && McpToolDefinitions.RETRIEVALS.contains(p.getText());
                    case "query", "agent", "project", "session", "kind", "after", "before", "file" ->
                            value == JsonToken.VALUE_STRING && p.getText().length() <= McpToolDefinitions.maxChars(name);
                    default -> false; // the schema admits no other member
                };
                query |= sure && name.equals("query");
                if (!sure) {
                    return null;
                }
                g.writeFieldName(name);
                g.copyCurrentEvent(p);
            }
            g.writeEndObject();
        }
        return query ? text.toString() : null;
    }

    /** The members {@link #searchArguments} knows: a test compares them with the tool's schema. */
    static final List<String> SEARCH_MEMBERS = List.of("query", "limit", "agent", "project", "session", "kind",
            "after", "before", "file", "retrieval");


    /**
     * The response the SDK's server writes for a {@code search_memory} result as {@link McpTools}
     * makes it from {@code served} ({@link McpTools#searchResult}): the text as its one content,
     * and unless it is an error, the text's JSON as structured content.
     */
    static byte[] result(Object id, Served served) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(2 * served.text().length() + 128);
        try (JsonGenerator g = response(bytes, id)) {
            g.writeArrayFieldStart("content");
            g.writeStartObject();
            g.writeStringField("type", "text");
            g.writeStringField("text", served.text());
            g.writeEndObject();
            g.writeEndArray();
            g.writeBooleanField("isError", served.error());
            if (!served.error()) {
                g.writeFieldName("structuredContent");
                try (JsonParser p = PARSING.createParser(served.text())) {
                    if (p.nextToken() != JsonToken.START_OBJECT) {
                        throw new IOException("a served search result that is not a JSON object");
                    }
                    g.copyCurrentStructure(p);
                    if (p.nextToken() != null) {
                        throw new IOException("a served search result with more after its JSON object");
                    }
                }
            }
            g.writeEndObject();
            g.writeEndObject();
        }
        return bytes.toByteArray();
    }

    /**
     * A generator of a JSON-RPC response to {@code id}, as the SDK writes one, inside its
     * {@code result} object: the caller writes the result's members and closes both objects.
     */
    private static JsonGenerator response(ByteArrayOutputStream bytes, Object id) throws IOException {
        JsonGenerator g = WRITING.createGenerator(bytes, JsonEncoding.UTF8);
        g.writeStartObject();
        g.writeStringField("jsonrpc", "2.0");
        writeId(g, id);
        g.writeObjectFieldStart("result");
        return g;
    }

    private static void writeId(JsonGenerator g, Object id) throws IOException {
        g.writeFieldName("id");
        if (id instanceof Long number) {
            g.writeNumber(number);
        } else {
            g.writeString((String) id);
        }
    }

    /**
     * Bytes from the thread that reads stdin to the transport's, in order. A writer waits while
     * {@link #LIMIT} bytes are unread, so a client that sends faster than the session reads is
     * held back as it would be by the pipe itself.
     */
    static final class Pipe extends InputStream {
        static final int LIMIT = 1 << 20;
        private byte[] bytes = new byte[8192];
        private int start;
        private int end;
        private boolean closed;
        private IOException failure;

        synchronized void write(byte[] from, int offset, int length) throws IOException {
            if (length == 0) {
                return;
            }
            while (end - start >= LIMIT) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new java.io.InterruptedIOException("stopped while the MCP session read nothing");
                }
            }
            if (end + length > bytes.length) {
                int unread = end - start;
                if (unread + length > bytes.length) {
                    bytes = Arrays.copyOfRange(bytes, start, start + Math.max(2 * bytes.length, unread + length));
                } else {
                    System.arraycopy(bytes, start, bytes, 0, unread);
                }
                start = 0;
                end = unread;
            }
            System.arraycopy(from, offset, bytes, end, length);
            end += length;
            notifyAll();
        }

        /** Ends the bytes: the reader gets them, then the end of the stream. */
        @Override
        public synchronized void close() {
            closed = true;
            notifyAll();
        }

        /** Ends the bytes with {@code e}, which the reader gets after them. */
        synchronized void fail(IOException e) {
            failure = e;
            close();
        }

        @Override
        public synchronized int read(byte[] to, int offset, int length) throws IOException {
            if (length == 0) {
                return 0;
            }
            while (start == end && !closed) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new java.io.InterruptedIOException("stopped while waiting for stdin");
                }
            }
            if (start == end) {
                if (failure != null) {
                    throw failure;
                }
                return -1;
            }
            int n = Math.min(length, end - start);
            System.arraycopy(bytes, start, to, offset, n);
            start += n;
            notifyAll();
            return n;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public synchronized int available() {
            return end - start;
        }
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
