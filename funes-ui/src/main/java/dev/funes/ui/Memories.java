package dev.funes.ui;

import dev.funes.Memory;
import dev.funes.Provenance;
import dev.funes.SourceState;

/** How every page shows a memory's heading line and where it came from. */
final class Memories {

    private Memories() {
    }

    /** Rank (when above 0), kind, agent, time, session link and a note such as the score. */
    static void header(Html h, Memory m, int rank, String note) {
        h.raw("<div class=\"meta\">");
        if (rank > 0) {
            h.el("span", "rank", String.valueOf(rank));
        }
        h.el("span", "kind kind-" + m.kind().label(), m.kind().label()).el("span", "agent", m.agent())
         .el("span", "when", Pages.when(m));
        if (m.session() != null) {
            h.raw("<span class=\"session\">session ").link(Query.link("/session", "id", m.session()), shortId(m.session()))
             .raw("</span>");
        }
        if (m.project() != null) {
            h.el("span", "project", m.project());
        }
        if (note != null) {
            h.el("span", "note", note);
        }
        h.raw("</div>");
    }

    /**
     * The lines cited (the passage's when there is one, with the memory's range after it) and a
     * link to the log context; a note when the log changed since it was read.
     */
    static void citation(Html h, Memory m, Memory passage) {
        Provenance p = passage != null && passage.provenance() != null ? passage.provenance() : m.provenance();
        h.raw("<p class=\"cite\">");
        if (p == null) {
            h.text("recorded through the API; no log behind it");
        } else {
            h.raw("<code>").text(p.toString()).raw("</code>");
            if (p != m.provenance() && m.provenance() != null) {
                h.text(" (in " + m.provenance().lineStart() + "-" + m.provenance().lineEnd() + ")");
            }
            h.raw(" ").raw("<a class=\"context-link\" href=\"").text(Query.link("/context", "id", m.id(),
                    "passage", passage != null && passage.provenance() != null ? passage.id() : null)).raw("\">log context</a>");
            String changed = (passage != null ? passage : m).metadata().get(SourceState.CHANGED_KEY);
            if (changed != null) {
                h.el("span", "changed", " the log changed since (seen " + changed + "); these lines cite its earlier version");
            }
        }
        h.raw("</p>");
    }

    /** The first 8 characters of a long id, for display. */
    static String shortId(String id) {
        return id.length() > 12 ? id.substring(0, 8) + "…" : id;
    }
}
