package dev.funes.ingest;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.FileVisitOption;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The files an {@link Indexer#index} call reads: each root's files, folders walked recursively in
 * path order, following symbolic links but not link loops, skipping hidden names below a root
 * (except the logs agents keep under hidden names); each file once, under its real path.
 */
final class LogWalk {

    private static final Logger LOG = LoggerFactory.getLogger(Indexer.class);

    /** Logs that agents write under hidden names, in the projects they work on: not skipped as hidden. */
    private static final Set<String> AGENT_FILES = Set.of(AiderFormat.FILE_NAME);

    /**
     * A file to read.
     *
     * @param path     its real path
     * @param explicit whether it was named as a root (then a file no format reads is a problem)
     */
    record Candidate(Path path, boolean explicit) {
    }

    private final Consumer<IndexProblem> problems;
    private final List<Candidate> files = new ArrayList<>();
    private final Set<Path> seen = new HashSet<>();

    private LogWalk(Consumer<IndexProblem> problems) {
        this.problems = problems;
    }

    /**
     * The files under {@code roots}, in the order given and walked; what cannot be walked or
     * read goes to {@code problems}.
     */
    static List<Candidate> files(Collection<Path> roots, Consumer<IndexProblem> problems) {
        LogWalk walk = new LogWalk(problems);
        for (Path root : roots) {
            walk.collect(root.toAbsolutePath().normalize());
        }
        return walk.files;
    }

    private void collect(Path root) {
        if (!Files.exists(root)) {
            problems.accept(new IndexProblem(root, 0, "no such file or folder"));
            return;
        }
        if (Files.isRegularFile(root)) {
            Path real = real(root);
            if (seen.add(real)) {
                files.add(new Candidate(real, true));
            }
            return;
        }
        if (!Files.isDirectory(root)) {
            problems.accept(new IndexProblem(root, 0, "neither a regular file nor a folder"));
            return;
        }
        List<Path> found = new ArrayList<>();
        try {
            Files.walkFileTree(root, EnumSet.of(FileVisitOption.FOLLOW_LINKS), Integer.MAX_VALUE,
                    new SimpleFileVisitor<>() {
                        @Override
                        public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                            return !dir.equals(root) && hidden(dir) ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
                        }

                        @Override
                        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                            if (attrs.isRegularFile() && !hidden(file)) {
                                found.add(file);
                            }
                            return FileVisitResult.CONTINUE;
                        }

                        @Override
                        public FileVisitResult visitFileFailed(Path file, IOException e) {
                            if (e instanceof FileSystemLoopException) {
                                LOG.debug("Not following the link loop at {}", file);
                            } else {
                                problems.accept(new IndexProblem(file, 0, "cannot be read: " + FileSnapshot.describe(e)));
                            }
                            return FileVisitResult.CONTINUE;
                        }

                        @Override
                        public FileVisitResult postVisitDirectory(Path dir, IOException e) {
                            if (e != null) {
                                problems.accept(new IndexProblem(dir, 0, "folder cannot be listed: "
                                        + FileSnapshot.describe(e)));
                            }
                            return FileVisitResult.CONTINUE;
                        }
                    });
        } catch (IOException e) {
            problems.accept(new IndexProblem(root, 0, "folder cannot be walked: " + FileSnapshot.describe(e)));
        }
        found.sort(null);
        for (Path file : found) {
            Path real = real(file);
            if (seen.add(real)) {
                files.add(new Candidate(real, false));
            }
        }
    }

    private static boolean hidden(Path path) {
        Path name = path.getFileName();
        return name != null && name.toString().startsWith(".") && !AGENT_FILES.contains(name.toString());
    }

    private static Path real(Path path) {
        try {
            return path.toRealPath();
        } catch (IOException e) {
            return path.toAbsolutePath().normalize();
        }
    }
}
