package dev.funes.embed;

/**
 * Keeps DJL off the network. Set before DJL's first use, because DJL reads them in static
 * initializers:
 *
 * <ul>
 *   <li>{@code ai.djl.offline=true}: DJL never downloads (its tokenizer library would otherwise
 *       fetch a CUDA build on machines with a GPU, and model zoos would reach their hubs);</li>
 *   <li>{@code OPT_OUT_TRACKING=true}: DJL does not probe the EC2 metadata service nor send its
 *       usage ping when an engine or tokenizer starts;</li>
 *   <li>{@code ai.djl.onnx.disable_alternative=true}: ONNX Runtime gets no fallback engine.
 *       Without it DJL picks the tokenizer jar's Rust engine and opens a manager of it next to
 *       every ONNX Runtime array manager, for operators this module never uses.</li>
 * </ul>
 *
 * <p>A value the application has already set, as a system property (or, for the first two, as
 * the environment variables {@code DJL_OFFLINE} / {@code OPT_OUT_TRACKING}), is left alone.
 */
final class DjlSettings {

    static final String OFFLINE = "ai.djl.offline";
    static final String OPT_OUT_TRACKING = "OPT_OUT_TRACKING";
    static final String DISABLE_ALTERNATIVE = "ai.djl.onnx.disable_alternative";

    private DjlSettings() {
    }

    static void applyOfflineDefaults() {
        setIfAbsent(OFFLINE, "DJL_OFFLINE");
        setIfAbsent(OPT_OUT_TRACKING, OPT_OUT_TRACKING);
        if (System.getProperty(DISABLE_ALTERNATIVE) == null) {
            System.setProperty(DISABLE_ALTERNATIVE, "true");
        }
    }

    private static void setIfAbsent(String property, String environmentVariable) {
        if (System.getProperty(property) == null && System.getenv(environmentVariable) == null) {
            System.setProperty(property, "true");
        }
    }
}
