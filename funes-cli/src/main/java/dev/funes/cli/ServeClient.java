package dev.funes.cli;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * The {@code funes} process's side of a resident {@code funes serve}: for a command a server runs
 * ({@link ServeWire#served}), it asks the server of the store over the store's socket and prints
 * its answer. No server, one that declines, or any failure to talk to it: the caller runs the
 * command itself, as it would without one, and a missing server is started in the background for
 * the next command (it exits when idle). {@code FUNES_SERVE=0} never asks one and starts none.
 */
final class ServeClient {

    private ServeClient() {
    }

    /** The exit status of the command as a server ran it, or empty when this process must run it. */
    static OptionalInt ask(String[] args) {
        String mode = System.getenv("FUNES_SERVE");
        if ("0".equals(mode) || !ServeWire.served(args)) {
            return OptionalInt.empty();
        }
        Path store;
        try {
            store = storeDir(args);
        } catch (RuntimeException e) {
            return OptionalInt.empty(); // a malformed config, say: the command itself says what is wrong
        }
        Path socket = store.resolve(ServeWire.SOCKET);
        if (!Files.exists(socket)) {
            if (canServe(store)) {
                start(store);
            }
            return OptionalInt.empty();
        }
        ServeWire.Answer answer;
        useThePlatformSelectorProvider();
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            try {
                channel.connect(UnixDomainSocketAddress.of(socket));
            } catch (IOException e) {
                // Nobody answers: left by a server that was killed, or by the machine's restart.
                // Removed, as funes serve removes it, so that a server is started for the next command.
                Files.deleteIfExists(socket);
                if (canServe(store)) {
                    start(store);
                }
                return OptionalInt.empty();
            }
            ServeWire.Request.of(args).write(new DataOutputStream(new BufferedOutputStream(Channels.newOutputStream(channel))));
            answer = ServeWire.Answer.read(new DataInputStream(new BufferedInputStream(Channels.newInputStream(channel))));
        } catch (IOException | RuntimeException e) {
            return OptionalInt.empty(); // a server that just exited, or a stale socket: run it here
        }
        if (!answer.ran()) {
            return OptionalInt.empty();
        }
        System.out.write(answer.out(), 0, answer.out().length);
        System.out.flush();
        System.err.write(answer.err(), 0, answer.err().length);
        System.err.flush();
        return OptionalInt.of(answer.status());
    }

    /**
     * A {@code search_memory} call of a {@code funes mcp} on {@code store}, answered by the
     * store's resident server when one answers (and runs this build, with this environment's
     * stores and config files); empty otherwise, and on any failure to talk to it: the caller
     * then searches its own store. Never starts a server. (The caller leaves it out with
     * {@code FUNES_SERVE=0}.)
     */
    static java.util.Optional<io.modelcontextprotocol.spec.McpSchema.CallToolResult> mcpSearch(Path store,
                                                                                            java.util.Map<String, Object> arguments) {
        return mcpSearch(store, McpTools.json(arguments)).map(served -> McpTools.searchResult(served.text(), served.error()));
    }

    /**
     * As {@link #mcpSearch(Path, java.util.Map)}, with the arguments as JSON text, answered with
     * the result's text as the tools make it (the JSON of the result, or the error's message).
     */
    static java.util.Optional<McpEarlyAnswer.Served> mcpSearch(Path store, String arguments) {
        Path socket = store.resolve(ServeWire.SOCKET);
        if (!Files.exists(socket)) {
            return java.util.Optional.empty();
        }
        ServeWire.Answer answer;
        useThePlatformSelectorProvider();
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            channel.connect(UnixDomainSocketAddress.of(socket));
            ServeWire.Request.of(new String[] {ServeWire.MCP_SEARCH, arguments})
                    .write(new DataOutputStream(new BufferedOutputStream(Channels.newOutputStream(channel))));
            answer = ServeWire.Answer.read(new DataInputStream(new BufferedInputStream(Channels.newInputStream(channel))));
        } catch (IOException | RuntimeException e) {
            return java.util.Optional.empty();
        }
        if (!answer.ran()) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(new McpEarlyAnswer.Served(
                new String(answer.out(), java.nio.charset.StandardCharsets.UTF_8), answer.status() != 0));
    }

    /**
     * Names the JDK's own selector provider on Linux, the one {@code SelectorProvider.provider()}
     * picks anyway when no jar provides another (none of ours does): unnamed, it looks for
     * providers in every jar of the class path, opening each, 30-90 ms of a served command's
     * client before its first socket. The property is the JDK's documented way to name one; it
     * is set only when the class is there and nobody has set the property.
     */
    private static void useThePlatformSelectorProvider() {
        String property = "java.nio.channels.spi.SelectorProvider";
        String linux = "sun.nio.ch.EPollSelectorProvider";
        if (System.getProperty(property) == null && "Linux".equals(System.getProperty("os.name"))) {
            try {
                Class.forName(linux, false, null);
                System.setProperty(property, linux);
            } catch (ClassNotFoundException e) {
                // Another JDK's layout: the lookup it makes is slower, and right.
            }
        }
    }

    /**
     * The store the command line names, as {@link StoreOptions#dir()} reads it, from the words
     * alone: {@code -s DIR}, {@code --store DIR} or {@code --store=DIR}, else the environment or
     * the user's config. A word misread here only picks another socket: the server parses the
     * command line again, and opens the store it names.
     */
    static Path storeDir(String[] args) {
        for (int i = 1; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--")) {
                break;
            }
            if ((arg.equals("-s") || arg.equals("--store")) && i + 1 < args.length) {
                return ServeWire.workingDirectory().resolve(args[i + 1]).normalize();
            }
            if (arg.startsWith("--store=")) {
                return ServeWire.workingDirectory().resolve(arg.substring("--store=".length())).normalize();
            }
        }
        return new StoreOptions().dir();
    }

    /**
     * Whether a server could listen in {@code store}: a folder this user may write, on a file
     * system with POSIX permissions (for the owner-only socket). Where it could not, none is
     * started: it would fail at every command.
     */
    private static boolean canServe(Path store) {
        return Files.isDirectory(store) && Files.isWritable(store)
                && store.getFileSystem().supportedFileAttributeViews().contains("posix");
    }

    /** Starts {@code funes serve} for the store in the background, detached from this process's streams. */
    private static void start(Path store) {
        String launcher = System.getProperty("funes.launcher");
        List<String> command = new ArrayList<>();
        if (Files.exists(Path.of("/usr/bin/setsid"))) {
            command.add("/usr/bin/setsid"); // not in this terminal's process group: a Ctrl-C here does not stop it
        }
        if (launcher != null && Files.isExecutable(Path.of(launcher))) {
            command.add(launcher);
        } else {
            command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        }
        command.addAll(List.of("serve", "--store", store.toString()));
        try {
            new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        } catch (IOException e) {
            // No server then: every command still runs in its own process.
        }
    }
}
