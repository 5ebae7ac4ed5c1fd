package dev.funes.store;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * How {@link DatasetExport} writes a dataset. Immutable; start from {@link #defaults()}.
 *
 * @param withVectors  whether memory records carry their embedding (a list of float32), so
 *                     that an import with the same model embeds nothing
 * @param shardRecords at most this many records per shard (a new shard is started after it),
 *                     between 1 and 1,000,000
 * @param license      the dataset card's {@code license} (a Hugging Face license id such as
 *                     {@code other}, {@code cc-by-4.0}); {@code other} with a "private" note by
 *                     default, since the memories are one person's work sessions
 */
public record ExportOptions(boolean withVectors, int shardRecords, String license) {

    /**
     * The default number of records per shard: a few MB with vectors. The Hugging Face Hub takes
     * binary files over 1 MB only through Git LFS, which {@code funes push} uses for every shard.
     */
    public static final int DEFAULT_SHARD_RECORDS = 2_000;

    private static final Pattern LICENSE = Pattern.compile("[a-z0-9][a-z0-9.+-]{0,63}");

    /**
     * Validates the values.
     *
     * @throws IllegalArgumentException if {@code shardRecords} is out of range or the license is
     *                                  not a lower-case license id
     */
    public ExportOptions {
        Objects.requireNonNull(license, "license");
        if (shardRecords < 1 || shardRecords > 1_000_000) {
            throw new IllegalArgumentException("shardRecords must be between 1 and 1000000, was " + shardRecords);
        }
        if (!LICENSE.matcher(license).matches()) {
            throw new IllegalArgumentException("license must be a lower-case license id such as 'other' or"
                    + " 'cc-by-4.0', was '" + license + "'");
        }
    }

    /** No vectors, {@value #DEFAULT_SHARD_RECORDS} records per shard, license {@code other}. */
    public static ExportOptions defaults() {
        return new ExportOptions(false, DEFAULT_SHARD_RECORDS, "other");
    }

    /** These options with or without vectors. */
    public ExportOptions withVectors(boolean vectors) {
        return new ExportOptions(vectors, shardRecords, license);
    }

    /** These options with another number of records per shard. */
    public ExportOptions withShardRecords(int records) {
        return new ExportOptions(withVectors, records, license);
    }

    /** These options with another license id. */
    public ExportOptions withLicense(String id) {
        return new ExportOptions(withVectors, shardRecords, id);
    }
}
