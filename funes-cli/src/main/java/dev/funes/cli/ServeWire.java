package dev.funes.cli;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a {@code funes} process and a resident {@code funes serve} say to each other over the
 * store's socket, and which commands the server runs. A request is the command line, the client's
 * working directory and the environment variables that decide which store and config files a
 * command reads; an answer is either "run it yourself" or the exit status and every byte the
 * command wrote to stdout and stderr.
 */
final class ServeWire {

    /** The socket's name in the store directory. */
    static final String SOCKET = "funes.sock";
    /** Commands a server runs: they only read the store, and take no input but their arguments. */
    private static final Set<String> SERVED = Set.of("search", "why", "stats");
    /**
     * A request's first word for a {@code search_memory} call of a {@code funes mcp} whose own store
     * is still opening; the second word is the call's arguments as JSON. Not a command line.
     */
    static final String MCP_SEARCH = "mcp:search_memory";
    /** Variables that change what a command reads: the server runs a command only where they are its own. */
    static final List<String> ENVIRONMENT = List.of("HOME", "FUNES_HOME", "XDG_CONFIG_HOME");

    private static final int MAGIC = 0x46554e32; // "FUN2": with the client's build (a server of another build fails to read it)
    private static final ThreadLocal<Path> WORKING_DIRECTORY = new ThreadLocal<>();

    private ServeWire() {
    }

    /**
     * What tells this build of Funes from another: the file or folder its classes are read from,
     * with its size and time. Read once: a server keeps the build it started with, and declines a
     * client of another build (a jar replaced by an upgrade, another install's launcher).
     */
    static final String BUILD = build();

    private static String build() {
        try {
            java.security.CodeSource source = ServeWire.class.getProtectionDomain().getCodeSource();
            Path code = Path.of(source.getLocation().toURI());
            java.nio.file.attribute.BasicFileAttributes attributes = java.nio.file.Files.readAttributes(code,
                    java.nio.file.attribute.BasicFileAttributes.class);
            return code + " " + attributes.size() + " " + attributes.lastModifiedTime().toMillis();
        } catch (IOException | RuntimeException | java.net.URISyntaxException e) {
            return "unknown build"; // then only a server that also cannot tell answers
        }
    }

    /** Whether a server runs this command line: search, why, stats and {@code check --quick}. */
    static boolean served(String[] args) {
        if (args.length == 0) {
            return false;
        }
        if (args[0].equals("check")) {
            return List.of(args).contains("--quick");
        }
        if (!SERVED.contains(args[0])) {
            return false;
        }
        // A team search runs here: the team's credentials are this process's environment's. A loop,
        // not a stream: a served command's client loads as few classes as it can (no lambda).
        for (String arg : args) {
            if (arg.equals("--team") || arg.startsWith("--team=")) {
                return false;
            }
        }
        return true;
    }

    /**
     * The directory the command line's relative paths mean: the process's own, or, while a
     * server runs a client's command on this thread, the client's.
     */
    static Path workingDirectory() {
        Path client = WORKING_DIRECTORY.get();
        return client != null ? client : Path.of("").toAbsolutePath();
    }

    /** Runs {@code body} with relative paths read against {@code dir}, the client's working directory. */
    static <T> T inDirectory(Path dir, java.util.function.Supplier<T> body) {
        WORKING_DIRECTORY.set(dir);
        try {
            return body.get();
        } finally {
            WORKING_DIRECTORY.remove();
        }
    }

    /**
     * A command line to run.
     *
     * @param args        the arguments
     * @param directory   the client's working directory
     * @param environment the values of {@link #ENVIRONMENT} (absent: unset)
     * @param build       the client's {@link #BUILD}
     */
    record Request(List<String> args, Path directory, Map<String, String> environment, String build) {

        /** This process's request for {@code args}. */
        static Request of(String[] args) {
            Map<String, String> environment = new LinkedHashMap<>();
            for (String name : ENVIRONMENT) {
                String value = System.getenv(name);
                if (value != null) {
                    environment.put(name, value);
                }
            }
            return new Request(List.of(args), Path.of("").toAbsolutePath(), environment, BUILD);
        }

        void write(DataOutputStream out) throws IOException {
            out.writeInt(MAGIC);
            writeString(out, build);
            writeString(out, directory.toString());
            out.writeInt(environment.size());
            for (Map.Entry<String, String> variable : environment.entrySet()) {
                writeString(out, variable.getKey());
                writeString(out, variable.getValue());
            }
            out.writeInt(args.size());
            for (String arg : args) {
                writeString(out, arg);
            }
            out.flush();
        }

        static Request read(DataInputStream in) throws IOException {
            if (in.readInt() != MAGIC) {
                throw new IOException("not a funes request of this protocol");
            }
            String build = readString(in);
            Path directory = Path.of(readString(in));
            Map<String, String> environment = new LinkedHashMap<>();
            for (int i = in.readInt(); i > 0; i--) {
                environment.put(readString(in), readString(in));
            }
            List<String> args = new ArrayList<>();
            for (int i = in.readInt(); i > 0; i--) {
                args.add(readString(in));
            }
            return new Request(args, directory, environment, build);
        }
    }

    /**
     * The server's answer.
     *
     * @param ran    whether it ran the command; if not, the client runs it itself
     * @param status the exit status
     * @param out    what the command wrote to stdout
     * @param err    what it wrote to stderr
     */
    record Answer(boolean ran, int status, byte[] out, byte[] err) {

        static final Answer DECLINED = new Answer(false, 0, new byte[0], new byte[0]);

        void write(DataOutputStream stream) throws IOException {
            stream.writeInt(MAGIC);
            stream.writeBoolean(ran);
            stream.writeInt(status);
            stream.writeInt(out.length);
            stream.write(out);
            stream.writeInt(err.length);
            stream.write(err);
            stream.flush();
        }

        static Answer read(DataInputStream in) throws IOException {
            if (in.readInt() != MAGIC) {
                throw new IOException("not a funes answer");
            }
            boolean ran = in.readBoolean();
            int status = in.readInt();
            byte[] out = in.readNBytes(in.readInt());
            byte[] err = in.readNBytes(in.readInt());
            return new Answer(ran, status, out, err);
        }
    }

    private static void writeString(DataOutputStream out, String value) throws IOException {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    private static String readString(DataInputStream in) throws IOException {
        int length = in.readInt();
        if (length < 0 || length > 1 << 24) {
            throw new IOException("a string of " + length + " bytes");
        }
        byte[] bytes = in.readNBytes(length);
        if (bytes.length != length) {
            throw new IOException("the request ended early");
        }
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
