package dev.funes.solr;

import dev.funes.StoreException;
import org.apache.solr.client.solrj.SolrQuery;
import org.apache.solr.client.solrj.SolrRequest;
import org.apache.solr.client.solrj.request.CollectionAdminRequest;
import org.apache.solr.client.solrj.request.ConfigSetAdminRequest;
import org.apache.solr.client.solrj.request.QueryRequest;
import org.apache.solr.client.solrj.request.UpdateRequest;
import org.apache.solr.client.solrj.response.QueryResponse;
import org.apache.solr.common.SolrDocument;
import org.apache.solr.common.SolrDocumentList;
import org.apache.solr.common.SolrInputDocument;
import org.apache.solr.common.util.ContentStreamBase;
import org.apache.solr.common.util.NamedList;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * Creates a team collection: uploads the configset this module ships (schema.xml with the
 * embedder's vector dimension, solrconfig.xml) and creates the collection from it, then records
 * the embedding model in the collection, so that every store opened on it embeds alike. What
 * {@code funes team init} runs; it needs Solr's admin rights (configset and collection APIs).
 */
public final class TeamSetup {

    /** The configset's files, as resources of this class. */
    static final List<String> CONFIG_FILES = List.of("schema.xml", "solrconfig.xml");

    private TeamSetup() {
    }

    /** What {@link #init} did. */
    public record Outcome(boolean created, String configSet, int shards, int replicas) {
    }

    /**
     * Uploads the configset {@code funes-DIMENSION} (replacing one of that name) and creates the
     * collection with {@code shards × replicas} cores, waiting until every replica is active, then
     * records the model. A collection that exists already is left as it is when it records the
     * same model (running init again is safe); another model is an error.
     *
     * @throws StoreException if Solr refuses or fails
     */
    public static Outcome init(TeamConnection conn, String modelId, int dimension, int shards, int replicas) {
        if (shards < 1 || replicas < 1) {
            throw new IllegalArgumentException("shards and replicas are at least 1");
        }
        String configSet = "funes-" + dimension;
        if (exists(conn)) {
            SolrDocument meta = meta(conn);
            if (meta != null) {
                String model = (String) meta.getFirstValue("model");
                if (!modelId.equals(model)) {
                    throw new StoreException("the team collection " + conn.url() + " exists with model " + model
                            + ", not " + modelId);
                }
                return new Outcome(false, configSet, shards, replicas);
            }
        } else {
            ConfigSetAdminRequest.Upload upload = new ConfigSetAdminRequest.Upload();
            upload.setConfigSetName(configSet);
            upload.setOverwrite(true);
            ContentStreamBase.ByteArrayStream zip = new ContentStreamBase.ByteArrayStream(configSetZip(dimension),
                    configSet + ".zip", "application/zip");
            upload.setUploadStream(zip);
            conn.admin(upload, "upload the configset " + configSet);
            CollectionAdminRequest.Create create = CollectionAdminRequest.createCollection(conn.url().collection(),
                    configSet, shards, replicas);
            create.setWaitForFinalState(true);
            conn.admin(create, "create the collection " + conn.url().collection());
        }
        SolrInputDocument meta = new SolrInputDocument();
        meta.setField("id", MemoryDocs.META_ID);
        meta.setField("doc", MemoryDocs.META);
        meta.setField("model", modelId);
        meta.setField("dimension", (long) dimension);
        UpdateRequest u = new UpdateRequest();
        u.add(meta);
        u.setAction(UpdateRequest.ACTION.COMMIT, true, true);
        conn.request(u, "record the model of the collection");
        return new Outcome(true, configSet, shards, replicas);
    }

    /** Whether the collection exists (a query that does not answer 404). */
    private static boolean exists(TeamConnection conn) {
        try {
            meta(conn);
            return true;
        } catch (StoreException e) {
            if (e.getMessage() != null && e.getMessage().contains("HTTP 404")) {
                return false;
            }
            throw e;
        }
    }

    /** The collection's model record, with a {@code dimension} field; null when absent. */
    static SolrDocument meta(TeamConnection conn) {
        SolrQuery q = new SolrQuery("{!term f=id v=$idv}");
        q.set("idv", MemoryDocs.META_ID);
        q.setFields("model,dimension");
        q.setRows(1);
        NamedList<Object> r = conn.request(new QueryRequest(q, SolrRequest.METHOD.POST), "read the collection's model");
        SolrDocumentList docs = new QueryResponse(r, null).getResults();
        return docs.isEmpty() ? null : docs.get(0);
    }

    /**
     * The bytes of the collection's index, summed over its shards' leaders (the Collections API's
     * status); 0 when the user may not ask.
     */
    static long indexBytes(TeamConnection conn) {
        try {
            CollectionAdminRequest.ColStatus status = CollectionAdminRequest.collectionStatus(conn.url().collection());
            status.setWithSegments(true);
            status.setWithSizeInfo(true);
            NamedList<Object> r = conn.admin(status, "read the collection's size");
            return sumOf(r, "sizeInBytes", false);
        } catch (StoreException e) {
            return 0;
        }
    }

    /** The sum of the numbers under {@code key} in segment entries anywhere in a response. */
    private static long sumOf(Object node, String key, boolean inSegments) {
        long sum = 0;
        if (node instanceof NamedList<?> nl) {
            for (Map.Entry<String, ?> e : nl) {
                boolean seg = inSegments || "segments".equals(e.getKey());
                if (seg && key.equals(e.getKey()) && e.getValue() instanceof Number n && inSegments) {
                    sum += n.longValue();
                } else {
                    sum += sumOf(e.getValue(), key, seg);
                }
            }
        } else if (node instanceof Map<?, ?> map) {
            for (Map.Entry<?, ?> e : map.entrySet()) {
                boolean seg = inSegments || "segments".equals(e.getKey());
                if (seg && key.equals(e.getKey()) && e.getValue() instanceof Number n && inSegments) {
                    sum += n.longValue();
                } else {
                    sum += sumOf(e.getValue(), key, seg);
                }
            }
        } else if (node instanceof List<?> list) {
            for (Object o : list) {
                sum += sumOf(o, key, inSegments);
            }
        }
        return sum;
    }

    /** The configset as a zip, schema.xml's {@code @DIMENSION@} replaced. */
    static byte[] configSetZip(int dimension) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(bytes)) {
            for (String name : CONFIG_FILES) {
                zip.putNextEntry(new ZipEntry(name));
                zip.write(configFile(name, dimension).getBytes(StandardCharsets.UTF_8));
                zip.closeEntry();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** One file of the configset, for this dimension. */
    public static String configFile(String name, int dimension) {
        try (InputStream in = TeamSetup.class.getResourceAsStream("configset/" + name)) {
            if (in == null) {
                throw new IllegalStateException("the jar lacks the configset file " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8)
                    .replace("@DIMENSION@", Integer.toString(dimension));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
