package dev.funes.redact;

import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Secrets told in sentences, where a few words stand between the word that names the secret and
 * the secret: {@code the password is hunter2xyz}, {@code token for prod is: 9f3c...},
 * {@code I set the root password to "Tr0ub4dor"}, {@code use k3yV4lue99 as the password}. The
 * name ({@code password}, {@code passphrase}, {@code token}, {@code key}, {@code secret},
 * {@code credential}) is followed, within a few words on its line, by a verb or separator
 * ({@code is}, {@code was}, {@code :}, {@code =}, {@code ->}, {@code set/changed/reset ... to})
 * and the value. The value must read as one: a password has a digit or a symbol (or is quoted),
 * a token or key has letters and digits or looks random; words, identifiers, calls, paths and
 * placeholders stay. Values assigned right after their name ({@code password: x}) are
 * {@link AssignmentRule}'s.
 */
final class ProseRule implements Rule {

    /** Words allowed between the name and the separator ({@code token for the prod cluster is}). */
    private static final int MAX_WORDS = 10;
    private static final int MAX_GAP = 100;
    private static final String[] PASSWORD_WORDS = {"password", "passwd", "passphrase", "passcode"};
    private static final String[] TOKEN_WORDS = {"token", "key", "secret", "credential", "credentials", "apikey"};
    private static final Set<String> COPULAS = Set.of("is", "was", "are", "were", "be", "=", "->", "\u2192", "=>",
            "equals", "reads", "becomes", ":");
    private static final Set<String> SETTERS = Set.of("set", "changed", "reset", "updated", "rotated", "change",
            "update", "rotate", "setting", "changing", "resetting");
    /** Words that may follow the separator before the value ({@code is now X}). */
    private static final Set<String> FILLERS = Set.of("now", "still", "just", "actually", "probably", "literally",
            "simply", "currently", "temporarily", "set", "always", "either", "also");
    /** Words that say no value follows ({@code the key is not set}, {@code the token is a JWT}). */
    private static final Set<String> STOP = Set.of("a", "an", "the", "not", "no", "in", "on", "at", "of", "for", "to",
            "and", "or", "but", "if", "it", "this", "that", "these", "those", "there", "here", "what", "which", "who",
            "how", "why", "when", "where", "my", "your", "our", "their", "his", "her", "its", "stored", "used", "sent",
            "correct", "wrong", "invalid", "valid", "expired", "missing", "required", "empty", "set", "unset", "null",
            "none", "nil", "undefined", "same", "different", "too", "very", "only", "also", "then", "than", "being",
            "been", "generated", "hashed", "encrypted", "saved", "shown", "printed", "logged", "passed", "given",
            "hidden", "masked", "redacted", "rotated", "revoked", "leaked", "exposed", "case", "sensitive",
            "configured", "defined", "provided", "available", "present", "absent", "found", "ok", "okay", "fine",
            "good", "bad", "weak", "strong", "long", "short", "something", "anything", "nothing", "whatever");
    /** Words after the name that say what follows is about the secret, not the secret. */
    private static final Set<String> ATTRIBUTES = Set.of("count", "counts", "limit", "limits", "usage", "type", "types",
            "name", "names", "length", "size", "id", "ids", "index", "file", "path", "budget", "estimate", "expiry",
            "expiration", "expires", "cost", "price", "rate", "window", "format", "scope", "scopes", "prefix", "suffix",
            "field", "fields", "column", "policy", "rules", "rule", "requirements", "hint", "hints", "manager",
            "store", "storage", "vault", "strength", "algorithm", "fingerprint", "rotation", "lifetime", "ttl", "age",
            "status", "state", "mode", "source", "location", "version", "header", "headers", "event", "events",
            "refresh", "reset", "error", "errors", "issue", "issues", "bindings", "binding", "mapping", "map");
    private static final Pattern DIGITS = Pattern.compile("[0-9]+");
    /** Share of rare letter pairs asked of a short token in prose: random base62 has 0.7 on average. */
    private static final double STRONG_RARE_PAIRS = 0.5;
    private static final Pattern HEX = Pattern.compile("[0-9a-fA-F]{16,}");
    private static final Pattern UUID = Pattern.compile(
            "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
    private static final Pattern DOTTED_NAME = Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*(?:\\.[A-Za-z_$][A-Za-z0-9_$]*)+");

    @Override
    public void find(Input input, Sink sink) {
        String lower = input.lower();
        String text = input.text;
        for (String word : PASSWORD_WORDS) {
            scan(text, lower, word, "password", sink);
        }
        for (String word : TOKEN_WORDS) {
            scan(text, lower, word, "token".equals(word) || word.startsWith("credential") ? "token" : "secret", sink);
        }
    }

    private static void scan(String text, String lower, String word, String type, Sink sink) {
        for (int at = lower.indexOf(word); at >= 0; at = lower.indexOf(word, at + word.length())) {
            int end = at + word.length();
            if (at > 0 && (Character.isLetter(text.charAt(at - 1)) && !camelStart(text, at) || text.charAt(at - 1) == '_')
                    || end < text.length() && (Character.isLetterOrDigit(text.charAt(end)) || text.charAt(end) == '_')) {
                continue;
            }
            forward(text, end, type, setterBefore(text, at), sink);
            backward(text, at, type, sink);
        }
    }

    /** {@code password [for admin] is VALUE}. */
    private static void forward(String text, int from, String type, boolean setterBefore, Sink sink) {
        int i = skipSpaces(text, from);
        if (i >= text.length() || "\":=,;}])_.'/\\<>|&".indexOf(text.charAt(i)) >= 0) {
            return; // a key of JSON or code, an assignment: not a sentence
        }
        int limit = Math.min(text.length(), from + MAX_GAP);
        boolean setter = setterBefore;
        for (int words = 0; words <= MAX_WORDS; words++) {
            i = skipSpaces(text, i);
            if (i >= limit || isLineEnd(text, i)) {
                return;
            }
            int wordEnd = wordEnd(text, i);
            String w = text.substring(i, wordEnd).toLowerCase(Locale.ROOT);
            boolean separator = COPULAS.contains(w) || setter && "to".equals(w);
            boolean colonEnded = !separator && w.length() > 1 && w.endsWith(":") && !w.contains("://");
            if (words == 0 && (w.startsWith(":") || w.startsWith("=") || colonEnded && w.length() == 1)) {
                return; // an assignment: AssignmentRule's
            }
            if (colonEnded && words == 0 && ATTRIBUTES.contains(w.substring(0, w.length() - 1))) {
                return; // token count: 1234, key name: ..., not the secret itself
            }
            if ((separator || colonEnded) && (w.indexOf('(') < 0 || w.startsWith("("))) {
                value(text, wordEnd, type, sink);
                return;
            }
            if (w.endsWith(".") || w.endsWith(",") || w.endsWith(";") || w.endsWith("?") || w.endsWith("!")
                    || w.contains("=") || w.contains("(") && !w.startsWith("(")) {
                return; // the sentence or clause ended, or this is code (a call); "(expires Friday)" is prose
            }
            setter |= SETTERS.contains(w);
            i = wordEnd;
        }
    }

    /** Whether a verb that sets a secret stands a few words before it ({@code reset the root password to X}). */
    private static boolean setterBefore(String text, int at) {
        int i = at;
        for (int words = 0; words < 4; words++) {
            int e = skipSpacesBack(text, i);
            if (e <= 0 || text.charAt(e - 1) == '\n') {
                return false;
            }
            int s = wordStartBack(text, e);
            if (SETTERS.contains(text.substring(s, e).toLowerCase(Locale.ROOT))) {
                return true;
            }
            i = s;
        }
        return false;
    }

    /** {@code VALUE is the password}, {@code use VALUE as the password}. */
    private static void backward(String text, int at, String type, Sink sink) {
        int i = at;
        // Up to two words between: "the", "my", "new", "root", "prod"...
        int words = 0;
        while (true) {
            int e = skipSpacesBack(text, i);
            if (e <= 0 || text.charAt(e - 1) == '\n' || e >= 2 && escapedBreak(text, e - 2)) {
                return;
            }
            int s = wordStartBack(text, e);
            String w = text.substring(s, e).toLowerCase(Locale.ROOT);
            if ("is".equals(w) || "as".equals(w) || "was".equals(w)) {
                int ve = skipSpacesBack(text, s);
                if (ve <= 0 || text.charAt(ve - 1) == '\n' || ve >= 2 && escapedBreak(text, ve - 2)) {
                    return;
                }
                int vs = wordStartBack(text, ve);
                judge(text, vs, ve, type, true, sink);
                return;
            }
            if (++words > 2 || w.isEmpty() || !w.chars().allMatch(Character::isLetter)) {
                return;
            }
            i = s;
        }
    }

    private static void value(String text, int from, String type, Sink sink) {
        int i = skipSpaces(text, from);
        for (int k = 0; k < 2 && i < text.length(); k++) {
            int e = wordEnd(text, i);
            if (!FILLERS.contains(text.substring(i, e).toLowerCase(Locale.ROOT))) {
                break;
            }
            i = skipSpaces(text, e);
        }
        if (i >= text.length() || isLineEnd(text, i)) {
            return;
        }
        judge(text, i, wordEnd(text, i), type, false, sink);
    }

    /** Judges the word at [start, end) as a value of {@code type}; {@code before}: it came before the name. */
    private static void judge(String text, int start, int end, String type, boolean before, Sink sink) {
        int s = start;
        int e = end;
        boolean quoted = false;
        char first = s < e ? text.charAt(s) : ' ';
        if (text.startsWith("\\\"", s)) {
            // A JSON-escaped quote: \"value\"
            int c = text.indexOf("\\\"", s + 2);
            if (c < 0 || c > s + 200) {
                return;
            }
            s += 2;
            e = c;
            quoted = true;
        } else if (first == '"' || first == '\'' || first == '`' || first == '\u201C' || first == '\u2018') {
            char close = first == '\u201C' ? '\u201D' : first == '\u2018' ? '\u2019' : first;
            int c = text.indexOf(close, s + 1);
            if (c < 0 || c > s + 200 || text.substring(s + 1, c).indexOf('\n') >= 0) {
                return;
            }
            s++;
            e = c;
            quoted = true;
        } else {
            // Sentence punctuation after a bare value is not part of it.
            while (e > s && ".,;:)]}>\"'`!?".indexOf(text.charAt(e - 1)) >= 0) {
                e--;
            }
            while (s < e && "([{<".indexOf(text.charAt(s)) >= 0) {
                s++;
            }
        }
        if (e <= s) {
            return;
        }
        String v = text.substring(s, e);
        if (!quoted && (v.indexOf('"') >= 0 || v.indexOf('=') >= 0 || v.indexOf('\\') >= 0)) {
            return; // code, not a value told in a sentence
        }
        if (isValue(v, type, quoted, before)) {
            sink.found(s, e, type);
        }
    }

    static boolean isValue(String v, String type, boolean quoted, boolean before) {
        String lower = v.toLowerCase(Locale.ROOT);
        if (STOP.contains(lower) || v.contains("(") || v.contains(")") || v.contains("://") || v.startsWith("/")
                || v.startsWith("~/") || v.startsWith("./") || v.indexOf(' ') >= 0 && !quoted
                || DOTTED_NAME.matcher(v).matches()) {
            return false;
        }
        if (!AssignmentRule.isSecretValue(v, type, AssignmentRule.Form.LITERAL)) {
            return false;
        }
        boolean digit = v.chars().anyMatch(Character::isDigit);
        boolean letter = v.chars().anyMatch(Character::isLetter);
        boolean symbol = v.chars().anyMatch(c -> !Character.isLetterOrDigit(c) && c != '-' && c != '_' && c != '\''
                && c != '/');
        if ("password".equals(type)) {
            if (DIGITS.matcher(v).matches()) {
                return v.length() >= 6 && !before;
            }
            if (quoted && !before) {
                return v.length() >= 4;
            }
            return v.length() >= 6 && letter && (digit || symbol);
        }
        if (v.length() < 8 || !letter || !digit && !Randomness.looksRandom(v)) {
            return false;
        }
        // Generated, not a name: CamelCase names with a digit (NamedPKCS8Key) have common letter pairs.
        return Randomness.looksRandom(v) || HEX.matcher(v).matches() || UUID.matcher(v).matches()
                || v.length() >= 16 && Randomness.isRandomish(v) && Randomness.rarePairShare(v) >= STRONG_RARE_PAIRS;
    }

    /** Whether a JSON escape of a line end or a tab ({@code \\n}, {@code \\t}) starts at {@code i}. */
    private static boolean escapedBreak(String text, int i) {
        return text.charAt(i) == '\\' && i + 1 < text.length() && "nrt".indexOf(text.charAt(i + 1)) >= 0;
    }

    private static boolean isLineEnd(String text, int i) {
        char c = text.charAt(i);
        return c == '\n' || c == '\r' || escapedBreak(text, i) && text.charAt(i + 1) != 't';
    }

    private static boolean camelStart(String text, int at) {
        return Character.isUpperCase(text.charAt(at)) && Character.isLowerCase(text.charAt(at - 1));
    }

    private static int skipSpaces(String text, int i) {
        while (i < text.length() && (text.charAt(i) == ' ' || text.charAt(i) == '\t'
                || text.charAt(i) == '\\' && i + 1 < text.length() && text.charAt(i + 1) == 't')) {
            i += text.charAt(i) == '\\' ? 2 : 1;
        }
        return i;
    }

    private static int skipSpacesBack(String text, int i) {
        while (i > 0 && (text.charAt(i - 1) == ' ' || text.charAt(i - 1) == '\t')) {
            i--;
        }
        return i;
    }

    /** End of the word (run of non-space characters) at {@code i}; a quoted value runs to its closing quote. */
    private static int wordEnd(String text, int i) {
        int e = i;
        while (e < text.length() && !Character.isWhitespace(text.charAt(e)) && !escapedBreak(text, e)) {
            e++;
        }
        return e;
    }

    private static int wordStartBack(String text, int e) {
        int s = e;
        while (s > 0 && !Character.isWhitespace(text.charAt(s - 1)) && !(s >= 2 && escapedBreak(text, s - 2))) {
            s--;
        }
        return s;
    }
}
