package dev.funes.ui;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.SearchRequest;
import dev.funes.store.FunesStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The page's security, against a real server on a real store indexed from real logs, with the
 * JDK's HTTP client (which follows no redirect and keeps no cookie unless told): the one-time
 * token, the session cookie, 401 for every page and asset without it, the Host and Origin checks,
 * no CORS, the CSP, loopback only, markup in memories shown as text, read-only by default.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class UiSecurityTest {

    private static final String HOSTILE_PASSAGE = "zebra-quartz";

    private final HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private TestStore test;
    private UiServer server;
    private String cookie;

    @BeforeAll
    void start(@TempDir Path tmp) throws IOException, InterruptedException {
        test = TestStore.build(tmp);
        server = UiServer.start(test.store, UiServer.Options.defaults().withAllowForget(true));
        cookie = signIn(server, server.link());
    }

    @AfterAll
    void stop() {
        if (server != null) {
            server.close();
        }
        if (test != null) {
            test.close();
        }
    }

    /** Opens a one-time link and returns the {@code Cookie} header value it set. */
    private String signIn(UiServer s, URI link) throws IOException, InterruptedException {
        HttpResponse<String> r = get(link, null);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(303);
        assertThat(r.headers().firstValue("Location")).hasValue("/");
        String setCookie = r.headers().firstValue("Set-Cookie").orElseThrow();
        return setCookie.substring(0, setCookie.indexOf(';'));
    }

    private HttpResponse<String> get(URI uri, String cookieHeader) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).GET().timeout(Duration.ofSeconds(60));
        if (cookieHeader != null) {
            b.header("Cookie", cookieHeader);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String pathAndQuery) throws IOException, InterruptedException {
        return get(uri(server, pathAndQuery), cookie);
    }

    private static URI uri(UiServer s, String pathAndQuery) {
        return URI.create("http://127.0.0.1:" + s.port() + pathAndQuery);
    }

    private HttpResponse<String> post(UiServer s, String path, String body, Map<String, String> headers)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(s, path)).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        headers.forEach(b::header);
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private String origin(UiServer s) {
        return "http://127.0.0.1:" + s.port();
    }

    private static final List<String> EVERY_PATH = List.of("/", "/search?q=wrong+branch", "/context?id=x",
            "/sessions", "/session?id=" + TestStore.TINY_SESSION, "/why?target=wrong+branch", "/overview",
            "/forget?what=session&value=" + TestStore.TINY_SESSION, "/assets/funes.css", "/assets/funes.svg", "/no-such-page");

    @Test
    void everyPageAndAssetAnswers401WithoutTheSessionCookie() throws Exception {
        for (String path : EVERY_PATH) {
            for (String c : new String[] {null, Access.COOKIE + "=forged", Access.COOKIE + "="}) {
                HttpResponse<String> r = get(uri(server, path), c);
                assertThat(r.statusCode()).as("%s with cookie %s", path, c).isEqualTo(401);
                assertThat(r.body()).doesNotContain("wrong branch").doesNotContain(TestStore.TINY_SESSION)
                        .doesNotContain("<svg");
            }
        }
        HttpResponse<String> forget = post(server, "/forget", "what=session&value=" + TestStore.TINY_SESSION,
                Map.of("Origin", origin(server)));
        assertThat(forget.statusCode()).isEqualTo(401);
        assertThat(test.store.get(anyTinyMemory().id())).isPresent();
    }

    @Test
    void withTheCookieEveryPageAnswers() throws Exception {
        for (String path : EVERY_PATH) {
            HttpResponse<String> r = get(path);
            int expected = path.equals("/no-such-page") ? 404 : path.startsWith("/context?id=x") ? 200 : 200;
            assertThat(r.statusCode()).as(path + "\n" + r.body()).isEqualTo(expected);
        }
        assertThat(get("/search?q=why+did+CI+check+the+wrong+branch").body())
                .contains("class=\"context-link\"").contains("episodic-memory-tiny.jsonl");
        assertThat(get("/overview").body()).contains("<svg").contains("claude-code");
        assertThat(get("/sessions").body()).contains(TestStore.TINY_SESSION);
    }

    @Test
    void theSearchFormSuggestsTheAgentsAndProjectsOfTheStore() throws Exception {
        // Read in the background when the server starts: wait for that state, never for a time.
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        String body = get("/").body();
        while (!body.contains("<option value=\"/home/dev/zebra\">") && System.nanoTime() < deadline) {
            Thread.onSpinWait();
            body = get("/").body();
        }
        assertThat(body).contains("<datalist id=\"project-choices\">").contains("<option value=\"/home/dev/zebra\">")
                .contains("<datalist id=\"agent-choices\"><option value=\"claude-code\">");
    }

    @Test
    void theLinkOpensOnceForOneCookieThatIsHttpOnlyAndSameSiteStrict() throws Exception {
        URI link = server.newLink();
        HttpResponse<String> first = get(link, null);
        assertThat(first.statusCode()).isEqualTo(303);
        String setCookie = first.headers().firstValue("Set-Cookie").orElseThrow();
        assertThat(setCookie).startsWith(Access.COOKIE + "=").contains("HttpOnly").contains("SameSite=Strict")
                .contains("Path=/");
        assertThat(server.link()).as("the token is spent").isNull();
        HttpResponse<String> again = get(link, null);
        assertThat(again.statusCode()).isEqualTo(401);
        assertThat(again.headers().firstValue("Set-Cookie")).isEmpty();
        assertThat(get(URI.create(link.toString().replaceAll("token=.*", "token=guess")), null).statusCode()).isEqualTo(401);
        String session = setCookie.substring(0, setCookie.indexOf(';'));
        assertThat(get(uri(server, "/sessions"), session).statusCode()).isEqualTo(200);
    }

    @Test
    void aStateChangingRequestFromAnotherOriginOrWithoutOneIsRefused() throws Exception {
        Memory doomed = sessionMemories(TestStore.DOOMED_SESSION).get(0);
        String body = "what=memory&value=" + doomed.id();
        for (Map<String, String> headers : List.of(
                Map.of("Cookie", cookie, "Origin", "http://evil.example"),
                Map.of("Cookie", cookie, "Origin", "http://127.0.0.1:" + (server.port() == 65535 ? 1 : server.port() + 1)),
                Map.of("Cookie", cookie, "Origin", "null"),
                Map.of("Cookie", cookie))) {
            HttpResponse<String> r = post(server, "/forget", body, headers);
            assertThat(r.statusCode()).as(headers.toString()).isEqualTo(403);
            assertThat(r.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
        }
        assertThat(test.store.get(doomed.id())).as("nothing forgotten").isPresent();
    }

    @Test
    void forgettingFromThePageDeletesTheSessionWithItsPassagesAsFunesForgetDoes() throws Exception {
        List<Memory> before = sessionMemories(TestStore.DOOMED_SESSION);
        assertThat(before).isNotEmpty();
        HttpResponse<String> confirm = get("/forget?what=session&value=" + TestStore.DOOMED_SESSION);
        assertThat(confirm.body()).contains("id=\"confirm-forget\"");
        assertThat(sessionMemories(TestStore.DOOMED_SESSION)).as("asking deletes nothing").hasSameSizeAs(before);

        HttpResponse<String> done = post(server, "/forget", "what=session&value=" + TestStore.DOOMED_SESSION,
                Map.of("Cookie", cookie, "Origin", origin(server)));
        assertThat(done.statusCode()).as(done.body()).isEqualTo(200);
        long passages = before.stream().filter(m -> m.kind() == MemoryKind.PASSAGE).count();
        assertThat(done.body()).contains("Forgot " + (before.size() - passages) + " memories and " + passages + " passages");
        assertThat(sessionMemories(TestStore.DOOMED_SESSION)).isEmpty();
        assertThat(test.store.search(SearchRequest.builder("quokka importer retry 503").limit(50).build()))
                .noneMatch(h -> TestStore.DOOMED_SESSION.equals(h.memory().session()));
        assertThat(get("/search?q=quokka+importer+retry").body()).doesNotContain(TestStore.DOOMED_SESSION);
    }

    @Test
    void aRequestNamingAnotherHostIsRefused() throws Exception {
        // A page of another site whose name was rebound to 127.0.0.1 sends its own name as Host.
        for (String host : List.of("evil.example:" + server.port(), "evil.example", "127.0.0.1.nip.io:" + server.port())) {
            String answer = raw("GET /sessions HTTP/1.1\r\nHost: " + host + "\r\nCookie: " + cookie + "\r\nConnection: close\r\n\r\n");
            assertThat(answer).as(host).startsWith("HTTP/1.1 403");
            assertThat(answer).doesNotContain(TestStore.TINY_SESSION);
        }
        assertThat(raw("GET /sessions HTTP/1.1\r\nHost: localhost:" + server.port() + "\r\nCookie: " + cookie
                + "\r\nConnection: close\r\n\r\n")).startsWith("HTTP/1.1 200");
    }

    private String raw(String request) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            socket.setSoTimeout(60_000);
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void answersCarryAStrictPolicyAndNoCorsHeader() throws Exception {
        for (String path : List.of("/", "/search?q=branch", "/overview", "/assets/funes.css")) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri(server, path)).header("Cookie", cookie)
                    .header("Origin", "http://evil.example").GET().build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.headers().firstValue("Content-Security-Policy")).hasValue(UiServer.CSP);
            assertThat(r.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
            assertThat(r.headers().firstValue("X-Frame-Options")).hasValue("DENY");
            assertThat(r.headers().map().keySet()).noneMatch(h -> h.toLowerCase(java.util.Locale.ROOT).startsWith("access-control-"));
        }
        assertThat(UiServer.CSP).contains("default-src 'none'").doesNotContain("unsafe").doesNotContain("script-src");
        HttpResponse<String> preflight = http.send(HttpRequest.newBuilder(uri(server, "/forget"))
                .method("OPTIONS", HttpRequest.BodyPublishers.noBody()).header("Cookie", cookie)
                .header("Origin", "http://evil.example").header("Access-Control-Request-Method", "POST").build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(preflight.statusCode()).isEqualTo(405);
        assertThat(preflight.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
    }

    @Test
    void theServerListensOnLoopbackOnly() throws Exception {
        assertThat(server.address().getAddress().isLoopbackAddress()).isTrue();
        List<InetAddress> others = new ArrayList<>();
        for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            for (InetAddress a : Collections.list(nic.getInetAddresses())) {
                if (!a.isLoopbackAddress() && !a.isLinkLocalAddress()) {
                    others.add(a);
                }
            }
        }
        assumeTrue(!others.isEmpty(), "skipped: this machine has no address but loopback to try");
        for (InetAddress a : others) {
            assertThatThrownBy(() -> {
                try (Socket s = new Socket()) {
                    s.connect(new InetSocketAddress(a, server.port()), 5000);
                }
            }).as("connecting on %s", a).isInstanceOf(ConnectException.class);
        }
    }

    @Test
    void markupInAMemoryIsShownAsTextOnEveryPage() throws Exception {
        Memory hostile = sessionMemories(TestStore.HOSTILE_SESSION).stream().filter(m -> m.kind() != MemoryKind.PASSAGE)
                .findFirst().orElseThrow();
        List<String> bodies = List.of(get("/search?q=" + HOSTILE_PASSAGE + "+banner&retrieval=lexical").body(),
                get("/session?id=" + TestStore.HOSTILE_SESSION).body(), get("/context?id=" + hostile.id()).body(),
                get("/why?target=zebra-quartz+banner").body());
        for (String body : bodies) {
            assertThat(body).contains("&lt;script&gt;document.title=&#39;pwned&#39;&lt;/script&gt;")
                    .contains("&lt;img src=x onerror=")
                    .doesNotContain("<script").doesNotContain("<img");
        }
    }

    @Test
    void theContextOfALogThatIsGoneSaysSoInsteadOfFailing() throws Exception {
        Memory vanished = sessionMemories(TestStore.VANISHED_SESSION).stream().filter(m -> m.kind() != MemoryKind.PASSAGE)
                .findFirst().orElseThrow();
        HttpResponse<String> r = get("/context?id=" + vanished.id());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("id=\"missing\"").contains("no longer exists").contains("walrus migration");
        HttpResponse<String> unknown = get("/context?id=ffffffffffffffffffffffffffffffff");
        assertThat(unknown.statusCode()).isEqualTo(200);
        assertThat(unknown.body()).contains("No memory ffffffffffffffffffffffffffffffff");
    }

    @Test
    void theContextShowsTheCitedLinesReadablyWithTheLinesAround() throws Exception {
        Memory tiny = anyTinyMemory();
        String body = get("/context?id=" + tiny.id()).body();
        int start = tiny.provenance().lineStart();
        assertThat(body).contains("<li class=\"line cited\" id=\"L" + start + "\"");
        assertThat(body).contains("class=\"role role-user\"");
        if (start > 1) {
            assertThat(body).contains("<li class=\"line\" id=\"L" + (start - 1) + "\"");
        }
    }

    @Test
    void aReadOnlyServerRefusesToForgetAndOffersNoForgetLinks() throws Exception {
        try (UiServer readOnly = UiServer.start(test.store, UiServer.Options.defaults())) {
            String c = signIn(readOnly, readOnly.link());
            Memory kept = anyTinyMemory();
            HttpResponse<String> r = post(readOnly, "/forget", "what=memory&value=" + kept.id(),
                    Map.of("Cookie", c, "Origin", origin(readOnly)));
            assertThat(r.statusCode()).isEqualTo(403);
            assertThat(r.body()).contains("--allow-forget");
            assertThat(test.store.get(kept.id())).isPresent();
            HttpResponse<String> page = get(uri(readOnly, "/session?id=" + TestStore.TINY_SESSION), c);
            assertThat(page.body()).doesNotContain("/forget?").contains("read-only");
            assertThat(get(uri(readOnly, "/sessions"), cookie).statusCode()).as("another server's cookie").isEqualTo(401);
        }
    }

    @Test
    void workForLaterPagesRunsOnceTheFirstPageIsOutNotBefore() throws Exception {
        try (UiServer fresh = UiServer.start(test.store, UiServer.Options.defaults())) {
            List<String> ran = Collections.synchronizedList(new ArrayList<>());
            CountDownLatch done = new CountDownLatch(1);
            fresh.afterFirstPage(() -> {
                ran.add(Thread.currentThread().getName());
                done.countDown();
            });
            assertThat(get(uri(fresh, "/"), null).statusCode()).isEqualTo(401);
            assertThat(get(uri(fresh, "/assets/funes.css"), null).statusCode()).isEqualTo(401);
            String c = signIn(fresh, fresh.link());
            assertThat(get(uri(fresh, "/assets/funes.css"), c).statusCode()).isEqualTo(200);
            assertThat(ran).as("after refusals, the link's redirect and a style sheet: no page yet").isEmpty();

            assertThat(get(uri(fresh, "/"), c).statusCode()).isEqualTo(200);
            // The task runs on the server's thread after the page was sent: wait for that state.
            assertThat(done.await(60, TimeUnit.SECONDS)).as("ran after the first page").isTrue();
            assertThat(ran).hasSize(1).allMatch(name -> name.startsWith("funes-ui-"));
            assertThat(get(uri(fresh, "/sessions"), c).statusCode()).isEqualTo(200);
            List<String> later = Collections.synchronizedList(new ArrayList<>());
            fresh.afterFirstPage(() -> later.add("at once"));
            assertThat(later).as("registered after the first page: runs at once").containsExactly("at once");
            assertThat(ran).as("once").hasSize(1);
        }
    }

    private List<Memory> sessionMemories(String session) {
        return FunesStore.vectors(test.store).scan(SearchRequest.builder("x").session(session).build(), null);
    }

    private Memory anyTinyMemory() {
        return sessionMemories(TestStore.TINY_SESSION).stream()
                .filter(m -> m.kind() == MemoryKind.EXCHANGE && m.provenance() != null).findFirst().orElseThrow();
    }
}
