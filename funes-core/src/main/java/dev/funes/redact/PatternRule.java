package dev.funes.redact;

import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A rule that is a regular expression: the group named {@code secret}, or the whole match when
 * there is none, is a secret if it passes the rule's check. A rule may name literals one of which
 * every match contains; texts without any are skipped without running the expression.
 */
final class PatternRule implements Rule {

    private final String type;
    private final Pattern pattern;
    private final boolean secretGroup;
    private final Predicate<String> accept;
    private final String[] literals;
    private final boolean ignoreCase;
    private final boolean token;
    /** Longest word a token may be glued to ({@code passwordIs}, {@code GITHUB_TOKEN}). */
    private static final int GLUED_WORD = 24;

    private PatternRule(String type, Pattern pattern, Predicate<String> accept, boolean ignoreCase, boolean token,
                        String... literals) {
        this.type = type;
        this.pattern = pattern;
        this.secretGroup = pattern.pattern().contains("(?<secret>");
        this.accept = accept;
        this.literals = literals.clone();
        this.ignoreCase = ignoreCase;
        this.token = token;
    }

    /** A user's rule: no literals, every match accepted. */
    static PatternRule of(RedactionRule rule) {
        return new PatternRule(rule.type(), rule.pattern(), s -> true, false, false);
    }

    /** A rule whose matches each contain one of {@code literals} (case-sensitive). */
    static PatternRule of(String type, String regex, Predicate<String> accept, String... literals) {
        return new PatternRule(type, Pattern.compile(regex), accept, false, false, literals);
    }

    /** A rule whose matches each contain one of {@code lowerLiterals}, in any case. */
    static PatternRule ofAnyCase(String type, String regex, String... lowerLiterals) {
        return new PatternRule(type, Pattern.compile(regex), s -> true, true, false, lowerLiterals);
    }

    /**
     * A token with a known prefix. One that starts right after a letter or digit (glued to the
     * word before, {@code keyghp_...}, or inside a longer string) is taken only when its longest
     * run of letters and digits looks random, so that names which happen to contain a prefix
     * ({@code desk_live_chat_widget}) stay.
     */
    static PatternRule token(String type, String regex, Predicate<String> accept, String... literals) {
        return new PatternRule(type, Pattern.compile(regex), accept, false, true, literals);
    }

    @Override
    public void find(Input input, Sink sink) {
        if (literals.length > 0 && !(ignoreCase ? input.lowerContainsAny(literals) : input.containsAny(literals))) {
            return;
        }
        String text = input.text;
        Matcher m = pattern.matcher(text);
        while (m.find()) {
            int start = secretGroup ? m.start("secret") : m.start();
            int end = secretGroup ? m.end("secret") : m.end();
            while (end > start && Character.isWhitespace(text.charAt(end - 1))) {
                end--; // a secret never ends in a space; the text around it keeps its layout
            }
            if (start < 0 || end <= start) {
                continue;
            }
            String secret = text.substring(start, end);
            if (token && m.start() > 0 && isTokenChar(text.charAt(m.start() - 1))
                    && (insideBlob(text, m.start()) || !generated(longestRun(secret)))) {
                continue;
            }
            if (accept.test(secret)) {
                sink.found(start, end, type);
            }
        }
    }

    /**
     * Whether a longer run of key characters than a word comes right before: the match lies
     * inside a blob (base64url data, a hash), where any prefix turns up by chance.
     */
    private static boolean insideBlob(String text, int start) {
        int i = start;
        while (i > 0 && start - i <= GLUED_WORD && (isTokenChar(text.charAt(i - 1)) || text.charAt(i - 1) == '/'
                || text.charAt(i - 1) == '=')) {
            i--;
        }
        return start - i > GLUED_WORD;
    }

    private static boolean isTokenChar(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
                || c == '+' || c == '.';
    }

    /**
     * Whether a token's body looks generated: random, or (as an AWS key id's 16 upper-case
     * letters and digits) letters and digits within a bit and a half of random entropy.
     */
    private static boolean generated(String run) {
        if (Randomness.looksRandom(run) || Randomness.isRandomish(run)) {
            return true;
        }
        boolean digit = run.chars().anyMatch(Character::isDigit);
        boolean letter = run.chars().anyMatch(Character::isLetter);
        return run.length() >= 16 && digit && letter
                && Randomness.entropy(run) >= Math.log(run.length()) / Math.log(2) - 1.5;
    }

    /** The longest run of letters and digits: the random body of a token, without its prefix. */
    static String longestRun(String s) {
        int best = 0;
        int bestStart = 0;
        int run = 0;
        for (int i = 0; i <= s.length(); i++) {
            if (i < s.length() && Character.isLetterOrDigit(s.charAt(i))) {
                run++;
            } else {
                if (run > best) {
                    best = run;
                    bestStart = i - run;
                }
                run = 0;
            }
        }
        return s.substring(bestStart, bestStart + best);
    }

    @Override
    public String toString() {
        return type + ": " + pattern;
    }
}
