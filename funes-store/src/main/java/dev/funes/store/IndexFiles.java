package dev.funes.store;

import io.github.jbellis.jvector.graph.ImmutableGraphIndex;
import io.github.jbellis.jvector.graph.ListRandomAccessVectorValues;
import io.github.jbellis.jvector.graph.RandomAccessVectorValues;
import io.github.jbellis.jvector.vector.types.VectorFloat;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static dev.funes.store.SegmentedIndex.LOG;

/**
 * The files of a {@link SegmentedIndex} directory: the segments ({@code seg-<n>.ann}), the
 * {@link IndexManifest manifest} and the cache of segments verified in full. Writes, loads and
 * removes them; the index decides when, under its mutex.
 */
final class IndexFiles {

    private final Path dir;
    private final IndexSegment.Identity identity;
    private final SegmentedIndex.Options options;
    /** Which segment files were verified in full, and unchanged since (a cache in the directory). */
    private final VerifiedSegments verified;
    /** The number of the next segment file; guarded by the index's mutex. */
    private long nextSegment = 1;

    IndexFiles(Path dir, IndexSegment.Identity identity, SegmentedIndex.Options options) {
        this.dir = dir;
        this.identity = identity;
        this.options = options;
        this.verified = VerifiedSegments.read(dir);
    }

    /** The manifest file. */
    Path manifest() {
        return dir.resolve(IndexManifest.FILE);
    }

    /** Reads the manifest, which must be of this index's identity. */
    IndexManifest readManifest() throws IndexSegment.InvalidIndexException {
        return IndexManifest.read(manifest(), identity);
    }

    /** What tells the current manifest file from the next (see {@link IndexManifest#stamp}). */
    Object stamp() {
        return IndexManifest.stamp(dir);
    }

    /** Writes the manifest listing these segments and tombstones; returns its {@link #stamp()}. */
    Object writeManifest(List<IndexSegment> segments, Set<Long> tombstones) throws IOException {
        List<IndexManifest.Segment> entries = new ArrayList<>();
        for (IndexSegment s : segments) {
            entries.add(new IndexManifest.Segment(s.name(), s.size(), s.fileLength(), s.bodyCrc()));
        }
        long[] tomb = tombstones.stream().mapToLong(Long::longValue).sorted().toArray();
        IndexManifest.write(manifest(), new IndexManifest(identity, nextSegment, entries, tomb));
        return stamp();
    }

    /** Loads a segment the manifest lists, which must match its line. */
    IndexSegment loadSegment(IndexManifest.Segment entry) throws IndexSegment.InvalidIndexException {
        IndexSegment segment = IndexSegment.load(dir.resolve(entry.name()), identity, verified);
        if (segment.size() != entry.count() || segment.fileLength() != entry.fileLength()
                || segment.bodyCrc() != entry.bodyCrc()) {
            segment.release();
            throw new IndexSegment.InvalidIndexException("index file does not match the manifest (" + segment.size()
                    + " vectors, " + segment.fileLength() + " bytes; the manifest says " + entry.count() + ", "
                    + entry.fileLength() + ")");
        }
        return segment;
    }

    /**
     * The segments a manifest lists: those of {@code current} that are unchanged, the others
     * loaded; none loaded when one does not validate.
     */
    List<IndexSegment> loadListed(IndexManifest m, List<IndexSegment> current)
            throws IndexSegment.InvalidIndexException {
        Map<String, IndexSegment> byName = new HashMap<>();
        for (IndexSegment s : current) {
            byName.put(s.name(), s);
        }
        List<IndexSegment> loaded = new ArrayList<>();
        List<IndexSegment> fresh = new ArrayList<>();
        try {
            for (IndexManifest.Segment e : m.segments()) {
                IndexSegment s = byName.get(e.name());
                if (s == null || s.fileLength() != e.fileLength() || s.bodyCrc() != e.bodyCrc()) {
                    s = loadSegment(e);
                    fresh.add(s);
                }
                loaded.add(s);
            }
        } catch (IndexSegment.InvalidIndexException e) {
            fresh.forEach(IndexSegment::release);
            throw e;
        }
        return loaded;
    }

    /** Numbers the next segment after the manifest's and after every segment file present. */
    void numberAfter(IndexManifest m) {
        nextSegment = Math.max(m.nextSegment(), highestSegmentFile() + 1);
    }

    /** The file name of the next segment. */
    String nextSegment() {
        return "seg-" + nextSegment++ + ".ann";
    }

    private long highestSegmentFile() {
        long highest = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "seg-*")) {
            for (Path f : files) {
                highest = Math.max(highest, segmentNumber(f.getFileName().toString()));
            }
        } catch (IOException e) {
            LOG.debug("Cannot list {}: {}", dir, e.toString());
        }
        return highest;
    }

    private static long segmentNumber(String name) {
        int end = name.indexOf(".ann");
        if (!name.startsWith("seg-") || end < 0) {
            return 0;
        }
        try {
            return Long.parseLong(name.substring(4, end));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** Builds the graph of the vectors (JVector's parallel builder) and writes them as a segment. */
    IndexSegment buildSegment(String name, long[] ids, List<VectorFloat<?>> vectors) throws IOException {
        var values = new ListRandomAccessVectorValues(vectors, identity.dimension());
        ImmutableGraphIndex graph = IndexSegment.build(values, options.maxDegree(), options.beamWidth());
        return writeSegment(name, ids, values, graph);
    }

    /** Writes a segment file and loads it; it is not listed yet. */
    IndexSegment writeSegment(String name, long[] ids, RandomAccessVectorValues values, ImmutableGraphIndex graph)
            throws IOException {
        Path file = dir.resolve(name);
        IndexSegment.write(file, identity, ids, values, graph, ids.length >= options.pqThreshold());
        return IndexSegment.load(file, identity);
    }

    /**
     * Removes segment files no manifest lists and temporary files (only the maintainer writes
     * any), and forgets the verification of segments no longer listed.
     */
    void removeStrayFiles(List<IndexSegment> listedSegments) {
        Set<String> listed = new HashSet<>();
        for (IndexSegment s : listedSegments) {
            listed.add(s.name());
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
                String name = f.getFileName().toString();
                if (name.endsWith(".tmp") || (name.startsWith("seg-") && !listed.contains(name))) {
                    Files.deleteIfExists(f);
                    LOG.info("Removed the stray index file {}", f);
                }
            }
        } catch (IOException e) {
            LOG.debug("Cannot clean {}: {}", dir, e.toString());
        }
        verified.retain(listedSegments.stream().map(IndexSegment::name).collect(Collectors.toSet()));
        verified.writeIfChanged();
    }

    /** Bytes of these segment files and the manifest. */
    long bytes(List<IndexSegment> segments) {
        long n = 0;
        for (IndexSegment seg : segments) {
            n += seg.fileLength();
        }
        try {
            Path m = manifest();
            n += Files.exists(m) ? Files.size(m) : 0;
        } catch (IOException e) {
            LOG.debug("Cannot size {}: {}", dir, e.toString());
        }
        return n;
    }
}
