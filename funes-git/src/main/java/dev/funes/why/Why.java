package dev.funes.why;

import dev.funes.MemoryStore;
import dev.funes.StoreException;
import dev.funes.store.FunesStore;
import dev.funes.store.LinkTables;

import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * "Why is this so?": links a store's memories to the git commits of the repositories their
 * sessions ran in, and answers which decisions, exchanges and sessions are behind a commit, a file
 * (or one line of it) or a topic.
 *
 * <pre>{@code
 * try (MemoryStore store = FunesStore.open(dir, embedder)) {
 *     Why why = Why.over(store);
 *     why.link();                                   // after indexing; incremental
 *     for (WhyHit hit : why.why(WhyRequest.of("src/Parser.java:42"))) {
 *         System.out.println(hit.evidence().label() + " " + hit.confidence() + " " + hit.memory().text());
 *     }
 * }
 * }</pre>
 *
 * <p>Linking reads repositories with JGit (no git binary needed): the repositories are found
 * from the memories' projects (working directories) and may be named explicitly. Explicit evidence
 * comes first (commit output in the logs, Aider's commit notes, the HEAD a session ran on); links
 * are then inferred from the files a memory edited and the time of commits that changed them.
 * Each link keeps its evidence and a confidence. docs/WHY.md has the rules.
 *
 * <p>Thread-safe as far as the store is; holds no resources of its own (repositories are opened
 * and closed within each call).
 */
public final class Why {

    private final MemoryStore store;
    private final LinkTables tables;

    private Why(MemoryStore store, LinkTables tables) {
        this.store = store;
        this.tables = tables;
    }

    /**
     * The links of {@code store}; valid while it is open.
     *
     * @throws IllegalArgumentException if the store was not opened by {@link FunesStore}
     */
    public static Why over(MemoryStore store) {
        Objects.requireNonNull(store, "store");
        return new Why(store, FunesStore.links(store));
    }

    /** {@link #link(Collection)} with only the repositories found from the memories' projects. */
    public LinkReport link() {
        return link(List.of());
    }

    /**
     * Reads the commits added since the last pass to each repository the memories' projects are
     * in, and to {@code repositories} (folders in or above which a git repository is), and links
     * the memories stored since the last pass, then the new commits. Incremental: running it again
     * with nothing new reads nothing but the branch tips. A repository that cannot be read is
     * skipped and named in {@link LinkReport#problems()}.
     *
     * @throws StoreException if the store cannot be read or written
     */
    public LinkReport link(Collection<Path> repositories) {
        Objects.requireNonNull(repositories, "repositories");
        return new Linker(tables).run(repositories);
    }

    /**
     * The memories behind the request's target, strongest evidence first and, within one strength
     * (0.9 and up, 0.6 and up, 0.3 and up, below), newest first; each memory once, with the
     * strongest way it was found and a stale flag.
     *
     * @throws StoreException                if the store cannot be read
     * @throws dev.funes.EmbeddingException if a text target cannot be embedded
     */
    public List<WhyHit> why(WhyRequest request) {
        Objects.requireNonNull(request, "request");
        try (WhyQuery query = new WhyQuery(store, tables, request)) {
            return query.run();
        }
    }

    /** Stored links per evidence label (links of deleted memories are not counted). */
    public Map<String, Long> linkCounts() {
        return tables.linkCounts();
    }
}
