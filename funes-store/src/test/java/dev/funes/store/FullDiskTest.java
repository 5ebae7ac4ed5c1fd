package dev.funes.store;

import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.StoreException;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A full disk while a batch is written: SQLite answers SQLITE_FULL and rolls the transaction
 * back itself, so the store's own rollback fails with "no transaction is active". The error the
 * caller sees names the full disk, the batch is not stored, and the store works once there is
 * room. SQLite's page limit ({@code PRAGMA max_page_count} on the writing connection) makes the
 * database full at once: the same SQLITE_FULL a full file system gives (the one the probe of
 * issue 22 hit on a 600 KB tmpfs).
 */
class FullDiskTest {

    @Test
    void aFullDiskIsNamedAsSuchAndNothingOfTheBatchIsStored(@TempDir Path dir) {
        try (Embedder embedder = Embedders.bundled(BundledModel.DEFAULT);
             MemoryStore store = FunesStore.open(dir, embedder)) {
            Memory first = note("the deploy job waits for the smoke tests before it switches traffic", 0);
            store.add(first);
            SqliteMemoryStore s = (SqliteMemoryStore) store;
            long[] pages = new long[1];
            s.database().write("fill the disk", c -> {
                try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("PRAGMA page_count")) {
                    rs.next();
                    pages[0] = rs.getLong(1);
                    st.execute("PRAGMA max_page_count = " + pages[0]);
                }
                return null;
            });
            List<Memory> batch = new ArrayList<>();
            for (int i = 1; i <= 40; i++) {
                batch.add(note("note " + i + " about the release checklist: " + "tag, sign, publish, announce. ".repeat(40), i));
            }
            assertThatThrownBy(() -> store.addAll(batch))
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining("no space left on device")
                    .hasMessageContaining("nothing of this batch was stored")
                    .hasMessageNotContaining("no transaction is active");
            assertThat(store.stats().memories()).isEqualTo(1);

            s.database().write("make room", c -> {
                try (Statement st = c.createStatement()) {
                    st.execute("PRAGMA max_page_count = " + (pages[0] * 1000));
                }
                return null;
            });
            assertThat(store.addAll(batch).added()).isEqualTo(batch.size());
            assertThat(store.get(first.id())).isPresent();
            assertThat(store.stats().memories()).isEqualTo(batch.size() + 1);
        }
    }

    private static Memory note(String text, int i) {
        return Memory.builder(MemoryKind.NOTE, "api", text).build();
    }
}
