package dev.funes.springai.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code funes.*} properties of the Spring Boot auto-configuration.
 *
 * <ul>
 *   <li>{@code funes.store.path}: the store directory; default {@code $FUNES_HOME}, else
 *       {@code ~/.funes} (the command line's default store, so the application sees what
 *       {@code funes index} wrote). Created when missing.</li>
 *   <li>{@code funes.model}: the id of the bundled embedding model of a new store (default
 *       {@code all-minilm-l6-v2-q}); an existing store always uses the model it was built with,
 *       and naming another one fails the start-up.</li>
 * </ul>
 */
@ConfigurationProperties(prefix = "funes")
public class FunesProperties {

    private final Store store = new Store();
    private String model;

    /** Creates the properties with their defaults. */
    public FunesProperties() {
    }

    /** The {@code funes.store.*} properties. */
    public Store getStore() {
        return store;
    }

    /** {@code funes.model}: the bundled model id, or {@code null} for the store's or the default. */
    public String getModel() {
        return model;
    }

    /** Sets {@code funes.model}. */
    public void setModel(String model) {
        this.model = model;
    }

    /** The {@code funes.store.*} properties. */
    public static class Store {

        private String path;

        /** Creates the properties with their defaults. */
        public Store() {
        }

        /** {@code funes.store.path}: the store directory, or {@code null} for the default. */
        public String getPath() {
            return path;
        }

        /** Sets {@code funes.store.path}. */
        public void setPath(String path) {
            this.path = path;
        }
    }
}
