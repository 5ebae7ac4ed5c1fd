package dev.funes.ui;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.funes.MemoryStore;
import dev.funes.StoreException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A local web page over one store: search with the CLI's filters, a hit's log context, sessions
 * on a timeline, why a commit or file is so, an overview with plots, and (when allowed) forgetting.
 * Served by the JDK's HTTP server on 127.0.0.1 only; every asset comes from this jar.
 *
 * <pre>{@code
 * try (UiServer ui = UiServer.start(store, UiServer.Options.defaults())) {
 *     System.out.println(ui.link()); // open it once: it is exchanged for a session cookie
 *     ...
 * }
 * }</pre>
 *
 * <p>Security (docs/UI.md): the printed link's token is spent on first use for an HttpOnly,
 * SameSite=Strict cookie; every request without that cookie is answered 401, every request
 * naming another host 403, every POST whose {@code Origin} is not this server 403; no CORS
 * header is ever sent; a strict Content-Security-Policy allows no script and nothing from
 * elsewhere; every text from the store or a log is HTML-escaped.
 *
 * <p>Thread-safe: requests are served on a few named daemon threads. The server does not own the
 * store: close the server, then the store.
 */
public final class UiServer implements AutoCloseable {

    /** Sent with every answer: nothing but this server's own styles and images, no script, no framing. */
    static final String CSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
            + "frame-ancestors 'none'; base-uri 'none'";

    private static final int THREADS = 4;

    private final HttpServer server;
    private final ExecutorService executor;
    private final Access access;
    private final Pages pages;
    /** Done once a page (an HTML answer of 200) was sent. */
    private final CompletableFuture<Void> firstPage = new CompletableFuture<>();

    private UiServer(HttpServer server, ExecutorService executor, Access access, Pages pages) {
        this.server = server;
        this.executor = executor;
        this.access = access;
        this.pages = pages;
    }

    /**
     * What the server allows and where it listens.
     *
     * @param port             the loopback port, 0 for a free one
     * @param allowForget      whether the page may delete memories (read-only otherwise)
     * @param workingDirectory what relative file paths on the Why page are resolved against
     */
    public record Options(int port, boolean allowForget, Path workingDirectory) {

        /** Validates the port and the directory. */
        public Options {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port must be between 0 and 65535, was " + port);
            }
            workingDirectory = Objects.requireNonNull(workingDirectory, "workingDirectory").toAbsolutePath().normalize();
        }

        /** A free port, read-only, paths relative to the process's working directory. */
        public static Options defaults() {
            return new Options(0, false, Path.of("").toAbsolutePath());
        }

        /** These options with another port. */
        public Options withPort(int port) {
            return new Options(port, allowForget, workingDirectory);
        }

        /** These options with deletion allowed or not. */
        public Options withAllowForget(boolean allow) {
            return new Options(port, allow, workingDirectory);
        }
    }

    /**
     * Starts serving {@code store} on 127.0.0.1.
     *
     * @param store   an open store (opened by {@code FunesStore}); the server does not close it
     * @param options the port and what is allowed
     * @throws IOException if the port cannot be bound ({@link java.net.BindException} when it is taken)
     */
    public static UiServer start(MemoryStore store, Options options) throws IOException {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(options, "options");
        // 127.0.0.1 itself, not getLoopbackAddress(), which may be ::1: the printed link and the Host check name 127.0.0.1.
        InetAddress loopback = InetAddress.getByAddress("127.0.0.1", new byte[] {127, 0, 0, 1});
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(loopback, options.port()), 64);
        } catch (java.net.BindException e) {
            throw new java.net.BindException("port " + options.port() + " of 127.0.0.1 is taken (" + e.getMessage()
                    + "); pick another with --port, or omit it for a free one");
        }
        AtomicInteger threads = new AtomicInteger();
        ExecutorService executor = Executors.newFixedThreadPool(THREADS, r -> {
            Thread t = new Thread(r, "funes-ui-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        Access access = new Access(server.getAddress().getPort());
        UiServer ui = new UiServer(server, executor, access, new Pages(store, options));
        server.createContext("/", ui::handle);
        server.setExecutor(executor);
        server.start();
        return ui;
    }

    /** The address the server listens on: always a loopback address. */
    public InetSocketAddress address() {
        return server.getAddress();
    }

    /** The port the server listens on. */
    public int port() {
        return server.getAddress().getPort();
    }

    /**
     * The link to open, with the one-time token; after it was opened once it opens nothing (the
     * token is spent) and this is {@code null}.
     */
    public URI link() {
        String token = access.token();
        return token == null ? null : URI.create(base() + "/?token=" + token);
    }

    /** A new one-time link, replacing one not yet opened: to let another browser in. */
    public URI newLink() {
        return URI.create(base() + "/?token=" + access.renewToken());
    }

    private String base() {
        return "http://127.0.0.1:" + port();
    }

    /**
     * Runs {@code task} once the first page has been sent, or at once if it has: for work that
     * later pages want but the first does not (loading the model for searches), so that it does
     * not compete with that page for the processor. It runs on the thread that sent the page, so
     * it should only start longer work on a thread of its own; what it throws is ignored.
     */
    public void afterFirstPage(Runnable task) {
        firstPage.thenRun(Objects.requireNonNull(task, "task"));
    }

    /** Stops listening; answers in progress get a second to finish. Idempotent. */
    @Override
    public void close() {
        server.stop(1);
        executor.shutdown();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void handle(HttpExchange exchange) throws IOException {
        Reply reply;
        try (exchange) {
            try {
                reply = route(exchange);
            } catch (RuntimeException e) {
                reply = Reply.html(e instanceof StoreException ? 503 : 500,
                        Layout.message("Something went wrong", oneLine(e)));
            }
            send(exchange, reply);
        }
        if (reply.status() == 200 && reply.contentType().startsWith("text/html")) {
            firstPage.complete(null); // the exchange is closed: the page is out
        }
    }

    private Reply route(HttpExchange exchange) throws IOException {
        Headers headers = exchange.getRequestHeaders();
        String method = exchange.getRequestMethod();
        URI uri = exchange.getRequestURI();
        String path = uri.getRawPath();
        Query query = Query.parse(uri.getRawQuery());
        if (!access.hostAllowed(headers)) {
            return Reply.html(403, Layout.message("Forbidden", "This server answers only to 127.0.0.1:" + port() + "."));
        }
        boolean read = method.equals("GET") || method.equals("HEAD");
        if (read && path.equals("/") && query.get("token") != null) {
            String session = access.exchange(query.get("token"));
            if (session == null) {
                return Reply.html(401, Layout.message("This link was used already",
                        "A link from funes ui opens the page once, in one browser. Run funes ui again for a new one."));
            }
            return Reply.redirect("/", Access.cookie(session)); // the token leaves the address bar and history
        }
        if (!access.hasSession(headers)) {
            return Reply.html(401, Layout.message("Not signed in",
                    "Open the link that funes ui printed (it holds a one-time token)."));
        }
        if (!read && !method.equals("POST")) {
            return Reply.html(405, Layout.message("Method not allowed", method + " is not answered here."));
        }
        if (!read && !access.originAllowed(headers)) {
            return Reply.html(403, Layout.message("Forbidden", "Changes are accepted only from this server's own pages."));
        }
        if (path.startsWith("/assets/")) {
            return Assets.get(path.substring("/assets/".length()));
        }
        Query form = read ? query : Query.parse(body(exchange));
        return pages.answer(method, path, form);
    }

    /** A form body, at most 64 KB (the forms here send a few short fields). */
    private static String body(HttpExchange exchange) throws IOException {
        try (InputStream in = exchange.getRequestBody()) {
            byte[] bytes = in.readNBytes(64 * 1024);
            return new String(bytes, StandardCharsets.UTF_8);
        }
    }

    private static void send(HttpExchange exchange, Reply reply) throws IOException {
        Headers out = exchange.getResponseHeaders();
        out.set("Content-Type", reply.contentType());
        out.set("Content-Security-Policy", CSP);
        out.set("X-Content-Type-Options", "nosniff");
        out.set("X-Frame-Options", "DENY");
        // Not no-referrer: with it Chromium sends "Origin: null" on the page's own form posts, which the Origin check refuses.
        out.set("Referrer-Policy", "same-origin");
        out.set("Cross-Origin-Opener-Policy", "same-origin");
        out.set("Cross-Origin-Resource-Policy", "same-origin");
        out.set("Cache-Control", "no-store");
        if (reply.location() != null) {
            out.set("Location", reply.location());
        }
        if (reply.cookie() != null) {
            out.set("Set-Cookie", reply.cookie());
        }
        boolean head = exchange.getRequestMethod().equals("HEAD");
        exchange.sendResponseHeaders(reply.status(), head || reply.body().length == 0 ? -1 : reply.body().length);
        if (!head && reply.body().length > 0) {
            try (OutputStream body = exchange.getResponseBody()) {
                body.write(reply.body());
            }
        }
    }

    static String oneLine(Throwable e) {
        String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return m.replace('\n', ' ').strip();
    }

    /** Static files of the page, from this jar only; a fixed list, so no path reaches the file system. */
    static final class Assets {

        private static final Map<String, String> TYPES = Map.of(
                "funes.css", "text/css; charset=utf-8",
                "funes.svg", "image/svg+xml");

        private Assets() {
        }

        static Reply get(String name) throws IOException {
            String type = TYPES.get(name);
            InputStream in = type == null ? null : UiServer.class.getResourceAsStream("assets/" + name);
            if (in == null) {
                return Reply.html(404, Layout.message("Not found", "No such file."));
            }
            try (in) {
                return new Reply(200, type, in.readAllBytes(), null, null);
            }
        }
    }
}
