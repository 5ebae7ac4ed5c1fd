package dev.funes.store;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class FtsQueryTest {

    @Test
    void wordsAreQuotedLowerCasedDeduplicatedAndOredWithoutStopWords() {
        assertThat(FtsQuery.of("Why did \"CI\" fail: -flag *glob* why"))
                .contains("\"ci\" OR \"fail\" OR \"flag\" OR \"glob\"");
    }

    @Test
    void aQueryOfOnlyStopWordsKeepsThem() {
        assertThat(FtsQuery.of("What was it?")).contains("\"what\" OR \"was\" OR \"it\"");
    }

    @Test
    void identifiersAlsoAskForTheirPartsAndTheirWhole() {
        assertThat(FtsQuery.of("parseHttpHeader")).contains("\"parsehttpheader\" OR \"parse\" OR \"http\" OR \"header\"");
        assertThat(FtsQuery.of("snake_case_name")).contains("\"snake\" OR \"case\" OR \"name\" OR \"snakecasename\"");
        assertThat(FtsQuery.of("--dry-run")).contains("\"dry\" OR \"run\" OR \"dryrun\"");
    }

    @Test
    void ftsSyntaxBecomesPlainWords() {
        assertThat(FtsQuery.of("NEAR(x y) AND text:foo OR ^bar"))
                .contains("\"near\" OR \"x\" OR \"y\" OR \"text\" OR \"foo\" OR \"bar\"");
    }

    @Test
    void identifiersSplitLikeTheUnicode61Tokenizer() {
        assertThat(FtsQuery.of("ERR_SSL_PROTOCOL_ERROR journal_mode=WAL v3.12"))
                .contains("\"err\" OR \"ssl\" OR \"protocol\" OR \"error\" OR \"journal\" OR \"mode\" OR \"wal\" OR \"v3\" OR \"12\""
                        + " OR \"errsslprotocolerror\" OR \"journalmode\" OR \"v312\"");
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
