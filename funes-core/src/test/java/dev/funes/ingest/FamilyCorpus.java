package dev.funes.ingest;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.funes.Memory;
import dev.funes.redact.Fake;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Claude Code sessions holding secrets of the families an adversarial probe found surviving
 * (issue 22), each in forms written from the service's documented format or the tool's usage:
 * prefixed service tokens, Vault, Heroku, Azure SAS, lone PEM lines, a service account's
 * {@code private_key_id}, tokens glued to a word, JWTs cut by shortening, URL passwords holding
 * {@code # / ? @}, Redis and MySQL command lines, URL-encoded and base64-encoded passwords,
 * {@code .pgpass} lines, Kubernetes name/value pairs, secrets told in prose and in thinking, and
 * secrets in paths: a command's path, the session's working directory, and so the log's own path
 * (Claude Code names a project's folder after it). Sibling of {@link PlantedCorpus}, which
 * covers the older families.
 */
final class FamilyCorpus {

    /** A planted secret: {@code value} is what must not survive; {@code family} says which family it shows. */
    record Planted(String family, String value) {
    }

    static final String[] FAMILIES = {"huggingface", "npm", "pypi", "sendgrid", "vault", "heroku", "azure-sas",
            "azure-key", "pem-line", "private-key-id", "glued", "jwt-cut", "url-special", "redis-url", "redis-cli",
            "mysql-p", "url-encoded", "pgpass", "basic-base64", "k8s-env", "keyword-far", "prose-password",
            "thinking-password", "random-path", "service-token", "google-oauth", "working-directory"};

    private enum Place { PROSE, THINKING, COMMAND, OUTPUT }

    private record Snippet(Place place, String text) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Fake fake;
    private final List<String> filler;
    final List<Planted> planted = new ArrayList<>();

    FamilyCorpus(long seed, List<String> filler) {
        this.fake = new Fake(seed);
        this.filler = filler;
    }

    private String line() {
        return filler.get(fake.between(0, filler.size() - 1));
    }

    private String plant(String family, String value) {
        planted.add(new Planted(family, value));
        return value;
    }

    /** A snippet of {@code family}, in one of its forms. */
    private Snippet snippet(String family) {
        Function<String, String> p = v -> plant(family, v);
        int form = fake.between(0, 2);
        switch (family) {
            case "huggingface": {
                String t = p.apply(fake.huggingFaceToken());
                return form == 0 ? new Snippet(Place.COMMAND, "huggingface-cli login --token " + t + " --add-to-git-credential")
                        : form == 1 ? new Snippet(Place.OUTPUT, "HF_HOME=/data/hf\nHF_TOKEN=" + t + "\nTRANSFORMERS_OFFLINE=0")
                        : new Snippet(Place.PROSE, "Pushing the dataset fails with 401 although I set `HF_TOKEN` to " + t + " in the shell.");
            }
            case "npm": {
                String t = p.apply(fake.npmToken());
                return form == 0 ? new Snippet(Place.OUTPUT, "$ cat ~/.npmrc\n//registry.npmjs.org/:_authToken=" + t + "\n@acme:registry=https://npm.acme.dev/")
                        : form == 1 ? new Snippet(Place.COMMAND, "NPM_TOKEN=" + t + " npm publish --access public")
                        : new Snippet(Place.PROSE, "The automation token is " + t + "; publish still says E403.");
            }
            case "pypi": {
                String t = p.apply(fake.pypiToken());
                return form == 0 ? new Snippet(Place.COMMAND, "twine upload -u __token__ -p " + t + " dist/*")
                        : new Snippet(Place.OUTPUT, "[distutils]\nindex-servers = pypi\n\n[pypi]\n  username = __token__\n  password = " + t);
            }
            case "sendgrid": {
                String t = p.apply(fake.sendgridKey());
                return form == 0 ? new Snippet(Place.PROSE, "```python\nsg = SendGridAPIClient('" + t + "')\nsg.send(message)\n```")
                        : new Snippet(Place.COMMAND, "curl -X POST https://api.sendgrid.com/v3/mail/send -H \"Authorization: Bearer " + t
                        + "\" -H 'Content-Type: application/json' -d @mail.json");
            }
            case "vault": {
                String t = p.apply(fake.vaultToken());
                return form == 0 ? new Snippet(Place.OUTPUT, "Key                  Value\n---                  -----\ntoken                " + t
                        + "\ntoken_duration       768h\ntoken_renewable      true")
                        : form == 1 ? new Snippet(Place.COMMAND, "vault login " + t + " && vault kv get secret/app")
                        : new Snippet(Place.PROSE, "Vault says permission denied with the root token " + t + " on secret/data/app.");
            }
            case "heroku": {
                String k = p.apply(fake.uuid());
                return form == 0 ? new Snippet(Place.OUTPUT, "$ heroku auth:token\n" + k)
                        : form == 1 ? new Snippet(Place.OUTPUT, "machine api.heroku.com\n  login dev@acme.io\n  password " + k
                        + "\nmachine git.heroku.com\n  login dev@acme.io\n  password " + k)
                        : new Snippet(Place.PROSE, "The Heroku API key for the staging pipeline: " + k);
            }
            case "azure-sas": {
                String sig = p.apply(fake.azureSasSignature());
                String sas = "sv=2022-11-02&ss=b&srt=co&sp=rl&se=2026-03-01T00:00:00Z&st=2025-11-01T00:00:00Z&spr=https&sig=" + sig;
                return form == 0 ? new Snippet(Place.COMMAND, "azcopy copy 'https://acmebackups.blob.core.windows.net/db/dump.bak?" + sas + "' ./dump.bak")
                        : new Snippet(Place.OUTPUT, "AZURE_STORAGE_CONNECTION_STRING=BlobEndpoint=https://acmebackups.blob.core.windows.net/;SharedAccessSignature=" + sas);
            }
            case "azure-key": {
                if (form == 0) {
                    String k = p.apply(fake.azureStorageKey());
                    return new Snippet(Place.OUTPUT, "DefaultEndpointsProtocol=https;AccountName=acmebackups;AccountKey=" + k + ";EndpointSuffix=core.windows.net");
                }
                String s = p.apply(fake.azureClientSecret());
                return new Snippet(Place.COMMAND, "az login --service-principal -u 1b2c3d4e-0000-4000-8000-0a0b0c0d0e0f -p " + s + " --tenant acme.onmicrosoft.com");
            }
            case "pem-line": {
                String pem = fake.privateKey(fake.pick(new String[] {"RSA", ""}), 900);
                String[] lines = pem.split("\n");
                String l = p.apply(lines[fake.between(2, lines.length - 3)]);
                return form == 0 ? new Snippet(Place.OUTPUT, "$ sed -n 7p ~/.ssh/id_rsa\n" + l)
                        : form == 1 ? new Snippet(Place.OUTPUT, "Read ~/.ssh/deploy_key lines 7-7:\n     7\u2192" + l)
                        : new Snippet(Place.PROSE, "Line 7 of deploy_key.pem differs between the two machines:\n```\n" + l + "\n```");
            }
            case "private-key-id": {
                String id = p.apply(fake.privateKeyId());
                return new Snippet(Place.OUTPUT, "{\"type\": \"service_account\", \"project_id\": \"acme-prod\",\n \"private_key_id\": \""
                        + id + "\",\n \"client_email\": \"ci@acme-prod.iam.gserviceaccount.com\"}");
            }
            case "glued": {
                String t = p.apply(form == 0 ? "gh" + "p_" + fake.of(Fake.BASE62, 36)
                        : form == 1 ? "sk" + "_live_" + fake.of(Fake.BASE62, 32) : fake.huggingFaceToken());
                return fake.chance(0.5) ? new Snippet(Place.PROSE, "I pasted it as mytoken" + t + " by mistake, is that why it fails?")
                        : new Snippet(Place.OUTPUT, "config: key=prodkey" + t + " region=eu-west-1");
            }
            case "jwt-cut": {
                String jwt = fake.jwt();
                // A token far longer than the part of a line that is kept: the cut leaves its head and tail.
                String padded = jwt.substring(0, jwt.lastIndexOf('.')) + "." + fake.of(Fake.BASE64URL, 600);
                plant(family, padded.substring(0, 40));
                plant(family, padded.substring(padded.length() - 40));
                return form == 0 ? new Snippet(Place.OUTPUT, "{\"access_token\":\"" + padded + "\",\"token_type\":\"Bearer\"}")
                        : new Snippet(Place.COMMAND, "curl -s -H 'Authorization: Bearer " + padded + "' https://api.acme.dev/v1/me");
            }
            case "url-special": {
                String pw = p.apply(fake.urlHostilePassword() + fake.of(Fake.DIGITS, 2));
                return form == 0 ? new Snippet(Place.OUTPUT, "DATABASE_URL=postgres://app:" + pw + "@db.internal:5432/app")
                        : form == 1 ? new Snippet(Place.COMMAND, "psql 'postgresql://report:" + pw + "@10.0.3.12:5432/analytics' -c '\\dt'")
                        : new Snippet(Place.PROSE, "Connecting with mongodb://admin:" + pw + "@mongo-0.mongo:27017/?authSource=admin times out.");
            }
            case "redis-url": {
                String pw = p.apply("Rd" + fake.of(Fake.BASE62, 18));
                return form == 0 ? new Snippet(Place.OUTPUT, "REDIS_URL=redis://:" + pw + "@cache.internal:6379/0")
                        : new Snippet(Place.COMMAND, "redis-cli -u rediss://default:" + pw + "@cache.internal:6380 ping");
            }
            case "redis-cli": {
                String pw = p.apply(fake.password().replace("$", "!") + fake.of(Fake.DIGITS, 2));
                return form == 0 ? new Snippet(Place.COMMAND, "redis-cli -h cache.internal -p 6379 -a " + pw + " --no-auth-warning INFO keyspace")
                        : new Snippet(Place.COMMAND, "redis-cli --user app --pass '" + pw + "' KEYS 'session:*'");
            }
            case "mysql-p": {
                String pw = p.apply(fake.password().replace("$", "!") + fake.of(Fake.DIGITS, 2));
                return form == 0 ? new Snippet(Place.COMMAND, "mysql -u root -p" + pw + " -h db.internal app -e 'show tables'")
                        : new Snippet(Place.COMMAND, "mysqldump -uroot -p'" + pw + "' --single-transaction app > app.sql");
            }
            case "url-encoded": {
                String pw = p.apply("Pw" + fake.of(Fake.BASE62, 14));
                return form == 0 ? new Snippet(Place.COMMAND, "curl -s 'https://sso.acme.dev/login?next=%2Fadmin%26user%3Dops%26password%3D" + pw + "%26remember%3D1'")
                        : new Snippet(Place.OUTPUT, "302 Location: https://app.acme.dev/cb?state=%7B%22username%22%3A%22ops%22%2C%22password%22%3A%22" + pw + "%22%7D");
            }
            case "pgpass": {
                String pw = p.apply(fake.password().replace(":", "!") + fake.of(Fake.DIGITS, 2));
                return form == 0 ? new Snippet(Place.OUTPUT, "$ cat ~/.pgpass\ndb.internal:5432:app:app_user:" + pw + "\n*:*:*:replicator:*")
                        : new Snippet(Place.COMMAND, "echo 'db.internal:5432:*:app_user:" + pw + "' >> ~/.pgpass && chmod 600 ~/.pgpass");
            }
            case "basic-base64": {
                String pw = p.apply(fake.password() + fake.of(Fake.DIGITS, 2));
                String b64 = p.apply(Base64.getEncoder().encodeToString(("deploy:" + pw).getBytes(StandardCharsets.UTF_8)));
                return form == 0 ? new Snippet(Place.OUTPUT, "$ echo -n 'deploy:" + pw + "' | base64\n" + b64)
                        : new Snippet(Place.COMMAND, "curl -H 'Authorization: Basic " + b64 + "' https://jenkins.acme.dev/api/json");
            }
            case "k8s-env": {
                String v = p.apply(form == 0 ? "rk_" + "prod_" + fake.of(Fake.BASE62, 28) : fake.password() + fake.of(Fake.DIGITS, 2));
                String name = form == 0 ? "STRIPE_KEY" : "DB_PASSWORD";
                return new Snippet(Place.OUTPUT, "        env:\n        - name: " + name + "\n          value: \"" + v
                        + "\"\n        - name: LOG_LEVEL");
            }
            case "keyword-far": {
                String v = p.apply(form == 0 ? fake.uuid() : fake.of(Fake.HEX, 40));
                return form == 0 ? new Snippet(Place.PROSE, "the token for prod is: " + v)
                        : new Snippet(Place.PROSE, "The API key we use for the nightly export job is " + v + ", keep it out of the repo.");
            }
            case "prose-password": {
                String pw = p.apply(fake.spokenPassword());
                return form == 0 ? new Snippet(Place.PROSE, "I think the password is " + pw + " but the login page disagrees.")
                        : form == 1 ? new Snippet(Place.PROSE, "I reset the admin password to " + pw + " and restarted the app.")
                        : new Snippet(Place.PROSE, "use " + pw + " as the password for the staging database");
            }
            case "thinking-password": {
                String pw = p.apply(fake.spokenPassword());
                return new Snippet(Place.THINKING, "The user pasted their .env earlier. The database password appears to be " + pw
                        + ", which I should not repeat. I will suggest rotating it.");
            }
            case "random-path": {
                String dir = p.apply(fake.of(Fake.BASE62, 32));
                return form == 0 ? new Snippet(Place.COMMAND, "cat /home/dev/.config/acme/credentials/" + dir + "/session.json")
                        : new Snippet(Place.OUTPUT, "Uploaded to https://share.acme.dev/d/" + dir + "/report.pdf");
            }
            case "service-token": {
                String t = p.apply(fake.prefixedToken());
                return form == 0 ? new Snippet(Place.OUTPUT, "SERVICE_TOKEN=" + t)
                        : new Snippet(Place.PROSE, "Rotated: the new one is " + t + " and the old one is revoked.");
            }
            case "google-oauth": {
                String t = p.apply(fake.googleOauth());
                return new Snippet(Place.OUTPUT, "{\"installed\":{\"client_id\":\"1234567890-abc.apps.googleusercontent.com\",\"client_secret\":\"" + t
                        + "\",\"redirect_uris\":[\"http://localhost\"]}}");
            }
            default:
                throw new IllegalArgumentException(family);
        }
    }

    /**
     * Writes Claude Code sessions under {@code projects}, each family {@code perFamily} times; one
     * session in two runs in a working directory named with a token, so its log's folder holds
     * the token too.
     *
     * @return the files written
     */
    List<Path> write(Path projects, int perFamily) {
        List<Snippet> snippets = new ArrayList<>();
        for (int i = 0; i < perFamily; i++) {
            for (String family : FAMILIES) {
                if (!"working-directory".equals(family)) {
                    snippets.add(snippet(family));
                }
            }
        }
        java.util.Collections.shuffle(snippets, new java.util.Random(fake.between(0, Integer.MAX_VALUE - 1)));
        List<Path> files = new ArrayList<>();
        int next = 0;
        for (int s = 0; next < snippets.size(); s++) {
            String cwd = "/home/dev/app";
            if (s % 2 == 1) {
                String token = plant("working-directory", fake.of(Fake.BASE62, 36));
                cwd = "/home/dev/deploy-" + token;
            }
            Session session = new Session(String.format("3a9b7c5d-0000-4000-8000-%012d", s), cwd);
            for (int e = 0; e < 6 && next < snippets.size(); e++) {
                next = exchange(session, snippets, next);
            }
            // Claude Code names a project's folder after its working directory, / and . made -.
            Path file = projects.resolve(cwd.replace('/', '-').replace('.', '-').replace('_', '-')).resolve(session.id + ".jsonl");
            files.add(Records.write(file, session.lines));
        }
        return files;
    }

    private int exchange(Session session, List<Snippet> snippets, int next) {
        StringBuilder request = new StringBuilder(line());
        StringBuilder answer = new StringBuilder(line());
        StringBuilder thinking = new StringBuilder();
        List<String> commands = new ArrayList<>();
        List<String> outputs = new ArrayList<>();
        for (int taken = 0; taken < 3 && next < snippets.size(); taken++, next++) {
            Snippet s = snippets.get(next);
            switch (s.place()) {
                case COMMAND -> commands.add(s.text());
                case OUTPUT -> outputs.add(s.text());
                case THINKING -> thinking.append(s.text()).append('\n');
                case PROSE -> (fake.chance(0.5) ? request : answer).append('\n').append(s.text()).append('\n').append(line());
            }
        }
        session.user(request.toString());
        String message = "msg_" + fake.of(Fake.BASE62, 20);
        if (thinking.length() > 0) {
            session.thinking(message, thinking.toString().strip());
        }
        session.text(message, answer.toString());
        int calls = Math.max(commands.size(), outputs.size());
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < calls; i++) {
            String id = "toolu_" + fake.of(Fake.BASE62, 24);
            session.bash(message, id, i < commands.size() ? commands.get(i) : "cat .env.production");
            ids.add(id);
        }
        for (int i = 0; i < calls; i++) {
            session.result(ids.get(i), i < outputs.size() ? outputs.get(i) : line());
        }
        session.text("msg_" + fake.of(Fake.BASE62, 20), line());
        return next;
    }

    /**
     * What of each planted secret reached a memory read without redaction: a secret reached when
     * a 12-character piece of it (all of it, if shorter) is in some string of a memory.
     *
     * @return for each family, how many of its planted secrets reached
     */
    Map<String, Integer> reached(List<Memory> raw) {
        List<String> fields = new ArrayList<>();
        for (Memory m : raw) {
            fields.addAll(strings(m));
        }
        String all = String.join("\n", fields);
        Map<String, Integer> reached = new LinkedHashMap<>();
        for (String family : FAMILIES) {
            reached.put(family, 0);
        }
        for (Planted p : planted) {
            for (String piece : pieces(p.value())) {
                if (all.contains(piece)) {
                    reached.merge(p.family(), 1, Integer::sum);
                    break;
                }
            }
        }
        return reached;
    }

    /** Every string of a memory that is stored: text, project, agent, session, metadata, provenance. */
    static List<String> strings(Memory m) {
        List<String> s = new ArrayList<>();
        s.add(m.text());
        s.add(m.agent());
        if (m.project() != null) {
            s.add(m.project());
        }
        if (m.session() != null) {
            s.add(m.session());
        }
        m.metadata().forEach((k, v) -> {
            s.add(k);
            s.add(v);
        });
        if (m.provenance() != null) {
            s.add(m.provenance().source().toString());
            s.addAll(m.provenance().recordIds());
        }
        return s;
    }

    /** The 12-character pieces of a secret (the whole secret when shorter). */
    static List<String> pieces(String value) {
        List<String> pieces = new ArrayList<>();
        if (value.length() <= 12) {
            pieces.add(value);
        }
        for (int i = 0; i + 12 <= value.length(); i++) {
            pieces.add(value.substring(i, i + 12));
        }
        return pieces;
    }

    /** The first planted secret of which a piece is in {@code text}, or null. */
    Planted leakIn(String text) {
        for (Planted p : planted) {
            for (String piece : pieces(p.value())) {
                if (text.contains(piece)) {
                    return p;
                }
            }
        }
        return null;
    }

    /** Claude Code records of one session, numbered in order. */
    private static final class Session {
        final String id;
        final String cwd;
        final List<String> lines = new ArrayList<>();
        int n;

        Session(String id, String cwd) {
            this.id = id;
            this.cwd = cwd;
        }

        private ObjectNode base(String type) {
            n++;
            ObjectNode r = JSON.createObjectNode();
            r.put("parentUuid", n > 1 ? uuid(n - 1) : null);
            r.put("isSidechain", false);
            r.put("userType", "external");
            r.put("cwd", cwd);
            r.put("sessionId", id);
            r.put("version", "2.0.31");
            r.put("gitBranch", "main");
            r.put("type", type);
            r.put("uuid", uuid(n));
            r.put("timestamp", String.format("2025-12-01T%02d:%02d:%02dZ", 8 + n / 3600, (n / 60) % 60, n % 60));
            return r;
        }

        private String uuid(int k) {
            return id.substring(0, 24) + String.format("%012d", k);
        }

        void user(String text) {
            ObjectNode r = base("user");
            r.putObject("message").put("role", "user").put("content", text);
            lines.add(r.toString());
        }

        private ObjectNode assistant(String messageId) {
            ObjectNode r = base("assistant");
            r.putObject("message").put("id", messageId).put("type", "message").put("role", "assistant");
            return r;
        }

        void thinking(String messageId, String text) {
            ObjectNode r = assistant(messageId);
            ((ObjectNode) r.get("message")).putArray("content").addObject().put("type", "thinking").put("thinking", text)
                    .put("signature", "EqQBCkgIBxABGAIiQL" + "0".repeat(40));
            lines.add(r.toString());
        }

        void text(String messageId, String text) {
            ObjectNode r = assistant(messageId);
            ((ObjectNode) r.get("message")).putArray("content").addObject().put("type", "text").put("text", text);
            lines.add(r.toString());
        }

        void bash(String messageId, String toolUseId, String command) {
            ObjectNode r = assistant(messageId);
            ObjectNode block = ((ObjectNode) r.get("message")).putArray("content").addObject().put("type", "tool_use")
                    .put("id", toolUseId).put("name", "Bash");
            block.putObject("input").put("command", command);
            lines.add(r.toString());
        }

        void result(String toolUseId, String output) {
            ObjectNode r = base("user");
            ArrayNode content = r.putObject("message").put("role", "user").putArray("content");
            content.addObject().put("type", "tool_result").put("tool_use_id", toolUseId).put("content", output)
                    .put("is_error", false);
            lines.add(r.toString());
        }
    }
}
