package dev.funes.ui;

/** The frame every page shares: head, navigation, main; and the page shown for errors. */
final class Layout {

    private Layout() {
    }

    /** A whole page around {@code main} (markup built with {@link Html}). */
    static String page(String title, String active, String main, boolean allowForget) {
        Html h = new Html();
        h.raw("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
         .raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
         .raw("<meta name=\"referrer\" content=\"same-origin\">")
         .raw("<title>").text(title).raw(" · Funes</title>")
         .raw("<link rel=\"stylesheet\" href=\"/assets/funes.css\">")
         .raw("<link rel=\"icon\" href=\"/assets/funes.svg\" type=\"image/svg+xml\">")
         .raw("</head><body><header><a class=\"brand\" href=\"/\">Funes</a><nav>");
        nav(h, "/", "Search", active);
        nav(h, "/sessions", "Sessions", active);
        nav(h, "/why", "Why", active);
        nav(h, "/overview", "Overview", active);
        h.raw("</nav><span class=\"mode\">").text(allowForget ? "forget enabled" : "read-only").raw("</span></header>")
         .raw("<main id=\"main\" data-page=\"").text(active).raw("\">").raw(main).raw("</main></body></html>\n");
        return h.toString();
    }

    private static void nav(Html h, String href, String label, String active) {
        h.raw("<a href=\"").raw(href).raw("\"").raw(href.equals(active) ? " class=\"active\"" : "").raw(">")
         .text(label).raw("</a>");
    }

    /** A page that says what went wrong and what to do, without the navigation for a stranger. */
    static String message(String title, String message) {
        Html h = new Html();
        h.raw("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>").text(title)
         .raw(" · Funes</title></head><body><main class=\"message\">")
         .el("h1", null, title).el("p", null, message).raw("</main></body></html>\n");
        return h.toString();
    }
}
