package dev.funes.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import dev.funes.ui.UiServer;
import io.modelcontextprotocol.server.McpSyncServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.HttpURLConnection;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The training run of the launcher's class-data sharing archive: runs every common command once,
 * in this JVM, on a demo store in a temporary folder, so that the JVM started with
 * {@code -XX:ArchiveClassesAtExit} writes the classes they load (the JDK's, the libraries', the
 * model runtime's and Funes's) into one archive that later {@code funes} processes map instead of
 * loading class by class. Prints nothing; exits 0 when every command succeeded, 1 otherwise (the
 * launcher then keeps no archive).
 */
final class CdsTraining {

    private CdsTraining() {
    }

    /** Runs the commands; see the class comment. */
    public static void main(String[] args) throws Exception {
        KeptSqliteLibrary.use(); // its classes archived, and the launcher's copy extracted once per build
        Path dir = Files.createTempDirectory("funes-cds-");
        boolean ok;
        try {
            ok = train(dir);
        } finally {
            delete(dir);
        }
        System.exit(ok ? 0 : 1);
    }

    static boolean train(Path dir) throws IOException, InterruptedException {
        Path demo = dir.resolve("demo");
        String store = demo.resolve("store").toString();
        String logs = demo.resolve("logs").toString();
        List<List<String>> commands = List.of(
                List.of("--help"),
                List.of("demo", "--store", demo.toString()),
                List.of("index", "--store", store, "--index-path", logs),
                List.of("search", "--store", store, "two-pass parser"),
                List.of("search", "--json", "--store", store, "--agent", "claude-code", "two-pass parser"),
                List.of("search", "--retrieval", "lexical", "--store", store, "ledger"),
                List.of("stats", "--store", store),
                List.of("stats", "--json", "--store", store),
                List.of("check", "--quick", "--store", store),
                List.of("why", "--store", store, "4e1c9a7"),
                List.of("why", "--json", "--store", store, "streaming parser"));
        boolean ok = true;
        for (List<String> command : commands) {
            ok &= Main.run(command.toArray(String[]::new), sink(), sink()) == 0;
        }
        return ok & mcp(Path.of(store)) & ui(Path.of(store)) & served(store);
    }

    /** {@code funes ui}'s server: its link, the search page and a search, as a browser opens them. */
    private static boolean ui(Path store) throws IOException {
        try (OpenStore open = OpenStore.existing(store); UiServer ui = UiServer.start(open.store(), UiServer.Options.defaults())) {
            java.net.URI base = ui.link();
            HttpURLConnection link = (HttpURLConnection) base.toURL().openConnection();
            link.setInstanceFollowRedirects(false);
            String cookie = link.getHeaderField("Set-Cookie").split(";", 2)[0];
            boolean ok = link.getResponseCode() == 303;
            for (String page : List.of("/", "/search?q=two-pass+parser")) {
                HttpURLConnection get = (HttpURLConnection) base.resolve(page).toURL().openConnection();
                get.setRequestProperty("Cookie", cookie);
                try (InputStream body = get.getInputStream()) {
                    ok &= get.getResponseCode() == 200 && body.readAllBytes().length > 0;
                }
            }
            return ok;
        }
    }

    /**
     * A {@code funes serve} of the demo store on another thread, and this process as its client:
     * a served command's process then loads its classes (the client, the socket's, the wire's)
     * from the archive too, and a server its own. The server stops a second after the last command.
     */
    private static boolean served(String store) throws InterruptedException {
        // Where serve cannot run (no POSIX permissions), nothing is answered and nothing is wrong.
        Thread server = new Thread(() -> Main.run(new String[] {"serve", "--store", store, "--idle", "1"}, sink(), sink()),
                "funes-cds-serve");
        server.start();
        Path socket = Path.of(store).resolve(ServeWire.SOCKET);
        for (int i = 0; i < 6000 && server.isAlive() && !Files.exists(socket); i++) {
            Thread.sleep(10);
        }
        List<String[]> commands = List.of(
                new String[] {"stats", "--store", store},
                new String[] {"check", "--quick", "--store", store},
                new String[] {"why", "--store", store, "4e1c9a7"},
                new String[] {"search", "--retrieval", "lexical", "--store", store, "ledger"},
                new String[] {"search", "--store", store, "two-pass parser"});
        PrintStream out = System.out;
        PrintStream err = System.err;
        PrintStream none = new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8);
        boolean ok = true;
        try {
            System.setOut(none);
            System.setErr(none);
            try {
                ServeClient.storeDir(new String[] {"stats"}); // the user's config, as a command without --store reads it
            } catch (RuntimeException e) {
                // A malformed config of the user who builds: its classes are loaded all the same.
            }
            for (String[] command : commands) {
                // Empty when FUNES_SERVE=0 or the server is not up: fewer classes archived, nothing wrong.
                java.util.OptionalInt answer = ServeClient.ask(command);
                ok &= answer.isEmpty() || answer.getAsInt() == 0;
            }
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
        server.join();
        return ok;
    }

    /** An MCP session on in-memory streams: initialize, a search and a why, then the end of input. */
    private static boolean mcp(Path store) throws InterruptedException {
        String session = String.join("\n",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
                        + "\"capabilities\":{},\"clientInfo\":{\"name\":\"funes-cds-training\",\"version\":\"1\"}}}",
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"search_memory\","
                        + "\"arguments\":{\"query\":\"two-pass parser\"}}}",
                "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"why\","
                        + "\"arguments\":{\"target\":\"4e1c9a7\"}}}") + "\n";
        ByteArrayOutputStream answers = new ByteArrayOutputStream();
        PrintStream log = new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8);
        try (OpenStore open = OpenStore.existing(store, true)) {
            McpTools tools = new McpTools(open.store(), Clock.systemUTC(), store.toString());
            // Through McpEarlyAnswer, as funes mcp reads stdin: its classes are archived too.
            McpEarlyAnswer early = McpEarlyAnswer.start(new ByteArrayInputStream(session.getBytes(StandardCharsets.UTF_8)),
                    answers, log, FunesVersion.current());
            McpStdioTransport transport = new McpStdioTransport(new JacksonMcpJsonMapper(new ObjectMapper()), early,
                    answers, log);
            McpSyncServer server = McpCommand.start(tools, transport);
            try {
                transport.serve();
            } finally {
                server.closeGracefully();
            }
        }
        return answers.toString(StandardCharsets.UTF_8).contains("\"id\":3");
    }

    private static PrintWriter sink() {
        return new PrintWriter(new StringWriter(), true);
    }

    private static void delete(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
