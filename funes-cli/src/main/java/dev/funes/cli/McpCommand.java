package dev.funes.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.funes.solr.FederatedSearch;
import dev.funes.solr.KeptTeamStore;
import dev.funes.solr.TeamUrl;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code funes mcp}: a Model Context Protocol server on stdin/stdout, serving the tools of
 * {@link McpTools} until the client closes stdin, then ending once the calls still running are
 * answered (at most {@link McpStdioTransport#DRAIN}).
 *
 * <p>Stdout carries the protocol and nothing else: before the server starts, {@code System.out}
 * is pointed at stderr, so a stray print from any library cannot corrupt a message.
 */
@Command(name = "mcp", description = "Serve the memory to agents over MCP (stdio): tools search_memory, why, remember, recent_sessions;"
        + " with a team collection (--team or the config's team), search_memory searches it too.")
final class McpCommand implements Callable<Integer> {

    @Mixin
    StoreOptions storeOptions;

    @Option(names = "--team", paramLabel = "URL", description = "search_memory also searches this team collection"
            + " (docs/TEAM.md); default: the config's team, if any. Credentials from FUNES_TEAM_USER and"
            + " FUNES_TEAM_PASSWORD or the team credentials file, never from the command line.")
    String team;

    @Override
    public Integer call() throws InterruptedException {
        // Read before the protocol starts: a wrong URL (flag or FILE:LINE) fails the command at once.
        Path dir = storeOptions.dir();
        TeamUrl teamUrl = team != null ? TeamAccess.url(team)
                : FunesConfig.of(dir).team().map(FunesConfig.Setting::value).orElse(null);
        // The real stdout, taken before anything else can write to it.
        OutputStream protocolOut = new FileOutputStream(FileDescriptor.out);
        PrintStream previousOut = System.out;
        PrintStream log = new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);
        System.setOut(log);
        try {
            InputStream protocolIn = new FileInputStream(FileDescriptor.in);
            // The store opens (and the model starts loading) on another thread while the server
            // starts and answers initialize: a client's handshake waits for neither, only its first
            // tool call waits for the store.
            CompletableFuture<OpenStore> opening = new CompletableFuture<>();
            // With a funes serve of the store running, searches go to it while the model is not
            // loaded here (below): it loads at the first search the server does not answer.
            boolean forward = teamUrl == null && !"0".equals(System.getenv("FUNES_SERVE"));
            boolean preload = !(forward && java.nio.file.Files.exists(dir.resolve(ServeWire.SOCKET)));
            // The tool arguments' validator is made on that thread too, once the store is open.
            DeferredSchemaValidator validator = new DeferredSchemaValidator();
            // main() may have answered initialize already (McpEarlyAnswer): then, until the SDK's
            // session can check a call, the server answers searches that follow it from there.
            McpEarlyAnswer early = McpEarlyAnswer.take();
            if (early != null) {
                early.forwardSearches(forward ? arguments -> ServeClient.mcpSearch(dir, arguments) : null, validator::prepared);
            }
            Thread opener = new Thread(() -> {
                open(dir, preload, opening, log);
                validator.prepare();
            }, "funes-mcp-open");
            opener.setDaemon(true);
            opener.start();
            // One team store for the server's life, opened at the first search that needs it (a
            // failed opening is tried again at the next).
            KeptTeamStore teamStore = teamUrl == null ? null
                    : new KeptTeamStore(() -> TeamAccess.open(teamUrl, opening.join().embedder(), dir, null));
            McpTools tools = new McpTools(() -> opening.join().store(), Clock.systemUTC(), System.getProperty("user.dir"),
                    teamStore == null ? null : request -> FederatedSearch.search(opening.join().store(), teamStore,
                            request, TeamSearchRun.TIMEOUT_MILLIS));
            if (teamUrl != null) {
                log.println("funes mcp: search_memory also searches the team collection " + teamUrl);
            } else if (forward) {
                // Until the store and the model are open here, a running funes serve of the store answers searches.
                tools.untilOpen(() -> opening.isDone() && !(opening.join().embedder() instanceof LazyEmbedder lazy && !lazy.isLoaded()),
                        arguments -> ServeClient.mcpSearch(dir, arguments));
            }
            // Made here, not in a static field: an ObjectMapper costs hundreds of classes that only mcp needs.
            // The transport reads stdin through early when main() answered initialize already.
            JacksonMcpJsonMapper json = new JacksonMcpJsonMapper(new ObjectMapper());
            McpStdioTransport transport = early == null ? new McpStdioTransport(json, protocolIn, protocolOut, log)
                    : new McpStdioTransport(json, early, protocolOut, log);
            McpSyncServer server = start(tools, transport, validator);
            try {
                transport.serve();
            } finally {
                server.closeGracefully();
                if (teamStore != null) {
                    teamStore.close();
                }
                opening.join().close();
            }
            return 0;
        } finally {
            System.setOut(previousOut);
        }
    }

    /**
     * Opens the store into {@code opening}. A store that cannot be opened ends the process with
     * status 1 and the reason on stderr, as a command that fails does: without it no tool works.
     */
    private static void open(Path dir, boolean preload, CompletableFuture<OpenStore> opening, PrintStream log) {
        try {
            Main.quietJVector(); // here, not before initialize is answered: java.util.logging takes a while to start
            opening.complete(OpenStore.open(dir, null, preload));
        } catch (RuntimeException | Error e) {
            opening.completeExceptionally(e);
            log.println("funes: " + Main.oneLine(e));
            log.flush();
            System.exit(1);
        }
    }

    /** Builds the server on {@code transport}, which then holds its session; {@link McpStdioTransport#serve} runs it. */
    static McpSyncServer start(McpTools tools, McpStdioTransport transport) {
        return start(tools, transport, new DeferredSchemaValidator());
    }

    /**
     * As {@link #start(McpTools, McpStdioTransport)}, checking tool arguments with {@code validator}.
     * The server converts with the transport's mapper: left to itself, the SDK looks for one in
     * every jar of the class path and makes another {@code ObjectMapper}.
     */
    static McpSyncServer start(McpTools tools, McpStdioTransport transport, DeferredSchemaValidator validator) {
        List<McpServerFeatures.SyncToolSpecification> specs = new ArrayList<>();
        for (McpSchema.Tool tool : McpTools.definitions()) {
            specs.add(McpServerFeatures.SyncToolSpecification.builder()
                    .tool(tool)
                    .callHandler((exchange, request) -> tools.call(tool.name(), request.arguments(), clientName(exchange)))
                    .build());
        }
        return McpServer.sync(transport)
                .jsonMapper(transport.json())
                .jsonSchemaValidator(validator)
                // McpEarlyAnswer writes this server's answer to initialize too: McpEarlyAnswerTest compares them.
                .serverInfo(McpEarlyAnswer.SERVER_NAME, FunesVersion.current())
                .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
                .instructions(McpEarlyAnswer.INSTRUCTIONS)
                .tools(specs)
                .build();
    }

    private static String clientName(McpSyncServerExchange exchange) {
        McpSchema.Implementation client = exchange.getClientInfo();
        return client == null ? null : client.name();
    }
}
