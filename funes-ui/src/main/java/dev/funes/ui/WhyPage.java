package dev.funes.ui;

import dev.funes.Memory;
import dev.funes.why.Why;
import dev.funes.why.WhyHit;
import dev.funes.why.WhyRequest;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** Why: for a commit, a file (or file:line) or a question, the exchanges and decisions behind it, stale ones flagged. */
final class WhyPage {

    private static final int LIMIT = 20;

    private final Why why;
    private final Path base;

    WhyPage(Why why, Path base) {
        this.why = why;
        this.base = base;
    }

    String render(Query q) {
        Html h = new Html();
        h.el("h1", null, "Why");
        h.raw("<form class=\"search\" method=\"get\" action=\"/why\"><div class=\"query\">")
         .raw("<input type=\"search\" name=\"target\" id=\"target\" autofocus placeholder=\"a commit sha, src/File.java:42 or a question\" value=\"")
         .text(q.get("target", "")).raw("\"><button type=\"submit\" id=\"go\">Why</button></div></form>");
        String target = q.get("target");
        if (target == null) {
            h.el("p", "hint", "The decisions, exchanges and sessions behind a commit, a file or a topic, as funes why finds them"
                    + " (funes why --help; docs/WHY.md).");
            return h.toString();
        }
        List<WhyHit> hits = why.why(WhyRequest.of(target).withLimit(LIMIT).withBase(base));
        h.raw("<p class=\"count\" id=\"hit-count\">").num(hits.size()).text(hits.size() == 1 ? " memory" : " memories").raw("</p>");
        if (hits.isEmpty()) {
            h.el("p", "empty", "No memories are linked to that, and none match it.");
        }
        int rank = 1;
        for (WhyHit hit : hits) {
            Memory m = hit.memory();
            h.raw("<article class=\"hit").raw(hit.stale() ? " stale" : "").raw("\" data-id=\"").text(m.id()).raw("\">");
            Memories.header(h, m, rank++, String.format(Locale.ROOT, "%s %.2f", hit.evidence().label(), hit.confidence()));
            if (hit.commit() != null) {
                h.raw("<p class=\"commit\">commit <code>").text(hit.commit().substring(0, Math.min(12, hit.commit().length())))
                 .raw("</code> ").text(hit.commitTitle() == null ? "" : hit.commitTitle()).raw("</p>");
            }
            if (hit.stale()) {
                h.el("p", "stale-reason", "STALE: " + hit.staleReason());
            }
            Memories.citation(h, m, null);
            h.raw("<pre class=\"text\">").text(Pages.clip(m.text().strip(), 1200)).raw("</pre></article>");
        }
        return h.toString();
    }
}
