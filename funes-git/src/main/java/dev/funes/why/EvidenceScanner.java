package dev.funes.why;

import dev.funes.Memory;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads, from a stored memory's text and metadata, the commits it names and the files it edited.
 * Works on what the readers already store, so no log is read again: Aider's {@code commits}
 * metadata and {@code [commit] sha message} lines, {@code git commit} output inside rendered
 * shell results, Codex's and Cline's {@code gitCommit} metadata, and the edit tool calls the
 * readers render as {@code [Edit] path}, {@code [apply_patch] M path (+3 -1)}, ...
 */
final class EvidenceScanner {

    /** A commit a memory names. */
    record Found(String sha, Evidence evidence, double confidence, String detail) {
    }

    /**
     * git's summary line after a commit, amend, cherry-pick or revert: {@code [main 4e1c9a7] msg},
     * {@code [main (root-commit) 6f035fd] msg}, {@code [detached HEAD 1a2b3c4] msg}. The branch part
     * has no brackets; the subject runs to the end of the line.
     */
    private static final Pattern COMMIT_OUTPUT = Pattern.compile(
            "\\[([^\\[\\]\\n]{1,200}?)(?: \\(root-commit\\))? ([0-9a-f]{7,40})\\] ?([^\\n]*)");
    /** Aider's commit note as the reader renders it. */
    private static final Pattern AIDER_COMMIT = Pattern.compile("(?m)^\\s*\\[commit\\] ([0-9a-f]{7,40})(?: ([^\\n]*))?$");
    /** An Aider commit known from metadata of another part of the exchange that made it. */
    private static final double OTHER_PART = 0.9;
    private static final Pattern HEX = Pattern.compile("[0-9a-f]{7,64}");

    /** Tool labels whose key input is one file that the call wrote. */
    private static final Pattern EDIT_CALL = Pattern.compile("(?m)\\[(Edit|Write|MultiEdit|NotebookEdit|write_to_file"
            + "|replace_in_file|write_file|replace|edit|write|create|str_replace_editor|insert)\\] (?:filename: )?([^\\s→|]+)");
    private static final Pattern PATCH_CALL = Pattern.compile("(?m)\\[apply_patch\\] ([^\\n→]+)");
    private static final Pattern PATCH_ENTRY = Pattern.compile("(?:^|, )[AMD] (.+?)(?: \\([+-][^)]*\\))?(?=, [AMD] |$)");

    private EvidenceScanner() {
    }

    /** The commits the memory names explicitly, each once with its strongest evidence. */
    static List<Found> commits(Memory memory) {
        Map<String, Found> found = new LinkedHashMap<>();
        String text = memory.text();
        Matcher m = AIDER_COMMIT.matcher(text);
        while (m.find()) {
            put(found, new Found(m.group(1), Evidence.AIDER_COMMIT, Evidence.AIDER_COMMIT.confidence(),
                    blankToNull(m.group(2))));
        }
        // The reader's "commits" metadata lists every commit of the session so far, set on the
        // exchange that made the last of them: so only that last one is this exchange's, and only
        // parts of the exchange without the commit line itself need it.
        String aider = memory.metadata().get("commits");
        if (aider != null && found.isEmpty() && "aider".equals(memory.agent())) {
            String[] shas = aider.split(",");
            String s = shas[shas.length - 1].strip().toLowerCase(Locale.ROOT);
            if (HEX.matcher(s).matches()) {
                put(found, new Found(s, Evidence.AIDER_COMMIT, OTHER_PART, null));
            }
        }
        m = COMMIT_OUTPUT.matcher(text);
        while (m.find()) {
            String branch = m.group(1).strip();
            if (branch.isEmpty() || "commit".equals(branch)) {
                continue;
            }
            put(found, new Found(m.group(2), Evidence.COMMIT_OUTPUT, Evidence.COMMIT_OUTPUT.confidence(),
                    blankToNull(m.group(3).strip())));
        }
        String head = memory.metadata().get("gitCommit");
        if (head != null && HEX.matcher(head.strip().toLowerCase(Locale.ROOT)).matches()) {
            put(found, new Found(head.strip().toLowerCase(Locale.ROOT), Evidence.SESSION_HEAD,
                    Evidence.SESSION_HEAD.confidence(), null));
        }
        return new ArrayList<>(found.values());
    }

    private static void put(Map<String, Found> found, Found f) {
        Found before = found.get(f.sha());
        if (before == null || before.confidence() < f.confidence()) {
            found.put(f.sha(), before != null && f.detail() == null ? new Found(f.sha(), f.evidence(), f.confidence(),
                    before.detail()) : f);
        }
    }

    /**
     * The files the memory wrote, as the log named them ({@code /}-separated; relative to the
     * session's working directory, or absolute).
     */
    static Set<String> editedFiles(Memory memory) {
        Set<String> files = new LinkedHashSet<>();
        Matcher m = EDIT_CALL.matcher(memory.text());
        while (m.find()) {
            addPath(files, m.group(2));
        }
        m = PATCH_CALL.matcher(memory.text());
        while (m.find()) {
            Matcher entry = PATCH_ENTRY.matcher(m.group(1).strip());
            while (entry.find()) {
                String path = entry.group(1);
                int arrow = path.indexOf(" \u2192 ");
                addPath(files, arrow < 0 ? path : path.substring(arrow + 3));
            }
        }
        String cline = memory.metadata().get("filesEdited");
        if (cline != null) {
            for (String path : cline.split(",")) {
                addPath(files, path);
            }
        }
        return files;
    }

    /** The files a derived memory's metadata names ({@code files}: a JSON array or a comma-separated list). */
    static Set<String> metadataFiles(Memory memory) {
        Set<String> files = new LinkedHashSet<>();
        String value = memory.metadata().get("files");
        if (value == null || value.isBlank()) {
            return files;
        }
        String v = value.strip();
        if (v.startsWith("[") && v.endsWith("]")) {
            v = v.substring(1, v.length() - 1);
        }
        for (String part : v.split("[,\\n]")) {
            String p = part.strip();
            if (p.length() >= 2 && p.startsWith("\"") && p.endsWith("\"")) {
                p = p.substring(1, p.length() - 1).replace("\\\\", "\\").replace("\\/", "/");
            }
            addPath(files, p);
        }
        return files;
    }

    private static void addPath(Set<String> files, String raw) {
        String p = raw.strip().replace('\\', '/');
        if (p.endsWith(":")) {
            p = p.substring(0, p.length() - 1);
        }
        // A path: no spaces, a letter, and a dot or slash; not "1:1" line ranges or ellipses.
        if (p.isEmpty() || p.length() > 400 || p.contains(" ") || p.contains("\u2026")
                || p.chars().noneMatch(Character::isLetter) || (p.indexOf('.') < 0 && p.indexOf('/') < 0)
                || p.matches("\\d+:\\d+.*")) {
            return;
        }
        files.add(p);
    }

    /**
     * {@code path} relative to {@code root}, {@code /}-separated, if it is inside it: absolute
     * paths are relativized, relative ones resolved against {@code cwd} (the session's working
     * directory) first.
     */
    static String relativeTo(Path root, String cwd, String path) {
        try {
            Path p = Path.of(path);
            if (!p.isAbsolute()) {
                if (cwd == null) {
                    return null;
                }
                p = Path.of(cwd).resolve(p);
            }
            p = p.normalize();
            if (!p.startsWith(root)) {
                return null;
            }
            String rel = root.relativize(p).toString().replace('\\', '/');
            return rel.isEmpty() ? null : rel;
        } catch (InvalidPathException e) {
            return null;
        }
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
