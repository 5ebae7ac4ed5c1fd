package dev.funes.bench.eval;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Where the evaluation's stores live: either a cache folder that keeps them between runs, or
 * temporary folders deleted on {@link #close()}.
 *
 * <p>A cached store's folder is named after the suite, the model id and a hash of the ids of
 * every memory that goes in. Memory ids hash the text, the provenance and the kind, so a change
 * of data, of formatting or of chunking names another folder: a cached store never holds stale
 * memories, and a run only embeds what its folder lacks (nothing, on a re-run). What the
 * {@code Indexer} adds to the readers' memories (passages, derived memories) is covered by
 * {@link #codeOf(Class)}: a store built by other indexing code is in another folder.
 */
final class StoreDirs implements AutoCloseable {

    private final Path cache;
    private final List<Path> temporary = new ArrayList<>();

    /** Stores under {@code cache}, kept; or temporary ones when {@code cache} is null. */
    StoreDirs(Path cache) {
        this.cache = cache == null ? null : cache.toAbsolutePath().normalize();
    }

    /** The folder for the store of {@code suite} embedded by {@code modelId} holding these memories. */
    Path dirFor(String suite, String modelId, Collection<String> memoryIds) throws IOException {
        if (cache == null) {
            Path dir = Files.createTempDirectory("funes-eval-" + suite + "-");
            temporary.add(dir);
            return dir;
        }
        return cache.resolve(suite + "-" + modelId + "-" + key(memoryIds));
    }

    /** Whether stores are kept between runs. */
    boolean cached() {
        return cache != null;
    }

    /** The first 12 hex digits of a SHA-256 over the sorted ids. */
    static String key(Collection<String> memoryIds) {
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
        for (String id : new TreeSet<>(memoryIds)) {
            digest.update(id.getBytes(StandardCharsets.UTF_8));
            digest.update((byte) '\n');
        }
        return HexFormat.of().formatHex(digest.digest()).substring(0, 12);
    }

    /**
     * A fingerprint of the code {@code type} was loaded from: the SHA-256 of its jar, or of the
     * class files of its package when it was loaded from a folder of classes (an IDE, a test run).
     */
    static String codeOf(Class<?> type) {
        java.security.CodeSource code = type.getProtectionDomain().getCodeSource();
        if (code == null) {
            throw new IllegalStateException(type.getName() + " was not loaded from a jar or a folder");
        }
        try {
            Path source = Path.of(code.getLocation().toURI());
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            if (Files.isRegularFile(source)) {
                digest.update(Files.readAllBytes(source));
            } else {
                Path pkg = source.resolve(type.getPackageName().replace('.', '/'));
                try (Stream<Path> files = Files.walk(pkg)) {
                    for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
                        digest.update(pkg.relativize(f).toString().getBytes(StandardCharsets.UTF_8));
                        digest.update(Files.readAllBytes(f));
                    }
                }
            }
            return "code:" + HexFormat.of().formatHex(digest.digest());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the code of " + type.getName(), e);
        } catch (java.net.URISyntaxException | NoSuchAlgorithmException e) {
            throw new IllegalStateException("cannot locate the code of " + type.getName(), e);
        }
    }

    /** Deletes the temporary stores. */
    @Override
    public void close() {
        for (Path dir : temporary) {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot delete the temporary store " + dir, e);
            }
        }
        temporary.clear();
    }
}
