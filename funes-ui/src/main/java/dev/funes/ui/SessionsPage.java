package dev.funes.ui;

import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.SearchRequest;
import dev.funes.SessionInfo;
import dev.funes.store.FunesStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The sessions by project and agent on a timeline, and one session's memories in order. */
final class SessionsPage {

    /** Sessions listed at most: the latest. */
    static final int LIMIT = 500;

    private final MemoryStore store;

    SessionsPage(MemoryStore store) {
        this.store = store;
    }

    String renderAll() {
        List<SessionInfo> sessions = store.recentSessions(LIMIT);
        Html h = new Html();
        h.el("h1", null, "Sessions");
        if (sessions.isEmpty()) {
            h.el("p", "empty", "No sessions: index some logs with funes index.");
            return h.toString();
        }
        h.el("p", "hint", sessions.size() == LIMIT ? "The latest " + LIMIT + " sessions." : sessions.size() + " sessions.");
        h.raw("<figure class=\"plot\">").raw(Plots.timeline(sessions)).raw("</figure>");
        Map<String, List<SessionInfo>> byProject = new TreeMap<>();
        for (SessionInfo s : sessions) {
            byProject.computeIfAbsent(s.project() == null ? "(no project)" : s.project(), k -> new ArrayList<>()).add(s);
        }
        for (Map.Entry<String, List<SessionInfo>> project : byProject.entrySet()) {
            h.raw("<section class=\"project\">").el("h2", null, project.getKey())
             .raw("<table class=\"sessions\"><tr><th>agent</th><th>session</th><th>first</th><th>last</th><th>memories</th></tr>");
            List<SessionInfo> rows = new ArrayList<>(project.getValue());
            rows.sort(Comparator.comparing(SessionInfo::agent).thenComparing(SessionInfo::lastAt,
                    Comparator.nullsLast(Comparator.reverseOrder())));
            for (SessionInfo s : rows) {
                h.raw("<tr>").el("td", null, s.agent()).raw("<td>").link(Query.link("/session", "id", s.session()), s.session())
                 .raw("</td>").el("td", null, Pages.when(s.firstAt())).el("td", null, Pages.when(s.lastAt()))
                 .el("td", "num", String.valueOf(s.memories())).raw("</tr>");
            }
            h.raw("</table></section>");
        }
        return h.toString();
    }

    String renderOne(Query q, boolean allowForget) {
        String id = q.get("id");
        if (id == null) {
            throw new IllegalArgumentException("which session? the link names none (id=...)");
        }
        List<Memory> memories = FunesStore.vectors(store).scan(SearchRequest.builder("session").session(id).build(),
                m -> m.kind() != MemoryKind.PASSAGE);
        memories = new ArrayList<>(memories);
        memories.sort(Comparator.comparing((Memory m) -> m.startedAt() != null ? m.startedAt() : m.endedAt(),
                        Comparator.nullsLast(Comparator.<Instant>naturalOrder()))
                .thenComparing(m -> m.provenance() == null ? "" : m.provenance().source().toString())
                .thenComparingInt(m -> m.provenance() == null ? 0 : m.provenance().lineStart()));
        Html h = new Html();
        h.raw("<h1>Session <code>").text(id).raw("</code></h1>");
        if (memories.isEmpty()) {
            h.el("p", "empty", "No memories of this session in the store (forgotten, or never indexed).");
            return h.toString();
        }
        Memory first = memories.get(0);
        h.raw("<p class=\"hint\">").text(memories.size() + " memories, " + first.agent()
                + (first.project() == null ? "" : ", " + first.project())).raw("</p>");
        if (allowForget) {
            h.raw("<p class=\"actions\">").link(Query.link("/forget", "what", "session", "value", id), "forget this session")
             .raw("</p>");
        }
        h.raw("<ol class=\"memories\">");
        for (Memory m : memories) {
            h.raw("<li class=\"memory\" data-id=\"").text(m.id()).raw("\">");
            Memories.header(h, m, 0, null);
            Memories.citation(h, m, null);
            h.raw("<pre class=\"text\">").text(Pages.clip(m.text().strip(), 800)).raw("</pre>");
            if (allowForget) {
                h.raw("<p class=\"actions\">").link(Query.link("/forget", "what", "memory", "value", m.id()), "forget this memory")
                 .raw("</p>");
            }
            h.raw("</li>");
        }
        h.raw("</ol>");
        return h.toString();
    }
}
