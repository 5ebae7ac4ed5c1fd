package dev.funes.ui;

import java.util.List;
import java.util.Locale;

/**
 * A page being written: markup the code spells out goes in with {@link #raw}, everything that
 * comes from the store, a log or the request goes in with {@link #text}, which escapes it. No
 * memory text ever reaches the page unescaped, so a log holding {@code <script>} shows as text.
 */
final class Html {

    private final StringBuilder out = new StringBuilder(8192);

    /** Markup written by this module's code; never pass data here. */
    Html raw(String markup) {
        out.append(markup);
        return this;
    }

    /** Data, escaped for element content and quoted attribute values alike. */
    Html text(String data) {
        out.append(escape(data));
        return this;
    }

    /** A number, formatted without grouping. */
    Html num(long n) {
        out.append(n);
        return this;
    }

    /** An element holding escaped text: {@code <tag class="cls">data</tag>}. */
    Html el(String tag, String cls, String data) {
        out.append('<').append(tag);
        if (cls != null) {
            out.append(" class=\"").append(cls).append('"');
        }
        out.append('>').append(escape(data)).append("</").append(tag).append('>');
        return this;
    }

    /** A link to a path of this server, its text escaped; {@code href} is built by {@link Query}. */
    Html link(String href, String data) {
        out.append("<a href=\"").append(escape(href)).append("\">").append(escape(data)).append("</a>");
        return this;
    }

    /** The text with the ranges in {@code marks} (sorted, disjoint {start, end} pairs) in {@code <mark>}. */
    Html marked(String data, List<int[]> marks) {
        int at = 0;
        for (int[] m : marks) {
            out.append(escape(data.substring(at, m[0]))).append("<mark>").append(escape(data.substring(m[0], m[1])))
               .append("</mark>");
            at = m[1];
        }
        out.append(escape(data.substring(at)));
        return this;
    }

    @Override
    public String toString() {
        return out.toString();
    }

    /** {@code & < > " '} as entities; {@code null} as the empty string. */
    static String escape(String s) {
        if (s == null) {
            return "";
        }
        StringBuilder b = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            String r = switch (c) {
                case '&' -> "&amp;";
                case '<' -> "&lt;";
                case '>' -> "&gt;";
                case '"' -> "&quot;";
                case '\'' -> "&#39;";
                default -> null;
            };
            if (r != null || b != null) {
                if (b == null) {
                    b = new StringBuilder(s.length() + 16).append(s, 0, i);
                }
                if (r != null) {
                    b.append(r);
                } else {
                    b.append(c);
                }
            }
        }
        return b == null ? s : b.toString();
    }

    /** Bytes as KB, MB or GB with one decimal. */
    static String bytes(long n) {
        if (n < 1024) {
            return n + " B";
        }
        String[] units = {"KB", "MB", "GB", "TB"};
        double v = n;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }
}
