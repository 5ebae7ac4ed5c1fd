package dev.funes.bench;

import dev.funes.Embedder;
import dev.funes.MemoryStore;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.store.FunesStore;
import dev.funes.ui.UiServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * {@code funes ui} as its user meets it, on a given store: a cold {@code funes ui --no-browser}
 * process from its start to the printed link and to the first page (the link opened: its 303 and
 * the search page it leads to), then search round trips through the page ({@code GET /search}
 * with the session cookie: the query embedded, searched and the page rendered and received).
 *
 * <pre>
 * UiLatency [--runs N] [--searches M] [--retrieval hybrid|lexical] --store DIR LAUNCHER
 * UiLatency [--runs N] [--searches M] [--retrieval hybrid|lexical] --store DIR --in-process
 * </pre>
 *
 * <p>{@code --in-process} times the server alone: the store is opened once in this JVM (its
 * model loaded), then each run starts a {@link UiServer} on it and times {@code start} to the
 * first page; no process start, no CLI, no store opening in the figure.
 *
 * <p>Each of the {@code N} runs starts a new process and times its first page; the last run then
 * answers {@code M} searches (the queries below, in turn), after one untimed search that waits for
 * the model's load. Prints the figures in milliseconds: each start, their p50, and the searches'
 * p50, p95 and max.
 */
public final class UiLatency {

    private static final List<String> QUERIES = List.of(
            "why did CI check the wrong branch", "retry with exponential backoff", "database migration failed",
            "how do we parse the config file", "flaky test timeout", "where is the release checklist",
            "memory leak in the cache", "rename the module", "rate limit the API client", "docker build is slow");

    private UiLatency() {
    }

    public static void main(String[] args) throws Exception {
        int runs = 5;
        int searches = 50;
        String retrieval = "hybrid";
        Path store = null;
        Path launcher = null;
        boolean inProcess = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--searches" -> searches = Integer.parseInt(args[++i]);
                case "--retrieval" -> retrieval = args[++i];
                case "--store" -> store = Path.of(args[++i]);
                case "--in-process" -> inProcess = true;
                default -> launcher = Path.of(args[i]);
            }
        }
        if (store != null && inProcess) {
            inProcess(store, runs, searches, retrieval);
            return;
        }
        if (store == null || launcher == null) {
            throw new IllegalArgumentException("usage: UiLatency [--runs N] [--searches M] [--retrieval MODE] --store DIR LAUNCHER");
        }
        HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
        List<Long> toLink = new ArrayList<>();
        List<Long> toPage = new ArrayList<>();
        List<Long> round = new ArrayList<>();
        for (int run = 1; run <= runs; run++) {
            long t0 = System.nanoTime();
            Process p = new ProcessBuilder(launcher.toString(), "ui", "--store", store.toString(), "--no-browser")
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            try {
                BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                String link = out.readLine();
                if (link == null || !link.startsWith("http://127.0.0.1:")) {
                    throw new IllegalStateException("funes ui printed no link: " + link);
                }
                long linked = System.nanoTime();
                HttpResponse<Void> redirect = http.send(HttpRequest.newBuilder(URI.create(link)).build(),
                        HttpResponse.BodyHandlers.discarding());
                String cookie = redirect.headers().firstValue("Set-Cookie").orElseThrow().split(";", 2)[0];
                String base = link.substring(0, link.indexOf("/?token="));
                HttpResponse<String> first = get(http, base + "/", cookie);
                long paged = System.nanoTime();
                if (first.statusCode() != 200) {
                    throw new IllegalStateException("first page: " + first.statusCode());
                }
                toLink.add(ms(linked - t0));
                toPage.add(ms(paged - t0));
                System.out.printf(Locale.ROOT, "run %d: link after %d ms, first page after %d ms%n", run, ms(linked - t0), ms(paged - t0));
                if (run == runs) {
                    get(http, base + "/search?q=warm+up&retrieval=" + retrieval, cookie); // waits for the model's load
                    for (int i = 0; i < searches; i++) {
                        String q = QUERIES.get(i % QUERIES.size());
                        long s0 = System.nanoTime();
                        HttpResponse<String> r = get(http, base + "/search?retrieval=" + retrieval + "&q="
                                + URLEncoder.encode(q, StandardCharsets.UTF_8), cookie);
                        round.add(System.nanoTime() - s0);
                        if (r.statusCode() != 200 || !r.body().contains("id=\"hit-count\"")) {
                            throw new IllegalStateException("search " + q + ": " + r.statusCode());
                        }
                    }
                }
            } finally {
                p.destroy();
                if (!p.waitFor(30, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            }
        }
        Collections.sort(toPage);
        Collections.sort(toLink);
        Collections.sort(round);
        System.out.printf(Locale.ROOT, "start to link p50 %d ms; start to first page p50 %d ms (min %d, max %d) over %d runs%n",
                toLink.get((toLink.size() - 1) / 2), toPage.get((toPage.size() - 1) / 2), toPage.get(0),
                toPage.get(toPage.size() - 1), runs);
        if (!round.isEmpty()) {
            System.out.printf(Locale.ROOT, "%s search round trip p50 %.1f ms, p95 %.1f ms, max %.1f ms over %d searches%n", retrieval,
                    round.get((round.size() - 1) / 2) / 1e6, round.get((int) Math.ceil(round.size() * 0.95) - 1) / 1e6,
                    round.get(round.size() - 1) / 1e6, round.size());
        }
    }

    private static void inProcess(Path dir, int runs, int searches, String retrieval) throws Exception {
        HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
        List<Long> toPage = new ArrayList<>();
        List<Long> round = new ArrayList<>();
        try (Embedder embedder = Embedders.bundled(BundledModel.DEFAULT); MemoryStore store = FunesStore.open(dir, embedder)) {
            embedder.embedQuery("load the model before timing");
            for (int run = 1; run <= runs; run++) {
                long t0 = System.nanoTime();
                try (UiServer ui = UiServer.start(store, UiServer.Options.defaults())) {
                    String link = ui.link().toString();
                    HttpResponse<Void> redirect = http.send(HttpRequest.newBuilder(URI.create(link)).build(),
                            HttpResponse.BodyHandlers.discarding());
                    String cookie = redirect.headers().firstValue("Set-Cookie").orElseThrow().split(";", 2)[0];
                    String base = link.substring(0, link.indexOf("/?token="));
                    HttpResponse<String> first = get(http, base + "/", cookie);
                    long paged = System.nanoTime();
                    if (first.statusCode() != 200) {
                        throw new IllegalStateException("first page: " + first.statusCode());
                    }
                    toPage.add(paged - t0);
                    System.out.printf(Locale.ROOT, "run %d: server start to first page %.1f ms%n", run, (paged - t0) / 1e6);
                    if (run == runs) {
                        for (int i = 0; i < searches; i++) {
                            String q = QUERIES.get(i % QUERIES.size());
                            long s0 = System.nanoTime();
                            HttpResponse<String> r = get(http, base + "/search?retrieval=" + retrieval + "&q="
                                    + URLEncoder.encode(q, StandardCharsets.UTF_8), cookie);
                            round.add(System.nanoTime() - s0);
                            if (r.statusCode() != 200) {
                                throw new IllegalStateException("search " + q + ": " + r.statusCode());
                            }
                        }
                    }
                }
            }
        }
        Collections.sort(toPage);
        Collections.sort(round);
        System.out.printf(Locale.ROOT, "in process: server start to first page p50 %.1f ms (min %.1f, max %.1f) over %d runs%n",
                toPage.get((toPage.size() - 1) / 2) / 1e6, toPage.get(0) / 1e6, toPage.get(toPage.size() - 1) / 1e6, runs);
        System.out.printf(Locale.ROOT, "in process: %s search round trip p50 %.1f ms, p95 %.1f ms, max %.1f ms over %d searches%n",
                retrieval, round.get((round.size() - 1) / 2) / 1e6, round.get((int) Math.ceil(round.size() * 0.95) - 1) / 1e6,
                round.get(round.size() - 1) / 1e6, round.size());
    }

    private static HttpResponse<String> get(HttpClient http, String uri, String cookie) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(uri)).header("Cookie", cookie).timeout(Duration.ofMinutes(2)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static long ms(long nanos) {
        return nanos / 1_000_000;
    }
}
