package dev.funes.embed;

/**
 * The platforms the native libraries Funes brings run on, and the errors that say so when they do
 * not load. ONNX Runtime and DJL's tokenizer each ship one native library per platform inside
 * their jar; on any other platform (macOS on Intel, Linux on another architecture, an old glibc)
 * loading fails with a {@link LinkageError} or an engine error that does not say what to do.
 */
final class NativePlatforms {

    /** Where both the ONNX Runtime that funes-embed depends on and DJL's tokenizer jar have natives. */
    static final String SUPPORTED = "Linux x86-64, Linux aarch64, macOS aarch64 (Apple silicon) and Windows x86-64";
    static final String ONNX_RUNTIME_ARTIFACT = "com.microsoft.onnxruntime:onnxruntime";
    /** The newest ONNX Runtime with macOS x86-64 natives that Funes has measured. */
    static final String LAST_WITH_MACOS_X64 = "1.21.1";
    /** ONNX Runtime's own property: a folder holding its native libraries, loaded instead of the jar's. */
    static final String NATIVE_PATH_PROPERTY = "onnxruntime.native.path";

    private NativePlatforms() {
    }

    /** This JVM's platform as the error messages name it, such as {@code Linux amd64}. */
    static String current() {
        return System.getProperty("os.name", "unknown OS") + " " + System.getProperty("os.arch", "unknown architecture");
    }

    /**
     * The version of the ONNX Runtime jar on the class path, from its manifest, without loading
     * its native library; {@code null} when it cannot be told.
     */
    static String onnxRuntimeVersion() {
        try {
            Class<?> type = Class.forName("ai.onnxruntime.OnnxJavaType", false, NativePlatforms.class.getClassLoader());
            Package pkg = type.getPackage();
            return pkg == null ? null : pkg.getImplementationVersion();
        } catch (ClassNotFoundException | LinkageError e) {
            return null;
        }
    }

    /**
     * Why ONNX Runtime did not start, and what a user on another platform can do about it.
     *
     * @param platform the platform, as {@link #current()} gives it
     * @param version  the ONNX Runtime version on the class path, or {@code null}
     * @param cause    the innermost message of the failure
     */
    static String onnxRuntimeUnavailable(String platform, String version, String cause) {
        return "ONNX Runtime" + (version == null ? "" : " " + version) + " (" + ONNX_RUNTIME_ARTIFACT
                + ") cannot start on " + platform + ": " + cause + ". The ONNX Runtime funes-embed depends on has"
                + " native libraries for " + SUPPORTED + ". On another platform, add to your build's dependencies"
                + " a version of " + ONNX_RUNTIME_ARTIFACT + " built for it, which replaces Funes's (for macOS on"
                + " Intel: " + ONNX_RUNTIME_ARTIFACT + ":" + LAST_WITH_MACOS_X64 + "; DJL's tokenizer jar has no"
                + " library for it either), or set the system property " + NATIVE_PATH_PROPERTY
                + " to a folder holding ONNX Runtime's native libraries for this platform";
    }

    /** Why DJL's HuggingFace tokenizer library did not start. */
    static String tokenizerUnavailable(String platform, String what, String cause) {
        return "DJL's HuggingFace tokenizer library cannot start on " + platform + " (needed by " + what + "): "
                + cause + ". Funes's embedders run on " + SUPPORTED;
    }
}
