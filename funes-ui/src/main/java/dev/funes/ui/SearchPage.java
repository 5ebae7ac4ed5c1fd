package dev.funes.ui;

import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.Retrieval;
import dev.funes.ScoreParts;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

/**
 * The search page: a query with the CLI's filters (project, agent, session, kind, time, file,
 * retrieval, limit), and each hit with its passage, the query's words marked, its score parts and
 * a link to its log context.
 */
final class SearchPage {

    /** Characters of a hit's text shown; the log context has the rest. */
    private static final int SHOWN = 1500;

    private final MemoryStore store;
    private final FilterChoices choices;
    private final boolean allowForget;

    SearchPage(MemoryStore store, FilterChoices choices, boolean allowForget) {
        this.store = store;
        this.choices = choices;
        this.allowForget = allowForget;
    }

    String render(Query q) {
        Html h = new Html();
        h.el("h1", null, "Search");
        form(h, q);
        String text = q.get("q");
        if (text == null) {
            h.el("p", "hint", "Search every memory by meaning and by words; the filters narrow it as funes search's options do.");
            return h.toString();
        }
        SearchRequest request = request(text, q);
        long t0 = System.nanoTime();
        List<SearchHit> hits = store.search(request);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        h.raw("<p class=\"count\" id=\"hit-count\">").num(hits.size()).text(hits.size() == 1 ? " hit" : " hits")
         .text(" in " + ms + " ms").raw("</p>");
        if (hits.isEmpty()) {
            h.el("p", "empty", "No memory matches.");
        }
        List<String> terms = terms(text);
        int rank = 1;
        for (SearchHit hit : hits) {
            hit(h, hit, rank++, terms);
        }
        return h.toString();
    }

    private void form(Html h, Query q) {
        FilterChoices.Choices suggested = choices.get();
        h.raw("<form class=\"search\" method=\"get\" action=\"/search\">")
         .raw("<div class=\"query\"><input type=\"search\" name=\"q\" id=\"q\" autofocus placeholder=\"why did CI check the wrong branch\" value=\"")
         .text(q.get("q", "")).raw("\"><button type=\"submit\" id=\"go\">Search</button></div><div class=\"filters\">");
        suggest(h, "project", new TreeSet<>(suggested.projects()), q.get("project"));
        suggest(h, "agent", new TreeSet<>(suggested.agents()), q.get("agent"));
        List<String> kinds = new ArrayList<>();
        for (MemoryKind k : MemoryKind.values()) {
            if (k != MemoryKind.PASSAGE) {
                kinds.add(k.label());
            }
        }
        select(h, "kind", "kind", kinds, q.get("kind"));
        input(h, "session", "session", "text", q.get("session"));
        input(h, "after", "after", "date", q.get("after"));
        input(h, "before", "before", "date", q.get("before"));
        input(h, "file", "file", "text", q.get("file"));
        select(h, "retrieval", "retrieval", List.of("hybrid", "dense", "lexical"), q.get("retrieval", "hybrid"));
        input(h, "limit", "limit", "number", q.get("limit", String.valueOf(SearchRequest.DEFAULT_LIMIT)));
        h.raw("</div></form>");
    }

    private static void select(Html h, String name, String label, Iterable<String> values, String chosen) {
        h.raw("<label>").text(label).raw(" <select name=\"").raw(name).raw("\"><option value=\"\">any</option>");
        for (String v : values) {
            h.raw("<option value=\"").text(v).raw(v.equals(chosen) ? "\" selected>" : "\">").text(v).raw("</option>");
        }
        h.raw("</select></label>");
    }

    /** A text field with suggestions: any value can be typed, the latest sessions' values are offered. */
    private static void suggest(Html h, String name, Iterable<String> values, String value) {
        h.raw("<label>").text(name).raw(" <input type=\"text\" name=\"").raw(name).raw("\" list=\"").raw(name)
         .raw("-choices\" placeholder=\"any\" value=\"").text(value == null ? "" : value).raw("\"></label><datalist id=\"")
         .raw(name).raw("-choices\">");
        for (String v : values) {
            h.raw("<option value=\"").text(v).raw("\"></option>");
        }
        h.raw("</datalist>");
    }

    private static void input(Html h, String name, String label, String type, String value) {
        h.raw("<label>").text(label).raw(" <input type=\"").raw(type).raw("\" name=\"").raw(name).raw("\" value=\"")
         .text(value == null ? "" : value).raw("\"></label>");
    }

    /** The request the form describes; bad values throw {@link IllegalArgumentException} naming the field. */
    static SearchRequest request(String text, Query q) {
        SearchRequest.Builder b = SearchRequest.builder(text)
                .project(q.get("project")).agent(q.get("agent")).session(q.get("session"))
                .after(date("after", q.get("after"))).before(date("before", q.get("before"))).file(q.get("file"))
                .retrieval(Retrieval.fromLabel(q.get("retrieval", "hybrid")));
        if (q.get("kind") != null) {
            b.kinds(MemoryKind.fromLabel(q.get("kind")));
        }
        try {
            b.limit(Integer.parseInt(q.get("limit", String.valueOf(SearchRequest.DEFAULT_LIMIT))));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("limit '" + q.get("limit") + "' is not a number");
        }
        return b.build();
    }

    private static Instant date(String field, String value) {
        if (value == null) {
            return null;
        }
        try {
            return value.length() == 10 ? LocalDate.parse(value).atStartOfDay(ZoneOffset.UTC).toInstant() : Instant.parse(value);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(field + " '" + value + "' is neither an ISO date (2025-09-19) nor an instant");
        }
    }

    private void hit(Html h, SearchHit hit, int rank, List<String> terms) {
        Memory m = hit.memory();
        h.raw("<article class=\"hit\" data-id=\"").text(m.id()).raw("\">");
        Memories.header(h, m, rank, String.format(Locale.ROOT, "score %.4f", hit.score()));
        Memories.citation(h, m, hit.passage());
        if (hit.passage() != null) {
            String context = SearchHit.header(hit.passage());
            if (!context.isEmpty()) {
                h.el("p", "passage-context", "— " + context);
            }
        }
        String shown = Pages.clip((hit.passage() != null ? hit.passageText() : m.text()).strip(), SHOWN);
        h.raw("<pre class=\"text\">").marked(shown, marks(shown, terms)).raw("</pre>");
        for (Memory more : hit.morePassages()) {
            // Further passages of the memory (nearly as good a match, or query words the others lack), each with its lines.
            Memories.citation(h, m, more);
            String body = Pages.clip(SearchHit.body(more).strip(), SHOWN);
            h.raw("<pre class=\"text more\">").marked(body, marks(body, terms)).raw("</pre>");
        }
        parts(h, hit.parts());
        if (allowForget) {
            h.raw("<p class=\"actions\">").link(Query.link("/forget", "what", "memory", "value", m.id()), "forget this memory")
             .raw("</p>");
        }
        h.raw("</article>");
    }

    private static void parts(Html h, ScoreParts p) {
        h.raw("<table class=\"parts\"><tr><th>dense</th><th>lexical</th><th>rerank</th><th>score</th></tr><tr>")
         .el("td", null, p.denseRank() > 0 ? String.format(Locale.ROOT, "#%d  cos %.3f%s", p.denseRank(), p.denseSimilarity(),
                 p.hasContributions() ? String.format(Locale.ROOT, "  → %.4f", p.denseContribution()) : "") : "not a candidate")
         .el("td", null, p.lexicalRank() > 0 ? String.format(Locale.ROOT, "#%d  bm25 %.2f%s", p.lexicalRank(), p.lexicalScore(),
                 p.hasContributions() ? String.format(Locale.ROOT, "  → %.4f", p.lexicalContribution()) : "") : "not a candidate")
         .el("td", null, String.format(Locale.ROOT, "%+.4f", p.rerankAdjustment()))
         .el("td", null, String.format(Locale.ROOT, "%.4f", p.fused()))
         .raw("</tr></table>");
    }

    /** The query's words of two or more letters or digits, lower-case, longest first. */
    static List<String> terms(String query) {
        TreeSet<String> words = new TreeSet<>((a, b) -> a.length() != b.length() ? b.length() - a.length() : a.compareTo(b));
        for (String w : query.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}_]+")) {
            if (w.length() >= 2) {
                words.add(w);
            }
        }
        return new ArrayList<>(words);
    }

    /** Where the terms occur in {@code text}, case-insensitively, at the start of a word; disjoint, in order. */
    static List<int[]> marks(String text, List<String> terms) {
        List<int[]> marks = new ArrayList<>();
        int i = 0;
        while (i < text.length()) {
            int end = -1;
            if (i == 0 || !Character.isLetterOrDigit(text.charAt(i - 1))) {
                for (String t : terms) {
                    if (text.regionMatches(true, i, t, 0, t.length())) {
                        end = i + t.length();
                        break;
                    }
                }
            }
            if (end > 0) {
                marks.add(new int[] {i, end});
                i = end;
            } else {
                i++;
            }
        }
        return marks;
    }
}
