package dev.funes.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.funes.FunesException;
import dev.funes.cli.GitLfs.Pointer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.eclipse.jgit.lib.Repository;

/**
 * Moves LFS objects between the dataset repository and its remote.
 *
 * <p>For an HTTP(S) remote, the Git LFS batch API ({@code <remote>.git/info/lfs/objects/batch},
 * "basic" transfer) over {@link HttpClient}, with the same user name and token as git. JGit's
 * own LFS client ({@code org.eclipse.jgit.lfs}) does not serve here: it sends no credentials to
 * the batch endpoint (a private Hub repository answers 401), finds the endpoint only for a remote
 * named {@code origin}, uploads with chunked transfer encoding (the presigned storage URLs the Hub
 * hands out need a length) and never calls the {@code verify} action.
 *
 * <p>For a remote that is a path (a bare repository on a disk), objects are copied to and from
 * its {@code lfs/objects/}, where git-lfs keeps them for such remotes too.
 *
 * <p>Credentials go only to the batch endpoint and to action URLs of the same origin that carry
 * no authorization of their own; redirects are followed without them. Nothing here puts them in
 * a message.
 */
abstract class LfsTransfer {

    /** Objects per batch request, as git-lfs sends them. */
    static final int BATCH = 100;

    abstract void upload(Repository repo, List<Pointer> pointers) throws IOException;

    abstract void download(Repository repo, List<Pointer> pointers) throws IOException;

    /**
     * The transfer for {@code remote}: a URL ({@code http}, {@code https}) or a path.
     *
     * @param user  user name, or {@code null} without credentials
     * @param token token or password, or {@code null}
     */
    static LfsTransfer forRemote(String remote, String user, String token) {
        String lower = remote.toLowerCase(Locale.ROOT);
        if (lower.startsWith("http://") || lower.startsWith("https://")) {
            return new Http(remote, user, token);
        }
        if (lower.startsWith("file://")) {
            return new Local(Path.of(URI.create(remote)));
        }
        if (lower.matches("^[a-z][a-z0-9+.-]*://.*") || lower.matches("^[^/]*@[^/]*:.*")) {
            throw new FunesException("the remote " + GitSync.withoutUserInfo(remote)
                    + " is neither HTTP(S) nor a path: ssh remotes are not supported (use HTTPS with a token)");
        }
        return new Local(Path.of(remote));
    }

    /** A remote that is a folder: a bare repository, or a work tree with its {@code .git}. */
    static final class Local extends LfsTransfer {
        private final Path objects;

        Local(Path remote) {
            Path git = Files.isDirectory(remote.resolve(".git")) ? remote.resolve(".git") : remote;
            this.objects = git.resolve("lfs").resolve("objects");
        }

        private Path at(String oid) {
            return objects.resolve(oid.substring(0, 2)).resolve(oid.substring(2, 4)).resolve(oid);
        }

        @Override
        void upload(Repository repo, List<Pointer> pointers) throws IOException {
            for (Pointer p : pointers) {
                Path target = at(p.oid());
                if (Files.isRegularFile(target) && Files.size(target) == p.size()) {
                    continue;
                }
                Path source = GitLfs.object(repo, p.oid());
                if (!Files.isRegularFile(source)) {
                    throw new FunesException("the LFS object " + p.oid() + " is missing from " + repo.getDirectory()
                            + "/lfs/objects: it cannot be pushed");
                }
                Files.createDirectories(target.getParent());
                Path temp = Files.createTempFile(target.getParent(), "push", ".tmp");
                Files.copy(source, temp, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                Files.move(temp, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }

        @Override
        void download(Repository repo, List<Pointer> pointers) throws IOException {
            for (Pointer p : pointers) {
                Path source = at(p.oid());
                if (!Files.isRegularFile(source)) {
                    throw new FunesException("the remote has no LFS object " + p.oid() + " (" + source
                            + "): it was pushed without its LFS content");
                }
                try (InputStream in = Files.newInputStream(source)) {
                    receive(repo, p, in, source.toString());
                }
            }
        }
    }

    /** Copies {@code in} into the object store, checking its size and SHA-256 against the pointer. */
    static void receive(Repository repo, Pointer p, InputStream in, String from) throws IOException {
        Path temp = Files.createTempFile(GitLfs.tmp(repo), "fetch", ".tmp");
        try {
            MessageDigest digest = GitLfs.sha256();
            long size = 0;
            try (OutputStream out = Files.newOutputStream(temp)) {
                byte[] buffer = new byte[1 << 16];
                for (int n; (n = in.read(buffer)) > 0; ) {
                    size += n;
                    if (size > p.size()) {
                        break;
                    }
                    digest.update(buffer, 0, n);
                    out.write(buffer, 0, n);
                }
            }
            String sha = GitLfs.hex(digest);
            if (size != p.size() || !sha.equals(p.oid())) {
                throw new FunesException("the LFS object " + p.oid() + " from " + from + " is damaged ("
                        + (size > p.size() ? "longer than " + p.size() : size + " bytes, sha256 " + sha) + ")");
            }
            GitLfs.store(repo, temp, p.oid());
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /** The batch API of an HTTP(S) remote. */
    static final class Http extends LfsTransfer {
        private static final String LFS_JSON = "application/vnd.git-lfs+json";
        /** Headers HttpClient sets itself and refuses from a caller. */
        private static final Set<String> RESTRICTED = Set.of("connection", "content-length", "expect", "host",
                "upgrade");
        private static final ObjectMapper JSON = new ObjectMapper();

        private final URI batch;
        private final String shownRemote;
        private final String authorization;
        private final String token;
        private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(30))
                .followRedirects(HttpClient.Redirect.NEVER).build();

        Http(String remote, String user, String token) {
            this.shownRemote = GitSync.withoutUserInfo(remote);
            String base = shownRemote.replaceAll("/+$", "");
            if (!base.endsWith(".git")) {
                base += ".git";
            }
            this.batch = URI.create(base + "/info/lfs/objects/batch");
            this.token = token;
            this.authorization = token == null ? null : "Basic " + Base64.getEncoder().encodeToString(
                    (user + ":" + token).getBytes(StandardCharsets.UTF_8));
        }

        @Override
        void upload(Repository repo, List<Pointer> pointers) throws IOException {
            for (int from = 0; from < pointers.size(); from += BATCH) {
                List<Pointer> part = pointers.subList(from, Math.min(pointers.size(), from + BATCH));
                for (JsonNode o : request("upload", part)) {
                    JsonNode actions = o.get("actions");
                    if (actions == null || actions.get("upload") == null) {
                        continue; // the server has it already
                    }
                    Pointer p = new Pointer(o.get("oid").asText(), o.get("size").asLong());
                    Path file = GitLfs.object(repo, p.oid());
                    if (!Files.isRegularFile(file) || Files.size(file) != p.size()) {
                        throw new FunesException("the LFS object " + p.oid() + " is missing from "
                                + repo.getDirectory() + "/lfs/objects: it cannot be pushed");
                    }
                    JsonNode upload = actions.get("upload");
                    HttpRequest.Builder put = action(upload).PUT(HttpRequest.BodyPublishers.ofFile(file));
                    if (!hasHeader(upload, "content-type")) {
                        put.header("Content-Type", "application/octet-stream");
                    }
                    HttpResponse<String> r = send(put, HttpResponse.BodyHandlers.ofString());
                    if (r.statusCode() / 100 != 2) {
                        throw failure("uploading LFS object " + p.oid(), r.statusCode(), null);
                    }
                    JsonNode verify = actions.get("verify");
                    if (verify != null) {
                        ObjectNode body = JSON.createObjectNode().put("oid", p.oid()).put("size", p.size());
                        HttpRequest.Builder post = action(verify).header("Accept", LFS_JSON)
                                .POST(HttpRequest.BodyPublishers.ofString(body.toString()));
                        if (!hasHeader(verify, "content-type")) {
                            post.header("Content-Type", LFS_JSON);
                        }
                        HttpResponse<String> v = send(post, HttpResponse.BodyHandlers.ofString());
                        if (v.statusCode() / 100 != 2) {
                            throw failure("verifying LFS object " + p.oid(), v.statusCode(), v.body());
                        }
                    }
                }
            }
        }

        @Override
        void download(Repository repo, List<Pointer> pointers) throws IOException {
            for (int from = 0; from < pointers.size(); from += BATCH) {
                List<Pointer> part = pointers.subList(from, Math.min(pointers.size(), from + BATCH));
                for (JsonNode o : request("download", part)) {
                    Pointer p = new Pointer(o.get("oid").asText(), o.get("size").asLong());
                    JsonNode download = o.path("actions").get("download");
                    if (download == null) {
                        throw new FunesException("the LFS server of " + shownRemote + " offers no download of "
                                + p.oid());
                    }
                    HttpResponse<InputStream> r = send(action(download).GET(), HttpResponse.BodyHandlers.ofInputStream());
                    try (InputStream in = r.body()) {
                        if (r.statusCode() / 100 != 2) {
                            throw failure("downloading LFS object " + p.oid(), r.statusCode(), null);
                        }
                        receive(repo, p, in, shownRemote);
                    }
                }
            }
        }

        /** Posts a batch request; its objects, each checked for an error. */
        private JsonNode request(String operation, List<Pointer> pointers) throws IOException {
            ObjectNode body = JSON.createObjectNode();
            body.put("operation", operation);
            body.putArray("transfers").add("basic");
            body.putObject("ref").put("name", "refs/heads/" + GitSync.BRANCH);
            ArrayNode objects = body.putArray("objects");
            for (Pointer p : pointers) {
                objects.addObject().put("oid", p.oid()).put("size", p.size());
            }
            HttpRequest.Builder b = HttpRequest.newBuilder(batch).timeout(Duration.ofMinutes(2))
                    .header("Accept", LFS_JSON).header("Content-Type", LFS_JSON)
                    .POST(HttpRequest.BodyPublishers.ofString(body.toString()));
            if (authorization != null) {
                b.header("Authorization", authorization);
            }
            HttpResponse<String> r = send(b, HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw failure("the LFS batch request (" + operation + ")", r.statusCode(), r.body());
            }
            JsonNode response = JSON.readTree(r.body());
            JsonNode list = response.get("objects");
            if (list == null || !list.isArray()) {
                throw new FunesException("the LFS server of " + shownRemote + " answered a batch request without objects");
            }
            for (JsonNode o : list) {
                JsonNode error = o.get("error");
                if (error != null && !error.isNull()) {
                    throw new FunesException("the LFS server of " + shownRemote + " refused object "
                            + o.path("oid").asText() + " (" + error.path("code").asText() + ": "
                            + GitSync.scrub(error.path("message").asText(), token) + ")");
                }
            }
            return list;
        }

        /** A request to an action's URL with its headers; ours only for our own origin and when it brings none. */
        private HttpRequest.Builder action(JsonNode action) {
            URI href;
            try {
                href = new URI(action.get("href").asText());
            } catch (URISyntaxException | NullPointerException e) {
                throw new FunesException("the LFS server of " + shownRemote + " sent an action without a valid URL");
            }
            HttpRequest.Builder b = HttpRequest.newBuilder(href).timeout(Duration.ofMinutes(30));
            JsonNode header = action.get("header");
            if (header != null) {
                for (Iterator<Map.Entry<String, JsonNode>> it = header.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> h = it.next();
                    if (!RESTRICTED.contains(h.getKey().toLowerCase(Locale.ROOT))) {
                        b.header(h.getKey(), h.getValue().asText());
                    }
                }
            }
            if (authorization != null && !hasHeader(action, "authorization") && sameOrigin(href, batch)) {
                b.header("Authorization", authorization);
            }
            return b;
        }

        private static boolean hasHeader(JsonNode action, String name) {
            JsonNode header = action.get("header");
            if (header == null) {
                return false;
            }
            for (Iterator<String> it = header.fieldNames(); it.hasNext(); ) {
                if (it.next().equalsIgnoreCase(name)) {
                    return true;
                }
            }
            return false;
        }

        private static boolean sameOrigin(URI a, URI b) {
            return a.getScheme() != null && a.getScheme().equalsIgnoreCase(b.getScheme())
                    && a.getHost() != null && a.getHost().equalsIgnoreCase(b.getHost()) && port(a) == port(b);
        }

        private static int port(URI u) {
            return u.getPort() >= 0 ? u.getPort() : "https".equalsIgnoreCase(u.getScheme()) ? 443 : 80;
        }

        /** Sends, following up to five redirects; a redirect to another origin loses our authorization. */
        private <T> HttpResponse<T> send(HttpRequest.Builder builder, HttpResponse.BodyHandler<T> handler)
                throws IOException {
            HttpRequest request = builder.build();
            try {
                for (int hop = 0; ; hop++) {
                    HttpResponse<T> r = client.send(request, handler);
                    int s = r.statusCode();
                    if (s != 301 && s != 302 && s != 303 && s != 307 && s != 308 || hop == 5) {
                        return r;
                    }
                    String location = r.headers().firstValue("Location").orElse(null);
                    if (location == null) {
                        return r;
                    }
                    URI previous = request.uri();
                    URI next = previous.resolve(location);
                    HttpRequest.Builder b = HttpRequest.newBuilder(next).timeout(Duration.ofMinutes(30));
                    request.headers().map().forEach((k, values) -> {
                        if (!k.equalsIgnoreCase("authorization") || sameOrigin(next, previous)) {
                            values.forEach(v -> b.header(k, v));
                        }
                    });
                    if (s == 303) {
                        b.GET();
                    } else {
                        b.method(request.method(), request.bodyPublisher().orElse(HttpRequest.BodyPublishers.noBody()));
                    }
                    if (r.body() instanceof InputStream in) {
                        in.close();
                    }
                    request = b.build();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            } catch (IOException e) {
                // The exception names the host at most; its message is kept free of credentials all the same.
                throw new IOException(GitSync.scrub(String.valueOf(e.getMessage()), token));
            }
        }

        private FunesException failure(String what, int status, String body) {
            String hint = status == 401 || status == 403
                    ? ": the credentials were refused; set FUNES_GIT_USERNAME and FUNES_GIT_TOKEN (a token with write"
                    + " access for push)" : "";
            String detail = "";
            if (body != null && !body.isBlank()) {
                try {
                    JsonNode n = JSON.readTree(body);
                    if (n.hasNonNull("message")) {
                        detail = " (" + GitSync.scrub(n.get("message").asText(), token) + ")";
                    }
                } catch (IOException e) {
                    // not JSON: no detail
                }
            }
            return new FunesException(what + " at " + shownRemote + " failed with HTTP " + status + detail + hint);
        }
    }
}
