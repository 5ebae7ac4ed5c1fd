package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store that cannot be written (its files and folders {@code chmod a-w}; as root, whom
 * permissions do not stop, a read-only tmpfs instead) is searched, counted and checked, and a write
 * to it fails saying it is read-only; not one byte of it changes.
 */
class ReadOnlyStoreTest {

    private static final Path TINY = CliTest.CLAUDE_FIXTURES.resolve("episodic-memory-tiny.jsonl");

    @Test
    void aReadOnlyStoreIsSearchedAndAWriteIsRefusedSayingSo(@TempDir Path tmp) throws Exception {
        Path parent = Files.createDirectories(tmp.resolve("ro"));
        ReadOnly readOnly = ReadOnly.prepare(tmp, parent);
        try {
            Path store = parent.resolve("store");
            CheckCommandTest.Result index = CheckCommandTest.funes("index", "--index-path", "../examples/demo-session",
                    "--store", store.toString());
            assertThat(index.status()).as(index.err()).isZero();
            long memories = HitJson.MAPPER.readTree(CheckCommandTest.funes("stats", "--json", "--store",
                    store.toString()).out()).get("memories").asLong();
            Map<String, String> before = contents(store);
            readOnly.seal(store);
            assertThat(Files.isWritable(store)).as("the store directory cannot be written now").isFalse();

            CheckCommandTest.Result search = CheckCommandTest.funes("search", "--store", store.toString(), "two-pass parser");
            assertThat(search.status()).as(search.err()).isZero();
            assertThat(search.out()).contains("go with the two-pass parser");
            assertThat(search.err()).isEmpty();
            // No server is started on demand for a store it could not listen in (it would fail at every command).
            List<String> command = FunesProcess.command(Main.class, "384m", "search", "--store", store.toString(), "parser");
            ProcessBuilder alone = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.DISCARD);
            alone.environment().remove("FUNES_SERVE");
            Process served = alone.start();
            assertThat(served.waitFor(3, java.util.concurrent.TimeUnit.MINUTES)).isTrue();
            assertThat(served.exitValue()).isZero();
            assertThat(FunesProcess.servers(store)).as("no server started for a read-only store").isEmpty();
            CheckCommandTest.Result stats = CheckCommandTest.funes("stats", "--json", "--store", store.toString());
            assertThat(stats.status()).as(stats.err()).isZero();
            assertThat(HitJson.MAPPER.readTree(stats.out()).get("memories").asLong()).isEqualTo(memories);
            CheckCommandTest.Result check = CheckCommandTest.funes("check", "--store", store.toString());
            assertThat(check.status()).as(check.out() + check.err()).isZero();

            if (Files.isRegularFile(TINY)) {
                CheckCommandTest.Result write = CheckCommandTest.funes("index", "--index-path", TINY.toString(),
                        "--store", store.toString());
                assertThat(write.status()).isNotZero();
                assertThat(write.err()).contains("it is read-only").contains("nothing was changed");
            }
            assertThat(contents(store)).as("not one byte of the store changed").isEqualTo(before);
        } finally {
            readOnly.release(parent);
        }
    }

    /** How this machine makes a folder read-only: permissions, or (as root) a read-only tmpfs. */
    private interface ReadOnly {
        void seal(Path store) throws Exception;

        void release(Path parent) throws Exception;

        static ReadOnly prepare(Path tmp, Path parent) throws Exception {
            Path probe = Files.writeString(tmp.resolve("probe"), "x");
            Files.setPosixFilePermissions(probe, EnumSet.of(PosixFilePermission.OWNER_READ));
            boolean permissionsBind = !Files.isWritable(probe);
            if (permissionsBind) {
                return new ByPermissions();
            }
            // Root: chmod does not stop writes. A tmpfs remounted read-only does.
            assumeTrue(run("mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", parent.toString()),
                    "skipped: running as root, where permissions do not stop writes, and no tmpfs can be mounted"
                            + " here to make a read-only file system");
            return new ByMount();
        }
    }

    private static final class ByPermissions implements ReadOnly {
        private final List<Path> changed = new ArrayList<>();

        @Override
        public void seal(Path store) throws IOException {
            try (Stream<Path> all = Files.walk(store)) {
                for (Path p : all.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
                    Set<PosixFilePermission> perms = Files.getPosixFilePermissions(p);
                    perms.removeAll(EnumSet.of(PosixFilePermission.OWNER_WRITE, PosixFilePermission.GROUP_WRITE,
                            PosixFilePermission.OTHERS_WRITE));
                    Files.setPosixFilePermissions(p, perms);
                    changed.add(p);
                }
            }
        }

        @Override
        public void release(Path parent) throws IOException {
            for (Path p : changed) {
                Set<PosixFilePermission> perms = Files.getPosixFilePermissions(p);
                perms.add(PosixFilePermission.OWNER_WRITE);
                Files.setPosixFilePermissions(p, perms);
            }
        }
    }

    private static final class ByMount implements ReadOnly {
        @Override
        public void seal(Path store) throws Exception {
            assertThat(run("mount", "-o", "remount,ro", store.getParent().toString())).as("remount read-only").isTrue();
        }

        @Override
        public void release(Path parent) throws Exception {
            // Lazily: this JVM may still map files of it (segments, SQLite) until they are collected.
            assertThat(run("umount", "-l", parent.toString())).as("umount " + parent).isTrue();
        }
    }

    private static boolean run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getInputStream().transferTo(System.out);
        return p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0;
    }

    private static Map<String, String> contents(Path dir) throws Exception {
        Map<String, String> files = new TreeMap<>();
        List<Path> all;
        try (Stream<Path> s = Files.walk(dir)) {
            all = s.filter(Files::isRegularFile).toList();
        }
        for (Path f : all) {
            files.put(dir.relativize(f).toString(),
                    HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(f))));
        }
        return files;
    }
}
