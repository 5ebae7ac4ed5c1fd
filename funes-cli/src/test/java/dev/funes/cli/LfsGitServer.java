package dev.funes.cli;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.EnumSet;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jgit.errors.RepositoryNotFoundException;
import org.eclipse.jgit.http.server.GitServlet;
import org.eclipse.jgit.lfs.server.LargeFileRepository;
import org.eclipse.jgit.lfs.lib.AnyLongObjectId;
import org.eclipse.jgit.lfs.server.LfsProtocolServlet;
import org.eclipse.jgit.lfs.server.Response;
import org.eclipse.jgit.lfs.server.fs.FileLfsRepository;
import org.eclipse.jgit.lfs.server.fs.FileLfsServlet;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;

/**
 * A git server as the Hub is one, in-process and on loopback only: JGit's smart HTTP server for
 * one bare repository, JGit's LFS server (batch API and object store on disk) at its
 * {@code info/lfs} endpoint with a verify action added, and HTTP basic authentication in front of
 * git and the batch API (object transfers and verify carry the authorization the batch response
 * gave them, as the Hub's do).
 */
final class LfsGitServer implements AutoCloseable {

    private final Server jetty;
    private final Path lfsStore;
    private final String url;
    /** Batch requests served, to show that a push went through LFS. */
    final AtomicInteger batchRequests = new AtomicInteger();
    /** Verify calls that found their object, with the size the batch request gave. */
    final AtomicInteger verified = new AtomicInteger();

    /**
     * @param bare the bare repository served as {@code /git/<its name>}
     */
    LfsGitServer(Path bare, Path lfsStore, String user, String token) throws Exception {
        this.lfsStore = lfsStore;
        Files.createDirectories(lfsStore);
        String name = bare.getFileName().toString();
        jetty = new Server();
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        jetty.addConnector(connector);

        ServletContextHandler context = new ServletContextHandler("/");
        GitServlet git = new GitServlet();
        git.setRepositoryResolver((req, repoName) -> {
            if (!repoName.equals(name)) {
                throw new RepositoryNotFoundException(repoName);
            }
            try {
                return new FileRepositoryBuilder().setGitDir(bare.toFile()).setBare().build();
            } catch (IOException e) {
                throw new RepositoryNotFoundException(repoName, e);
            }
        });
        context.addServlet(new ServletHolder(git), "/git/*");
        // As the Hub does, each upload is followed by a verify call, authorized by the action's own header.
        FileLfsRepository objects = new FileLfsRepository(null, lfsStore) {
            @Override
            public Response.Action getVerifyAction(AnyLongObjectId id) {
                Response.Action a = new Response.Action();
                a.href = getUrl().replace("/lfs/objects/", "/lfs/verify");
                a.header = java.util.Map.of("Authorization", "verify-token");
                return a;
            }
        };
        ServletHolder verifyHolder = new ServletHolder(new HttpServlet() {
            @Override
            protected void doPost(HttpServletRequest req, HttpServletResponse rsp) throws IOException {
                com.fasterxml.jackson.databind.JsonNode body = new com.fasterxml.jackson.databind.ObjectMapper()
                        .readTree(req.getInputStream());
                String oid = body.path("oid").asText();
                Path object = oid.length() == 64 ? object(oid) : null;
                if (object != null && Files.isRegularFile(object) && Files.size(object) == body.path("size").asLong()) {
                    verified.incrementAndGet();
                    rsp.setStatus(200);
                } else {
                    rsp.sendError(404);
                }
            }
        });
        context.addServlet(verifyHolder, "/lfs/verify");
        LfsProtocolServlet batch = new LfsProtocolServlet() {
            @Override
            protected LargeFileRepository getLargeFileRepository(LfsRequest request, String path, String auth) {
                batchRequests.incrementAndGet();
                return objects;
            }
        };
        ServletHolder batchHolder = new ServletHolder(batch);
        context.addServlet(batchHolder, "/git/" + name + "/info/lfs/objects/batch");
        ServletHolder objectsHolder = new ServletHolder(new FileLfsServlet(objects, 30_000));
        objectsHolder.setAsyncSupported(true);
        context.addServlet(objectsHolder, "/lfs/objects/*");
        FilterHolder auth = new FilterHolder(new BasicAuth(user, token));
        auth.setAsyncSupported(true);
        context.addFilter(auth, "/*", EnumSet.of(DispatcherType.REQUEST));
        jetty.setHandler(context);
        jetty.start();
        url = "http://127.0.0.1:" + connector.getLocalPort();
        objects.setUrl(url + "/lfs/objects/");
        try (Repository r = new FileRepositoryBuilder().setGitDir(bare.toFile()).setBare().build()) {
            r.getConfig().setBoolean("http", null, "receivepack", true);
            r.getConfig().save();
        }
    }

    /** The repository's URL, as a Hub dataset's {@code https://huggingface.co/datasets/me/name}. */
    String repositoryUrl(String name) {
        return url + "/git/" + name;
    }

    /** Where the LFS server keeps the content of {@code oid}, if it has it. */
    Path object(String oid) {
        return lfsStore.resolve(oid.substring(0, 2)).resolve(oid.substring(2, 4)).resolve(oid);
    }

    @Override
    public void close() throws Exception {
        jetty.stop();
    }

    /**
     * Refuses git and batch requests without the one user name and token, and object transfers
     * without the authorization the batch response handed out for them (JGit's file store hands
     * out "not:required"), as the Hub's storage URLs carry their own and want no other.
     */
    private static final class BasicAuth implements Filter {
        private final String expected;

        BasicAuth(String user, String token) {
            expected = "Basic " + Base64.getEncoder().encodeToString((user + ":" + token).getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public void doFilter(ServletRequest req, ServletResponse rsp, FilterChain chain)
                throws IOException, ServletException {
            HttpServletRequest http = (HttpServletRequest) req;
            String uri = http.getRequestURI();
            String wanted = uri.startsWith("/lfs/objects/") ? "not:required" : uri.equals("/lfs/verify") ? "verify-token"
                    : expected;
            if (wanted.equals(http.getHeader("Authorization"))) {
                chain.doFilter(req, rsp);
                return;
            }
            HttpServletResponse r = (HttpServletResponse) rsp;
            r.setHeader("WWW-Authenticate", "Basic realm=\"hub\"");
            r.sendError(401);
        }
    }
}
