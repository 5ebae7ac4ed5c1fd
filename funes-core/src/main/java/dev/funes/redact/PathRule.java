package dev.funes.redact;

import java.util.regex.Pattern;

/**
 * Secrets in paths: a directory or file named with a key ({@code /home/dev/8fK2.../},
 * {@code ~/.claude/projects/-home-dev-ghp-AbC...}, which is how Claude Code names the folder of
 * a working directory), a capability in a URL's path ({@code https://host/share/8fK2...}). A path
 * segment goes when a run of letters and digits in it has both cases, a digit, and looks random (see
 * {@link Randomness#looksRandom}); UUIDs, hex digests and lower-case temporary names, which
 * paths are full of, do not. Paths are those that start at the root, at home or at {@code .}
 * (so also a URL's, after its scheme). A run
 * of base64 holding slashes (an image, a blob) is not a path.
 */
final class PathRule implements Rule {

    /** Nix store hashes: base32 without e, o, u and t, then a name. Not secrets. */
    private static final Pattern NIX_HASH = Pattern.compile("[0-9a-df-np-sv-z]{32}(?:-.*)?");
    /** Shortest run judged: keys in paths are long, names such as PBKDF2WithHmacSHA512 shorter. */
    private static final int MIN_RUN = 24;
    @Override
    public void find(Input input, Sink sink) {
        String text = input.text;
        if (text.indexOf('/') < 0) {
            return;
        }
        int n = text.length();
        int i = 0;
        while (i < n) {
            char c = text.charAt(i);
            if (!isPathChar(c) && c != '/') {
                i++;
                continue;
            }
            // A run of path characters and separators.
            int start = i;
            boolean separator = false;
            boolean base64Symbol = false;
            while (i < n && (isPathChar(text.charAt(i)) || text.charAt(i) == '/')) {
                char d = text.charAt(i);
                separator |= d == '/';
                base64Symbol |= d == '+' || d == '=';
                i++;
            }
            // A path starts at the root, at home, at . or .., or after a URL's scheme; a line of
            // base64 that happens to hold a slash does not.
            char first = text.charAt(start);
            boolean rooted = first == '/' || first == '~' || first == '.';
            if (!separator || base64Symbol || !rooted || i - start < MIN_RUN) {
                continue;
            }
            segments(text, start, i, sink);
        }
    }

    /** Reports each segment of the path at [start, end) that holds a random-looking run. */
    private static void segments(String text, int start, int end, Sink sink) {
        int s = start;
        while (s < end) {
            int e = s;
            while (e < end && text.charAt(e) != '/') {
                e++;
            }
            if (e - s >= MIN_RUN && randomRun(text, s, e) && !NIX_HASH.matcher(text.substring(s, e)).matches()) {
                sink.found(s, e, "high-entropy");
            }
            s = e + 1;
        }
    }

    /** Whether a run of letters and digits in [s, e) looks random. */
    private static boolean randomRun(String text, int s, int e) {
        int i = s;
        while (i < e) {
            while (i < e && !isAlnum(text.charAt(i))) {
                i++;
            }
            int r = i;
            while (i < e && isAlnum(text.charAt(i))) {
                i++;
            }
            String run = text.substring(r, i);
            // Mixed case and digits, as keys have: temporary folders (macOS's /var/folders/...) are
            // lower-case, and long CamelCase file names have no digit.
            if (run.length() >= MIN_RUN && !run.equals(run.toLowerCase(java.util.Locale.ROOT))
                    && !run.equals(run.toUpperCase(java.util.Locale.ROOT)) && run.chars().anyMatch(Character::isDigit)
                    && Randomness.looksRandom(run)) {
                return true;
            }
        }
        return false;
    }

    private static boolean isAlnum(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9';
    }

    private static boolean isPathChar(char c) {
        return isAlnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == '@' || c == '+' || c == '=';
    }
}
