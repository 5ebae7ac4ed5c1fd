package dev.funes.ui;

import dev.funes.SessionInfo;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.LongFunction;

/**
 * Plots drawn on the server as inline SVG: no script, nothing fetched. Colours come from the
 * stylesheet's {@code c0}..{@code c7} classes, one per series in sorted order; every label is
 * escaped.
 */
final class Plots {

    private static final int WIDTH = 880;
    private static final int COLOURS = 8;

    private Plots() {
    }

    /** The colour class of series {@code i}. */
    static String colour(int i) {
        return "c" + (i % COLOURS);
    }

    /**
     * Vertical bars, one per bucket, stacked by series, with a legend.
     *
     * @param buckets the bucket labels, in order
     * @param series  the series names, in legend order
     * @param counts  {@code counts[bucket][series]}
     */
    static String stacked(String title, List<String> buckets, List<String> series, long[][] counts) {
        int height = 220;
        int left = 44;
        int bottom = 40;
        int top = 12;
        long max = 1;
        for (long[] row : counts) {
            long sum = 0;
            for (long c : row) {
                sum += c;
            }
            max = Math.max(max, sum);
        }
        double slot = (WIDTH - left - 10) / (double) Math.max(1, buckets.size());
        double barWidth = Math.max(1, slot * 0.8);
        double plotHeight = height - top - bottom;
        Html h = new Html();
        h.raw("<svg class=\"chart\" role=\"img\" viewBox=\"0 0 ").num(WIDTH).raw(" ").num(height + 24L * ((series.size() + 5) / 6))
         .raw("\" xmlns=\"http://www.w3.org/2000/svg\"><title>").text(title).raw("</title>");
        axis(h, left, top, plotHeight, max);
        int labelEvery = Math.max(1, (int) Math.ceil(buckets.size() / 12.0));
        for (int b = 0; b < buckets.size(); b++) {
            double x = left + b * slot + (slot - barWidth) / 2;
            double y = top + plotHeight;
            for (int s = 0; s < series.size(); s++) {
                long c = counts[b][s];
                if (c == 0) {
                    continue;
                }
                double bh = c * plotHeight / max;
                y -= bh;
                h.raw("<rect class=\"").raw(colour(s)).raw("\" x=\"").raw(f(x)).raw("\" y=\"").raw(f(y)).raw("\" width=\"")
                 .raw(f(barWidth)).raw("\" height=\"").raw(f(bh)).raw("\"><title>").text(buckets.get(b) + " " + series.get(s)
                         + ": " + c).raw("</title></rect>");
            }
            if (b % labelEvery == 0) {
                h.raw("<text class=\"tick\" x=\"").raw(f(x + barWidth / 2)).raw("\" y=\"").raw(f(top + plotHeight + 16))
                 .raw("\" text-anchor=\"middle\">").text(buckets.get(b)).raw("</text>");
            }
        }
        legend(h, series, height);
        return h.raw("</svg>").toString();
    }

    private static void axis(Html h, int left, int top, double plotHeight, long max) {
        h.raw("<line class=\"axis\" x1=\"").num(left).raw("\" y1=\"").num(top).raw("\" x2=\"").num(left).raw("\" y2=\"")
         .raw(f(top + plotHeight)).raw("\"/>");
        h.raw("<line class=\"axis\" x1=\"").num(left).raw("\" y1=\"").raw(f(top + plotHeight)).raw("\" x2=\"").num(WIDTH - 10)
         .raw("\" y2=\"").raw(f(top + plotHeight)).raw("\"/>");
        for (long v : new long[] {0, max / 2, max}) {
            double y = top + plotHeight - v * plotHeight / max;
            h.raw("<text class=\"tick\" x=\"").num(left - 4).raw("\" y=\"").raw(f(y + 4)).raw("\" text-anchor=\"end\">").num(v)
             .raw("</text>");
        }
    }

    private static void legend(Html h, List<String> series, int y) {
        for (int s = 0; s < series.size(); s++) {
            int x = 44 + (s % 6) * 140;
            int row = y + (s / 6) * 20;
            h.raw("<rect class=\"").raw(colour(s)).raw("\" x=\"").num(x).raw("\" y=\"").num(row - 10).raw("\" width=\"10\" height=\"10\"/>")
             .raw("<text class=\"legend\" x=\"").num(x + 14).raw("\" y=\"").num(row).raw("\">").text(series.get(s)).raw("</text>");
        }
    }

    /** Horizontal bars, one per entry, largest first, each with its value as {@code format} writes it. */
    static String bars(String title, Map<String, Long> values, LongFunction<String> format) {
        List<Map.Entry<String, Long>> rows = new ArrayList<>(values.entrySet());
        rows.sort(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()));
        int rowHeight = 24;
        int left = 200;
        int height = Math.max(1, rows.size()) * rowHeight + 8;
        long max = 1;
        for (Map.Entry<String, Long> r : rows) {
            max = Math.max(max, r.getValue());
        }
        Html h = new Html();
        h.raw("<svg class=\"chart\" role=\"img\" viewBox=\"0 0 ").num(WIDTH).raw(" ").num(height)
         .raw("\" xmlns=\"http://www.w3.org/2000/svg\"><title>").text(title).raw("</title>");
        if (rows.isEmpty()) {
            h.raw("<text class=\"legend\" x=\"4\" y=\"18\">none</text>");
        }
        double total = 0;
        for (Map.Entry<String, Long> r : rows) {
            total += r.getValue();
        }
        for (int i = 0; i < rows.size(); i++) {
            Map.Entry<String, Long> r = rows.get(i);
            int y = 4 + i * rowHeight;
            double w = r.getValue() * (WIDTH - left - 160.0) / max;
            h.raw("<text class=\"label\" x=\"").num(left - 8).raw("\" y=\"").num(y + 15).raw("\" text-anchor=\"end\">")
             .text(r.getKey()).raw("</text>")
             .raw("<rect class=\"").raw(colour(i)).raw("\" x=\"").num(left).raw("\" y=\"").num(y + 3).raw("\" width=\"")
             .raw(f(Math.max(1, w))).raw("\" height=\"16\"/>")
             .raw("<text class=\"value\" x=\"").raw(f(left + Math.max(1, w) + 6)).raw("\" y=\"").num(y + 15).raw("\">")
             .text(format.apply(r.getValue()) + String.format(Locale.ROOT, "  (%.1f%%)", 100 * r.getValue() / total))
             .raw("</text>");
        }
        return h.raw("</svg>").toString();
    }

    /** Each session a bar from its first to its last memory, one row each, coloured by agent. */
    static String timeline(List<SessionInfo> sessions) {
        List<SessionInfo> timed = new ArrayList<>();
        TreeSet<String> agentSet = new TreeSet<>();
        for (SessionInfo s : sessions) {
            agentSet.add(s.agent());
            if (s.firstAt() != null && s.lastAt() != null) {
                timed.add(s);
            }
        }
        List<String> agents = new ArrayList<>(agentSet);
        timed.sort((a, b) -> a.firstAt().compareTo(b.firstAt()));
        int rowHeight = 16;
        int left = 10;
        int top = 24;
        int height = top + Math.max(1, timed.size()) * rowHeight + 10;
        Html h = new Html();
        h.raw("<svg class=\"chart timeline\" role=\"img\" viewBox=\"0 0 ").num(WIDTH).raw(" ").num(height + 24L * ((agents.size() + 5) / 6))
         .raw("\" xmlns=\"http://www.w3.org/2000/svg\"><title>sessions over time</title>");
        if (!timed.isEmpty()) {
            Instant min = timed.get(0).firstAt();
            Instant max = min;
            for (SessionInfo s : timed) {
                max = s.lastAt().isAfter(max) ? s.lastAt() : max;
            }
            double span = Math.max(1, max.getEpochSecond() - min.getEpochSecond());
            double width = WIDTH - left - 10;
            h.raw("<text class=\"tick\" x=\"").num(left).raw("\" y=\"14\">").text(Pages.when(min)).raw("</text>")
             .raw("<text class=\"tick\" x=\"").num(WIDTH - 10).raw("\" y=\"14\" text-anchor=\"end\">").text(Pages.when(max))
             .raw("</text>");
            for (int i = 0; i < timed.size(); i++) {
                SessionInfo s = timed.get(i);
                double x = left + (s.firstAt().getEpochSecond() - min.getEpochSecond()) * width / span;
                double w = Math.max(3, (s.lastAt().getEpochSecond() - s.firstAt().getEpochSecond()) * width / span);
                h.raw("<a href=\"").text(Query.link("/session", "id", s.session())).raw("\"><rect class=\"")
                 .raw(colour(agents.indexOf(s.agent()))).raw("\" x=\"").raw(f(x)).raw("\" y=\"").num(top + i * rowHeight)
                 .raw("\" width=\"").raw(f(w)).raw("\" height=\"").num(rowHeight - 3).raw("\"><title>")
                 .text(s.agent() + " " + s.session() + (s.project() == null ? "" : " in " + s.project()) + ": "
                         + s.memories() + " memories, " + Pages.when(s.firstAt()) + " to " + Pages.when(s.lastAt()))
                 .raw("</title></rect>");
                // The session's name beside its bar, on the side with room.
                boolean right = x + w < WIDTH / 2.0;
                h.raw("<text class=\"tick\" x=\"").raw(f(right ? x + w + 4 : x - 4)).raw("\" y=\"").num(top + i * rowHeight + 10L)
                 .raw(right ? "\">" : "\" text-anchor=\"end\">").text(Memories.shortId(s.session())).raw("</text></a>");
            }
        }
        legend(h, agents, height + 10);
        return h.raw("</svg>").toString();
    }

    private static String f(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }
}
