package dev.funes.ui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.funes.SessionInfo;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pieces pages are made of: escaping, marking the query's words, reading log records and windows, plots. */
class PagePartsTest {

    @Test
    void escapingLeavesNoMarkupAndNoWayOutOfAnAttribute() {
        assertThat(Html.escape("<a href=\"x\" onclick='y'>&amp;</a>"))
                .isEqualTo("&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;");
        assertThat(Html.escape("plain text")).isEqualTo("plain text");
        assertThat(Html.escape(null)).isEmpty();
        assertThat(new Html().marked("a <b> c", List.of(new int[] {2, 5})).toString()).isEqualTo("a <mark>&lt;b&gt;</mark> c");
    }

    @Test
    void theQuerysWordsAreMarkedAtWordStartsIgnoringCase() {
        List<String> terms = SearchPage.terms("Why did CI check the wrong-branch?");
        assertThat(terms).contains("why", "ci", "check", "wrong", "branch").doesNotContain("?");
        String text = "CI checked out the branch; the circle is not ci.";
        List<int[]> marks = SearchPage.marks(text, terms);
        List<String> marked = new ArrayList<>();
        marks.forEach(m -> marked.add(text.substring(m[0], m[1])));
        // "checked" starts with "check"; "circle" starts with "ci": both are word starts.
        assertThat(marked).containsExactly("CI", "check", "the", "branch", "the", "ci", "ci");
    }

    @Test
    void aClaudeCodeRecordShowsItsSpeakersAndToolCalls() {
        String user = "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"why is CI red?\"}}";
        assertThat(RecordView.parts(user)).containsExactly(new RecordView.Part("user", "why is CI red?"));
        String assistant = "{\"type\":\"assistant\",\"message\":{\"role\":\"assistant\",\"content\":["
                + "{\"type\":\"thinking\",\"thinking\":\"look at the workflow\"},"
                + "{\"type\":\"text\",\"text\":\"Checking the workflow.\"},"
                + "{\"type\":\"tool_use\",\"name\":\"Bash\",\"input\":{\"command\":\"cat ci.yml\"}}]}}";
        assertThat(RecordView.parts(assistant)).containsExactly(new RecordView.Part("thinking", "look at the workflow"),
                new RecordView.Part("assistant", "Checking the workflow."),
                new RecordView.Part("tool call", "Bash {\"command\":\"cat ci.yml\"}"));
        String result = "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\","
                + "\"content\":[{\"type\":\"text\",\"text\":\"on: push\"}]}]}}";
        assertThat(RecordView.parts(result)).containsExactly(new RecordView.Part("tool result", "on: push"));
    }

    @Test
    void aCodexRecordAndAMarkdownLineAreShownToo() {
        String call = "{\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"name\":\"shell\","
                + "\"arguments\":\"{\\\"cmd\\\":\\\"ls\\\"}\"}}";
        assertThat(RecordView.parts(call)).containsExactly(new RecordView.Part("tool call", "shell {\"cmd\":\"ls\"}"));
        String message = "{\"type\":\"response_item\",\"payload\":{\"type\":\"message\",\"role\":\"user\","
                + "\"content\":[{\"type\":\"input_text\",\"text\":\"summarise the repo\"}]}}";
        assertThat(RecordView.parts(message)).containsExactly(new RecordView.Part("user", "summarise the repo"));
        assertThat(RecordView.parts("#### add a test")).containsExactly(new RecordView.Part("user", "#### add a test"));
        assertThat(RecordView.parts("> Applied edit to a.py")).extracting(RecordView.Part::role).containsExactly("tool result");
        assertThat(RecordView.parts("{not json")).extracting(RecordView.Part::role).containsExactly("text");
        assertThat(RecordView.parts("   ")).isEmpty();
    }

    @Test
    void aWindowHoldsTheLinesAroundTheRangeAndElidesTheMiddleOfAHugeOne(@TempDir Path tmp) throws Exception {
        Path log = tmp.resolve("log.txt");
        List<String> lines = new ArrayList<>();
        for (int i = 1; i <= 1000; i++) {
            lines.add("line " + i);
        }
        Files.write(log, lines, StandardCharsets.UTF_8);
        LogWindow small = LogWindow.read(log, 10, 12);
        assertThat(small.first()).isEqualTo(5);
        assertThat(small.lines()).containsExactly("line 5", "line 6", "line 7", "line 8", "line 9", "line 10", "line 11",
                "line 12", "line 13", "line 14", "line 15", "line 16", "line 17");
        assertThat(small.skipped()).isZero();
        assertThat(small.total()).isFalse();

        LogWindow huge = LogWindow.read(log, 100, 900);
        assertThat(huge.lines()).hasSize(LogWindow.MAX_CITED + 2 * LogWindow.AROUND);
        assertThat(huge.skipped()).isEqualTo(801 - LogWindow.MAX_CITED);
        for (int i = 0; i < huge.lines().size(); i++) {
            assertThat(huge.lines().get(i)).isEqualTo("line " + huge.number(i));
        }
        assertThat(LogWindow.read(log, 998, 1200).total()).as("the file ends before the range").isTrue();
    }

    @Test
    void plotsEscapeTheirLabelsAndDrawOneBarPerValue() {
        String bars = Plots.bars("kinds", Map.of("<exchange>", 3L, "note", 1L), String::valueOf);
        assertThat(bars).startsWith("<svg").contains("&lt;exchange&gt;").doesNotContain("<exchange>");
        assertThat(bars.split("<rect", -1)).hasSize(3);
        String stacked = Plots.stacked("days", List.of("2025-09-19", "2025-09-20"), List.of("a", "b"),
                new long[][] {{1, 2}, {0, 4}});
        assertThat(stacked.split("<rect", -1)).as("3 bars and 2 legend keys").hasSize(6);
        String timeline = Plots.timeline(List.of(
                new SessionInfo("claude-code", "s<1>", "/p", Instant.parse("2025-09-19T10:00:00Z"), Instant.parse("2025-09-19T11:00:00Z"), 3),
                new SessionInfo("codex", "s2", null, null, null, 1)));
        assertThat(timeline).contains("/session?id=s%3C1%3E").contains("s&lt;1&gt;").doesNotContain("s<1>");
    }

    @Test
    void linksEncodeTheirValues() {
        assertThat(Query.link("/search", "q", "a b&c", "kind", null, "agent", "x/y"))
                .isEqualTo("/search?q=a%20b%26c&agent=x%2Fy");
        Query q = Query.parse("q=a%20b%26c&q=second&empty=&bad=%zz");
        assertThat(q.get("q")).isEqualTo("a b&c");
        assertThat(q.get("empty")).isNull();
        assertThat(q.get("bad")).isEqualTo("%zz");
    }
}
