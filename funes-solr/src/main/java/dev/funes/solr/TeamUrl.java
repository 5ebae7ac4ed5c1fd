package dev.funes.solr;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Where a team collection lives: one or more Solr nodes and the collection's name, written
 * {@code http://host:8983/solr/funes} or, with several nodes to fail over between,
 * {@code http://a:8983/solr/funes,http://b:8983/solr/funes}. Any node of a SolrCloud cluster
 * answers for every collection, so one is enough; more keep a client working while one is down.
 *
 * <p>A URL never carries credentials ({@code user:password@host} is refused): a command line is
 * visible to every user of the machine. They come from {@link TeamCredentials}.
 *
 * @param nodes      the nodes' base URLs, each ending in the Solr context ({@code /solr})
 * @param collection the collection's name
 */
public record TeamUrl(List<URI> nodes, String collection) {

    /** Validates the fields. */
    public TeamUrl {
        nodes = List.copyOf(nodes);
        Objects.requireNonNull(collection, "collection");
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("a team URL names at least one Solr node");
        }
    }

    /**
     * Parses {@code http[s]://host:port/solr/COLLECTION}, several separated by commas.
     *
     * @throws IllegalArgumentException naming what is wrong (never echoing a password)
     */
    public static TeamUrl parse(String text) {
        Objects.requireNonNull(text, "text");
        List<URI> nodes = new ArrayList<>();
        String collection = null;
        for (String part : text.split(",")) {
            String p = part.strip();
            if (p.isEmpty()) {
                continue;
            }
            URI uri;
            try {
                uri = new URI(p);
            } catch (URISyntaxException e) {
                throw new IllegalArgumentException("not a team URL (want http://host:8983/solr/COLLECTION): "
                        + safe(p));
            }
            if (uri.getRawUserInfo() != null) {
                throw new IllegalArgumentException("a team URL must not hold credentials (command lines are visible to "
                        + "other users): set FUNES_TEAM_USER and FUNES_TEAM_PASSWORD, or a credentials file "
                        + "(docs/TEAM.md)");
            }
            if (uri.getScheme() == null || !(uri.getScheme().equals("http") || uri.getScheme().equals("https"))
                    || uri.getHost() == null) {
                throw new IllegalArgumentException("not a team URL (want http://host:8983/solr/COLLECTION): " + p);
            }
            String path = uri.getPath() == null ? "" : uri.getPath().replaceAll("/+$", "");
            int slash = path.lastIndexOf('/');
            if (slash <= 0 || slash == path.length() - 1) {
                throw new IllegalArgumentException("a team URL ends with the Solr context and the collection, as in "
                        + "http://host:8983/solr/COLLECTION: " + p);
            }
            String name = path.substring(slash + 1);
            if (collection != null && !collection.equals(name)) {
                throw new IllegalArgumentException("the nodes of one team URL name one collection, not " + collection
                        + " and " + name);
            }
            collection = name;
            nodes.add(URI.create(uri.getScheme() + "://" + uri.getRawAuthority() + path.substring(0, slash)));
        }
        if (collection == null) {
            throw new IllegalArgumentException("the team URL is empty");
        }
        return new TeamUrl(nodes, collection);
    }

    private static String safe(String p) {
        int at = p.indexOf('@');
        return at < 0 ? p : "…" + p.substring(at);
    }

    /** The URL as {@link #parse} reads it. */
    @Override
    public String toString() {
        StringBuilder s = new StringBuilder();
        for (URI node : nodes) {
            s.append(s.length() == 0 ? "" : ",").append(node).append('/').append(collection);
        }
        return s.toString();
    }
}
