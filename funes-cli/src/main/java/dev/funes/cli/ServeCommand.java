package dev.funes.cli;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code funes serve}: keeps a store open and its model loaded, and runs the {@code search},
 * {@code why}, {@code stats} and {@code check --quick} of other {@code funes} processes, which ask
 * it over the socket {@code funes.sock} in the store directory (owner-only; no TCP port). Each
 * command runs through the same code as in its own process, with the client's arguments, working
 * directory and output; the server declines (the client then runs it itself) when the client's
 * environment names other config files, and stops when a config file or the store changes under it.
 */
@Command(name = "serve", description = {
        "Keep the store open and its model loaded, and answer the search, why, stats and check --quick of other funes",
        "processes over a socket in the store directory (owner-only), until --idle seconds pass without one.",
        "Started on demand by the first of those commands that finds none; FUNES_SERVE=0 never asks or starts one, and",
        "every command then runs in its own process."})
final class ServeCommand implements Callable<Integer> {

    @Mixin
    StoreOptions storeOptions;

    @Option(names = "--idle", paramLabel = "SECONDS", defaultValue = "600",
            description = "Exit after this many seconds without a command (default: ${DEFAULT-VALUE}).")
    int idleSeconds;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (idleSeconds <= 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--idle must be a positive number of seconds");
        }
        if (!java.nio.file.FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            // Owner-only access is set with POSIX permissions; without them the socket would be open to others.
            throw new dev.funes.FunesException("funes serve needs POSIX file permissions (Linux, macOS) for an owner-only socket");
        }
        Path dir = storeOptions.dir();
        Path socket = dir.resolve(ServeWire.SOCKET);
        PrintWriter err = spec.commandLine().getErr();
        if (answers(socket)) {
            err.println("funes: a server already answers at " + socket);
            return 0;
        }
        List<Path> watched = watched(dir);
        List<Object> times = times(watched);
        // Read now, not at the first client's request: the build this server started as.
        ServeWire.BUILD.getClass();
        try (OpenStore open = OpenStore.existing(dir, true);
             ServerSocketChannel server = bind(socket)) {
            Object key = fileKey(socket);
            // Stopped by a signal (kill, logout): the socket goes too, so clients do not try it first.
            Thread cleanup = new Thread(() -> removeIfOurs(socket, key), "funes-serve-cleanup");
            Runtime.getRuntime().addShutdownHook(cleanup);
            OpenStore.keep(dir, open);
            err.println("funes: serving " + dir + " at " + socket);
            err.flush();
            try {
                serve(server, socket, key, watched, times, open.store());
            } finally {
                OpenStore.release();
                removeIfOurs(socket, key);
                try {
                    Runtime.getRuntime().removeShutdownHook(cleanup);
                } catch (IllegalStateException e) {
                    // The JVM is already stopping: the hook has run or runs now.
                }
            }
        }
        return 0;
    }

    private void serve(ServerSocketChannel server, Path socket, Object key, List<Path> watched, List<Object> times,
                       dev.funes.MemoryStore store) throws IOException {
        server.configureBlocking(false);
        try (Selector selector = Selector.open()) {
            server.register(selector, SelectionKey.OP_ACCEPT);
            long idleNanos = idleSeconds * 1_000_000_000L;
            long last = System.nanoTime();
            while (true) {
                long left = idleNanos - (System.nanoTime() - last);
                if (left <= 0) {
                    return;
                }
                // Wakes at least every few seconds to see that the socket is still this server's.
                selector.select(Math.max(1, Math.min(left / 1_000_000, 5_000)));
                selector.selectedKeys().clear();
                SocketChannel client = server.accept();
                if (client == null) {
                    if (!Objects.equals(fileKey(socket), key)) {
                        return; // removed, or another server took the name
                    }
                    continue;
                }
                boolean stale = !times(watched).equals(times);
                boolean otherBuild = false;
                try (client) {
                    client.configureBlocking(true);
                    otherBuild = answer(client, stale, store);
                } catch (IOException e) {
                    // The client went away: it runs the command itself, or is gone.
                }
                last = System.nanoTime();
                if (stale || otherBuild) {
                    // The next command starts a server that reads the files as they are now, of its own build.
                    return;
                }
            }
        }
    }

    /** Answers one client; true when it runs another build of Funes, whose commands this server must leave to it. */
    private static boolean answer(SocketChannel client, boolean stale, dev.funes.MemoryStore store) throws IOException {
        ServeWire.Request request = ServeWire.Request.read(new DataInputStream(new BufferedInputStream(Channels.newInputStream(client))));
        DataOutputStream reply = new DataOutputStream(new BufferedOutputStream(Channels.newOutputStream(client)));
        String[] args = request.args().toArray(String[]::new);
        boolean otherBuild = !ServeWire.BUILD.equals(request.build());
        boolean mcpSearch = args.length == 2 && args[0].equals(ServeWire.MCP_SEARCH);
        if (stale || otherBuild || !(mcpSearch || ServeWire.served(args)) || !sameEnvironment(request)) {
            ServeWire.Answer.DECLINED.write(reply);
            return otherBuild;
        }
        if (mcpSearch) {
            // The tools' own code on this server's open store: the client's result, sooner.
            McpTools tools = new McpTools(store, java.time.Clock.systemUTC(), request.directory().toString());
            io.modelcontextprotocol.spec.McpSchema.CallToolResult result = tools.call(McpTools.SEARCH_MEMORY,
                    McpTools.arguments(args[1]), null);
            String text = ((io.modelcontextprotocol.spec.McpSchema.TextContent) result.content().get(0)).text();
            new ServeWire.Answer(true, Boolean.TRUE.equals(result.isError()) ? 1 : 0,
                    text.getBytes(StandardCharsets.UTF_8), new byte[0]).write(reply);
            return false;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintWriter outWriter = new PrintWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), true);
        PrintWriter errWriter = new PrintWriter(new OutputStreamWriter(err, StandardCharsets.UTF_8), true);
        int status = ServeWire.inDirectory(request.directory(), () -> Main.run(args, outWriter, errWriter));
        new ServeWire.Answer(true, status, out.toByteArray(), err.toByteArray()).write(reply);
        return false;
    }

    /** Whether the client's variables that pick stores and config files are this server's. */
    private static boolean sameEnvironment(ServeWire.Request request) {
        for (String name : ServeWire.ENVIRONMENT) {
            if (!Objects.equals(request.environment().get(name), System.getenv(name))) {
                return false;
            }
        }
        return true;
    }

    /** The files whose change makes this server's open store or settings out of date. */
    private static List<Path> watched(Path dir) {
        return List.of(dir.resolve("funes.db"), dir.resolve(FunesConfig.FILE_NAME),
                dir.resolve(dev.funes.redact.RedactionRule.FILE_NAME), FunesConfig.userFile());
    }

    /** What identifies each file's state: the database's inode (it changes with every write; only a new file matters), the others' times. */
    private static List<Object> times(List<Path> files) {
        List<Object> times = new ArrayList<>();
        for (Path file : files) {
            times.add(file.getFileName().toString().equals("funes.db") ? fileKey(file) : modified(file));
        }
        return times;
    }

    private static FileTime modified(Path file) {
        try {
            return Files.getLastModifiedTime(file);
        } catch (IOException e) {
            return null;
        }
    }

    /** Whether a server answers at {@code socket}; a socket file nobody answers is left over, and removed. */
    private static boolean answers(Path socket) throws IOException {
        if (!Files.exists(socket, LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            channel.connect(UnixDomainSocketAddress.of(socket));
            return true;
        } catch (IOException e) {
            Files.deleteIfExists(socket);
            return false;
        }
    }

    /**
     * Listens at {@code socket}, readable and writable by this user only: bound inside a folder
     * only this user can enter, made owner-only there, then moved into the store directory, so
     * that no other user can connect in between.
     */
    private static ServerSocketChannel bind(Path socket) throws IOException {
        Path privateDir = Files.createTempDirectory(socket.getParent(), ".serve-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path bound = privateDir.resolve(ServeWire.SOCKET);
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            server.bind(UnixDomainSocketAddress.of(bound));
            Files.setPosixFilePermissions(bound, PosixFilePermissions.fromString("rw-------"));
            Files.move(bound, socket, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            return server;
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        } finally {
            Files.deleteIfExists(bound);
            Files.deleteIfExists(privateDir);
        }
    }

    /** Deletes the socket unless another server has taken its name since. */
    private static void removeIfOurs(Path socket, Object key) {
        try {
            if (key != null && key.equals(fileKey(socket))) {
                Files.deleteIfExists(socket);
            }
        } catch (IOException e) {
            // Left behind: the next client finds nobody answering and runs the command itself.
        }
    }

    private static Object fileKey(Path file) {
        try {
            return Files.readAttributes(file, java.nio.file.attribute.BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
        } catch (IOException e) {
            return null;
        }
    }
}
