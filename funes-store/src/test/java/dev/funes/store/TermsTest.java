package dev.funes.store;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class TermsTest {

    @Test
    void camelCaseGivesItsParts() {
        assertThat(Terms.of("call parseHttpHeader now")).isEqualTo("parse http header");
        assertThat(Terms.of("HTTPServer")).isEqualTo("http server");
        assertThat(Terms.of("plain words only")).isEmpty();
    }

    @Test
    void joinedNamesAlsoGiveTheirWhole() {
        assertThat(Terms.of("snake_case_name")).isEqualTo("snakecasename");
        assertThat(Terms.of("dev.funes.store.Schema")).isEqualTo("devfunesstoreschema");
        assertThat(Terms.of("use --dry-run first")).isEqualTo("dryrun");
        assertThat(Terms.of("std::vector")).isEqualTo("stdvector");
    }

    @Test
    void pathsGiveTheirWholeAndTheirFileName() {
        assertThat(Terms.of("edited src/main/FtsQuery.java:12."))
                .isEqualTo("fts query srcmainftsqueryjava ftsqueryjava");
        assertThat(Terms.of("see C:\\repo\\Read_Me.md"))
                .isEqualTo("reporeadmemd readmemd");
    }

    @Test
    void numbersAndSentencesAreNotJoined() {
        assertThat(Terms.of("It cost 8.5 dollars. Then 1:56 pm.")).isEmpty();
    }
}
