package dev.funes.why;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.eclipse.jgit.api.Git;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Linker#mayHoldRepository}, asked before JGit is: true wherever JGit finds a repository
 * (a work tree's folder, a folder below it, a bare repository), false for a folder that does not
 * exist or has no repository above it.
 */
class MayHoldRepositoryTest {

    @Test
    void trueWhereJGitFindsARepositoryFalseWhereNothingCanBe(@TempDir Path tmp) throws Exception {
        assumeFalse(Linker.mayHoldRepository(tmp), "the temporary folder is inside a git repository");
        Path plain = Files.createDirectories(tmp.resolve("plain/src"));
        assertThat(Linker.mayHoldRepository(plain)).isFalse();
        assertThat(GitHistory.find(plain)).isEmpty();
        assertThat(Linker.mayHoldRepository(tmp.resolve("absent"))).isFalse();

        Path work = tmp.resolve("work");
        Git.init().setDirectory(work.toFile()).call().close();
        Path below = Files.createDirectories(work.resolve("src/main"));
        Path bare = tmp.resolve("bare.git");
        Git.init().setBare(true).setDirectory(bare.toFile()).call().close();
        for (Path dir : new Path[] {work, below, bare}) {
            Optional<GitHistory> found = GitHistory.find(dir);
            assertThat(found).as("JGit finds the repository of %s", dir).isPresent();
            found.get().close();
            assertThat(Linker.mayHoldRepository(dir)).as("%s", dir).isTrue();
        }
    }
}
