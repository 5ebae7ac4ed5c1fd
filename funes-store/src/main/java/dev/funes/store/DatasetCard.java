package dev.funes.store;

import dev.funes.store.DatasetFormat.Manifest;
import dev.funes.store.DatasetFormat.Shard;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The dataset card ({@code README.md}): Hugging Face's YAML front matter and a description of
 * the files and columns.
 *
 * <p>Funes owns two front-matter keys, {@code configs} and {@code dataset_info} (the declared
 * features), and the text between {@value #BEGIN} and {@value #END}; it writes {@code license},
 * {@code pretty_name} and {@code tags} only where the card has none. Everything else in an
 * existing card (one made on the Hub's website, edited there afterwards) is kept as it is.
 * What Funes writes depends only on which shard types, record schemas and vector models the
 * manifests hold, never on counts, so two machines write the same card and a git merge rarely
 * touches it.
 */
final class DatasetCard {

    static final String BEGIN = "<!-- funes:begin (written by funes export; edit outside this block) -->";
    static final String END = "<!-- funes:end -->";
    private static final Pattern TOP_LEVEL_KEY = Pattern.compile("^([A-Za-z_][A-Za-z0-9_-]*)\\s*:.*");
    private static final Set<String> OWNED = Set.of("configs", "dataset_info");

    private DatasetCard() {
    }

    /**
     * @param existing the card in the folder, or {@code null}
     * @param view     whether {@code memories/} holds live memories
     */
    static String render(String existing, Iterable<Manifest> manifests, String license, boolean view) {
        boolean deletions = false;
        boolean history = false;
        boolean oldSchema = false;
        Set<String> models = new TreeSet<>();
        for (Manifest m : manifests) {
            for (Shard s : m.shards()) {
                deletions |= s.type().equals(DatasetFormat.DELETIONS);
                if (s.type().equals(DatasetFormat.MEMORIES)) {
                    history = true;
                    oldSchema |= s.schema() == 1;
                }
                if (s.vectorModel() != null) {
                    models.add(s.vectorModel() + " (" + s.dimension() + " dimensions)");
                }
            }
        }
        // The history config would mix two schemas (load_dataset refuses that): left out until
        // the old shards are gone, i.e. in a new dataset repository.
        boolean historyConfig = history && !oldSchema;

        Map<String, List<String>> blocks = new LinkedHashMap<>();
        String body = "";
        if (existing != null) {
            String text = existing.replace("\r\n", "\n");
            if (text.startsWith("---\n")) {
                int end = text.indexOf("\n---\n", 3);
                if (end < 0 && text.endsWith("\n---")) {
                    end = text.length() - 4;
                }
                if (end >= 0) {
                    blocks = blocks(text.substring(4, end + 1));
                    body = text.substring(Math.min(text.length(), end + 5));
                } else {
                    body = text;
                }
            } else {
                body = text;
            }
        }
        if (!blocks.containsKey("license")) {
            blocks.put("license", List.of("license: " + license));
            if (license.equals("other") && !blocks.containsKey("license_name")) {
                blocks.put("license_name", List.of("license_name: private"));
            }
        }
        blocks.putIfAbsent("pretty_name", List.of("pretty_name: Funes memory"));
        blocks.putIfAbsent("tags", List.of("tags:", "- funes", "- agent-memory", "- coding-agents", "- provenance"));
        blocks.remove("configs");
        blocks.remove("dataset_info");
        List<String> configs = new ArrayList<>();
        List<String> info = new ArrayList<>();
        configs.add("configs:");
        info.add("dataset_info:");
        if (view) {
            config(configs, "memories", true, DatasetFormat.VIEW + "/*.jsonl.gz");
            features(info, "memories", DatasetFormat.MEMORY_COLUMNS);
        }
        if (historyConfig) {
            config(configs, "history", !view, DatasetFormat.DATA + "/memories-*.jsonl.gz");
            features(info, "history", DatasetFormat.MEMORY_COLUMNS);
        }
        if (deletions) {
            config(configs, "deletions", false, DatasetFormat.DATA + "/deletions-*.jsonl.gz");
            features(info, "deletions", DatasetFormat.DELETION_COLUMNS);
        }
        if (configs.size() > 1) {
            blocks.put("configs", configs);
            blocks.put("dataset_info", info);
        }

        StringBuilder b = new StringBuilder("---\n");
        blocks.values().forEach(lines -> lines.forEach(l -> b.append(l).append('\n')));
        b.append("---\n");
        String section = section(license, models, oldSchema);
        int from = body.indexOf(BEGIN);
        int to = from < 0 ? -1 : body.indexOf(END, from);
        if (from >= 0 && to >= 0) {
            b.append(body, 0, from).append(section).append(body.substring(to + END.length()));
        } else {
            String kept = body.strip();
            b.append('\n');
            if (!kept.isEmpty()) {
                b.append(kept).append("\n\n");
            }
            b.append(section).append('\n');
        }
        return b.toString();
    }

    /** Top-level keys of YAML front matter, each with its lines (its nested and list lines follow it). */
    private static Map<String, List<String>> blocks(String yaml) {
        Map<String, List<String>> blocks = new LinkedHashMap<>();
        List<String> current = null;
        int anonymous = 0;
        for (String line : yaml.split("\n", -1)) {
            var m = TOP_LEVEL_KEY.matcher(line);
            if (m.matches()) {
                current = new ArrayList<>();
                blocks.put(m.group(1), current);
            } else if (current == null) {
                // Comments or blank lines before the first key: kept in place.
                current = new ArrayList<>();
                blocks.put("#" + anonymous++, current);
            }
            current.add(line);
        }
        // The split leaves an empty last line after the final newline.
        blocks.values().forEach(lines -> {
            while (!lines.isEmpty() && lines.get(lines.size() - 1).isEmpty()) {
                lines.remove(lines.size() - 1);
            }
        });
        blocks.values().removeIf(List::isEmpty);
        return blocks;
    }

    private static void config(List<String> out, String name, boolean isDefault, String path) {
        out.add("- config_name: " + name);
        if (isDefault) {
            out.add("  default: true");
        }
        out.add("  data_files:");
        out.add("  - split: train");
        out.add("    path: " + path);
    }

    private static void features(List<String> out, String name, Map<String, String> columns) {
        out.add("- config_name: " + name);
        out.add("  features:");
        columns.forEach((column, type) -> {
            out.add("  - name: " + column);
            if (type.startsWith("sequence:")) {
                out.add("    sequence: " + type.substring("sequence:".length()));
            } else {
                out.add("    dtype: " + type);
            }
        });
    }

    private static String section(String license, Set<String> models, boolean oldSchema) {
        StringBuilder b = new StringBuilder();
        b.append(BEGIN).append("\n\n");
        b.append("# Funes memory\n\n");
        b.append("Memories that Funes built from coding-agent session logs, exported with `funes export"
                + " --hf-dataset` or `funes push`. Every memory cites the log file and the exact lines it came from"
                + " (its provenance). Secrets were replaced by `[REDACTED:<type>]` placeholders before anything was"
                + " stored; the redaction is pattern-based, so review before sharing.\n\n");
        if (license.equals("other")) {
            b.append("**Private.** These are one person's work sessions: keep the repository private. They are not"
                    + " licensed for redistribution unless the `license` above says otherwise.\n\n");
        }
        b.append("## Configs\n\n");
        b.append("- `memories` (default): the memories as they are now, deleted and forgotten ones left out:"
                + " `memories/<origin>-<n>.jsonl.gz`, written again by every export.\n");
        b.append("- `history`: every memory record ever exported, `data/memories-<origin>-<n>.jsonl.gz`; shards are"
                + " never rewritten, a later export adds new ones. `<origin>` names the store that wrote it.\n");
        b.append("- `deletions`: tombstones of memories deleted after they were exported,"
                + " `data/deletions-<origin>-<n>.jsonl.gz`; a memory is gone when a tombstone is at least as late as"
                + " its `addedAt`.\n");
        b.append("- `manifests/<origin>.json`: each shard's type, record count, size and SHA-256; `funes import`"
                + " refuses a dataset whose shards do not match.\n\n");
        if (oldSchema) {
            b.append("Some history shards were written by an older Funes in another record shape, so `history` is"
                    + " not declared as a config; `memories` holds every live memory in the columns below.\n\n");
        }
        b.append("## Columns of `memories` and `history`\n\n");
        b.append("Every row has every column (null where absent).\n\n");
        b.append("| column | type | meaning |\n|---|---|---|\n");
        b.append("| `id` | string | stable id (32 hex digits) |\n");
        b.append("| `kind` | string | exchange, summary, decision, convention, lookup or note |\n");
        b.append("| `text` | string | the memory, redacted |\n");
        b.append("| `agent` | string | the agent that wrote the log, e.g. `claude-code` |\n");
        b.append("| `project` | string | the working directory of the session |\n");
        b.append("| `session` | string | the agent's session id |\n");
        b.append("| `startedAt`, `endedAt` | string | ISO-8601 times of the first and last record |\n");
        b.append("| `addedAt` | string | ISO-8601 time the memory was first stored |\n");
        b.append("| `sourcePath` | string | provenance: the log file (absolute path); null for notes |\n");
        b.append("| `sourceLineStart`, `sourceLineEnd` | int64 | its lines, 1-based, inclusive |\n");
        b.append("| `sourceByteStart`, `sourceByteEnd` | int64 | its bytes, 0-based, half-open |\n");
        b.append("| `sourceRecordIds` | list of string | the ids of the log records |\n");
        b.append("| `metadata` | string | a JSON object of string attributes, e.g. `gitBranch` |\n");
        b.append("| `contentHash` | string | SHA-256 of `text`, hex |\n");
        b.append("| `vector` | list of float32 | the embedding, or null when exported without vectors |\n\n");
        if (models.isEmpty()) {
            b.append("No shard holds vectors; an import embeds the texts.\n\n");
        } else {
            b.append("Vectors were computed with: ").append(String.join(", ", models)).append(".\n\n");
        }
        b.append("Deletions: `id` (string), `deletedAt` (string, ISO-8601).\n\n");
        b.append(END);
        return b.toString();
    }
}
