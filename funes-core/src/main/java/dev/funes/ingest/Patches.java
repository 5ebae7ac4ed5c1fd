package dev.funes.ingest;

/**
 * Summaries of patches in the {@code *** Begin Patch} format that Codex's {@code apply_patch}
 * takes: which files were added, updated, deleted or moved, and how many lines each gained and
 * lost. The changed lines themselves are the file's business, not the memory's.
 */
final class Patches {

    private Patches() {
    }

    /** {@code M src/App.java (+3 -1), A README.md (+12)}; the patch text itself when it is not in that format. */
    static String summary(String patch) {
        StringBuilder s = new StringBuilder();
        String op = null;
        String path = null;
        int added = 0;
        int removed = 0;
        for (String raw : patch.split("\n", -1)) {
            String line = raw.endsWith("\r") ? raw.substring(0, raw.length() - 1) : raw;
            String next = null;
            String nextOp = null;
            if (line.startsWith("*** Add File: ")) {
                nextOp = "A";
                next = line.substring(14);
            } else if (line.startsWith("*** Update File: ")) {
                nextOp = "M";
                next = line.substring(17);
            } else if (line.startsWith("*** Delete File: ")) {
                nextOp = "D";
                next = line.substring(17);
            } else if (line.startsWith("*** Move to: ") && path != null) {
                path = path + " \u2192 " + line.substring(13).strip();
                continue;
            } else if (path != null && line.startsWith("+")) {
                added++;
                continue;
            } else if (path != null && line.startsWith("-")) {
                removed++;
                continue;
            } else {
                continue;
            }
            append(s, op, path, added, removed);
            op = nextOp;
            path = next.strip();
            added = 0;
            removed = 0;
        }
        append(s, op, path, added, removed);
        return s.length() == 0 ? Text.oneLine(patch, ToolRender.LABEL_CHARS) : s.toString();
    }

    private static void append(StringBuilder s, String op, String path, int added, int removed) {
        if (path == null) {
            return;
        }
        s.append(s.length() == 0 ? "" : ", ").append(op).append(' ').append(path);
        if (added > 0 || removed > 0) {
            s.append(" (");
            if (added > 0) {
                s.append('+').append(added);
            }
            if (removed > 0) {
                s.append(added > 0 ? " " : "").append('-').append(removed);
            }
            s.append(')');
        }
    }
}
