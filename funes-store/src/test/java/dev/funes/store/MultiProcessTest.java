package dev.funes.store;

import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryStore;
import dev.funes.SearchRequest;
import dev.funes.StoreBusyException;
import dev.funes.StoreException;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * One writer at a time, any number of readers, across real processes: the second process is a
 * child JVM on the test classpath ({@link LockHolderChild}, {@link WriterChild}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MultiProcessTest {

    private static final Duration PATIENCE = Duration.ofMinutes(2);

    private final TestCorpus corpus = TestCorpus.create();
    private Embedder embedder;

    @BeforeAll
    void loadModel() {
        embedder = Embedders.bundled(BundledModel.DEFAULT);
    }

    @AfterAll
    void closeModel() {
        if (embedder != null) {
            embedder.close();
        }
    }

    private MemoryStore open(Path dir, Duration lockTimeout) {
        return FunesStore.open(dir, embedder, StoreOptions.builder().writeLockTimeout(lockTimeout).build());
    }

    @Test
    void aWriterWaitsForAnotherProcessThenFailsNamingItWhileReadersGoOn(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("store");
        List<Memory> all = corpus.all();
        try (MemoryStore store = open(dir, Duration.ofMillis(300))) {
            store.addAll(all.subList(0, 5));
            try (ChildJvm holder = ChildJvm.start(LockHolderChild.class, tmp.resolve("holder.err"), dir.toString())) {
                holder.await("LOCKED", PATIENCE);

                assertThatThrownBy(() -> store.addAll(all.subList(5, 10)))
                        .isInstanceOf(StoreBusyException.class)
                        .hasMessageContaining(dir.toString())
                        .hasMessageContaining("pid " + holder.pid())
                        .hasMessageContaining(LockHolderChild.class.getName())
                        .hasMessageContaining("holding the lock for a test")
                        .hasMessageContaining("writeLockTimeout");
                assertThatThrownBy(() -> store.delete(all.get(0).id()))
                        .isInstanceOf(StoreBusyException.class).hasMessageContaining("pid " + holder.pid());
                // Readers never take the lock: with a 300 ms timeout they would fail like the writes.
                assertThat(store.stats().memories()).isEqualTo(5);
                assertThat(store.get(all.get(0).id())).contains(all.get(0));
                assertThat(store.search(SearchRequest.of(all.get(1).text())).get(0).memory()).isEqualTo(all.get(1));
                for (Memory m : all.subList(5, 10)) {
                    assertThat(store.get(m.id())).isEmpty(); // the failed batch stored nothing
                }

                holder.send("release");
                holder.await("RELEASED", PATIENCE);
                assertThat(holder.waitFor(PATIENCE)).isZero();
            }
            assertThat(store.addAll(all.subList(5, 10)).added()).isEqualTo(5);
            assertThat(store.delete(all.get(0).id())).isTrue();
        }
    }

    @Test
    void aKilledWriterLeavesNoLockBehind(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("store");
        try (MemoryStore store = open(dir, Duration.ZERO)) {
            try (ChildJvm holder = ChildJvm.start(LockHolderChild.class, tmp.resolve("holder.err"), dir.toString())) {
                holder.await("LOCKED", PATIENCE);
                assertThatThrownBy(() -> store.add(corpus.get("ci-branch"))).isInstanceOf(StoreException.class);
                holder.kill();
                // The file still names the dead process; only the operating system's lock counts.
                assertThat(Files.readString(dir.resolve(WriteLock.FILE))).contains("pid=" + holder.pid());
            }
            assertThat(store.add(corpus.get("ci-branch"))).isTrue(); // zero timeout: one try, no waiting
        }
    }

    @Test
    void twoStoresOfOneProcessTakeTurnsAndTheWaiterNamesThisProcess(@TempDir Path dir) throws Exception {
        try (MemoryStore first = open(dir, Duration.ofMillis(200)); MemoryStore second = open(dir, Duration.ofMillis(200))) {
            WriteLock lock = new WriteLock(dir, Duration.ZERO);
            try (WriteLock.Held held = lock.acquire("a test holding the lock")) {
                assertThatThrownBy(() -> second.add(corpus.get("ci-branch")))
                        .isInstanceOf(StoreException.class)
                        .hasMessageContaining("in this process (pid " + ProcessHandle.current().pid())
                        .hasMessageContaining("a test holding the lock");
            }
            assertThat(first.add(corpus.get("ci-branch"))).isTrue();
            assertThat(second.add(corpus.get("tls-port"))).isTrue();
            assertThat(first.get(corpus.get("tls-port").id())).isPresent();
        }
    }

    /**
     * A child process and this one write batches of five into one store at the same time, while a
     * reader thread here keeps counting: every count it sees is a whole number of batches, and in
     * the end every memory of both writers is there.
     */
    @Test
    void twoWritingProcessesInterleaveAndReadersSeeOnlyWholeBatches(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("store");
        int batches = 12;
        int size = 5;
        try (MemoryStore store = open(dir, StoreOptions.DEFAULT_WRITE_LOCK_TIMEOUT)) {
            AtomicBoolean writing = new AtomicBoolean(true);
            AtomicReference<String> partial = new AtomicReference<>();
            AtomicInteger reads = new AtomicInteger();
            CountDownLatch firstRead = new CountDownLatch(1);
            Thread reader = new Thread(() -> {
                while (writing.get() && partial.get() == null) {
                    long n = store.stats().memories();
                    reads.incrementAndGet();
                    firstRead.countDown();
                    if (n % size != 0) {
                        partial.set("saw " + n + " memories");
                    }
                }
            }, "counting-reader");
            try (ChildJvm child = ChildJvm.start(WriterChild.class, tmp.resolve("writer.err"), dir.toString(), "child",
                    String.valueOf(batches), String.valueOf(size))) {
                child.await("READY", PATIENCE);
                reader.start();
                // The reader is counting before this process writes, whenever the scheduler runs it.
                assertThat(firstRead.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).as("the reader read").isTrue();
                for (int b = 0; b < batches; b++) {
                    store.addAll(WriterChild.batch("parent", b, size));
                }
                child.await("DONE", PATIENCE);
                assertThat(child.waitFor(PATIENCE)).isZero();
            } finally {
                writing.set(false);
                reader.join();
            }
            assertThat(partial.get()).isNull();
            assertThat(reads.get()).isPositive();
            List<Memory> expected = new ArrayList<>();
            for (int b = 0; b < batches; b++) {
                expected.addAll(WriterChild.batch("parent", b, size));
                expected.addAll(WriterChild.batch("child", b, size));
            }
            for (Memory m : expected) {
                assertThat(store.get(m.id())).contains(m);
            }
            assertThat(store.stats().memories()).isEqualTo(expected.size());
            assertThat(store.stats().sessions()).isEqualTo(2);
        }
        assertThat(FunesStore.check(dir, embedder, false).healthy()).isTrue();
    }
}
