package dev.funes.ui;

import dev.funes.Memory;
import dev.funes.MemoryStore;
import dev.funes.why.Why;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** Routes a signed-in request to its page. */
final class Pages {

    private static final DateTimeFormatter WHEN = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm").withZone(ZoneOffset.UTC);

    private final MemoryStore store;
    private final UiServer.Options options;
    private final Why why;
    private final FilterChoices choices;

    Pages(MemoryStore store, UiServer.Options options) {
        this.store = store;
        this.options = options;
        this.why = Why.over(store);
        this.choices = new FilterChoices(store);
        choices.refresh(); // read while the first page is being asked for
    }

    Reply answer(String method, String path, Query q) {
        boolean post = method.equals("POST");
        if (post && !path.equals("/forget")) {
            return Reply.html(405, Layout.message("Method not allowed", "Only forgetting is done with POST."));
        }
        try {
            return switch (path) {
                case "/", "/search" -> page("Search", "/", new SearchPage(store, choices, options.allowForget()).render(q));
                case "/context" -> page("Log context", "/", new ContextPage(store).render(q));
                case "/sessions" -> page("Sessions", "/sessions", new SessionsPage(store).renderAll());
                case "/session" -> page("Session", "/sessions", new SessionsPage(store).renderOne(q, options.allowForget()));
                case "/why" -> page("Why", "/why", new WhyPage(why, options.workingDirectory()).render(q));
                case "/overview" -> page("Overview", "/overview", new OverviewPage(store).render());
                case "/forget" -> forget(post, q);
                default -> Reply.html(404, Layout.page("Not found", "", "<h1>Not found</h1>", options.allowForget()));
            };
        } catch (IllegalArgumentException e) {
            // Bad input in a form (an unknown kind, an empty time range): say so on the page.
            Html h = new Html().el("h1", null, "Cannot do that").el("p", "error", UiServer.oneLine(e));
            return Reply.html(400, Layout.page("Bad request", "", h.toString(), options.allowForget()));
        }
    }

    private Reply forget(boolean post, Query q) {
        ForgetPage page = new ForgetPage(store);
        if (!options.allowForget()) {
            Html h = new Html().el("h1", null, "Read-only").el("p", "error",
                    "This page was started read-only. Run funes ui --allow-forget to forget from it, or use funes forget.");
            return Reply.html(403, Layout.page("Read-only", "", h.toString(), false));
        }
        return post ? page("Forgotten", "", page.perform(q)) : page("Forget", "", page.confirm(q));
    }

    private Reply page(String title, String active, String main) {
        return Reply.html(200, Layout.page(title, active, main, options.allowForget()));
    }

    /** A memory's time for people: its end (else its start) in UTC to the minute; empty when it has none. */
    static String when(Memory m) {
        Instant t = m.endedAt() != null ? m.endedAt() : m.startedAt();
        return when(t);
    }

    static String when(Instant t) {
        return t == null ? "" : WHEN.format(t) + "Z";
    }

    /** At most {@code max} characters of {@code text}, cut with an ellipsis. */
    static String clip(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max) + "…";
    }
}
