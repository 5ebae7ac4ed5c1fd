package dev.funes.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code funes mcp}: a Model Context Protocol server on stdin/stdout, serving the tools of
 * {@link McpTools} until the client closes stdin.
 *
 * <p>Stdout carries the protocol and nothing else: before the server starts, {@code System.out}
 * is pointed at stderr, so a stray print from any library cannot corrupt a message.
 */
@Command(name = "mcp", description = "Serve the memory to agents over MCP (stdio): tools search_memory, why, remember, recent_sessions.")
final class McpCommand implements Callable<Integer> {

    @Mixin
    StoreOptions storeOptions;

    @Override
    public Integer call() throws InterruptedException {
        // The real stdout, taken before anything else can write to it.
        OutputStream protocolOut = new FileOutputStream(FileDescriptor.out);
        PrintStream previousOut = System.out;
        System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8));
        try {
            CountDownLatch closed = new CountDownLatch(1);
            InputStream protocolIn = new EndAware(new FileInputStream(FileDescriptor.in), closed);
            try (OpenStore open = OpenStore.open(storeOptions.dir(), null)) {
                McpTools tools = new McpTools(open.store(), Clock.systemUTC(), System.getProperty("user.dir"));
                McpSyncServer server = start(tools, protocolIn, protocolOut);
                try {
                    closed.await();
                } finally {
                    server.closeGracefully();
                }
            }
            return 0;
        } finally {
            System.setOut(previousOut);
        }
    }

    /** Builds and starts the server; it reads {@code in} on its own threads. */
    static McpSyncServer start(McpTools tools, InputStream in, OutputStream out) {
        JacksonMcpJsonMapper json = new JacksonMcpJsonMapper(new ObjectMapper());
        List<McpServerFeatures.SyncToolSpecification> specs = new ArrayList<>();
        for (McpSchema.Tool tool : McpTools.definitions()) {
            specs.add(McpServerFeatures.SyncToolSpecification.builder()
                    .tool(tool)
                    .callHandler((exchange, request) -> tools.call(tool.name(), request.arguments(), clientName(exchange)))
                    .build());
        }
        return McpServer.sync(new StdioServerTransportProvider(json, in, out))
                .serverInfo("funes", FunesVersion.current())
                .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
                .instructions("Funes is the memory of earlier coding-agent sessions. Search it before "
                        + "re-deciding something; remember decisions and conventions worth keeping.")
                .tools(specs)
                .build();
    }

    private static String clientName(McpSyncServerExchange exchange) {
        McpSchema.Implementation client = exchange.getClientInfo();
        return client == null ? null : client.name();
    }

    /** Counts down when the client closes its end: that is how a stdio MCP session ends. */
    private static final class EndAware extends FilterInputStream {
        private final CountDownLatch closed;

        EndAware(InputStream in, CountDownLatch closed) {
            super(in);
            this.closed = closed;
        }

        @Override
        public int read() throws IOException {
            return ended(guarded(super::read));
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            return ended(guarded(() -> super.read(b, off, len)));
        }

        private int ended(int n) {
            if (n < 0) {
                closed.countDown();
            }
            return n;
        }

        private int guarded(IoRead read) throws IOException {
            try {
                return read.read();
            } catch (IOException e) {
                closed.countDown();
                throw e;
            }
        }

        @FunctionalInterface
        private interface IoRead {
            int read() throws IOException;
        }
    }
}
