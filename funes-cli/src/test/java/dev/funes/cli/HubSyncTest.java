package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.SearchRequest;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.store.FunesStore;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.transport.UsernamePasswordCredentialsProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code funes push} and {@code pull} against a repository served like the Hugging Face Hub's:
 * JGit's smart HTTP server and JGit's LFS server, in-process on loopback, behind basic
 * authentication, holding a card and a {@code .gitattributes} made "on the website".
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HubSyncTest {

    private static final String USER = "me";
    private static final String TOKEN = "hf_testTokenZq8xR2mK9pL4vN7tY1wB";
    private static final List<String> QUERIES = List.of("how does CI check out the code", "release signing",
            "docker image", "flaky tests", "database reset", "cache key");

    private Embedder embedder;

    @BeforeAll
    void loadModel() {
        embedder = Embedders.bundled(BundledModel.DEFAULT);
    }

    @AfterAll
    void closeModel() {
        embedder.close();
    }

    @AfterEach
    void forgetCredentials() {
        SyncCommands.testEnvironment = null;
    }

    private static CliTest.Result ok(String... args) {
        CliTest.Result r = CliTest.funes(args);
        assertThat(r.status()).as("funes %s\n%s", String.join(" ", args), r.err()).isZero();
        return r;
    }

    private static void credentials(String token) {
        SyncCommands.testEnvironment = Map.of("FUNES_GIT_USERNAME", USER, "FUNES_GIT_TOKEN", token);
    }

    private void add(Path store, String... texts) {
        try (MemoryStore s = FunesStore.open(store, embedder)) {
            for (String t : texts) {
                s.add(Memory.builder(MemoryKind.NOTE, "api", t).build());
            }
        }
    }

    private List<List<String>> answers(Path store) {
        List<List<String>> answers = new ArrayList<>();
        try (MemoryStore s = FunesStore.open(store, embedder)) {
            for (String q : QUERIES) {
                answers.add(s.search(SearchRequest.builder(q).limit(10).build()).stream()
                        .map(h -> h.memory().id()).toList());
            }
        }
        return answers;
    }

    @Test
    void aHubLikeRepositoryKeepsItsCardAndAttributesAndShardsTravelAsLfsObjects(@TempDir Path tmp) throws Exception {
        Path bare = tmp.resolve("memory.git");
        Path website = tmp.resolve("website");
        // The repository as the Hub creates it, with a card and .gitattributes written on the website.
        try (Git w = Git.init().setDirectory(website.toFile()).setInitialBranch("main").call()) {
            Files.writeString(website.resolve(".gitattributes"), "*.arrow filter=lfs diff=lfs merge=lfs -text\n"
                    + "*.gz filter=lfs diff=lfs merge=lfs -text\n*.parquet filter=lfs diff=lfs merge=lfs -text\n"
                    + "*.zip filter=lfs diff=lfs merge=lfs -text\n");
            Files.writeString(website.resolve("README.md"), "---\nlicense: mit\n---\n\n# My memory\n\nWritten on the website.\n");
            w.add().addFilepattern(".").call();
            w.commit().setMessage("initial commit").setAuthor(new PersonIdent("hub", "hub@example.org")).call();
        }
        Git.cloneRepository().setURI(website.toString()).setDirectory(bare.toFile()).setBare(true).call().close();

        try (LfsGitServer hub = new LfsGitServer(bare, tmp.resolve("lfs-store"), USER, TOKEN)) {
            String remote = hub.repositoryUrl("memory.git");
            assertThat(remote).as("loopback only").startsWith("http://127.0.0.1:");
            Path a = tmp.resolve("a");
            add(a, "note about CI: it checks out the merge commit, not the branch head",
                    "note about the release: the job signs the jar with the vault key",
                    "note about the docker image: it is distroless",
                    "note about flaky tests: they are quarantined, not retried",
                    "note about the staging database: it is reset nightly",
                    "note about the build cache: the key includes the lock file");

            // A wrong token: refused, and the message carries no token.
            credentials("hf_wrongTokenXq1Yw2Ev3Rt4");
            CliTest.Result refused = CliTest.funes("push", remote, "--store", a.toString(), "--with-vectors");
            assertThat(refused.status()).isNotZero();
            assertThat(refused.err()).contains(remote).doesNotContain("hf_wrongTokenXq1Yw2Ev3Rt4").doesNotContain(TOKEN);

            credentials(TOKEN);
            ok("push", remote, "--store", a.toString(), "--with-vectors");
            assertThat(hub.batchRequests.get()).as("the shards went through the LFS batch API").isPositive();
            int uploaded = hub.verified.get();

            // What the remote holds: pointers, whose objects are in the LFS store; the website's files kept.
            Path plain = tmp.resolve("plain-clone");
            Git.cloneRepository().setURI(bare.toString()).setDirectory(plain.toFile()).call().close();
            List<Path> lfsFiles = new ArrayList<>();
            for (String folder : List.of("data", "memories")) {
                try (Stream<Path> s = Files.list(plain.resolve(folder))) {
                    lfsFiles.addAll(s.toList());
                }
            }
            assertThat(lfsFiles).hasSizeGreaterThanOrEqualTo(2);
            assertThat(uploaded).as("each uploaded object was verified")
                    .isEqualTo(lfsFiles.stream().map(f -> readPointer(f).oid()).distinct().count());
            for (Path f : lfsFiles) {
                GitLfs.Pointer p = GitLfs.Pointer.parse(Files.readAllBytes(f));
                assertThat(p).as("%s is an LFS pointer", f).isNotNull();
                Path object = hub.object(p.oid());
                assertThat(object).as("the LFS store holds %s", f).isRegularFile();
                assertThat(Files.size(object)).isEqualTo(p.size());
                assertThat(sha256(object)).isEqualTo(p.oid());
                try (InputStream in = new GZIPInputStream(Files.newInputStream(object))) {
                    assertThat(in.readAllBytes()).isNotEmpty();
                }
            }
            String attributes = Files.readString(plain.resolve(".gitattributes"));
            assertThat(attributes).contains("*.parquet filter=lfs", "*.gz filter=lfs",
                    "data/*.jsonl.gz filter=lfs diff=lfs merge=lfs -text", "memories/*.jsonl.gz filter=lfs");
            String card = Files.readString(plain.resolve("README.md"));
            assertThat(card).contains("license: mit", "Written on the website.", "config_name: memories")
                    .doesNotContain("license: other");

            // A second machine joins: its pull downloads the objects and imports into an empty store.
            Path b = tmp.resolve("b");
            assertThat(ok("pull", remote, "--store", b.toString()).out()).contains("6 memories added");
            assertThat(answers(b)).isEqualTo(answers(a));
            try (Stream<Path> s = Files.list(b.resolve("dataset/data"))) {
                for (Path shard : s.toList()) {
                    assertThat(GitLfs.Pointer.parse(Files.readAllBytes(shard))).as("%s was smudged", shard).isNull();
                }
            }

            // The owner edits the card on the website again; A adds and deletes, pulls, pushes.
            try (Git w = Git.open(plain.toFile())) {
                Files.writeString(plain.resolve("README.md"), card + "\nA second edit on the website.\n");
                w.add().addFilepattern("README.md").call();
                w.commit().setMessage("Update README.md").setAuthor(new PersonIdent("hub", "hub@example.org")).call();
                w.push().call();
            }
            add(a, "note about the linter: warnings fail the build");
            try (MemoryStore s = FunesStore.open(a, embedder)) {
                Memory docker = s.search(SearchRequest.builder("docker image distroless").limit(1).build()).get(0).memory();
                assertThat(s.delete(docker.id())).isTrue();
            }
            ok("pull", remote, "--store", a.toString(), "--with-vectors");
            ok("push", remote, "--store", a.toString(), "--with-vectors");
            String local = Files.readString(a.resolve("dataset/README.md"));
            assertThat(local).contains("Written on the website.", "A second edit on the website.", "config_name: memories");
            try (Git w = Git.open(plain.toFile())) {
                w.pull().call();
            }
            String after = Files.readString(plain.resolve("README.md"));
            assertThat(after).contains("license: mit", "Written on the website.", "A second edit on the website.",
                    "config_name: deletions");
            assertThat(after.split("funes:begin", -1)).as("Funes's block once").hasSize(2);

            CliTest.Result bPull = ok("pull", remote, "--store", b.toString());
            assertThat(bPull.out()).contains("1 memories added", "1 deleted");
            assertThat(answers(b)).isEqualTo(answers(a));

            // A clone made by git without LFS, over HTTP: import fetches the objects from its origin.
            Path httpClone = tmp.resolve("http-clone");
            Git.cloneRepository().setURI(remote).setDirectory(httpClone.toFile())
                    .setCredentialsProvider(new UsernamePasswordCredentialsProvider(USER, TOKEN)).call().close();
            Path c = tmp.resolve("c");
            CliTest.Result imported = ok("import", httpClone.toString(), "--store", c.toString());
            assertThat(imported.err()).contains("Git LFS objects into");
            assertThat(imported.out()).contains("6 memories added");
            assertThat(answers(c)).isEqualTo(answers(a));
        }
    }

    private static GitLfs.Pointer readPointer(Path f) {
        try {
            return GitLfs.Pointer.parse(Files.readAllBytes(f));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static String sha256(Path file) throws IOException {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
