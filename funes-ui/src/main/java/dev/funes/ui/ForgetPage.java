package dev.funes.ui;

import dev.funes.Memory;
import dev.funes.MemoryStore;
import dev.funes.SearchRequest;
import dev.funes.store.ForgetReport;
import dev.funes.store.ForgetSelection;
import dev.funes.store.FunesStore;
import dev.funes.store.StoreVectors;
import java.util.ArrayList;
import java.util.List;

/**
 * Forgetting a memory, a session or a project, as {@code funes forget --id/--session/--project}
 * does: the memories with their passages, in one {@link FunesStore#forget} call, each leaving a
 * tombstone that export, push and pull carry. A GET shows what would go and asks; only the POST
 * that confirms deletes.
 */
final class ForgetPage {

    private final MemoryStore store;

    ForgetPage(MemoryStore store) {
        this.store = store;
    }

    /** What a form names: {@code what} is memory, session or project; {@code value} its id or name. */
    private record Target(String what, String value) {

        static Target of(Query q) {
            String what = q.get("what");
            String value = q.get("value");
            if (what == null || !(what.equals("memory") || what.equals("session") || what.equals("project")) || value == null) {
                throw new IllegalArgumentException("say what to forget: what=memory|session|project and its value");
            }
            return new Target(what, value);
        }

        String describe() {
            return what + " " + value;
        }
    }

    String confirm(Query q) {
        Target target = Target.of(q);
        ForgetSelection selection = select(target);
        Html h = new Html();
        h.el("h1", null, "Forget " + target.what);
        if (selection.isEmpty()) {
            h.el("p", "empty", "Nothing to forget: no memory of " + target.describe() + ".");
            return h.toString();
        }
        h.raw("<p class=\"confirm-question\" id=\"confirm-question\">").text("Forget " + selection.describe() + " of "
                + target.describe() + "? Each leaves a tombstone, so export, push and pull carry the deletion to other stores."
                + " This cannot be undone.").raw("</p>");
        h.raw("<form method=\"post\" action=\"/forget\" class=\"confirm\">")
         .raw("<input type=\"hidden\" name=\"what\" value=\"").text(target.what).raw("\">")
         .raw("<input type=\"hidden\" name=\"value\" value=\"").text(target.value).raw("\">")
         .raw("<button type=\"submit\" id=\"confirm-forget\" class=\"danger\">Forget</button> ")
         .raw("<a href=\"/\">Cancel</a></form>");
        h.el("h2", null, "What goes");
        h.raw("<ul class=\"doomed\">");
        int shown = 0;
        for (Memory m : selection.memories()) {
            if (shown++ == 50) {
                h.el("li", null, "… and " + (selection.memories().size() - 50) + " more");
                break;
            }
            h.raw("<li>").el("span", "kind", m.kind().label()).raw(" ").el("span", "when", Pages.when(m)).raw(" ")
             .text(Pages.clip(m.text().strip().replace('\n', ' '), 160)).raw("</li>");
        }
        h.raw("</ul>");
        return h.toString();
    }

    String perform(Query q) {
        Target target = Target.of(q);
        ForgetSelection selection = select(target);
        Html h = new Html();
        h.el("h1", null, "Forgotten");
        if (selection.isEmpty()) {
            h.el("p", "empty", "Nothing to forget: no memory of " + target.describe() + ".");
            return h.toString();
        }
        ForgetReport report = FunesStore.forget(store, selection.ids());
        h.raw("<p class=\"forgot\" id=\"forgot\">").text("Forgot " + report.memories() + " memories and " + report.passages()
                + " passages of " + target.describe() + "; " + report.total() + " tombstones for export and sync; "
                + report.vectorsExpunged() + " vectors dropped from the index files.").raw("</p>");
        h.raw("<p>").link("/", "Back to search").raw("</p>");
        return h.toString();
    }

    private ForgetSelection select(Target target) {
        StoreVectors vectors = FunesStore.vectors(store);
        List<Memory> matching = new ArrayList<>();
        switch (target.what) {
            case "memory" -> store.get(target.value).ifPresent(matching::add);
            case "session" -> matching.addAll(vectors.scan(SearchRequest.builder("forget").session(target.value).build(), null));
            default -> matching.addAll(vectors.scan(SearchRequest.builder("forget").project(target.value).build(), null));
        }
        return FunesStore.toForget(store, matching);
    }
}
