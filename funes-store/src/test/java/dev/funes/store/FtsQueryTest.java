package dev.funes.store;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class FtsQueryTest {

    @Test
    void wordsAreQuotedLowerCasedDeduplicatedAndOred() {
        assertThat(FtsQuery.of("Why did \"CI\" fail: -flag *glob* why"))
                .contains("\"why\" OR \"did\" OR \"ci\" OR \"fail\" OR \"flag\" OR \"glob\"");
    }

    @Test
    void ftsSyntaxBecomesPlainWords() {
        assertThat(FtsQuery.of("NEAR(a b) AND text:foo OR ^bar"))
                .contains("\"near\" OR \"a\" OR \"b\" OR \"and\" OR \"text\" OR \"foo\" OR \"or\" OR \"bar\"");
    }

    @Test
    void identifiersSplitLikeTheUnicode61Tokenizer() {
        assertThat(FtsQuery.of("ERR_SSL_PROTOCOL_ERROR journal_mode=WAL v3.12"))
                .contains("\"err\" OR \"ssl\" OR \"protocol\" OR \"error\" OR \"journal\" OR \"mode\" OR \"wal\" OR \"v3\" OR \"12\"");
    }

    @Test
    void accentsAndOtherScriptsStayInTheirWords() {
        assertThat(FtsQuery.of("café naïve Größe 東京")).contains("\"café\" OR \"naïve\" OR \"größe\" OR \"東京\"");
        assertThat(FtsQuery.of("cafe\u0301")).contains("\"cafe\u0301\"");
    }

    @Test
    void textWithoutWordsHasNoQuery() {
        assertThat(FtsQuery.of("\"' -- ** :: () ^")).isEmpty();
    }

    @Test
    void termsAreCapped() {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 100; i++) {
            text.append("w").append(i).append(' ');
        }
        assertThat(FtsQuery.of(text.toString()).orElseThrow().split(" OR ")).hasSize(FtsQuery.MAX_TERMS);
    }
}
