package dev.funes.store;

import dev.funes.store.DatasetFormat.Manifest;
import dev.funes.store.DatasetFormat.Shard;

import java.util.Set;
import java.util.TreeSet;

/**
 * The dataset card ({@code README.md}): Hugging Face's YAML front matter (license, tags, one
 * config per shard type with its data files) and a description of the records. It depends only
 * on the license and on which shard types and vector models the manifests hold, not on counts,
 * so two machines that export the same kinds of shards write the same card and a git merge of
 * their work never conflicts on it.
 */
final class DatasetCard {

    private DatasetCard() {
    }

    static String render(Iterable<Manifest> manifests, String license) {
        boolean deletions = false;
        Set<String> models = new TreeSet<>();
        for (Manifest m : manifests) {
            for (Shard s : m.shards()) {
                deletions |= s.type().equals(DatasetFormat.DELETIONS);
                if (s.vectorModel() != null) {
                    models.add(s.vectorModel() + " (" + s.dimension() + " dimensions)");
                }
            }
        }
        StringBuilder b = new StringBuilder();
        b.append("---\n");
        b.append("license: ").append(license).append('\n');
        if (license.equals("other")) {
            b.append("license_name: private\n");
        }
        b.append("pretty_name: Funes memory\n");
        b.append("tags:\n- funes\n- agent-memory\n- coding-agents\n- provenance\n");
        b.append("configs:\n");
        b.append("- config_name: memories\n  default: true\n  data_files:\n  - split: train\n    path: data/memories-*.jsonl.gz\n");
        if (deletions) {
            b.append("- config_name: deletions\n  data_files:\n  - split: train\n    path: data/deletions-*.jsonl.gz\n");
        }
        b.append("---\n\n");
        b.append("# Funes memory\n\n");
        b.append("Memories that Funes built from coding-agent session logs,"
                + " exported with `funes export --hf-dataset`. Every memory cites the log file and the exact lines it"
                + " came from. Secrets were replaced by `[REDACTED:<type>]` placeholders before anything was stored.\n\n");
        if (license.equals("other")) {
            b.append("**Private.** These are one person's work sessions: keep the repository private. They are not"
                    + " licensed for redistribution.\n\n");
        }
        b.append("## Files\n\n");
        b.append("- `data/memories-<origin>-<n>.jsonl.gz`: memories, JSON Lines, gzip; `<origin>` names the store"
                + " that wrote the shard, `<n>` counts its shards. Shards are never rewritten; a later export adds"
                + " new ones.\n");
        b.append("- `data/deletions-<origin>-<n>.jsonl.gz`: tombstones `{\"id\", \"deletedAt\"}` of memories deleted"
                + " after they were exported; a memory is gone when a tombstone is at least as late as its"
                + " `addedAt`.\n");
        b.append("- `manifests/<origin>.json`: each shard's type, record count, size and SHA-256; `funes import`"
                + " refuses a dataset whose shards do not match.\n\n");
        b.append("## Memory records\n\n");
        b.append("| field | type | meaning |\n|---|---|---|\n");
        b.append("| `id` | string | stable id (32 hex digits) |\n");
        b.append("| `kind` | string | exchange, summary, decision, convention, lookup or note |\n");
        b.append("| `text` | string | the memory, redacted |\n");
        b.append("| `agent` | string | the agent that wrote the log, e.g. `claude-code` |\n");
        b.append("| `project` | string or null | the working directory of the session |\n");
        b.append("| `session` | string or null | the agent's session id |\n");
        b.append("| `startedAt`, `endedAt` | string or null | ISO-8601 times of the first and last record |\n");
        b.append("| `addedAt` | string | when the memory was first stored |\n");
        b.append("| `source` | object or null | `path` (absolute), `lineStart`, `lineEnd` (1-based, inclusive),"
                + " `byteStart`, `byteEnd` (half-open), `recordIds` |\n");
        b.append("| `metadata` | object | string attributes, e.g. `gitBranch` |\n");
        b.append("| `contentHash` | string | SHA-256 of `text`, hex |\n");
        b.append("| `vector` | string, optional | the embedding: base64 of float32 little-endian |\n\n");
        if (models.isEmpty()) {
            b.append("No shard holds vectors; an import embeds the texts.\n");
        } else {
            b.append("Vectors were computed with: ").append(String.join(", ", models)).append(".\n");
        }
        return b.toString();
    }
}
