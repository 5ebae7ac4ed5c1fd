package dev.funes.cli;

import dev.funes.embed.BundledModel;
import java.util.function.Supplier;
import picocli.CommandLine;

/**
 * Option values checked before a command runs, so a bad one is a usage error (exit status 2, the
 * reason and the usage), as picocli's own checks are, and not a failure of the command (1).
 */
final class OptionValues {

    private OptionValues() {
    }

    /** {@code --model ID}: the id of a bundled model. */
    static final class ModelId implements CommandLine.ITypeConverter<String> {
        @Override
        public String convert(String value) {
            try {
                return BundledModel.fromId(value).id();
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }

    /** The bundled models' ids, for shell completion of {@code --model}. */
    static final class ModelIds implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return java.util.Arrays.stream(BundledModel.values()).map(BundledModel::id).iterator();
        }
    }

    /** The retrieval modes, for shell completion of {@code --retrieval}. */
    static final class RetrievalModes implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return java.util.Arrays.stream(dev.funes.Retrieval.values()).map(dev.funes.Retrieval::label).iterator();
        }
    }

    /** {@code --vector-db}: the backend's name, checked; there is one. */
    static final class VectorDb implements CommandLine.ITypeConverter<String> {
        @Override
        public String convert(String value) {
            if (!StoreOptions.LOCAL_SQLITE.equals(value)) {
                throw new CommandLine.TypeConversionException("unknown vector database '" + value + "'; Funes has one backend: "
                        + StoreOptions.LOCAL_SQLITE + " (SQLite, FTS5 and JVector files in the store directory)");
            }
            return value;
        }
    }

    /** A time: an ISO date ({@code 2025-09-19}, its start in UTC) or an instant ({@code 2025-09-19T17:34:29Z}). */
    static final class Time implements CommandLine.ITypeConverter<java.time.Instant> {
        @Override
        public java.time.Instant convert(String value) {
            try {
                return value.length() == 10
                        ? java.time.LocalDate.parse(value).atStartOfDay(java.time.ZoneOffset.UTC).toInstant()
                        : java.time.Instant.parse(value);
            } catch (java.time.format.DateTimeParseException e) {
                throw new CommandLine.TypeConversionException("'" + value
                        + "' is neither an ISO date (2025-09-19) nor an instant (2025-09-19T17:34:29Z)");
            }
        }
    }

    /**
     * Builds what the options describe; an {@link IllegalArgumentException} (a value out of range)
     * becomes a usage error naming it.
     */
    static <T> T valid(CommandLine.Model.CommandSpec spec, Supplier<T> build) {
        try {
            return build.get();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
        }
    }
}
