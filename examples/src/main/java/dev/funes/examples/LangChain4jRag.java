package dev.funes.examples;

import dev.funes.Embedder;
import dev.funes.MemoryStore;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.ingest.Indexer;
import dev.funes.langchain4j.FunesContentRetriever;
import dev.funes.langchain4j.FunesEmbeddingModel;
import dev.funes.langchain4j.FunesEmbeddingStore;
import dev.funes.store.FunesStore;
import dev.langchain4j.data.document.Metadata;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.rag.AugmentationRequest;
import dev.langchain4j.rag.AugmentationResult;
import dev.langchain4j.rag.DefaultRetrievalAugmentor;
import dev.langchain4j.rag.RetrievalAugmentor;
import dev.langchain4j.rag.content.Content;
import dev.langchain4j.rag.content.injector.DefaultContentInjector;
import dev.langchain4j.store.embedding.EmbeddingStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Retrieval-augmented generation with LangChain4j over Funes: agent logs indexed by Funes, a team
 * note added through LangChain4j's {@code EmbeddingStore} API, and a {@code RetrievalAugmentor}
 * whose {@link FunesContentRetriever} runs Funes's hybrid search. It prints the augmented user
 * message, the prompt a chat model would get, with each memory's source lines. No chat model is
 * called: everything runs offline.
 *
 * <p>Run: {@code examples/run LangChain4jRag [LOG_FOLDER] [QUESTION]}.
 */
public final class LangChain4jRag {

    private LangChain4jRag() {
    }

    /** Indexes {@code args[0]} (default {@code examples/demo-session}) and augments {@code args[1]}. */
    public static void main(String[] args) throws Exception {
        Path logs = Path.of(args.length > 0 ? args[0] : "examples/demo-session");
        String question = args.length > 1 ? args[1] : "Why did we stop using the streaming ledger parser?";
        Path storeDir = Files.createTempDirectory("funes-rag-");

        try {
            // README:begin
            try (Embedder embedder = Embedders.bundled(BundledModel.DEFAULT);
                 MemoryStore store = FunesStore.open(storeDir, embedder)) {
                Indexer.builder(store).build().index(List.of(logs));

                // LangChain4j's EmbeddingStore API, with the bundled local model.
                EmbeddingModel model = FunesEmbeddingModel.of(embedder);
                EmbeddingStore<TextSegment> notes = FunesEmbeddingStore.of(store);
                TextSegment note = TextSegment.from("Team rule: ledger files are parsed in two passes; the streaming parser is retired.",
                        Metadata.from("kind", "convention"));
                notes.add(model.embed(note).content(), note);

                RetrievalAugmentor augmentor = DefaultRetrievalAugmentor.builder()
                        .contentRetriever(FunesContentRetriever.builder(store).maxResults(5).build())
                        .contentInjector(DefaultContentInjector.builder()
                                .metadataKeysToInclude(List.of("kind", "source", "lineStart", "lineEnd")).build())
                        .build();
                UserMessage message = UserMessage.from(question);
                var chat = dev.langchain4j.rag.query.Metadata.from(message, "demo-chat", List.<ChatMessage>of());
                AugmentationResult result = augmentor.augment(new AugmentationRequest(message, chat));

                System.out.println(((UserMessage) result.chatMessage()).singleText());
                for (Content content : result.contents()) {
                    Metadata m = content.textSegment().metadata();
                    String from = m.containsKey("source")
                            ? m.getString("source") + ":" + m.getInteger("lineStart") + "-" + m.getInteger("lineEnd")
                            : "(added through LangChain4j)";
                    System.out.printf("-- %s %s%n", m.getString("kind"), from);
                }
            }
            // README:end
        } finally {
            Folders.deleteTree(storeDir); // the example leaves nothing behind
        }
    }
}
