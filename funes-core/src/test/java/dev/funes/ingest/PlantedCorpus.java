package dev.funes.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.funes.redact.Fake;
import dev.funes.redact.Redactor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Claude Code sessions made of real fixture text with realistic secrets planted in user
 * messages, assistant text, Bash commands, tool results and record metadata; every planted
 * secret is remembered with the type the redactor should give it.
 */
final class PlantedCorpus {

    /** A planted secret: {@code value} is what must not survive, {@code type} what it should be counted as. */
    record Planted(String type, String value) {
    }

    /** Where a snippet goes: prose (a message), a Bash command, or the lines of a tool's output. */
    enum Place { PROSE, COMMAND, OUTPUT }

    /** Some text holding planted secrets. */
    record Snippet(Place place, String text, List<Planted> planted) {
    }

    static final String[] TYPES = {"aws-access-key-id", "aws-secret-key", "github-token", "gitlab-token", "slack-token",
            "slack-webhook", "stripe-key", "openai-key", "anthropic-key", "google-api-key", "jwt", "private-key",
            "url-password", "password", "token", "secret", "high-entropy"};

    private static final ObjectMapper JSON = new ObjectMapper();
    /** The chunker's limits that must not cut a planted secret (see docs/FORMATS.md). */
    private static final int COMMAND_MAX = ToolRender.LABEL_CHARS - 10;
    private static final int OUTPUT_LINE_MAX = ToolRender.RESULT_LINE_CHARS - 4;
    private static final int MESSAGE_MAX = 1400;
    /** Request text that later parts repeat; a long unbreakable secret must start after it. */
    private static final int REPEATED_REQUEST = Chunker.CONTEXT_CHARS + 40;

    private final Fake fake;
    private final List<String> filler;
    final List<Planted> planted = new ArrayList<>();
    private final List<String> used = new ArrayList<>();

    PlantedCorpus(long seed, List<String> filler) {
        this.fake = new Fake(seed);
        this.filler = filler;
    }

    /**
     * Lines of real text from Claude Code logs (the text people and agents wrote), 30 to 130
     * characters, that the standard redactor leaves unchanged, so that what is counted is what
     * was planted.
     */
    static List<String> fillerFrom(Path claudeCodeFixtures) throws IOException {
        Redactor redactor = Redactor.standard();
        Set<String> lines = new LinkedHashSet<>();
        List<Path> files;
        try (Stream<Path> s = Files.list(claudeCodeFixtures)) {
            files = s.filter(p -> p.toString().endsWith(".jsonl")).sorted().toList();
        }
        for (Path file : files) {
            for (String record : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                JsonNode node;
                try {
                    node = JSON.readTree(record);
                } catch (IOException e) {
                    continue;
                }
                JsonNode content = node.path("message").path("content");
                List<String> texts = new ArrayList<>();
                if (content.isTextual()) {
                    texts.add(content.asText());
                } else {
                    for (JsonNode block : content) {
                        if ("text".equals(block.path("type").asText())) {
                            texts.add(block.path("text").asText());
                        }
                    }
                }
                for (String text : texts) {
                    for (String line : text.split("\n")) {
                        String l = line.strip();
                        if (l.length() >= 30 && l.length() <= 130 && !l.startsWith("<") && !l.contains("\t")
                                && !l.startsWith("Caveat") && !l.startsWith("[Request") && !l.contains("\u2026")
                                && !redactor.redact(l).changed()) {
                            lines.add(l);
                        }
                    }
                }
            }
        }
        return List.copyOf(lines);
    }

    // ---- snippets ------------------------------------------------------------------------------

    /**
     * A value not planted before, and neither inside nor around one planted before (two equal
     * passwords would make the counts ambiguous).
     */
    private String unique(Supplier<String> generator) {
        while (true) {
            String v = generator.get();
            if (used.stream().noneMatch(u -> u.contains(v) || v.contains(u))) {
                used.add(v);
                return v;
            }
        }
    }

    private Planted plant(String type, String value) {
        Planted p = new Planted(type, value);
        planted.add(p);
        return p;
    }

    private String line() {
        return filler.get(fake.between(0, filler.size() - 1));
    }

    /** A snippet whose main secret is of {@code type}, in one of the forms that type is met in. */
    Snippet snippet(String type) {
        List<Planted> p = new ArrayList<>();
        Function<String, String> add = v -> {
            p.add(plant(type, v));
            return v;
        };
        int form = fake.between(0, 2);
        switch (type) {
            case "aws-access-key-id": {
                String id = add.apply(unique(() -> fake.awsKeyId()));
                return form == 0 ? new Snippet(Place.COMMAND, "AWS_ACCESS_KEY_ID=" + id + " aws s3 ls s3://acme-backups/2025/", p)
                        : form == 1 ? new Snippet(Place.OUTPUT, "{\n  \"AccessKeyId\": \"" + id + "\",\n  \"Expiration\": \"2025-11-14T12:00:00Z\"\n}", p)
                        : new Snippet(Place.PROSE, "The CI job logs `Using access key " + id + "` and then AccessDenied on PutObject.", p);
            }
            case "aws-secret-key": {
                String id = unique(fake::awsKeyId);
                String secret = unique(fake::awsSecret);
                if (form == 0) {
                    p.add(plant("aws-access-key-id", id));
                    add.apply(secret);
                    return new Snippet(Place.OUTPUT, "[default]\naws_access_key_id = " + id + "\naws_secret_access_key = " + secret
                            + "\nregion = eu-west-1", p);
                }
                if (form == 1) {
                    p.add(plant("aws-access-key-id", id));
                    add.apply(secret);
                    return new Snippet(Place.PROSE, "```\nexport AWS_ACCESS_KEY_ID=" + id + "\nexport AWS_SECRET_ACCESS_KEY=" + secret
                            + "\nexport AWS_DEFAULT_REGION=us-east-1\n```", p);
                }
                add.apply(secret);
                return new Snippet(Place.COMMAND, "aws configure set aws_secret_access_key " + secret + " --profile staging", p);
            }
            case "github-token": {
                String t = add.apply(unique(() -> fake.githubToken()));
                return form == 0 ? new Snippet(Place.COMMAND, "git clone https://" + t + "@github.com/acme/billing.git", p)
                        : form == 1 ? new Snippet(Place.OUTPUT, "[remote \"origin\"]\n\turl = https://x-access-token:" + t
                        + "@github.com/acme/billing.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*", p)
                        : new Snippet(Place.PROSE, "I exported GITHUB_TOKEN=" + t + " but `gh pr list` still says bad credentials.", p);
            }
            case "gitlab-token": {
                String t = add.apply(unique(() -> fake.gitlabToken()));
                return form == 0 ? new Snippet(Place.COMMAND, "curl --header \"PRIVATE-TOKEN: " + t
                        + "\" https://gitlab.example.com/api/v4/projects/42/pipelines", p)
                        : form == 1 ? new Snippet(Place.OUTPUT, "CI_SERVER_URL=https://gitlab.example.com\nGITLAB_TOKEN=" + t
                        + "\nCI_PROJECT_ID=42", p)
                        : new Snippet(Place.COMMAND, "git clone https://oauth2:" + t + "@gitlab.com/acme/infra.git", p);
            }
            case "slack-token": {
                String t = add.apply(unique(() -> fake.slackToken()));
                return form == 0 ? new Snippet(Place.OUTPUT, "SLACK_BOT_TOKEN=" + t + "\nSLACK_CHANNEL=#deploys", p)
                        : form == 1 ? new Snippet(Place.PROSE, "The bot token " + t + " gets `missing_scope` from chat.postMessage.", p)
                        : new Snippet(Place.COMMAND, "curl -s -H \"Authorization: Bearer " + t + "\" https://slack.com/api/auth.test", p);
            }
            case "slack-webhook": {
                String path = add.apply(unique(() -> fake.slackWebhookPath()));
                String url = "https://hooks.slack.com/services/" + path;
                return form == 0 ? new Snippet(Place.COMMAND, "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"done\"}' "
                        + url, p)
                        : form == 1 ? new Snippet(Place.OUTPUT, "SLACK_WEBHOOK_URL=" + url + "\nNOTIFY_ON_FAILURE=true", p)
                        : new Snippet(Place.PROSE, "Alerts should go to " + url + " instead of email.", p);
            }
            case "stripe-key": {
                String k = add.apply(unique(() -> fake.stripeKey()));
                return form == 0 ? new Snippet(Place.OUTPUT, "STRIPE_SECRET_KEY=" + k + "\nSTRIPE_CURRENCY=eur", p)
                        : form == 1 ? new Snippet(Place.PROSE, "```python\nimport stripe\nstripe.api_key = \"" + k + "\"\n```", p)
                        : new Snippet(Place.COMMAND, "curl https://api.stripe.com/v1/charges -u " + k + ": -d amount=2000", p);
            }
            case "openai-key": {
                String k = add.apply(unique(() -> fake.openaiKey()));
                return form == 0 ? new Snippet(Place.OUTPUT, "OPENAI_API_KEY=" + k + "\nOPENAI_MODEL=gpt-4o-mini", p)
                        : form == 1 ? new Snippet(Place.PROSE, "```python\nclient = OpenAI(api_key=\"" + k + "\")\n```", p)
                        : new Snippet(Place.COMMAND, "curl https://api.openai.com/v1/models -H \"Authorization: Bearer " + k + "\"", p);
            }
            case "anthropic-key": {
                String k = add.apply(unique(() -> fake.anthropicKey()));
                return form == 0 ? new Snippet(Place.OUTPUT, "ANTHROPIC_API_KEY=" + k, p)
                        : form == 1 ? new Snippet(Place.PROSE, "```python\nclient = anthropic.Anthropic(api_key=\"" + k + "\")\n```", p)
                        : new Snippet(Place.COMMAND, "curl https://api.anthropic.com/v1/models -H \"x-api-key: " + k + "\"", p);
            }
            case "google-api-key": {
                String k = add.apply(unique(() -> fake.googleKey()));
                return form == 0 ? new Snippet(Place.COMMAND, "curl \"https://maps.googleapis.com/maps/api/geocode/json?address=Paris&key="
                        + k + "\"", p)
                        : form == 1 ? new Snippet(Place.OUTPUT, "const firebaseConfig = {\n  apiKey: \"" + k
                        + "\",\n  authDomain: \"acme-prod.firebaseapp.com\",\n};", p)
                        : new Snippet(Place.PROSE, "Is it safe that GOOGLE_API_KEY=" + k + " ships in the web bundle?", p);
            }
            case "jwt": {
                String t = add.apply(unique(() -> fake.jwt()));
                return form == 0 ? new Snippet(Place.PROSE, "```\n$ curl -H \"Authorization: Bearer " + t
                        + "\" https://api.acme.dev/v1/me\n{\"error\":\"token_expired\"}\n```", p)
                        : form == 1 ? new Snippet(Place.PROSE, "The login response is {\"access_token\":\"" + t
                        + "\",\"token_type\":\"Bearer\",\"expires_in\":3600} but the next call gets 401.", p)
                        : new Snippet(Place.PROSE, "The browser sends `Cookie: session=" + t + "; Path=/` and still gets logged out.", p);
            }
            case "private-key": {
                if (form == 0) {
                    String pem = fake.privateKey("EC", 121);
                    add.apply(body(pem));
                    return new Snippet(Place.OUTPUT, pem, p);
                }
                if (form == 1) {
                    String pem = fake.privateKey(fake.pick(new String[] {"RSA", "OPENSSH", ""}), fake.between(300, 600));
                    add.apply(body(pem));
                    return new Snippet(Place.PROSE, "This key is rejected by the server:\n```\n" + pem + "\n```", p);
                }
                String pem = fake.privateKey("", fake.between(300, 500));
                add.apply(body(pem).replace("\n", "\\n"));
                return new Snippet(Place.PROSE, "{\"type\": \"service_account\", \"project_id\": \"acme-prod\", \"private_key\": \""
                        + pem.replace("\n", "\\n") + "\\n\", \"client_email\": \"ci@acme-prod.iam.gserviceaccount.com\"}", p);
            }
            case "url-password": {
                String pw = add.apply(unique(() -> fake.urlPassword()));
                return form == 0 ? new Snippet(Place.OUTPUT, "DATABASE_URL=postgres://app_user:" + pw + "@db.internal:5432/app\nPOOL_SIZE=10", p)
                        : form == 1 ? new Snippet(Place.OUTPUT, "Exception in thread \"main\" com.mongodb.MongoTimeoutException: timed out\n"
                        + "  at connect(mongodb://admin:" + pw + "@mongo-0.mongo:27017/?authSource=admin)", p)
                        : new Snippet(Place.COMMAND, "psql postgresql://reporting:" + pw + "@10.0.3.12:5432/analytics -c '\\dt'", p);
            }
            case "password": {
                String pw = add.apply(unique(() -> fake.password()));
                return form == 0 ? new Snippet(Place.OUTPUT, "DB_HOST=db.internal\nDB_USER=app\nDB_PASSWORD=" + pw + "\nDB_NAME=app", p)
                        : form == 1 ? new Snippet(Place.OUTPUT, "spring:\n  datasource:\n    username: app\n    password: " + pw, p)
                        : fake.chance(0.5) ? new Snippet(Place.PROSE, "Login fails with {\"username\": \"admin\", \"password\": \"" + pw + "\"}.", p)
                        : new Snippet(Place.COMMAND, "PGPASSWORD=" + pw + " psql -h db.internal -U app -c 'select 1'", p);
            }
            case "token": {
                String t = add.apply(unique(() -> fake.opaqueToken()));
                return form == 0 ? new Snippet(Place.OUTPUT, "API_TOKEN=" + t + "\nAPI_URL=https://api.acme.dev", p)
                        : form == 1 ? new Snippet(Place.COMMAND, "curl -s -H \"Authorization: Bearer " + t + "\" https://api.acme.dev/v1/items", p)
                        : fake.chance(0.5) ? new Snippet(Place.COMMAND, "./deploy.sh --token " + t + " --env prod", p)
                        : new Snippet(Place.PROSE, "The export link is https://api.acme.dev/v1/export?access_token=" + t + "&format=csv", p);
            }
            case "secret": {
                String s = add.apply(unique(() -> form == 1 ? fake.genericSecret() : fake.of(Fake.BASE62, fake.between(32, 64))));
                return form == 0 ? new Snippet(Place.OUTPUT, "JWT_SECRET=" + s + "\nJWT_TTL=3600", p)
                        : form == 1 ? new Snippet(Place.PROSE, "```python\n# settings.py\nSECRET_KEY = '" + s + "'\nDEBUG = False\n```", p)
                        : fake.chance(0.5) ? new Snippet(Place.COMMAND, "curl -H \"X-Api-Key: " + s + "\" https://api.acme.dev/v2/reports", p)
                        : new Snippet(Place.OUTPUT, "oauth:\n  client_id: acme-web\n  client_secret: " + s, p);
            }
            case "high-entropy": {
                String k = add.apply(unique(() -> fake.randomKey()));
                return form == 0 ? new Snippet(Place.PROSE, fake.pick(new String[] {
                        "the new deploy key is " + k + ", rotate it monthly",
                        "Paste this token " + k + " into the dashboard settings.",
                        "My personal access key " + k + " stopped working yesterday."}), p)
                        : form == 1 ? new Snippet(Place.OUTPUT, "Generated token " + k + " (expires in 30 days)", p)
                        : new Snippet(Place.PROSE, "We should use bearer " + k + " for the staging API only.", p);
            }
            default:
                throw new IllegalArgumentException(type);
        }
    }

    /** The base64 lines of a PEM block, the part that is secret. */
    private static String body(String pem) {
        return pem.substring(pem.indexOf('\n') + 1, pem.lastIndexOf('\n'));
    }

    /** A snippet that fits where it goes without being cut; else the same text as prose. */
    private static Snippet fitted(Snippet s) {
        boolean fits = switch (s.place()) {
            case COMMAND -> s.text().length() <= COMMAND_MAX && !s.text().contains("\n");
            case OUTPUT -> s.text().lines().allMatch(l -> l.length() <= OUTPUT_LINE_MAX) && s.text().lines().count() <= 5;
            case PROSE -> true;
        };
        return fits ? s : new Snippet(Place.PROSE, "```\n" + s.text() + "\n```", s.planted());
    }

    // ---- sessions ------------------------------------------------------------------------------

    /**
     * Writes sessions under {@code projects} until every type has {@code perType} planted
     * snippets; the types take turns so each session mixes them.
     *
     * @return the files written
     */
    List<Path> write(Path projects, int perType) {
        List<Snippet> snippets = new ArrayList<>();
        for (int i = 0; i < perType; i++) {
            for (String type : TYPES) {
                snippets.add(fitted(snippet(type)));
            }
        }
        List<Path> files = new ArrayList<>();
        int next = 0;
        for (int s = 0; next < snippets.size(); s++) {
            Session session = new Session(String.format("7e1f0c2a-0000-4000-8000-%012d", s),
                    "/home/dev/" + fake.pick(new String[] {"billing", "infra", "web", "api"}));
            if (fake.chance(0.15)) {
                // A branch named after a token: metadata is redacted too.
                String token = unique(fake::githubToken);
                plant("github-token", token);
                session.branch = "ci/" + token;
            }
            for (int e = 0; e < 12 && next < snippets.size(); e++) {
                next = exchange(session, snippets, next);
            }
            Path file = projects.resolve("-home-dev-app").resolve(session.id + ".jsonl");
            files.add(Records.write(file, session.lines));
        }
        return files;
    }

    /**
     * Writes sessions whose requests, answers, commands and outputs are long enough to be cut
     * by the chunker (several snippets each, outputs of more than five lines), so that secrets
     * lie across cuts.
     *
     * @return the files written
     */
    List<Path> writeLong(Path projects, int perType) {
        List<Snippet> snippets = new ArrayList<>();
        for (int i = 0; i < perType; i++) {
            for (String type : TYPES) {
                snippets.add(snippet(type));
            }
        }
        List<Path> files = new ArrayList<>();
        int next = 0;
        for (int s = 0; next < snippets.size(); s++) {
            Session session = new Session(String.format("5c3d9e1b-0000-4000-8000-%012d", s), "/home/dev/long");
            for (int e = 0; e < 6 && next < snippets.size(); e++) {
                List<String> request = new ArrayList<>();
                List<String> answer = new ArrayList<>();
                List<String> commands = new ArrayList<>();
                List<String> output = new ArrayList<>();
                int take = fake.between(3, 8);
                for (int k = 0; k < take && next < snippets.size(); k++, next++) {
                    Snippet sn = snippets.get(next);
                    List<String> target = switch (sn.place()) {
                        case COMMAND -> commands;
                        case OUTPUT -> output;
                        case PROSE -> fake.chance(0.5) ? request : answer;
                    };
                    target.add(line());
                    target.add(sn.text());
                }
                request.add(line());
                session.user(String.join("\n", request));
                String message = "msg_" + fake.of(Fake.BASE62, 20);
                session.text(message, String.join("\n", answer) + "\n" + line());
                String id = "toolu_" + fake.of(Fake.BASE62, 24);
                session.bash(message, id, commands.isEmpty() ? "cat .env" : String.join(" && ", commands));
                output.add(line());
                session.result(id, String.join("\n", output), fake.chance(0.3));
            }
            Path file = projects.resolve("-home-dev-long").resolve(session.id + ".jsonl");
            files.add(Records.write(file, session.lines));
        }
        return files;
    }

    /** One exchange holding up to four snippets; returns the index of the next snippet. */
    private int exchange(Session session, List<Snippet> snippets, int next) {
        StringBuilder request = new StringBuilder(line());
        StringBuilder answer = new StringBuilder(line());
        List<String> commands = new ArrayList<>();
        List<String> outputs = new ArrayList<>();
        int taken = 0;
        while (taken < 4 && next < snippets.size()) {
            Snippet s = snippets.get(next);
            if (s.place() == Place.COMMAND) {
                commands.add(s.text());
            } else if (s.place() == Place.OUTPUT) {
                outputs.add(s.text());
            } else {
                // Later parts repeat the request's beginning, cut between words: a secret longer
                // than a word may be goes after that beginning.
                boolean longSecret = s.planted().stream().anyMatch(p -> p.value().length() > 100);
                boolean requestOk = !longSecret || request.length() > REPEATED_REQUEST;
                StringBuilder target = requestOk && fake.chance(0.5) ? request : answer;
                if (!fits(target, s)) {
                    target = target == answer && requestOk ? request : answer;
                }
                if (!fits(target, s) && taken > 0) {
                    break;
                }
                target.append('\n').append(s.text()).append('\n').append(line());
            }
            next++;
            taken++;
        }
        while (request.length() < REPEATED_REQUEST && fake.chance(0.5)) {
            request.append(' ').append(line());
        }
        session.user(request.toString());
        String message = "msg_" + fake.of(Fake.BASE62, 20);
        session.text(message, answer.toString());
        List<String> tools = new ArrayList<>();
        int calls = Math.max(commands.size(), outputs.size());
        for (int i = 0; i < calls; i++) {
            String command = i < commands.size() ? commands.get(i)
                    : fake.pick(new String[] {"cat .env", "cat ~/.aws/credentials", "kubectl logs deploy/api --tail=5",
                    "cat config/application.yml", "cat .git/config", "env | grep -i key"});
            String id = "toolu_" + fake.of(Fake.BASE62, 24);
            session.bash(message, id, command);
            tools.add(id);
        }
        for (int i = 0; i < calls; i++) {
            String output = i < outputs.size() ? outputs.get(i) : line();
            session.result(tools.get(i), output, fake.chance(0.2));
        }
        session.text("msg_" + fake.of(Fake.BASE62, 20), line() + "\n" + line());
        return next;
    }

    private static boolean fits(StringBuilder message, Snippet s) {
        return message.length() + s.text().length() + 140 <= MESSAGE_MAX;
    }

    /** Claude Code records of one session, numbered in order. */
    private final class Session {
        final String id;
        final String cwd;
        String branch = "main";
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
            r.put("gitBranch", branch);
            r.put("type", type);
            r.put("uuid", uuid(n));
            r.put("timestamp", String.format("2025-11-14T%02d:%02d:%02dZ", 8 + n / 3600, (n / 60) % 60, n % 60));
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

        void text(String messageId, String text) {
            ObjectNode r = base("assistant");
            ObjectNode m = r.putObject("message").put("id", messageId).put("type", "message").put("role", "assistant");
            m.putArray("content").addObject().put("type", "text").put("text", text);
            lines.add(r.toString());
        }

        void bash(String messageId, String toolUseId, String command) {
            ObjectNode r = base("assistant");
            ObjectNode m = r.putObject("message").put("id", messageId).put("type", "message").put("role", "assistant");
            ObjectNode block = m.putArray("content").addObject().put("type", "tool_use").put("id", toolUseId)
                    .put("name", "Bash");
            block.putObject("input").put("command", command);
            lines.add(r.toString());
        }

        void result(String toolUseId, String output, boolean error) {
            ObjectNode r = base("user");
            ArrayNode content = r.putObject("message").put("role", "user").putArray("content");
            content.addObject().put("type", "tool_result").put("tool_use_id", toolUseId).put("content", output)
                    .put("is_error", error);
            lines.add(r.toString());
        }
    }
}
