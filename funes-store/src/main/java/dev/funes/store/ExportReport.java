package dev.funes.store;

import java.nio.file.Path;
import java.util.List;

/**
 * What one {@link DatasetExport#export} call wrote.
 *
 * @param dir              the dataset folder
 * @param shardsWritten    the new shard files, relative to {@code dir}; empty when the dataset
 *                         already held everything
 * @param memoriesWritten  memory records written (memories the dataset did not hold yet)
 * @param deletionsWritten tombstones written (memories deleted from the store since they were
 *                         exported)
 * @param bytesWritten     compressed bytes of the new shards
 * @param datasetMemories  memories live in the dataset after the export (every origin's, minus
 *                         tombstones)
 */
public record ExportReport(Path dir, List<String> shardsWritten, int memoriesWritten, int deletionsWritten,
                           long bytesWritten, long datasetMemories) {

    /** Copies the list. */
    public ExportReport {
        shardsWritten = List.copyOf(shardsWritten);
    }

    /** One line for people: what was written. */
    public String summary() {
        if (shardsWritten.isEmpty()) {
            return "nothing new to export; " + datasetMemories + " memories in " + dir;
        }
        return memoriesWritten + " memories" + (deletionsWritten > 0 ? " and " + deletionsWritten + " deletions" : "")
                + " exported in " + shardsWritten.size() + (shardsWritten.size() == 1 ? " shard" : " shards")
                + " (" + bytesWritten + " bytes); " + datasetMemories + " memories in " + dir;
    }
}
