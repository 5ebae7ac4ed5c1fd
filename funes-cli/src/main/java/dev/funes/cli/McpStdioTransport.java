package dev.funes.cli;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpServerSession;
import io.modelcontextprotocol.spec.McpServerTransport;
import io.modelcontextprotocol.spec.McpServerTransportProvider;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import reactor.core.publisher.Mono;

/**
 * The stdio transport of {@code funes mcp}: one JSON-RPC message per line on stdin, one per line
 * on stdout, for one session that lasts until stdin ends.
 *
 * <p>Unlike the SDK's stdio transport, which stops reading at the first line it cannot use and
 * does not notice the end of its input, this one checks every line with {@link McpFrame} first:
 * a bad line gets its JSON-RPC error reply and the next line is read as usual. {@link #serve()}
 * returns when stdin ends and the calls already handed to the session are answered, so the
 * process ends with its client.
 *
 * <p>Two protocol details are settled here, before the SDK's session: {@code ping} is answered at
 * once, at any time, as MCP allows; and a request that follows {@code initialize} is served even
 * if the client has not sent {@code notifications/initialized} (the session would hold it until
 * then, and a client that never sends it would wait forever).
 */
final class McpStdioTransport implements McpServerTransportProvider {

    /** How long calls still running when stdin ends may take to be answered. */
    static final Duration DRAIN = Duration.ofSeconds(30);

    private final McpJsonMapper json;
    private final InputStream in;
    private final McpEarlyAnswer early;
    private final OutputStream out;
    private final PrintStream log;
    /** Held while a line is written: {@link McpEarlyAnswer} writes to the same stdout. */
    private final Object writing;
    private final Object flights = new Object();
    private int inFlight;
    private volatile McpServerSession session;
    private volatile boolean outputClosed;

    // Read and written by the thread in serve() only.
    private boolean initializeSeen;
    private boolean initializedSeen;

    /**
     * @param json writes messages and converts their parameters
     * @param in   stdin: the client's messages
     * @param out  the real stdout, reserved for messages to the client
     * @param log  where bad lines and failures are reported (stderr)
     */
    McpStdioTransport(McpJsonMapper json, InputStream in, OutputStream out, PrintStream log) {
        this(json, in, null, out, log);
    }

    /**
     * As {@link #McpStdioTransport(McpJsonMapper, InputStream, OutputStream, PrintStream)}, reading
     * stdin through {@code early}, which may have answered {@code initialize} on {@code out} already.
     */
    McpStdioTransport(McpJsonMapper json, McpEarlyAnswer early, OutputStream out, PrintStream log) {
        this(json, null, early, out, log);
    }

    private McpStdioTransport(McpJsonMapper json, InputStream in, McpEarlyAnswer early, OutputStream out,
                              PrintStream log) {
        this.json = json;
        this.in = in;
        this.early = early;
        this.out = out;
        this.log = log;
        this.writing = early != null ? early.writing() : new Object();
    }

    /** What writes and reads this transport's messages; the server converts with it too. */
    McpJsonMapper json() {
        return json;
    }

    @Override
    public void setSessionFactory(McpServerSession.Factory factory) {
        session = factory.create(new SessionTransport());
    }

    @Override
    public Mono<Void> notifyClients(String method, Object params) {
        McpServerSession s = session;
        return s == null ? Mono.empty() : s.sendNotification(method, params);
    }

    @Override
    public Mono<Void> closeGracefully() {
        return Mono.defer(() -> {
            McpServerSession s = session;
            return s == null ? Mono.empty() : s.closeGracefully();
        });
    }

    /**
     * Reads stdin line by line until it ends (or stdout is closed), answering bad lines and handing
     * the others to the session; then waits for the calls still running, at most {@link #DRAIN}.
     */
    void serve() throws InterruptedException {
        if (session == null) {
            throw new IllegalStateException("no MCP session: the server was not built on this transport");
        }
        InputStream source = in;
        if (early != null) {
            source = early.input();
        }
        McpLineReader lines = new McpLineReader(source, McpFrame.MAX_BYTES);
        try {
            while (!outputClosed && lines.next()) {
                if (lines.blank()) {
                    continue;
                }
                McpFrame.Result frame = lines.tooLong() ? McpFrame.tooLong() : McpFrame.read(lines.bytes(), lines.length());
                if (frame instanceof McpFrame.Invalid invalid) {
                    log.println("funes mcp: stdin line " + lines.number() + ": error " + invalid.code() + ": "
                            + invalid.message());
                    error(invalid.id(), invalid.code(), invalid.message());
                } else {
                    dispatch(((McpFrame.Message) frame).message(), lines.number());
                }
            }
        } catch (IOException e) {
            log.println("funes mcp: reading stdin failed, ending the session: " + Main.oneLine(e));
        }
        drain();
    }

    private void dispatch(McpSchema.JSONRPCMessage message, long line) {
        if (message instanceof McpSchema.JSONRPCRequest request) {
            String method = request.method();
            if (McpSchema.METHOD_PING.equals(method)) {
                reply(request.id(), "result", Map.of());
                return;
            }
            if (McpSchema.METHOD_INITIALIZE.equals(method)) {
                initializeSeen = true;
            } else if (!initializeSeen) {
                String problem = "Invalid Request: '" + method + "' before 'initialize'; initialize the session first";
                log.println("funes mcp: stdin line " + line + ": error " + McpFrame.INVALID_REQUEST + ": " + problem);
                error(request.id(), McpFrame.INVALID_REQUEST, problem);
                return;
            } else if (!initializedSeen) {
                initializedSeen = true;
                handOver(new McpSchema.JSONRPCNotification(McpSchema.JSONRPC_VERSION,
                        McpSchema.METHOD_NOTIFICATION_INITIALIZED, null));
            }
        } else if (message instanceof McpSchema.JSONRPCNotification notification
                && McpSchema.METHOD_NOTIFICATION_INITIALIZED.equals(notification.method())) {
            if (initializedSeen) {
                return; // already implied by an earlier request; the session is ready
            }
            initializedSeen = true;
        }
        handOver(message);
    }

    /** Hands a message to the session; its handling is counted until its answer is written. */
    private void handOver(McpSchema.JSONRPCMessage message) {
        synchronized (flights) {
            inFlight++;
        }
        Mono<Void> handling;
        try {
            handling = session.handle(message);
        } catch (RuntimeException e) {
            handling = Mono.error(e);
        }
        handling.doFinally(signal -> landed()).subscribe(done -> { }, failure -> {
            if (!outputClosed) {
                log.println("funes mcp: handling a message failed: " + Main.oneLine(failure));
            }
        });
    }

    private void landed() {
        synchronized (flights) {
            inFlight--;
            flights.notifyAll();
        }
    }

    private void drain() throws InterruptedException {
        long deadline = System.nanoTime() + DRAIN.toNanos();
        synchronized (flights) {
            while (inFlight > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    log.println("funes mcp: stdin ended; " + inFlight + " call(s) still running after "
                            + DRAIN.toSeconds() + " s are not answered");
                    return;
                }
                TimeUnit.NANOSECONDS.timedWait(flights, left);
            }
        }
    }

    /** A JSON-RPC error reply; {@code id} may be null (the line had no usable id). */
    private void error(Object id, int code, String message) {
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("code", code);
        error.put("message", message);
        reply(id, "error", error);
    }

    private void reply(Object id, String kind, Object value) {
        Map<String, Object> reply = new LinkedHashMap<>();
        reply.put("jsonrpc", McpSchema.JSONRPC_VERSION);
        reply.put("id", id); // JSON-RPC wants "id": null, not no id, when the line had none
        reply.put(kind, value);
        try {
            write(reply);
        } catch (IOException e) {
            closed(e);
        }
    }

    /** Writes one message as one line; lines of concurrent writers never interleave. */
    private void write(Object message) throws IOException {
        byte[] bytes = json.writeValueAsBytes(message);
        synchronized (writing) {
            out.write(bytes);
            out.write('\n');
            out.flush();
        }
    }

    /**
     * Whether {@code response} answers a request {@link McpEarlyAnswer} answered: then it is not
     * sent again, and if it differs from what was sent, stderr says so loudly (a bug of
     * {@link McpEarlyAnswer}: the client got an answer the SDK would not have given).
     */
    private boolean answeredAlready(McpSchema.JSONRPCResponse response) throws IOException {
        McpEarlyAnswer.Answered sent = early == null ? null : early.takeAnswer(response.id());
        if (sent == null) {
            return false;
        }
        byte[] own = json.writeValueAsBytes(response);
        if (!Arrays.equals(own, sent.bytes())) {
            log.println("funes mcp: BUG: the " + sent.method() + " answer sent at start differs from the MCP SDK's;"
                    + " please report it. Sent: " + new String(sent.bytes(), java.nio.charset.StandardCharsets.UTF_8)
                    + " The SDK's: " + new String(own, java.nio.charset.StandardCharsets.UTF_8));
        } else if (Boolean.getBoolean("funes.debug")) {
            log.println("funes mcp: the session's answer to " + sent.method() + " is the one sent at start");
        }
        return true;
    }

    private void closed(IOException e) {
        if (!outputClosed) {
            outputClosed = true;
            log.println("funes mcp: stdout is closed, ending the session: " + Main.oneLine(e));
        }
    }

    /** What the SDK's session sends through. */
    private final class SessionTransport implements McpServerTransport {

        @Override
        public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
            return Mono.fromRunnable(() -> {
                try {
                    if (message instanceof McpSchema.JSONRPCResponse response && answeredAlready(response)) {
                        return;
                    }
                    write(message);
                } catch (IOException e) {
                    closed(e);
                    throw new UncheckedIOException(e);
                }
            });
        }

        @Override
        public <T> T unmarshalFrom(Object data, TypeRef<T> type) {
            return json.convertValue(data, type);
        }

        @Override
        public Mono<Void> closeGracefully() {
            return Mono.empty();
        }

        @Override
        public void close() {
            // Nothing to release: the streams are the process's own and end with it.
        }
    }
}
