package dev.funes.ui;

import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.StoreStats;
import dev.funes.store.FunesStore;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.time.temporal.IsoFields;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/** The overview: counts and sizes, memories over time per agent, the share of each kind, redactions by type. */
final class OverviewPage {

    private final MemoryStore store;

    OverviewPage(MemoryStore store) {
        this.store = store;
    }

    String render() {
        StoreStats stats = store.stats();
        Html h = new Html();
        h.el("h1", null, "Overview");
        h.raw("<dl class=\"stats\">");
        stat(h, "memories", String.valueOf(stats.memories()));
        stat(h, "sessions", String.valueOf(stats.sessions()));
        stat(h, "log files", String.valueOf(stats.sources()));
        stat(h, "vectors", String.valueOf(stats.vectors()));
        stat(h, "model", stats.modelId() + " (" + stats.dimension() + " dimensions)");
        stat(h, "on disk", Html.bytes(stats.databaseBytes() + stats.indexBytes()));
        h.raw("</dl>");

        Timeline t = timeline();
        h.el("h2", null, "Memories per " + t.unit + " per agent");
        h.raw("<figure class=\"plot\" id=\"plot-days\">").raw(Plots.stacked("memories per " + t.unit + " per agent",
                t.buckets, t.agents, t.counts)).raw("</figure>");
        if (t.untimed > 0) {
            h.el("p", "hint", t.untimed + " memories have no time and are not plotted.");
        }
        h.el("h2", null, "Share of each kind");
        h.raw("<figure class=\"plot\" id=\"plot-kinds\">").raw(Plots.bars("memories per kind", stats.byKind(), String::valueOf))
         .raw("</figure>");
        h.el("h2", null, "Store size");
        Map<String, Long> size = new LinkedHashMap<>();
        size.put("SQLite database", stats.databaseBytes());
        size.put("vector index", stats.indexBytes());
        h.raw("<figure class=\"plot\" id=\"plot-size\">").raw(Plots.bars("store size on disk", size, Html::bytes)).raw("</figure>");
        h.el("h2", null, "Redactions by type");
        h.raw("<figure class=\"plot\" id=\"plot-redactions\">").raw(Plots.bars("secrets redacted per type", stats.redactions(),
                String::valueOf)).raw("</figure>");
        if (stats.redactions().isEmpty()) {
            h.el("p", "hint", "No secrets were redacted from the stored memories.");
        }
        return h.toString();
    }

    private static void stat(Html h, String name, String value) {
        h.raw("<div>").el("dt", null, name).el("dd", null, value).raw("</div>");
    }

    /** Memories (passages not counted) per time bucket and agent. */
    private record Timeline(String unit, List<String> buckets, List<String> agents, long[][] counts, long untimed) {
    }

    private Timeline timeline() {
        Map<LocalDate, Map<String, Long>> perDay = new TreeMap<>();
        long[] untimed = {0};
        // Counted as the scan goes and nothing kept: the predicate answers false.
        FunesStore.vectors(store).scan(null, m -> {
            if (m.kind() != MemoryKind.PASSAGE) {
                Instant t = m.endedAt() != null ? m.endedAt() : m.startedAt();
                if (t == null) {
                    untimed[0]++;
                } else {
                    perDay.computeIfAbsent(LocalDate.ofInstant(t, ZoneOffset.UTC), d -> new TreeMap<>())
                          .merge(m.agent(), 1L, Long::sum);
                }
            }
            return false;
        });
        TreeSet<String> agentSet = new TreeSet<>();
        perDay.values().forEach(m -> agentSet.addAll(m.keySet()));
        List<String> agents = new ArrayList<>(agentSet);
        if (perDay.isEmpty()) {
            return new Timeline("day", List.of(), agents, new long[0][0], untimed[0]);
        }
        LocalDate first = ((TreeMap<LocalDate, Map<String, Long>>) perDay).firstKey();
        LocalDate last = ((TreeMap<LocalDate, Map<String, Long>>) perDay).lastKey();
        long days = ChronoUnit.DAYS.between(first, last) + 1;
        String unit = days <= 92 ? "day" : days <= 2 * 366 ? "week" : "month";
        Map<String, long[]> buckets = new LinkedHashMap<>();
        for (LocalDate d = start(first, unit); !d.isAfter(last); d = next(d, unit)) {
            buckets.put(label(d, unit), new long[agents.size()]);
        }
        perDay.forEach((day, byAgent) -> {
            long[] row = buckets.get(label(start(day, unit), unit));
            byAgent.forEach((agent, n) -> row[agents.indexOf(agent)] += n);
        });
        return new Timeline(unit, new ArrayList<>(buckets.keySet()), agents, buckets.values().toArray(long[][]::new), untimed[0]);
    }

    private static LocalDate start(LocalDate d, String unit) {
        return switch (unit) {
            case "week" -> d.minusDays(d.getDayOfWeek().getValue() - 1L);
            case "month" -> d.withDayOfMonth(1);
            default -> d;
        };
    }

    private static LocalDate next(LocalDate d, String unit) {
        return switch (unit) {
            case "week" -> d.plusWeeks(1);
            case "month" -> d.plusMonths(1);
            default -> d.plusDays(1);
        };
    }

    private static String label(LocalDate d, String unit) {
        return switch (unit) {
            case "week" -> d.get(IsoFields.WEEK_BASED_YEAR) + "-W" + String.format(java.util.Locale.ROOT, "%02d", d.get(IsoFields.WEEK_OF_WEEK_BASED_YEAR));
            case "month" -> d.toString().substring(0, 7);
            default -> d.toString();
        };
    }
}
