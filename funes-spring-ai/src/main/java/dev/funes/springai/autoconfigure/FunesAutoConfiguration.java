package dev.funes.springai.autoconfigure;

import dev.funes.Embedder;
import dev.funes.MemoryStore;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.redact.RedactionRule;
import dev.funes.redact.Redactor;
import dev.funes.springai.FunesDocumentRetriever;
import dev.funes.springai.FunesVectorStore;
import dev.funes.store.FunesStore;
import dev.funes.store.StoreOptions;
import org.springframework.ai.rag.retrieval.search.DocumentRetriever;
import org.springframework.ai.vectorstore.VectorStore;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Spring Boot auto-configuration of a Funes store as Spring AI's {@link VectorStore}: beans of
 * the {@link Embedder} (a bundled local model, when {@code funes-embed} is on the class path),
 * the {@link MemoryStore} at {@code funes.store.path} (see {@link FunesProperties}), a
 * {@link FunesVectorStore} over both and, when {@code spring-ai-rag} is on the class path, a
 * {@link FunesDocumentRetriever}. Each is left out when the application defines a bean of its
 * type. The store and the embedder are closed with the context, the store first.
 *
 * <p>The store uses the redaction rules of {@code <store>/redaction-rules.txt} when that file
 * exists, as the command line does.
 */
@AutoConfiguration
@ConditionalOnClass({MemoryStore.class, FunesStore.class, VectorStore.class})
@EnableConfigurationProperties(FunesProperties.class)
public class FunesAutoConfiguration {

    /** Creates the configuration; Spring does. */
    public FunesAutoConfiguration() {
    }

    /** The store directory: {@code funes.store.path}, else {@code $FUNES_HOME}, else {@code ~/.funes}. */
    static Path storeDir(FunesProperties properties, Environment environment) {
        String path = properties.getStore().getPath();
        if (path == null || path.isBlank()) {
            path = environment.getProperty("FUNES_HOME");
        }
        if (path == null || path.isBlank()) {
            return Path.of(System.getProperty("user.home"), ".funes");
        }
        return Path.of(path);
    }

    /**
     * The Funes store, closed with the context.
     *
     * @param properties  the {@code funes.*} properties
     * @param environment where {@code FUNES_HOME} is read
     * @param embedder    the store's embedder
     * @return the opened store
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public MemoryStore funesMemoryStore(FunesProperties properties, Environment environment, Embedder embedder) {
        Path dir = storeDir(properties, environment);
        Path rules = dir.resolve(RedactionRule.FILE_NAME);
        Redactor redactor = Files.isRegularFile(rules) ? Redactor.builder().addRules(rules).build() : Redactor.standard();
        return FunesStore.open(dir, embedder, StoreOptions.builder().redactor(redactor).build());
    }

    /**
     * Spring AI's vector store over the Funes store.
     *
     * @param store    the Funes store
     * @param embedder the store's embedder
     * @return the vector store
     */
    @Bean
    @ConditionalOnMissingBean(VectorStore.class)
    public FunesVectorStore funesVectorStore(MemoryStore store, Embedder embedder) {
        return FunesVectorStore.builder(store, embedder).build();
    }

    /** The embedder, when {@code funes-embed} is on the class path and the application defines none. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "dev.funes.embed.Embedders")
    static class EmbedderConfiguration {

        /**
         * The store's model: the one an existing store was built with, else {@code funes.model},
         * else the default; closed with the context.
         */
        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        Embedder funesEmbedder(FunesProperties properties, Environment environment) {
            Path dir = storeDir(properties, environment);
            String wanted = properties.getModel();
            Optional<String> recorded = FunesStore.recordedModelId(dir);
            if (recorded.isPresent() && wanted != null && !wanted.isBlank() && !recorded.get().equals(wanted)) {
                throw new IllegalStateException("funes.model is " + wanted + ", but the store " + dir
                        + " was built with " + recorded.get() + "; remove funes.model, or point funes.store.path"
                        + " at a new directory");
            }
            String modelId = recorded.orElse(wanted != null && !wanted.isBlank() ? wanted : BundledModel.DEFAULT.id());
            return Embedders.forModelId(modelId);
        }
    }

    /** The retriever, when {@code spring-ai-rag} is on the class path and the application defines none. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.ai.rag.retrieval.search.DocumentRetriever")
    static class RetrieverConfiguration {

        @Bean
        @ConditionalOnMissingBean(DocumentRetriever.class)
        FunesDocumentRetriever funesDocumentRetriever(MemoryStore store) {
            return FunesDocumentRetriever.builder(store).build();
        }
    }
}
