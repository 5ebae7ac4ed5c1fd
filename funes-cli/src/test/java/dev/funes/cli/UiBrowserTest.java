package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * {@code funes ui} in real headless Chromium (Debian's {@code chromium} and {@code chromium-driver},
 * driven by Selenium through {@code /usr/bin/chromedriver}, so nothing is downloaded) on a store
 * indexed from the real fixtures: search and open a hit's log context, follow a session, see a why
 * page and the overview, markup in a log shown as text, and forget a session, after which the page
 * and the CLI no longer find it. Each step saves a screenshot under
 * {@code target/ui-screenshots/}. One store, one {@code funes ui} process and one browser serve
 * the class; the tests run in order (forgetting last).
 *
 * <p>Without chromium and chromedriver the class is skipped, saying so, unless
 * {@code -Dfunes.ui.requireBrowser=true} (which {@code .ci/run} sets): then it fails.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class UiBrowserTest {

    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path FIXTURES = CliTest.SHARED.resolve("fixtures");
    private static final Path TINY = FIXTURES.resolve("claude-code/episodic-memory-tiny.jsonl");
    private static final List<Path> LOGS = List.of(TINY,
            FIXTURES.resolve("claude-code/episodic-memory-short.jsonl"),
            FIXTURES.resolve("codex/codemie-exec-repo-summary-v0.77.jsonl"));
    /** The session of episodic-memory-tiny.jsonl: the worktree and CI debugging on 2025-09-19. */
    private static final String TINY_SESSION = "67a8478e-78dc-44ab-82ea-f65c8ead85f6";
    private static final Duration PATIENCE = Duration.ofSeconds(60);
    private static final Path SCREENSHOTS = Path.of("target", "ui-screenshots");

    private Path store;
    private FunesProcess ui;
    private WebDriver browser;
    private String base;

    @BeforeAll
    void startTheServerAndTheBrowser(@TempDir Path tmp) throws Exception {
        boolean required = Boolean.getBoolean("funes.ui.requireBrowser");
        boolean present = Files.isExecutable(CHROMEDRIVER) && Files.isExecutable(CHROMIUM);
        if (!present && required) {
            fail("funes.ui.requireBrowser is set but " + CHROMIUM + " or " + CHROMEDRIVER
                    + " is missing: apt-get install chromium chromium-driver");
        }
        assumeTrue(present, "skipped: no " + CHROMIUM + " and " + CHROMEDRIVER
                + " (apt-get install chromium chromium-driver; -Dfunes.ui.requireBrowser=true makes this a failure)");
        for (Path log : LOGS) {
            assumeTrue(Files.isRegularFile(log), "skipped: " + log + " is absent (../shared/fixtures)");
        }
        Files.createDirectories(SCREENSHOTS);
        store = tmp.resolve("store");
        Path hostile = tmp.resolve("logs/hostile.jsonl");
        Files.createDirectories(hostile.getParent());
        Files.writeString(hostile, hostileLog(), StandardCharsets.UTF_8);
        List<String> args = new ArrayList<>(List.of("index", "--store", store.toString()));
        for (Path log : LOGS) {
            args.addAll(List.of("--index-path", log.toString()));
        }
        args.addAll(List.of("--index-path", hostile.toString()));
        CliTest.Result indexed = CliTest.funes(args.toArray(String[]::new));
        assertThat(indexed.status()).as(indexed.err()).isZero();

        ui = FunesProcess.start("512m", "ui", "--store", store.toString(), "--no-browser", "--allow-forget");
        String link = ui.awaitOut(l -> l.startsWith("http://127.0.0.1:"), PATIENCE);
        base = link.substring(0, link.indexOf("/?token="));

        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort()
                .withLogFile(new File("target/ui-screenshots/chromedriver.log")).build();
        ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM.toFile())
                .addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                        "--window-size=1280,1000", "--no-first-run", "--disable-background-networking",
                        "--disable-component-update", "--disable-sync", "--disable-extensions");
        browser = new ChromeDriver(service, options);
        browser.manage().timeouts().pageLoadTimeout(PATIENCE);
        browser.get(link);
        assertThat(browser.getCurrentUrl()).as("the token leaves the address bar").isEqualTo(base + "/");
    }

    @AfterAll
    void stop() throws Exception {
        if (browser != null) {
            browser.quit();
        }
        if (ui != null) {
            ui.close();
        }
    }

    /** A Claude Code log whose request holds markup a page must show as text, never run. */
    private static String hostileLog() {
        String common = "\"isSidechain\": false, \"userType\": \"external\", \"cwd\": \"/home/dev/zebra\", \"sessionId\": "
                + "\"0badc0de-0000-4000-8000-000000000001\", \"version\": \"2.0.5\", \"gitBranch\": \"main\"";
        return "{\"parentUuid\": null, " + common + ", \"type\": \"user\", \"message\": {\"role\": \"user\", \"content\": "
                + "\"Why does the zebra-quartz banner print <script>document.title='pwned'</script> and "
                + "<img src=x onerror=\\\"document.title='pwned'\\\">?\"}, \"uuid\": \"0badc0de-0000-4000-8000-000000000011\","
                + " \"timestamp\": \"2025-10-14T09:12:03.120Z\"}\n"
                + "{\"parentUuid\": \"0badc0de-0000-4000-8000-000000000011\", " + common + ", \"type\": \"assistant\","
                + " \"message\": {\"id\": \"msg_1\", \"type\": \"message\", \"role\": \"assistant\", \"model\": \"claude-sonnet-4-5\","
                + " \"content\": [{\"type\": \"text\", \"text\": \"The banner template interpolates the title unescaped.\"}]},"
                + " \"uuid\": \"0badc0de-0000-4000-8000-000000000012\", \"timestamp\": \"2025-10-14T09:12:09.450Z\"}\n";
    }

    @Test
    @Order(1)
    void searchAndOpenAHitsLogContext() throws IOException {
        browser.get(base + "/");
        WebElement q = browser.findElement(By.id("q"));
        q.sendKeys("why did CI check the wrong branch");
        browser.findElement(By.id("go")).click();
        await("search results", () -> !browser.findElements(By.id("hit-count")).isEmpty());
        List<WebElement> hits = browser.findElements(By.cssSelector("article.hit"));
        assertThat(hits).isNotEmpty();
        assertThat(browser.findElements(By.cssSelector("article.hit mark"))).as("the query's words marked").isNotEmpty();
        assertThat(hits.get(0).findElement(By.cssSelector("table.parts")).getText()).contains("dense").contains("lexical");
        WebElement tinyHit = hits.stream().filter(h -> h.getText().contains("episodic-memory-tiny.jsonl")).findFirst()
                .orElseThrow(() -> new AssertionError("no hit from the tiny log:\n" + browser.getPageSource()));
        shot("search");
        tinyHit.findElement(By.cssSelector("a.context-link")).click();
        await("the log context", () -> !browser.findElements(By.cssSelector("ol.log li.cited")).isEmpty());
        assertThat(browser.getCurrentUrl()).startsWith(base + "/context?");
        List<WebElement> cited = browser.findElements(By.cssSelector("ol.log li.cited"));
        assertThat(cited.get(0).getText()).isNotBlank();
        assertThat(browser.findElements(By.cssSelector("ol.log li.line:not(.cited)"))).as("lines around the range").isNotEmpty();
        assertThat(browser.findElements(By.cssSelector("ol.log .role-user, ol.log .role-assistant"))).isNotEmpty();
        shot("context");
    }

    @Test
    @Order(2)
    void followASessionFromTheTimeline() throws IOException {
        browser.get(base + "/sessions");
        assertThat(browser.findElements(By.cssSelector("svg.timeline rect"))).isNotEmpty();
        shot("sessions");
        browser.findElement(By.linkText(TINY_SESSION)).click();
        await("the session's memories", () -> !browser.findElements(By.cssSelector("li.memory")).isEmpty());
        assertThat(browser.findElement(By.tagName("h1")).getText()).contains(TINY_SESSION);
        List<WebElement> memories = browser.findElements(By.cssSelector("li.memory"));
        assertThat(memories).allSatisfy(m -> assertThat(m.getText()).contains("claude-code"));
        shot("session");
    }

    @Test
    @Order(3)
    void seeAWhyPage() throws IOException {
        browser.get(base + "/why");
        browser.findElement(By.id("target")).sendKeys("why did CI check out the wrong branch");
        browser.findElement(By.id("go")).click();
        await("why results", () -> !browser.findElements(By.id("hit-count")).isEmpty());
        assertThat(browser.findElements(By.cssSelector("article.hit"))).isNotEmpty();
        assertThat(browser.findElement(By.cssSelector("article.hit .meta")).getText()).containsPattern("search \\d\\.\\d\\d");
        shot("why");
    }

    @Test
    @Order(4)
    void seeTheOverviewPlots() throws IOException {
        browser.get(base + "/overview");
        for (String plot : List.of("plot-days", "plot-kinds", "plot-size", "plot-redactions")) {
            assertThat(browser.findElement(By.id(plot)).findElements(By.tagName("svg"))).as(plot).hasSize(1);
        }
        assertThat(browser.findElements(By.cssSelector("#plot-days rect"))).isNotEmpty();
        shot("overview");
    }

    @Test
    @Order(5)
    void markupInALogIsShownAsTextAndNeverRun() throws IOException {
        browser.get(base + "/search?q=zebra-quartz+banner&retrieval=lexical");
        await("search results", () -> !browser.findElements(By.id("hit-count")).isEmpty());
        assertThat(browser.findElement(By.id("main")).getText()).contains("<script>document.title='pwned'</script>");
        assertThat(browser.getTitle()).isNotEqualTo("pwned").contains("Search");
        assertThat(browser.findElements(By.cssSelector("main script, main img"))).isEmpty();
        browser.findElement(By.cssSelector("article.hit a.context-link")).click();
        await("the log context", () -> !browser.findElements(By.cssSelector("ol.log li.cited")).isEmpty());
        assertThat(browser.findElement(By.cssSelector("ol.log")).getText())
                .contains("<script>document.title='pwned'</script>").contains("<img src=x onerror=\"document.title='pwned'\">");
        assertThat(browser.getTitle()).isNotEqualTo("pwned").contains("Log context");
        assertThat(browser.findElements(By.cssSelector("main script, main img"))).isEmpty();
        shot("escaped");
    }

    @Test
    @Order(6)
    void forgetASessionThenTheSearchAndTheCliNoLongerFindIt() throws Exception {
        String query = "why did CI check the wrong branch";
        assertThat(cliSessions(query)).contains(TINY_SESSION);
        browser.get(base + "/session?id=" + TINY_SESSION);
        browser.findElement(By.linkText("forget this session")).click();
        await("the confirmation", () -> !browser.findElements(By.id("confirm-forget")).isEmpty());
        assertThat(browser.findElement(By.id("confirm-question")).getText()).startsWith("Forget ").contains(TINY_SESSION);
        shot("forget-confirm");
        browser.findElement(By.id("confirm-forget")).click();
        await("the deletion", () -> !browser.findElements(By.id("forgot")).isEmpty());
        assertThat(browser.findElement(By.id("forgot")).getText()).startsWith("Forgot ").contains("tombstones");
        shot("forgotten");

        browser.get(base + "/search?q=" + query.replace(' ', '+') + "&limit=50");
        await("search results", () -> !browser.findElements(By.id("hit-count")).isEmpty());
        assertThat(browser.findElement(By.id("main")).getText()).doesNotContain("episodic-memory-tiny.jsonl");
        browser.get(base + "/session?id=" + TINY_SESSION);
        assertThat(browser.findElement(By.id("main")).getText()).contains("No memories of this session");
        assertThat(cliSessions(query)).doesNotContain(TINY_SESSION).isNotEmpty();
    }

    /** The sessions of the CLI's hits for the query (its JSON), with the server still running. */
    private List<String> cliSessions(String query) throws IOException {
        CliTest.Result r = CliTest.funes("search", "--store", store.toString(), "--json", "--limit", "50", query);
        assertThat(r.status()).as(r.err()).isZero();
        List<String> sessions = new ArrayList<>();
        for (JsonNode hit : r.json()) {
            sessions.add(hit.path("session").asText());
        }
        return sessions;
    }

    /** Waits for the page to reach a state (a navigation the click started ends), failing with the page after the patience. */
    private void await(String what, Supplier<Boolean> reached) {
        Instant deadline = Instant.now().plus(PATIENCE);
        while (!reached.get()) {
            if (Instant.now().isAfter(deadline)) {
                fail("waited " + PATIENCE + " for " + what + " at " + browser.getCurrentUrl() + ":\n" + browser.getPageSource());
            }
            Thread.onSpinWait();
        }
    }

    private void shot(String name) throws IOException {
        Path png = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE).toPath();
        Files.copy(png, SCREENSHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
    }
}
