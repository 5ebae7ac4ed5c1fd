package com.example.memory;

import java.util.List;
import java.util.Map;
import org.springframework.ai.document.Document;
import org.springframework.ai.rag.Query;
import org.springframework.ai.rag.retrieval.search.DocumentRetriever;
import org.springframework.ai.vectorstore.SearchRequest;
import org.springframework.ai.vectorstore.VectorStore;
import org.springframework.ai.vectorstore.filter.FilterExpressionBuilder;
import org.springframework.stereotype.Service;

/** Notes of several teams, through the Spring AI beans Funes's auto-configuration provides. */
@Service
public class TeamNotes {

    private final VectorStore store;
    private final DocumentRetriever retriever;

    public TeamNotes(VectorStore store, DocumentRetriever retriever) {
        this.store = store;
        this.retriever = retriever;
    }

    /** Adds (or replaces) the note {@code id}. */
    public void add(String id, String text, String team) {
        store.add(List.of(new Document(id, text, Map.of("team", team))));
    }

    /** The team's notes closest to the question, best first. */
    public List<Document> search(String team, String question) {
        return store.similaritySearch(SearchRequest.builder().query(question).topK(3)
                .filterExpression(new FilterExpressionBuilder().eq("team", team).build()).build());
    }

    /** Funes's hybrid search over everything in the store: what a RetrievalAugmentationAdvisor would use. */
    public List<Document> recall(String question) {
        return retriever.retrieve(new Query(question));
    }
}
