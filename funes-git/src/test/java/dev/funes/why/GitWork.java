package dev.funes.why;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.revwalk.RevCommit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/**
 * Test helpers that do real work: commits in a real repository (JGit), and agent logs in the
 * formats the readers parse (Claude Code JSON Lines, Aider chat history), written by the test.
 */
final class GitWork {

    private static final ObjectMapper JSON = new ObjectMapper();

    private GitWork() {
    }

    /** Writes files (path, content pairs) into the work tree and commits them at {@code time}. */
    static RevCommit commit(Git git, Instant time, String message, String... pathsAndContents) throws Exception {
        Path root = git.getRepository().getWorkTree().toPath();
        for (int i = 0; i < pathsAndContents.length; i += 2) {
            Path file = root.resolve(pathsAndContents[i]);
            Files.createDirectories(file.getParent());
            Files.writeString(file, pathsAndContents[i + 1], StandardCharsets.UTF_8);
            git.add().addFilepattern(pathsAndContents[i]).call();
        }
        PersonIdent who = new PersonIdent("Dev", "dev@example.com", time, ZoneOffset.UTC);
        return git.commit().setMessage(message).setAuthor(who).setCommitter(who).setSign(false).call();
    }

    /** {@code n} numbered lines of code, with {@code tag} in each. */
    static String lines(int n, String tag) {
        StringBuilder s = new StringBuilder();
        for (int i = 1; i <= n; i++) {
            s.append("    int ").append(tag).append(i).append(" = ").append(i).append("; // ").append(tag).append('\n');
        }
        return s.toString();
    }

    /** A Claude Code session log: builds records with parent links, cwd, session id and times. */
    static final class ClaudeLog {
        private final String session;
        private final String cwd;
        private final List<String> records = new ArrayList<>();
        private String parent;
        private int n;

        ClaudeLog(String session, String cwd) {
            this.session = session;
            this.cwd = cwd;
        }

        private ObjectNode record(String type, Instant time) {
            ObjectNode r = JSON.createObjectNode();
            if (parent == null) {
                r.putNull("parentUuid");
            } else {
                r.put("parentUuid", parent);
            }
            String uuid = String.format("00000000-0000-4000-8000-%012d", ++n);
            r.put("isSidechain", false).put("userType", "external").put("cwd", cwd).put("sessionId", session)
                    .put("version", "2.0.31").put("gitBranch", "main").put("type", type).put("uuid", uuid)
                    .put("timestamp", time.toString());
            parent = uuid;
            return r;
        }

        ClaudeLog user(Instant time, String text) {
            ObjectNode r = record("user", time);
            r.putObject("message").put("role", "user").put("content", text);
            records.add(r.toString());
            return this;
        }

        ClaudeLog text(Instant time, String text) {
            ObjectNode r = record("assistant", time);
            ObjectNode m = assistant(r);
            m.putArray("content").addObject().put("type", "text").put("text", text);
            records.add(r.toString());
            return this;
        }

        ClaudeLog tool(Instant time, String id, String name, ObjectNode input, String result) {
            ObjectNode r = record("assistant", time);
            ObjectNode m = assistant(r);
            m.putArray("content").addObject().put("type", "tool_use").put("id", id).put("name", name).set("input", input);
            records.add(r.toString());
            ObjectNode u = record("user", time.plusSeconds(1));
            ArrayNode content = u.putObject("message").put("role", "user").putArray("content");
            content.addObject().put("tool_use_id", id).put("type", "tool_result").put("content", result);
            records.add(u.toString());
            return this;
        }

        private static ObjectNode assistant(ObjectNode r) {
            ObjectNode m = r.putObject("message");
            m.put("id", "msg_" + r.get("uuid").asText().substring(24)).put("type", "message").put("role", "assistant")
                    .put("model", "claude-sonnet-4-5-20250929");
            return m;
        }

        static ObjectNode input(String... keysAndValues) {
            ObjectNode o = JSON.createObjectNode();
            for (int i = 0; i < keysAndValues.length; i += 2) {
                o.put(keysAndValues[i], keysAndValues[i + 1]);
            }
            return o;
        }

        Path write(Path file) throws IOException {
            Files.createDirectories(file.getParent());
            Files.write(file, records, StandardCharsets.UTF_8);
            return file;
        }
    }
}
