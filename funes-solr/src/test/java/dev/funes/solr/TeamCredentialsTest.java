package dev.funes.solr;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Where team credentials come from, and that a password never shows. */
class TeamCredentialsTest {

    private static final String SECRET = "s3cret-Pa55word";

    @Test
    void theEnvironmentGivesBothOrNeither() {
        assertThat(TeamCredentials.fromEnvironment(Map.of(TeamCredentials.USER_ENV, "ann",
                TeamCredentials.PASSWORD_ENV, SECRET), null)).hasValueSatisfying(c -> {
                    assertThat(c.user()).isEqualTo("ann");
                    assertThat(c.password()).isEqualTo(SECRET);
                    assertThat(c.toString()).doesNotContain(SECRET);
                });
        assertThatThrownBy(() -> TeamCredentials.fromEnvironment(Map.of(TeamCredentials.PASSWORD_ENV, SECRET), null))
                .hasMessageContaining(TeamCredentials.USER_ENV).message().doesNotContain(SECRET);
        assertThat(TeamCredentials.fromEnvironment(Map.of(), null)).isEmpty();
    }

    @Test
    void aCredentialsFileOthersMayReadIsRefused(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("team-credentials");
        Files.writeString(file, "user=bob\npassword=" + SECRET + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        assertThatThrownBy(() -> TeamCredentials.fromEnvironment(Map.of(), file))
                .hasMessageContaining(file.toString()).hasMessageContaining("chmod 600")
                .message().doesNotContain(SECRET);

        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        TeamCredentials c = TeamCredentials.fromEnvironment(Map.of(), file).orElseThrow();
        assertThat(c.user()).isEqualTo("bob");
        assertThat(c.password()).isEqualTo(SECRET);
        // The variable naming a file wins over the default file.
        Path other = dir.resolve("other");
        Files.writeString(other, "user=carol\npassword=x\n");
        Files.setPosixFilePermissions(other, PosixFilePermissions.fromString("r--------"));
        assertThat(TeamCredentials.fromEnvironment(Map.of(TeamCredentials.FILE_ENV, other.toString()), file)
                .orElseThrow().user()).isEqualTo("carol");
    }

    @Test
    void aFileWithoutAPasswordIsRefusedNamingIt(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("creds");
        Files.writeString(file, "user=bob\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        assertThatThrownBy(() -> TeamCredentials.fromFile(file)).hasMessageContaining(file.toString())
                .hasMessageContaining("password=");
    }

    @Test
    void aTeamUrlCarryingCredentialsIsRefusedWithoutEchoingThem() {
        assertThatThrownBy(() -> TeamUrl.parse("http://bob:" + SECRET + "@solr.example:8983/solr/team"))
                .hasMessageContaining("must not hold credentials").message().doesNotContain(SECRET);
    }

    @Test
    void teamUrlsNameNodesAndOneCollection() {
        TeamUrl url = TeamUrl.parse("http://a:8983/solr/team, http://b:8983/solr/team/");
        assertThat(url.collection()).isEqualTo("team");
        assertThat(url.nodes()).extracting(Object::toString).containsExactly("http://a:8983/solr", "http://b:8983/solr");
        assertThat(TeamUrl.parse(url.toString())).isEqualTo(url);
        assertThatThrownBy(() -> TeamUrl.parse("http://a:8983/solr/one,http://b:8983/solr/two"))
                .hasMessageContaining("one collection");
        assertThatThrownBy(() -> TeamUrl.parse("ftp://a/solr/x")).hasMessageContaining("not a team URL");
        assertThatThrownBy(() -> TeamUrl.parse("http://a:8983/")).hasMessageContaining("COLLECTION");
    }
}
