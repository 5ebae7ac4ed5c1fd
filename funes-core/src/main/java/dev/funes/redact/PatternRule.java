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

    private PatternRule(String type, Pattern pattern, Predicate<String> accept, boolean ignoreCase, String... literals) {
        this.type = type;
        this.pattern = pattern;
        this.secretGroup = pattern.pattern().contains("(?<secret>");
        this.accept = accept;
        this.literals = literals.clone();
        this.ignoreCase = ignoreCase;
    }

    /** A user's rule: no literals, every match accepted. */
    static PatternRule of(RedactionRule rule) {
        return new PatternRule(rule.type(), rule.pattern(), s -> true, false);
    }

    /** A rule whose matches each contain one of {@code literals} (case-sensitive). */
    static PatternRule of(String type, String regex, Predicate<String> accept, String... literals) {
        return new PatternRule(type, Pattern.compile(regex), accept, false, literals);
    }

    /** A rule whose matches each contain one of {@code lowerLiterals}, in any case. */
    static PatternRule ofAnyCase(String type, String regex, String... lowerLiterals) {
        return new PatternRule(type, Pattern.compile(regex), s -> true, true, lowerLiterals);
    }

    @Override
    public void find(Input input, Sink sink) {
        if (literals.length > 0 && !(ignoreCase ? new Input(input.lower()).containsAny(literals) : input.containsAny(literals))) {
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
            if (start >= 0 && end > start && accept.test(text.substring(start, end))) {
                sink.found(start, end, type);
            }
        }
    }

    @Override
    public String toString() {
        return type + ": " + pattern;
    }
}
