/**
 * Funes core: the API ({@code dev.funes}), reading agent logs into memories
 * ({@code dev.funes.ingest}), redaction ({@code dev.funes.redact}) and the metadata conventions
 * that AI framework adapters share ({@code dev.funes.adapter}). Log format plug-ins are found
 * with {@link java.util.ServiceLoader} ({@code uses}).
 */
module dev.funes.core {
    requires transitive com.fasterxml.jackson.databind;
    requires org.slf4j;

    exports dev.funes;
    exports dev.funes.adapter;
    exports dev.funes.ingest;
    exports dev.funes.redact;

    uses dev.funes.ingest.LogFormat;
}
