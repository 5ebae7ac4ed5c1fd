/**
 * Funes embed: local ONNX embedders on DJL ({@code dev.funes.embed}). The ONNX Runtime engine and
 * the model jars are found at run time (DJL's engine service, class-path resources), so a
 * module-path application adds them with {@code --add-modules}.
 */
module dev.funes.embed {
    requires transitive dev.funes.core;
    requires ai.djl.api;
    requires ai.djl.tokenizers;
    requires org.slf4j;

    exports dev.funes.embed;
}
