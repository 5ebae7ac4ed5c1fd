package dev.funes.bench.ann;

import dev.funes.bench.corpus.VectorCorpus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.Version;

/**
 * Lucene's HNSW ({@code KnnFloatVectorField}, DOT_PRODUCT on unit vectors) with the default codec
 * (M 16, beam width 100), in a temporary {@code FSDirectory}, merged to one segment. A search
 * asks {@code KnnFloatVectorQuery} for {@code ef} neighbours (its search beam) and keeps the best k.
 */
final class LuceneHnswPeer extends GraphPeer {

    static final String NAME = "lucene-hnsw";
    private static final String FIELD = "v";

    private Path dir;
    private FSDirectory directory;
    private DirectoryReader reader;
    private IndexSearcher searcher;
    private int[] idOfDoc;

    LuceneHnswPeer(int ef) {
        super(NAME, ef);
    }

    @Override
    public String describe() {
        return "Lucene " + Version.LATEST + " HNSW, default codec (M 16, beam 100), DOT_PRODUCT, 1 segment, FSDirectory,"
                + " KnnFloatVectorQuery k=" + ef + " (top 10 kept)";
    }

    @Override
    public boolean keepIn(Path dir, boolean reuse) {
        this.kept = dir;
        this.reuse = reuse;
        return true;
    }

    @Override
    public void build(VectorCorpus corpus) throws IOException {
        dir = indexDir("funes-ann-lucene-");
        directory = FSDirectory.open(dir);
        if (!reuse) {
            write(corpus);
        }
        reader = DirectoryReader.open(directory);
        searcher = new IndexSearcher(reader);
        idOfDoc = new int[reader.maxDoc()];
        StoredFields stored = reader.storedFields();
        for (int doc = 0; doc < idOfDoc.length; doc++) {
            idOfDoc[doc] = stored.document(doc).getField("id").numericValue().intValue();
        }
    }

    private void write(VectorCorpus corpus) throws IOException {
        IndexWriterConfig config = new IndexWriterConfig().setOpenMode(IndexWriterConfig.OpenMode.CREATE)
                .setRAMBufferSizeMB(4096); // few flushed segments at 1M, so forceMerge has little graph to merge
        try (IndexWriter writer = new IndexWriter(directory, config)) {
            for (int i = 0; i < corpus.size(); i++) {
                Document doc = new Document();
                doc.add(new KnnFloatVectorField(FIELD, corpus.vector(i), VectorSimilarityFunction.DOT_PRODUCT));
                doc.add(new StoredField("id", i));
                writer.addDocument(doc);
            }
            writer.forceMerge(1);
            writer.commit();
        }
    }

    @Override
    public int[] search(float[] query, int k) {
        try {
            TopDocs top = searcher.search(new KnnFloatVectorQuery(FIELD, query, Math.max(k, ef)), k);
            int[] ids = new int[top.scoreDocs.length];
            int i = 0;
            for (ScoreDoc hit : top.scoreDocs) {
                ids[i++] = idOfDoc[hit.doc];
            }
            return ids;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws IOException {
        if (reader != null) {
            reader.close();
        }
        if (directory != null) {
            directory.close();
        }
        deleteUnlessKept(dir);
    }
}
