package dev.funes.ui;

import dev.funes.Memory;
import dev.funes.MemoryStore;
import dev.funes.Provenance;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;

/**
 * A hit's log context: the cited lines of the original log, each record shown as who said what,
 * the cited range highlighted, with a few lines before and after. Only the file a stored memory
 * cites is ever read; a log that is gone or unreadable is said so, with the memory's own text.
 */
final class ContextPage {

    private final MemoryStore store;

    ContextPage(MemoryStore store) {
        this.store = store;
    }

    String render(Query q) {
        String id = q.get("id");
        if (id == null) {
            throw new IllegalArgumentException("which memory? the link names none (id=...)");
        }
        Memory memory = store.get(id).orElse(null);
        Html h = new Html();
        h.el("h1", null, "Log context");
        if (memory == null) {
            h.el("p", "error", "No memory " + id + " in this store (forgotten, or never stored).");
            return h.toString();
        }
        Memory passage = q.get("passage") == null ? null : store.get(q.get("passage")).orElse(null);
        Memories.header(h, memory, 0, null);
        Memories.citation(h, memory, passage);
        Provenance p = passage != null && passage.provenance() != null ? passage.provenance() : memory.provenance();
        if (p == null) {
            h.el("p", "notice", "This memory was recorded through the API: there is no log to show.");
            memoryText(h, memory);
            return h.toString();
        }
        if (!Files.isRegularFile(p.source())) {
            h.raw("<p class=\"notice missing\" id=\"missing\">").text("The log " + p.source()
                    + " no longer exists (moved or deleted since it was indexed). The memory's own text:").raw("</p>");
            memoryText(h, memory);
            return h.toString();
        }
        LogWindow window;
        try {
            window = LogWindow.read(p.source(), p.lineStart(), p.lineEnd());
        } catch (IOException e) {
            h.el("p", "notice missing", "The log " + p.source() + " cannot be read: " + UiServer.oneLine(e)
                    + ". The memory's own text:");
            memoryText(h, memory);
            return h.toString();
        }
        if (window.total()) {
            h.el("p", "notice", "The log is shorter than it was when indexed: it ends before line " + p.lineEnd() + ".");
        }
        h.raw("<ol class=\"log\">");
        for (int i = 0; i < window.lines().size(); i++) {
            int n = window.number(i);
            if (window.skipped() > 0 && n == window.skippedAfter() + window.skipped() + 1) {
                h.raw("<li class=\"gap\">").text(window.skipped() + " more cited lines").raw("</li>");
            }
            String line = window.lines().get(i);
            boolean cited = n >= p.lineStart() && n <= p.lineEnd();
            h.raw("<li class=\"").raw(cited ? "line cited" : "line").raw("\" id=\"L").num(n).raw("\" value=\"").num(n).raw("\">")
             .raw("<span class=\"n\">").num(n).raw("</span>");
            List<RecordView.Part> parts = RecordView.parts(line);
            for (RecordView.Part part : parts) {
                h.raw("<div class=\"part\"><span class=\"role role-").text(part.role().replace(' ', '-')).raw("\">")
                 .text(part.role()).raw("</span><pre>").text(part.text()).raw("</pre></div>");
            }
            if (line.strip().startsWith("{")) {
                h.raw("<details><summary>raw</summary><pre class=\"raw\">").text(line).raw("</pre></details>");
            }
            h.raw("</li>");
        }
        h.raw("</ol>");
        return h.toString();
    }

    private static void memoryText(Html h, Memory memory) {
        h.raw("<pre class=\"text\">").text(memory.text()).raw("</pre>");
    }
}
