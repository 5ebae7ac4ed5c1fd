package dev.funes.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.funes.SearchRequest;
import dev.funes.solr.FederatedSearch;
import dev.funes.solr.TeamUrl;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * {@code funes search --team URL}: the local store and the team collection searched at once,
 * the rankings merged; each hit says where it came from. The team side failing prints a warning
 * and the local hits.
 */
final class TeamSearchRun {

    /** How long the team side may take past the local search. */
    static final long TIMEOUT_MILLIS = 15_000;

    private TeamSearchRun() {
    }

    static void run(OpenStore local, Path storeDir, String team, SearchRequest request, boolean json,
                    PrintWriter out, PrintWriter err) {
        TeamUrl url = TeamAccess.url(team);
        FederatedSearch.Result result = FederatedSearch.search(local.store(),
                () -> TeamAccess.open(url, local.embedder(), storeDir, null), request, TIMEOUT_MILLIS);
        result.warning().ifPresent(w -> err.println("warning: " + w));
        List<FederatedSearch.Hit> hits = result.hits();
        if (json) {
            ArrayNode array = HitJson.MAPPER.createArrayNode();
            for (FederatedSearch.Hit h : hits) {
                ObjectNode node = HitJson.hit(h.hit());
                node.put("from", h.source().name().toLowerCase(Locale.ROOT));
                if (h.origin() != null) {
                    node.put("origin", h.origin());
                }
                if (h.owner() != null) {
                    node.put("owner", h.owner());
                }
                array.add(node);
            }
            out.println(array.toPrettyString());
            return;
        }
        if (hits.isEmpty()) {
            out.println("no memories match");
            return;
        }
        int rank = 1;
        for (FederatedSearch.Hit h : hits) {
            StringWriter one = new StringWriter();
            HitText.print(List.of(h.hit()), new PrintWriter(one));
            String text = one.toString().replaceFirst("^1\\.", rank++ + ".");
            int firstLine = text.indexOf('\n') + 1;
            out.print(text.substring(0, firstLine));
            out.println("   from " + from(h));
            out.print(text.substring(firstLine));
        }
    }

    private static String from(FederatedSearch.Hit h) {
        String published = h.origin() == null ? "" : " (published from " + h.origin()
                + (h.owner() == null ? "" : " by " + h.owner()) + ")";
        return switch (h.source()) {
            case LOCAL -> "the local store";
            case TEAM -> "the team collection" + published;
            case BOTH -> "the local store and the team collection" + published;
        };
    }
}
