package dev.funes.solr;

import dev.funes.AddResult;
import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.Retrieval;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import dev.funes.SessionInfo;
import dev.funes.SourceCheckpoints;
import dev.funes.SourceState;
import dev.funes.SourceUpdate;
import dev.funes.StoreException;
import dev.funes.StoreStats;
import dev.funes.store.HybridRanking;
import org.apache.solr.client.solrj.SolrQuery;
import org.apache.solr.client.solrj.SolrRequest;
import org.apache.solr.client.solrj.request.QueryRequest;
import org.apache.solr.client.solrj.request.UpdateRequest;
import org.apache.solr.client.solrj.response.QueryResponse;
import org.apache.solr.common.SolrDocument;
import org.apache.solr.common.SolrDocumentList;
import org.apache.solr.common.SolrInputDocument;
import org.apache.solr.common.util.NamedList;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Collectors;

/**
 * A {@link MemoryStore} on a SolrCloud collection created by {@link TeamSetup#init}: the team's
 * shared memory. Each memory is one document with its text (BM25 over the text and its identifier
 * terms, analysed like the local store's full-text index), its vector (HNSW, cosine) and its
 * filter fields; a search asks Solr for the lexical and the kNN candidates, each filtered by
 * {@code fq}, and fuses and reranks them exactly as a local store does ({@link HybridRanking}).
 *
 * <p>How it keeps the {@link MemoryStore} contract on a cluster:
 * <ul>
 *   <li>Adds are idempotent by id: ids already in the collection are not sent again; texts
 *       whose vector the collection holds are not embedded again (the vector is read back).</li>
 *   <li>Every write ends with a commit that opens a new searcher on every replica, so once it
 *       returns the change is visible to every later search, from any machine; it is durable
 *       from the moment Solr acknowledges it (each replica's transaction log).</li>
 *   <li>Batches: a batch is sent and committed as a whole; while it is being committed, this
 *       store's searches leave its documents out, so they see all of it or none. Another
 *       process may see part of a batch for the moment its commit takes. A batch that fails
 *       part way is deleted again as far as the collection allows; a batch re-sent after a
 *       failure stores what was missing.</li>
 *   <li>Writes of one store are serialized; searches run concurrently.</li>
 * </ul>
 *
 * <p>{@link StoreStats#sessions()} and {@link StoreStats#vectors()} are exact while each shard
 * holds at most 100 distinct values, and Solr's estimate ({@code unique()}) beyond.
 */
public final class SolrMemoryStore implements MemoryStore, SourceCheckpoints {

    private static final int CHUNK = 500;

    private final TeamConnection conn;
    private final Embedder embedder;
    private final TeamOptions options;
    private final String modelId;
    private final int dimension;
    private final ReentrantLock writes = new ReentrantLock();
    private final Set<String> inFlight = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closed = new AtomicBoolean();

    private SolrMemoryStore(TeamConnection conn, Embedder embedder, TeamOptions options, String modelId, int dimension) {
        this.conn = conn;
        this.embedder = embedder;
        this.options = options;
        this.modelId = modelId;
        this.dimension = dimension;
    }

    /**
     * Opens the team collection behind {@code conn}, which this store then owns and closes.
     *
     * @throws StoreException if the collection cannot be reached, was not set up by
     *                        {@code funes team init}, or holds vectors of another model
     */
    public static SolrMemoryStore open(TeamConnection conn, Embedder embedder, TeamOptions options) {
        Objects.requireNonNull(conn, "conn");
        Objects.requireNonNull(embedder, "embedder");
        Objects.requireNonNull(options, "options");
        try {
            return open(conn, embedder, options, TeamSetup.meta(conn));
        } catch (RuntimeException e) {
            conn.close();
            throw e;
        }
    }

    private static SolrMemoryStore open(TeamConnection conn, Embedder embedder, TeamOptions options,
                                        SolrDocument meta) {
        if (meta == null) {
            throw new StoreException("the team collection " + conn.url() + " is not set up for Funes: run funes team init "
                    + conn.url());
        }
        String model = (String) meta.getFirstValue("model");
        int dim = ((Number) meta.getFirstValue("dimension")).intValue();
        if (!embedder.modelId().equals(model) || embedder.dimension() != dim) {
            throw new StoreException("the team collection " + conn.url() + " holds vectors of model " + model + " (" + dim
                    + " dimensions), not of " + embedder.modelId() + " (" + embedder.dimension()
                    + "): open it with that model");
        }
        return new SolrMemoryStore(conn, embedder, options, model, dim);
    }

    /** The collection's URL. */
    public TeamUrl url() {
        return conn.url();
    }

    private void ensureOpen() {
        if (closed.get()) {
            throw new IllegalStateException("the team store " + conn.url() + " is closed");
        }
    }

    // ---------------------------------------------------------------- writes

    @Override
    public AddResult addAll(Collection<Memory> memories) {
        return addAll(memories, (SourceState) null);
    }

    @Override
    public Optional<SourceCheckpoints> checkpoints() {
        return Optional.of(this);
    }

    @Override
    public AddResult addAll(Collection<Memory> memories, SourceState source) {
        return write(memories, source, List.of(), List.of(), Map.of()).stored();
    }

    /**
     * {@link #addAll(Collection)} with vectors already computed (by the same model), by
     * {@linkplain Memory#contentHash() text hash}: texts with one are not embedded. A memory the
     * redactor changes has another text, and is embedded.
     */
    public AddResult addWithVectors(Collection<Memory> memories, Map<String, float[]> vectorsByTextHash) {
        return write(memories, null, List.of(), List.of(), Objects.requireNonNull(vectorsByTextHash)).stored();
    }

    /**
     * Stores again, with their metadata as given, those of {@code memories} (after redaction)
     * that this store's origin published and whose metadata in the collection differs: a change
     * made in place after publishing (a memory marked {@link SourceState#CHANGED_KEY}) reaches
     * the team. Ids the collection lacks, or another origin published, are left alone.
     *
     * @return how many were stored again
     */
    public int republishChanged(Collection<Memory> memories) {
        Objects.requireNonNull(memories, "memories");
        ensureOpen();
        writes.lock();
        try {
            Map<String, Memory> byId = new LinkedHashMap<>();
            for (Memory m : memories) {
                Memory redacted = options.store().redactor().redact(Objects.requireNonNull(m, "memory")).memory();
                byId.putIfAbsent(redacted.id(), redacted);
            }
            Set<String> ours = options.origin() == null ? existing(byId.keySet(), "id")
                    : existing(byId.keySet(), "id", "origin:" + quote(options.origin()));
            Map<String, Memory> there = getAll(ours);
            List<Memory> changed = new ArrayList<>();
            for (String id : ours) {
                Memory published = there.get(id);
                if (published != null && !published.metadata().equals(byId.get(id).metadata())) {
                    changed.add(byId.get(id));
                }
            }
            return changed.isEmpty() ? 0 : write(List.of(), null, List.of(), changed, Map.of()).marked();
        } finally {
            writes.unlock();
        }
    }

    @Override
    public SourceUpdate replaceSource(Collection<Memory> memories, SourceState source, Set<String> keep) {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(keep, "keep");
        ensureOpen();
        writes.lock();
        try {
            List<Memory> cited = cited(source);
            List<String> gone = cited.stream().map(Memory::id).filter(id -> !keep.contains(id)).toList();
            return write(memories, source, gone, List.of(), Map.of());
        } finally {
            writes.unlock();
        }
    }

    @Override
    public SourceUpdate updateSource(Collection<Memory> memories, SourceState source, Set<String> keep,
                                     Set<String> replace) {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(keep, "keep");
        ensureOpen();
        writes.lock();
        try {
            List<String> gone = new ArrayList<>();
            List<Memory> marked = new ArrayList<>();
            for (Memory m : cited(source)) {
                if (keep.contains(m.id())) {
                    continue;
                }
                boolean isMarked = m.metadata().containsKey(SourceState.CHANGED_KEY);
                if (replace == null ? !isMarked : replace.contains(m.id())) {
                    gone.add(m.id());
                } else if (!isMarked) {
                    Map<String, String> md = new TreeMap<>(m.metadata());
                    md.put(SourceState.CHANGED_KEY, source.indexedAt().toString());
                    marked.add(new Memory(m.id(), m.kind(), m.text(), m.startedAt(), m.endedAt(), m.agent(),
                            m.project(), m.session(), m.provenance(), md));
                }
            }
            return write(memories, source, gone, marked, Map.of());
        } finally {
            writes.unlock();
        }
    }

    /** The memories cited from the checkpoint's file. */
    private List<Memory> cited(SourceState source) {
        String path = redactedPath(source.path());
        List<Memory> out = new ArrayList<>();
        for (SolrDocument d : all("doc:" + MemoryDocs.MEMORY + " AND source_path:" + quote(path), MemoryDocs.FIELDS,
                "read the memories of " + path)) {
            out.add(MemoryDocs.memory(d));
        }
        return out;
    }

    /**
     * The write path: redact, drop ids already stored, embed texts without a stored vector, send
     * the documents, deletions and checkpoint, commit.
     *
     * @param delete ids to delete in the same write
     * @param rewrite stored memories to store again with changed metadata (same ids)
     */
    private SourceUpdate write(Collection<Memory> memories, SourceState source, List<String> delete,
                               List<Memory> rewrite, Map<String, float[]> given) {
        Objects.requireNonNull(memories, "memories");
        ensureOpen();
        writes.lock();
        try {
            Map<String, Memory> byId = new LinkedHashMap<>();
            int repeated = 0;
            for (Memory m : memories) {
                Memory redacted = options.store().redactor().redact(Objects.requireNonNull(m, "memory")).memory();
                if (byId.putIfAbsent(redacted.id(), redacted) != null) {
                    repeated++;
                }
            }
            Set<String> stored = existing(byId.keySet(), "id");
            List<Memory> fresh = byId.values().stream().filter(m -> !stored.contains(m.id())).toList();
            Map<String, float[]> vectors = new HashMap<>();
            for (Memory m : fresh) {
                float[] v = given.get(m.contentHash());
                if (v != null && v.length == dimension) {
                    vectors.put(m.contentHash(), v);
                }
            }
            vectors.putAll(storedVectors(fresh.stream().map(Memory::contentHash).filter(h -> !vectors.containsKey(h))
                    .collect(Collectors.toCollection(HashSet::new))));
            Map<String, String> toEmbed = new LinkedHashMap<>();
            for (Memory m : fresh) {
                if (!vectors.containsKey(m.contentHash())) {
                    toEmbed.putIfAbsent(m.contentHash(), m.text());
                }
            }
            for (Memory m : rewrite) {
                if (!vectors.containsKey(m.contentHash())) {
                    vectors.putAll(storedVectors(Set.of(m.contentHash())));
                }
            }
            if (!toEmbed.isEmpty()) { // before anything is sent: a text that cannot be embedded stores nothing
                List<float[]> embedded = embedder.embedDocuments(new ArrayList<>(toEmbed.values()));
                int i = 0;
                for (String hash : toEmbed.keySet()) {
                    vectors.put(hash, embedded.get(i++));
                }
            }
            String batch = UUID.randomUUID().toString().replace("-", "");
            List<SolrInputDocument> docs = new ArrayList<>(fresh.size() + rewrite.size() + 1);
            for (Memory m : fresh) {
                docs.add(MemoryDocs.memory(m, vectors.get(m.contentHash()), batch, options.origin(), options.owner()));
            }
            for (Memory m : rewrite) {
                float[] v = vectors.get(m.contentHash());
                if (v != null) {
                    docs.add(MemoryDocs.memory(m, v, batch, options.origin(), options.owner()));
                }
            }
            if (source != null) {
                docs.add(MemoryDocs.source(source, redactedPath(source.path()), batch));
            }
            List<String> deleted = delete.isEmpty() ? List.of() : List.copyOf(existing(delete, "id"));
            inFlight.add(batch);
            try {
                send(docs, deleted, fresh);
            } finally {
                inFlight.remove(batch);
            }
            AddResult result = new AddResult(fresh.size(), stored.size() + repeated, toEmbed.size());
            return new SourceUpdate(result, deleted.size(), rewrite.size());
        } finally {
            writes.unlock();
        }
    }

    /** Sends and commits; on failure deletes what of {@code fresh} may have arrived, and throws. */
    private void send(List<SolrInputDocument> docs, List<String> deletes, List<Memory> fresh) {
        if (docs.isEmpty() && deletes.isEmpty()) {
            return;
        }
        try {
            for (int from = 0; from < docs.size(); from += CHUNK) {
                UpdateRequest u = new UpdateRequest();
                u.add(docs.subList(from, Math.min(docs.size(), from + CHUNK)));
                conn.request(u, "store " + docs.size() + " documents");
            }
            if (!deletes.isEmpty()) {
                UpdateRequest u = new UpdateRequest();
                u.deleteById(deletes);
                conn.request(u, "delete " + deletes.size() + " memories");
            }
            commit("commit a write");
        } catch (StoreException e) {
            try {
                if (!fresh.isEmpty()) {
                    UpdateRequest undo = new UpdateRequest();
                    undo.deleteById(fresh.stream().map(Memory::id).toList());
                    conn.request(undo, "take back a failed write");
                    commit("take back a failed write");
                }
            } catch (StoreException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /**
     * Makes the write visible on every replica before returning: a soft commit, waiting for the
     * new searchers. Durability comes from each replica's transaction log, which Solr replays
     * after a crash; the configset's autoCommit writes segments in the background.
     */
    private void commit(String what) {
        UpdateRequest commit = new UpdateRequest();
        commit.setAction(UpdateRequest.ACTION.COMMIT, true, true, true);
        conn.request(commit, what);
    }

    @Override
    public boolean delete(String id) {
        Objects.requireNonNull(id, "id");
        return deleteAll(List.of(id)) == 1;
    }

    /**
     * Deletes memories by id in one write (ids not stored are ignored).
     *
     * @return how many were stored
     */
    public int deleteAll(Collection<String> ids) {
        return deleteAll(ids, null);
    }

    /**
     * Deletes the memories with these ids that {@code origin} published (every one when it is
     * null), in one write: a publisher's deletions never touch another machine's memories.
     *
     * @return how many were deleted
     */
    public int deleteAll(Collection<String> ids, String origin) {
        ensureOpen();
        writes.lock();
        try {
            Set<String> stored = origin == null ? existing(ids, "id") : existing(ids, "id", "origin:" + quote(origin));
            if (!stored.isEmpty()) {
                for (List<String> chunk : chunks(new ArrayList<>(stored))) {
                    UpdateRequest u = new UpdateRequest();
                    u.deleteById(chunk);
                    conn.request(u, "delete " + chunk.size() + " memories");
                }
                commit("commit deletions");
            }
            return stored.size();
        } finally {
            writes.unlock();
        }
    }

    // ---------------------------------------------------------------- reads

    @Override
    public Optional<Memory> get(String id) {
        Objects.requireNonNull(id, "id");
        ensureOpen();
        SolrQuery q = new SolrQuery("{!term f=id v=$idv}");
        q.set("idv", id);
        q.addFilterQuery("doc:" + MemoryDocs.MEMORY);
        q.setFields(MemoryDocs.FIELDS);
        q.setRows(1);
        SolrDocumentList docs = query(q, "read memory " + id).getResults();
        return docs.isEmpty() ? Optional.empty() : Optional.of(MemoryDocs.memory(docs.get(0)));
    }

    /** The stored memories with these ids, by id; ids not stored are absent. */
    public Map<String, Memory> getAll(Collection<String> ids) {
        ensureOpen();
        Map<String, Memory> found = new HashMap<>();
        for (List<String> chunk : chunks(new ArrayList<>(new HashSet<>(ids)))) {
            SolrQuery q = new SolrQuery("{!terms f=id separator=\" \" v=$idlist}");
            q.set("idlist", String.join(" ", chunk)); // not "ids": Solr's distributed search reserves it
            q.addFilterQuery("doc:" + MemoryDocs.MEMORY);
            q.setFields(MemoryDocs.FIELDS);
            q.setRows(chunk.size());
            for (SolrDocument d : query(q, "read memories").getResults()) {
                Memory m = MemoryDocs.memory(d);
                found.put(m.id(), m);
            }
        }
        return found;
    }

    @Override
    public Optional<SourceState> source(Path file) {
        Objects.requireNonNull(file, "file");
        ensureOpen();
        String path = redactedPath(file);
        SolrQuery q = new SolrQuery("{!term f=id v=$idv}");
        q.set("idv", MemoryDocs.sourceId(path));
        q.setFields("source_json");
        q.setRows(1);
        SolrDocumentList docs = query(q, "read the checkpoint of " + path).getResults();
        return docs.isEmpty() ? Optional.empty() : Optional.of(MemoryDocs.source(docs.get(0)));
    }

    @Override
    public StoreStats stats() {
        ensureOpen();
        SolrQuery q = new SolrQuery("*:*");
        q.addFilterQuery("doc:" + MemoryDocs.MEMORY);
        q.setRows(0);
        q.set("json.facet", "{agents:{type:terms,field:agent,limit:-1,refine:true},"
                + "kinds:{type:terms,field:kind,limit:-1,refine:true},"
                + "sessions:\"unique(session_key)\",vectors:\"unique(text_hash)\"}");
        QueryResponse r = query(q, "compute statistics");
        NamedList<?> facets = facets(r);
        SolrQuery s = new SolrQuery("*:*");
        s.addFilterQuery("doc:" + MemoryDocs.SOURCE);
        s.setRows(0);
        long sources = query(s, "count checkpoints").getResults().getNumFound();
        return new StoreStats(r.getResults().getNumFound(), number(facets, "sessions"), sources,
                number(facets, "vectors"), buckets(facets, "agents"), buckets(facets, "kinds"), modelId, dimension,
                TeamSetup.indexBytes(conn), 0, Map.of());
    }

    @Override
    public List<SessionInfo> recentSessions(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, not " + limit);
        }
        ensureOpen();
        SolrQuery q = new SolrQuery("*:*");
        q.addFilterQuery("doc:" + MemoryDocs.MEMORY);
        q.setRows(0);
        // As the local store counts them: a session's memories without its passages (at least 1),
        // its first start and last end.
        q.set("json.facet", "{sessions:{type:terms,field:session_key,limit:" + limit
                + ",sort:\"last desc\",refine:true,facet:{last:\"max(time_ns)\",first:\"min(start_ns)\","
                + "own:{type:query,q:\"-kind:" + MemoryKind.PASSAGE.label() + "\"},"
                + "project:{type:terms,field:project,limit:1,sort:\"index desc\"}}}}");
        NamedList<?> facets = facets(query(q, "list recent sessions"));
        List<SessionInfo> out = new ArrayList<>();
        Object sessions = facets == null ? null : facets.get("sessions");
        if (sessions instanceof NamedList<?> nl && nl.get("buckets") instanceof List<?> buckets) {
            for (Object o : buckets) {
                NamedList<?> b = (NamedList<?>) o;
                String key = String.valueOf(b.get("val"));
                int sep = key.indexOf(MemoryDocs.SESSION_SEPARATOR);
                String project = null;
                if (b.get("project") instanceof NamedList<?> p && p.get("buckets") instanceof List<?> pb
                        && !pb.isEmpty()) {
                    project = String.valueOf(((NamedList<?>) pb.get(0)).get("val"));
                }
                long own = b.get("own") instanceof NamedList<?> ownFacet && ownFacet.get("count") instanceof Number c
                        ? c.longValue() : 0;
                out.add(new SessionInfo(key.substring(0, sep), key.substring(sep + 1), project,
                        instantOf(b.get("first")), instantOf(b.get("last")), Math.max(own, 1)));
            }
        }
        // Sessions without times last, as the local store lists them.
        out.sort((a, b) -> a.lastAt() == null ? (b.lastAt() == null ? 0 : 1) : b.lastAt() == null ? -1
                : b.lastAt().compareTo(a.lastAt()));
        return out;
    }

    @Override
    public List<SearchHit> search(SearchRequest request) {
        return searchTeam(request).stream().map(TeamHit::hit).toList();
    }

    /** {@link #search}, each hit with who published its memory. */
    public List<TeamHit> searchTeam(SearchRequest request) {
        Objects.requireNonNull(request, "request");
        ensureOpen();
        int k = HybridRanking.candidates(request, options.store());
        List<String> filters = filters(request);
        HybridRanking ranking = HybridRanking.of(request, options.store());
        Map<String, String[]> published = new HashMap<>();
        if (request.retrieval() != Retrieval.LEXICAL) {
            float[] query = embedder.embedQuery(request.query());
            // The local store's dense candidates are the k nearest vectors (one per text) with all
            // their memories; here every memory has its copy of its vector, so k nearest documents
            // may be fewer vectors: ask for more until k are in or the collection has no more.
            List<SolrDocument> nearest;
            for (int topK = 2 * k; ; topK *= 2) {
                SolrQuery q = new SolrQuery("{!knn f=vector topK=" + topK + "}" + vectorText(query));
                filters.forEach(q::addFilterQuery);
                q.setFields(MemoryDocs.FIELDS + ",score");
                q.setRows(topK);
                nearest = query(q, "search by meaning").getResults();
                long texts = nearest.stream().map(d -> vectorKey(MemoryDocs.memory(d))).distinct().count();
                if (texts >= k || nearest.size() < topK || topK >= 16 * k) {
                    break;
                }
            }
            Map<String, Integer> rankOfText = new HashMap<>();
            for (SolrDocument d : nearest) {
                Memory m = MemoryDocs.memory(d);
                if (!request.matches(m)) {
                    continue;
                }
                Integer known = rankOfText.get(vectorKey(m));
                if (known == null && rankOfText.size() == k) {
                    continue; // past the k nearest texts
                }
                int rank = known != null ? known : rankOfText.size() + 1;
                rankOfText.put(vectorKey(m), rank);
                // Lucene scores cosine as (1 + cos) / 2.
                double similarity = 2 * ((Number) d.getFirstValue("score")).doubleValue() - 1;
                ranking.dense(m, rank, similarity);
                published.put(m.id(), publisher(d));
            }
        }
        List<String> terms = request.retrieval() == Retrieval.DENSE ? List.of()
                : HybridRanking.queryTerms(request.query());
        if (!terms.isEmpty()) {
            SolrQuery q = new SolrQuery("{!lucene q.op=OR df=lex v=$terms}");
            q.set("terms", terms.stream().map(SolrMemoryStore::quote).collect(Collectors.joining(" ")));
            filters.forEach(q::addFilterQuery);
            q.setFields(MemoryDocs.FIELDS + ",score");
            q.setRows(k);
            int rank = 0;
            for (SolrDocument d : query(q, "search by words").getResults()) {
                Memory m = MemoryDocs.memory(d);
                if (!request.matches(m)) {
                    continue;
                }
                ranking.lexical(m, ++rank, ((Number) d.getFirstValue("score")).doubleValue());
                published.put(m.id(), publisher(d));
            }
        }
        List<SearchHit> hits = ranking.hits(this::getAll);
        List<TeamHit> out = new ArrayList<>(hits.size());
        for (SearchHit h : hits) {
            String[] p = published.getOrDefault(h.memory().id(), new String[2]);
            out.add(new TeamHit(h, p[0], p[1]));
        }
        return out;
    }

    /**
     * Which vector a memory has, as the local store shares them: its text's, or that of the text
     * {@link Memory#VECTOR_OF} names (a tool output's passage is found by meaning through its
     * exchange). Memories with one vector have one dense rank, as in the local store.
     */
    private static String vectorKey(Memory m) {
        return m.metadata().getOrDefault(Memory.VECTOR_OF, m.contentHash());
    }

    private static String[] publisher(SolrDocument d) {
        return new String[] {(String) d.getFirstValue("origin"), (String) d.getFirstValue("owner")};
    }

    /** The request's filters as {@code fq}s (the file filter is applied to the candidates). */
    private List<String> filters(SearchRequest r) {
        List<String> fq = new ArrayList<>();
        fq.add("doc:" + MemoryDocs.MEMORY);
        Set<String> pending = Set.copyOf(inFlight);
        if (!pending.isEmpty()) {
            fq.add("-batch:(" + String.join(" OR ", pending) + ")");
        }
        if (r.project() != null) {
            fq.add("project:" + quote(r.project()));
        }
        if (r.agent() != null) {
            fq.add("agent:" + quote(r.agent()));
        }
        if (r.session() != null) {
            fq.add("session:" + quote(r.session()));
        }
        if (!r.kinds().isEmpty()) {
            Set<String> labels = new java.util.TreeSet<>();
            for (MemoryKind kind : r.kinds()) {
                labels.add(kind.label());
                if (kind == MemoryKind.EXCHANGE) {
                    labels.add(MemoryKind.PASSAGE.label()); // a passage stands for its exchange
                }
            }
            fq.add("kind:(" + labels.stream().map(SolrMemoryStore::quote).collect(Collectors.joining(" OR ")) + ")");
        }
        if (r.after() != null || r.before() != null) {
            fq.add("time_ns:[" + (r.after() == null ? "*" : MemoryDocs.nanos(r.after())) + " TO "
                    + (r.before() == null ? "*]" : MemoryDocs.nanos(r.before()) + "}"));
        }
        return fq;
    }

    // ---------------------------------------------------------------- helpers

    /** The ids (or text hashes) of {@code values} that memories of the collection hold in {@code field}. */
    private Set<String> existing(Collection<String> values, String field, String... filters) {
        Set<String> found = new HashSet<>();
        for (List<String> chunk : chunks(new ArrayList<>(new HashSet<>(values)))) {
            SolrQuery q = new SolrQuery("{!terms f=" + field + " separator=\" \" v=$vals}");
            q.set("vals", String.join(" ", chunk));
            q.addFilterQuery("doc:" + MemoryDocs.MEMORY);
            for (String fq : filters) {
                q.addFilterQuery(fq);
            }
            q.setFields(field);
            q.setRows(chunk.size());
            for (SolrDocument d : query(q, "look up stored memories").getResults()) {
                found.add((String) d.getFirstValue(field));
            }
        }
        return found;
    }

    /** The stored vectors of these text hashes, by hash; hashes without one are absent. */
    private Map<String, float[]> storedVectors(Set<String> hashes) {
        Map<String, float[]> found = new HashMap<>();
        for (List<String> chunk : chunks(new ArrayList<>(hashes))) {
            SolrQuery q = new SolrQuery("{!terms f=text_hash separator=\" \" v=$vals}");
            q.set("vals", String.join(" ", chunk));
            q.addFilterQuery("doc:" + MemoryDocs.MEMORY);
            q.addFilterQuery("{!collapse field=text_hash}"); // one memory per text (per shard)
            q.setFields("text_hash,vector");
            q.setRows(chunk.size() * 8);
            for (SolrDocument d : query(q, "read stored vectors").getResults()) {
                float[] v = MemoryDocs.vector(d);
                if (v.length == dimension) {
                    found.putIfAbsent((String) d.getFirstValue("text_hash"), v);
                }
            }
        }
        return found;
    }

    /** Every document matching {@code q}, read with a cursor. */
    private List<SolrDocument> all(String q, String fields, String what) {
        List<SolrDocument> out = new ArrayList<>();
        String cursor = "*";
        while (true) {
            SolrQuery query = new SolrQuery(q);
            query.setFields(fields);
            query.setRows(1000);
            query.setSort("id", SolrQuery.ORDER.asc);
            query.set("cursorMark", cursor);
            QueryResponse r = query(query, what);
            out.addAll(r.getResults());
            String next = r.getNextCursorMark();
            if (next == null || next.equals(cursor)) {
                return out;
            }
            cursor = next;
        }
    }

    QueryResponse query(SolrQuery q, String what) {
        NamedList<Object> response = conn.request(new QueryRequest(q, SolrRequest.METHOD.POST), what);
        return new QueryResponse(response, null);
    }

    private String redactedPath(Path file) {
        return options.store().redactor().redactPath(file.toAbsolutePath().normalize()).toString();
    }

    private static List<List<String>> chunks(List<String> all) {
        List<List<String>> out = new ArrayList<>();
        for (int i = 0; i < all.size(); i += CHUNK) {
            out.add(all.subList(i, Math.min(all.size(), i + CHUNK)));
        }
        return out;
    }

    /** A term for the lucene query parser: quoted, with quotes and backslashes escaped. */
    static String quote(String value) {
        return '"' + value.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }

    private static String vectorText(float[] v) {
        StringBuilder s = new StringBuilder(v.length * 12).append('[');
        for (int i = 0; i < v.length; i++) {
            s.append(i == 0 ? "" : ",").append(v[i]);
        }
        return s.append(']').toString();
    }

    private static NamedList<?> facets(QueryResponse r) {
        Object f = r.getResponse().get("facets");
        return f instanceof NamedList<?> nl ? nl : null;
    }

    private static long number(NamedList<?> facets, String key) {
        Object v = facets == null ? null : facets.get(key);
        return v instanceof Number n ? n.longValue() : 0;
    }

    private static Map<String, Long> buckets(NamedList<?> facets, String key) {
        Map<String, Long> out = new HashMap<>();
        Object f = facets == null ? null : facets.get(key);
        if (f instanceof NamedList<?> nl && nl.get("buckets") instanceof List<?> buckets) {
            for (Object o : buckets) {
                NamedList<?> b = (NamedList<?>) o;
                out.put(String.valueOf(b.get("val")), ((Number) b.get("count")).longValue());
            }
        }
        return out;
    }

    private static Instant instantOf(Object nanos) {
        if (!(nanos instanceof Number n)) {
            return null;
        }
        long v = n.longValue();
        return Instant.ofEpochSecond(Math.floorDiv(v, 1_000_000_000L), Math.floorMod(v, 1_000_000_000L));
    }

    // ---------------------------------------------------------------- lifecycle

    /** Closes the connection; the embedder stays open (the caller owns it). Idempotent. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            conn.close();
        }
    }

    @Override
    public String toString() {
        return "SolrMemoryStore[" + conn.url() + "]";
    }
}
