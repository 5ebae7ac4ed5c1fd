package dev.funes.solr;

import dev.funes.StoreException;
import org.apache.solr.client.solrj.SolrClient;
import org.apache.solr.client.solrj.SolrRequest;
import org.apache.solr.client.solrj.SolrServerException;
import org.apache.solr.client.solrj.impl.BaseHttpSolrClient;
import org.apache.solr.client.solrj.impl.HttpJdkSolrClient;
import org.apache.solr.common.SolrException;
import org.apache.solr.common.util.NamedList;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The HTTP clients of one team collection, one per node of its {@link TeamUrl}: a request goes
 * to the node that answered last and, when that node cannot be reached, to the next one (every
 * request Funes sends is safe to repeat: adds and deletes by id). Solr's errors become
 * {@link StoreException}s that name the collection and, for refused credentials, the user, never
 * the password. Thread-safe; close it when done.
 */
public final class TeamConnection implements AutoCloseable {

    private final TeamUrl url;
    private final String user;
    private final List<SolrClient> clients = new ArrayList<>();
    private final AtomicInteger preferred = new AtomicInteger();

    private TeamConnection(TeamUrl url, Optional<TeamCredentials> credentials) {
        this.url = url;
        this.user = credentials.map(TeamCredentials::user).orElse(null);
        for (URI node : url.nodes()) {
            HttpJdkSolrClient.Builder b = new HttpJdkSolrClient.Builder(node.toString())
                    .withDefaultCollection(url.collection())
                    .withConnectionTimeout(10, TimeUnit.SECONDS)
                    .withRequestTimeout(120, TimeUnit.SECONDS)
                    // Plain http: HTTP/1.1, sparing Solr the probe an h2c upgrade needs; https
                    // negotiates HTTP/2.
                    .useHttp1_1(!"https".equals(node.getScheme()));
            credentials.ifPresent(c -> b.withBasicAuthCredentials(c.user(), c.password()));
            clients.add(b.build());
        }
    }

    /** Connects (lazily: nothing is sent yet) to the team collection with these credentials, if any. */
    public static TeamConnection open(TeamUrl url, Optional<TeamCredentials> credentials) {
        return new TeamConnection(Objects.requireNonNull(url, "url"), Objects.requireNonNull(credentials, "credentials"));
    }

    /** The collection's URL. */
    public TeamUrl url() {
        return url;
    }

    /** Sends a request to the collection; {@code what} says what it does, for errors. */
    NamedList<Object> request(SolrRequest<?> request, String what) {
        return send(request, url.collection(), what);
    }

    /** Sends a request to the cluster (admin APIs: configsets, collections). */
    NamedList<Object> admin(SolrRequest<?> request, String what) {
        return send(request, null, what);
    }

    private NamedList<Object> send(SolrRequest<?> request, String collection, String what) {
        int start = preferred.get();
        Exception last = null;
        for (int i = 0; i < clients.size(); i++) {
            int n = (start + i) % clients.size();
            try {
                NamedList<Object> response = clients.get(n).request(request, collection);
                preferred.set(n);
                return response;
            } catch (SolrServerException | IOException e) {
                if (!unreachable(e)) {
                    throw failure(what, e);
                }
                last = e;
            } catch (SolrException e) {
                throw failure(what, e);
            }
        }
        throw failure(what, last);
    }

    /** Whether the node could not be reached at all, so that another may be asked. */
    private static boolean unreachable(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ConnectException || t instanceof HttpConnectTimeoutException
                    || t instanceof java.nio.channels.ClosedChannelException) {
                return true;
            }
            if (t instanceof IOException && !(t instanceof HttpTimeoutException)
                    && String.valueOf(t.getMessage()).contains("Connection refused")) {
                return true;
            }
        }
        return false;
    }

    /** A store error for a failed request: what failed, where, why, in words a user can act on. */
    StoreException failure(String what, Exception e) {
        int code = e instanceof BaseHttpSolrClient.RemoteSolrException r ? r.code()
                : e instanceof SolrException s ? s.code() : 0;
        String where = "the team collection " + url;
        if (code == 401) {
            return new StoreException("cannot " + what + ": " + where + " refused the credentials"
                    + (user == null ? " (none were given: set " + TeamCredentials.USER_ENV + " and "
                    + TeamCredentials.PASSWORD_ENV + ", or a credentials file)" : " of user " + user)
                    + " (HTTP 401)", null);
        }
        if (code == 403) {
            return new StoreException("cannot " + what + ": user " + (user == null ? "(anonymous)" : user)
                    + " may not do this on " + where + " (HTTP 403); docs/TEAM.md shows the roles", null);
        }
        if (code == 404) {
            return new StoreException("cannot " + what + ": " + where + " does not exist (HTTP 404); create it with: "
                    + "funes team init " + url, null);
        }
        String reason = e == null ? "no node answered" : reason(e);
        return new StoreException("cannot " + what + " on " + where + ": " + reason, e == null ? null : e);
    }

    private static String reason(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String m = e.getMessage();
        if (m != null && m.length() > 300) {
            m = m.substring(0, 300) + "…";
        }
        return root == e ? String.valueOf(m) : m + " (" + root.getClass().getSimpleName() + ")";
    }

    /** Closes the HTTP clients. */
    @Override
    public void close() {
        for (SolrClient c : clients) {
            try {
                c.close();
            } catch (IOException ignored) {
                // closing an HTTP client frees memory only; nothing to report
            }
        }
    }

    /** The URL and the user, never the password. */
    @Override
    public String toString() {
        return "TeamConnection[" + url + (user == null ? "" : ", user " + user) + "]";
    }
}
