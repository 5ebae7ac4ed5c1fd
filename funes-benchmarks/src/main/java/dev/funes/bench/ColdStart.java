package dev.funes.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Every {@code funes} command as a whole, cold process: the wall time from starting the process
 * to its exit (for {@code mcp}: to the answer of {@code initialize} and of a first search, and in
 * a second process to the answers of {@code tools/list} and of a search sent after it),
 * {@code RUNS} times each, alternating commands and variants within every round so that a busy
 * moment of a shared machine hits all of them alike. {@code java -version} and
 * {@code funes --help} are timed in the same rounds as floors.
 *
 * <pre>
 * ColdStart [--runs N] [--store DIR] [--store-of LABEL=DIR]... [--logs PATH,...] [--query TEXT] [--sha SHA]
 *           [--only COMMAND,...] LABEL=LAUNCHER[ JVM-OPTION|NAME=VALUE...]...
 * </pre>
 *
 * <p>{@code --store-of} gives one variant a store of its own (a copy of the same store), so that
 * each variant can be answered by a {@code funes serve} of its own code: a store has one server.
 *
 * <p>A variant is a launcher (the {@code funes} script of a checkout, or a copy of it beside a
 * built {@code funes-cli/target}), JVM options passed through {@code FUNES_JAVA_OPTS} and
 * environment variables (e.g. {@code FUNES_CDS=0}). The
 * store is built with {@code funes index} of {@code --logs} (default: every fixture format and
 * the sample session) when it holds no database; either way the logs are indexed once more before
 * timing, so the timed {@code index} finds them unchanged and {@code why SHA} finds the sample
 * session's linked commit (default {@code 4e1c9a7}). Children get {@code JAVA_HOME} of this JVM,
 * so every variant and the floor run the same {@code java}.
 *
 * <p>{@code --only} keeps the commands named as in the table's first column, e.g.
 * {@code --only "funes --help,stats,search"}.
 *
 * <p>Prints one markdown table, in milliseconds: per command and variant the wall time's p50 and
 * p95 (nearest rank) and the CPU time's p50 (user + system of the process and the children it
 * waited for: what a busy machine disturbs least); a command a variant does not know (exit
 * status 2) shows {@code n/a}.
 */
public final class ColdStart {

    private static final String MCP = "mcp";
    /** A search sent as soon as {@code initialize} is answered. */
    private static final String MCP_SEARCH = "mcp: first search answered";
    /** {@code tools/list} sent as soon as {@code initialize} is answered, as clients that show tools do. */
    private static final String MCP_LIST = "mcp: tools/list answered";
    /** A search sent once {@code tools/list} is answered. */
    private static final String MCP_SEARCH_AFTER_LIST = "mcp: search after tools/list answered";

    private ColdStart() {
    }

    /** A launcher, the JVM options it is given and its environment ({@code NAME=value} words of the spec). */
    record Variant(String label, Path launcher, String javaOpts, Map<String, String> env) {
        static Variant parse(String spec) {
            int eq = spec.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("variant '" + spec + "' is not LABEL=LAUNCHER[ JVM-OPTION...]");
            }
            String rest = spec.substring(eq + 1).strip();
            int space = rest.indexOf(' ');
            Path launcher = Path.of(space < 0 ? rest : rest.substring(0, space)).toAbsolutePath().normalize();
            if (!Files.isExecutable(launcher)) {
                throw new IllegalArgumentException("variant " + spec.substring(0, eq) + ": " + launcher + " is not executable");
            }
            List<String> opts = new ArrayList<>();
            Map<String, String> env = new LinkedHashMap<>();
            for (String word : space < 0 ? new String[0] : rest.substring(space + 1).strip().split("\\s+")) {
                if (word.matches("[A-Z_][A-Z0-9_]*=.*")) {
                    env.put(word.substring(0, word.indexOf('=')), word.substring(word.indexOf('=') + 1));
                } else {
                    opts.add(word);
                }
            }
            return new Variant(spec.substring(0, eq), launcher, String.join(" ", opts), env);
        }
    }

    /** Runs the measurement; see the class comment for the arguments. */
    public static void main(String[] args) throws Exception {
        int runs = 10;
        Path store = Path.of("funes-benchmarks/target/cold-start-store");
        List<Path> logs = List.of(Path.of("../shared/fixtures"), Path.of("examples/demo-session"));
        String query = "parse ledgers in two passes";
        String sha = "4e1c9a7";
        List<String> only = null;
        List<Variant> variants = new ArrayList<>();
        Map<String, Path> storeOf = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--store" -> store = Path.of(args[++i]);
                case "--logs" -> logs = Arrays.stream(args[++i].split(",")).map(Path::of).toList();
                case "--query" -> query = args[++i];
                case "--sha" -> sha = args[++i];
                case "--only" -> only = List.of(args[++i].split(","));
                case "--store-of" -> {
                    String[] spec = args[++i].split("=", 2);
                    storeOf.put(spec[0], Path.of(spec[1]).toAbsolutePath().normalize());
                }
                default -> variants.add(Variant.parse(args[i]));
            }
        }
        if (variants.isEmpty()) {
            System.err.println("usage: ColdStart [--runs N] [--store DIR] [--logs PATH,...] [--query TEXT] [--sha SHA]"
                    + " LABEL=LAUNCHER[ JVM-OPTION...]...");
            System.exit(2);
        }
        store = store.toAbsolutePath().normalize();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();

        List<String> index = new ArrayList<>(List.of("index", "--store", store.toString()));
        for (Path log : logs) {
            index.add("--index-path");
            index.add(log.toAbsolutePath().normalize().toString());
        }
        Map<Path, Variant> stores = new LinkedHashMap<>();
        for (Variant v : variants) {
            stores.putIfAbsent(storeOf.getOrDefault(v.label(), store), v);
        }
        for (Map.Entry<Path, Variant> s : stores.entrySet()) {
            Variant first = s.getValue();
            long t0 = System.nanoTime();
            Outcome built = run(command(first, withStore(index, store, s.getKey())), first, null);
            System.out.printf(Locale.ROOT, "store %s: indexed %s with %s in %.1f s (exit %d)%n", s.getKey(), logs,
                    first.label(), (System.nanoTime() - t0) / 1e9, built.status());
            Outcome stats = run(command(first, List.of("stats", "--store", s.getKey().toString())), first, null);
            System.out.println(stats.out().strip());
        }

        Map<String, List<String>> commands = new LinkedHashMap<>();
        commands.put("funes --help", List.of("--help"));
        commands.put("stats", List.of("stats", "--store", store.toString()));
        commands.put("check --quick", List.of("check", "--quick", "--store", store.toString()));
        commands.put("search", List.of("search", "--store", store.toString(), query));
        commands.put("search --retrieval lexical", List.of("search", "--retrieval", "lexical", "--store", store.toString(), query));
        commands.put("why " + sha, List.of("why", "--store", store.toString(), sha));
        commands.put("index (unchanged)", index);
        commands.put("mcp: initialize answered", List.of(MCP, "--store", store.toString()));

        if (only != null) {
            commands.keySet().retainAll(only);
        }
        String floor = "java -version";
        Map<String, List<Double>> times = new LinkedHashMap<>();
        Map<String, List<Double>> cpu = new LinkedHashMap<>();
        for (int round = 0; round < runs; round++) {
            Outcome version = run(List.of(java, "-version"), null, null);
            times.computeIfAbsent(floor, k -> new ArrayList<>()).add(version.millis());
            if (version.cpuMillis() >= 0) {
                cpu.computeIfAbsent(floor, k -> new ArrayList<>()).add(version.cpuMillis());
            }
            for (Map.Entry<String, List<String>> c : commands.entrySet()) {
                for (Variant v : variants) {
                    List<String> variantArgs = withStore(c.getValue(), store, storeOf.getOrDefault(v.label(), store));
                    if (c.getValue().get(0).equals(MCP)) {
                        double[] mcp = mcp(command(v, variantArgs), v, query, false);
                        times.computeIfAbsent(key(c.getKey(), v), k -> new ArrayList<>()).add(mcp[0]);
                        times.computeIfAbsent(key(MCP_SEARCH, v), k -> new ArrayList<>()).add(mcp[2]);
                        double[] listing = mcp(command(v, variantArgs), v, query, true);
                        times.computeIfAbsent(key(MCP_LIST, v), k -> new ArrayList<>()).add(listing[1]);
                        times.computeIfAbsent(key(MCP_SEARCH_AFTER_LIST, v), k -> new ArrayList<>()).add(listing[2]);
                        continue;
                    }
                    Outcome o = run(command(v, variantArgs), v, null);
                    if (o.status() == 2) {
                        continue; // bad usage: the variant does not know the command (n/a)
                    }
                    if (o.status() != 0) {
                        throw new IllegalStateException(v.label() + " " + c.getKey() + " exited " + o.status() + ": " + o.err());
                    }
                    times.computeIfAbsent(key(c.getKey(), v), k -> new ArrayList<>()).add(o.millis());
                    if (o.cpuMillis() >= 0) {
                        cpu.computeIfAbsent(key(c.getKey(), v), k -> new ArrayList<>()).add(o.cpuMillis());
                    }
                }
            }
            System.out.printf(Locale.ROOT, "round %d of %d done%n", round + 1, runs);
        }
        System.out.println();
        System.out.println(table(floor, commands.keySet(), variants, times, cpu));
    }

    /** {@code args} with the store {@code from} replaced by {@code to}. */
    static List<String> withStore(List<String> args, Path from, Path to) {
        List<String> out = new ArrayList<>();
        for (String arg : args) {
            out.add(arg.equals(from.toString()) ? to.toString() : arg);
        }
        return out;
    }

    static String key(String command, Variant v) {
        return command + "\u0000" + v.label();
    }

    /**
     * The markdown table: one row per command; per variant the wall time's p50 and p95 and the
     * CPU time's p50 (not measured for mcp, whose process lives on after its answers).
     */
    static String table(String floor, Iterable<String> commands, List<Variant> variants, Map<String, List<Double>> times,
                        Map<String, List<Double>> cpu) {
        StringBuilder sb = new StringBuilder("| command |");
        StringBuilder rule = new StringBuilder("|---|");
        for (Variant v : variants) {
            sb.append(' ').append(v.label()).append(" p50 | p95 | cpu p50 |");
            rule.append("---:|---:|---:|");
        }
        sb.append('\n').append(rule).append('\n');
        sb.append("| `").append(floor).append("` (floor) |");
        for (int i = 0; i < variants.size(); i++) {
            sb.append(cells(times.get(floor), cpu.get(floor)));
        }
        sb.append('\n');
        List<String> rows = new ArrayList<>();
        commands.forEach(rows::add);
        if (rows.contains("mcp: initialize answered")) {
            rows.addAll(rows.indexOf("mcp: initialize answered") + 1, List.of(MCP_SEARCH, MCP_LIST, MCP_SEARCH_AFTER_LIST));
        }
        for (String c : rows) {
            sb.append("| `").append(c).append("` |");
            for (Variant v : variants) {
                sb.append(cells(times.get(key(c, v)), cpu.get(key(c, v))));
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    private static String cells(List<Double> wall, List<Double> cpu) {
        if (wall == null) {
            return " n/a | n/a | n/a |";
        }
        return String.format(Locale.ROOT, " %.0f | %.0f | %s |", percentile(wall, 50), percentile(wall, 95),
                cpu == null ? "" : String.format(Locale.ROOT, "%.0f", percentile(cpu, 50)));
    }

    /** Nearest-rank percentile. */
    static double percentile(List<Double> values, int p) {
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, rank - 1)];
    }

    static List<String> command(Variant v, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(v.launcher().toString());
        command.addAll(args);
        return command;
    }

    /** Exit status, wall and CPU milliseconds (user + system, -1 where /proc is missing), output. */
    record Outcome(int status, double millis, double cpuMillis, String out, String err) {
    }

    /** Runs a process to its end; stdout and stderr go to files, read after the clock stops. */
    static Outcome run(List<String> command, Variant v, String stdin) throws IOException, InterruptedException {
        Path out = Files.createTempFile("cold-start-", ".out");
        Path err = Files.createTempFile("cold-start-", ".err");
        try {
            ProcessBuilder pb = environment(new ProcessBuilder(command), v)
                    .redirectOutput(out.toFile()).redirectError(err.toFile());
            long cpu0 = childCpuMillis();
            long t0 = System.nanoTime();
            Process p = pb.start();
            if (stdin != null) {
                try (OutputStream in = p.getOutputStream()) {
                    in.write(stdin.getBytes(StandardCharsets.UTF_8));
                }
            } else {
                p.getOutputStream().close();
            }
            if (!p.waitFor(10, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new IllegalStateException("still running after 10 minutes: " + command);
            }
            double millis = (System.nanoTime() - t0) / 1e6;
            long cpu1 = childCpuMillis();
            return new Outcome(p.exitValue(), millis, cpu0 < 0 ? -1 : cpu1 - cpu0, Files.readString(out),
                    Files.readString(err));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /**
     * CPU time of this JVM's children that have ended and been waited for (cutime + cstime of
     * /proc/self/stat, in ticks of 10 ms): the difference around one run is that process's CPU,
     * the measure a busy machine disturbs least. -1 without /proc.
     */
    static long childCpuMillis() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(fields[13]) + Long.parseLong(fields[14])) * 10;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private static ProcessBuilder environment(ProcessBuilder pb, Variant v) {
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        if (v != null) {
            pb.environment().put("FUNES_JAVA_OPTS", v.javaOpts());
            pb.environment().remove("FUNES_CDS");
            pb.environment().putAll(v.env());
        }
        return pb;
    }

    /**
     * {@code funes mcp}: milliseconds from the start to the answer of {@code initialize}, of
     * {@code tools/list} (sent after it when {@code listFirst}; else NaN), and of a
     * {@code search_memory} sent after the last of them; then stdin is closed and the server's
     * exit awaited (not timed).
     */
    static double[] mcp(List<String> command, Variant v, String query, boolean listFirst) throws IOException, InterruptedException {
        ProcessBuilder pb = environment(new ProcessBuilder(command), v).redirectError(ProcessBuilder.Redirect.DISCARD);
        long t0 = System.nanoTime();
        Process p = pb.start();
        try (OutputStream in = p.getOutputStream();
             BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            send(in, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
                    + "\"capabilities\":{},\"clientInfo\":{\"name\":\"cold-start\",\"version\":\"1\"}}}");
            await(out, "\"id\":1", command);
            double initialized = (System.nanoTime() - t0) / 1e6;
            send(in, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
            double listed = Double.NaN;
            if (listFirst) {
                send(in, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}");
                String tools = await(out, "\"id\":3", command);
                listed = (System.nanoTime() - t0) / 1e6;
                if (!tools.contains("search_memory")) {
                    throw new IllegalStateException("mcp tools/list failed: " + tools);
                }
            }
            send(in, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"search_memory\","
                    + "\"arguments\":{\"query\":\"" + query.replace("\\", "\\\\").replace("\"", "\\\"") + "\"}}}");
            String answer = await(out, "\"id\":2", command);
            double searched = (System.nanoTime() - t0) / 1e6;
            if (answer.contains("\"isError\":true") || answer.contains("\"error\"")) {
                throw new IllegalStateException("mcp search failed: " + answer);
            }
            in.close();
            if (!p.waitFor(1, TimeUnit.MINUTES)) {
                throw new IllegalStateException("funes mcp did not end a minute after stdin closed");
            }
            return new double[] {initialized, listed, searched};
        } finally {
            p.destroyForcibly();
        }
    }

    private static void send(OutputStream in, String line) throws IOException {
        in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    private static String await(BufferedReader out, String marker, List<String> command) throws IOException {
        for (String line; (line = out.readLine()) != null; ) {
            if (line.contains(marker)) {
                return line;
            }
        }
        throw new IllegalStateException("funes mcp ended without answering " + marker + ": " + command);
    }
}
