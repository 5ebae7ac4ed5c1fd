package dev.funes.redact;

import java.util.List;
import java.util.regex.Pattern;

/**
 * The built-in rules, most specific first: where two rules find overlapping secrets, the earlier
 * one's is kept, so a GitHub token assigned to {@code GITHUB_TOKEN=} counts as a
 * {@code github-token}, not a {@code token}. docs/REDACTION.md lists them with examples.
 */
final class StandardRules {

    /**
     * A token must not start in the middle of a longer string (an identifier, a base64 blob). A
     * slash may come before: https://ghp_...@github.com, ci/AIza...
     */
    private static final String START = "(?<![A-Za-z0-9_+-])";
    private static final String PEM_LABEL = "[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----";
    private static final String PEM_BODY = "[A-Za-z0-9+/=\\s:,\\\\-]";
    private static final Pattern BASE64_RUN = Pattern.compile("[A-Za-z0-9+/=]{20,}");
    private static final Pattern NOT_A_PASSWORD = Pattern.compile(
            "(?i)x+|\\*+|\\.+|\u2022+|\\$.*|%.*|<.*|\\{.*|\\[.*|password|pass|secret|passwd|pwd|changeme");

    /** Rules that come before the user's: secrets with a known shape. */
    static final List<Rule> SPECIFIC = List.of(
            // A whole PEM block; when a cut left no END line, the base64 that follows BEGIN.
            PatternRule.of("private-key", "-----BEGIN" + PEM_LABEL
                    + "(?:" + PEM_BODY + "{0,20000}?-----END" + PEM_LABEL + "|" + PEM_BODY + "{0,20000}+)",
                    StandardRules::hasKeyMaterial, "-----BEGIN"),
            // The end of a PEM block whose beginning was cut away.
            PatternRule.of("private-key", "(?<![A-Za-z0-9+/=])(?:[A-Za-z0-9+/=]{16,}+(?:\\s|\\\\n)++)++"
                    + "(?:[A-Za-z0-9+/=]{1,15}+(?:\\s|\\\\n)++)?-----END" + PEM_LABEL, s -> true, "PRIVATE KEY"),
            PatternRule.of("jwt", START + "eyJ[A-Za-z0-9_-]{8,}+\\.eyJ[A-Za-z0-9_-]{8,}+(?:\\.[A-Za-z0-9_-]++)?",
                    s -> true, "eyJ"),
            PatternRule.of("aws-access-key-id", START + "(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])",
                    s -> true, "AKIA", "ASIA", "ABIA", "ACCA"),
            PatternRule.ofAnyCase("aws-secret-key",
                    "(?i:aws[_-]?secret[_-]?(?:access[_-]?)?key|secret[_-]?access[_-]?key)"
                    + "(?:\\\\?[\"'])?(?:[ \\t]*(?::=|=>|[:=])[ \\t]*|[ \\t]+)(?:\\\\?[\"'])?"
                    + "(?<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
                    "awssecret", "aws_secret", "aws-secret", "secretaccess", "secret_access", "secret-access"),
            // A secret key right after its key id: credentials CSV files, `aws configure list` output.
            PatternRule.of("aws-secret-key", START + "(?:AKIA|ASIA)[A-Z0-9]{16}(?:[\\s,;|:\"'=]|\\\\[nt\"])++"
                    + "(?:[A-Za-z_]{1,40}+[ \\t]*[:=][ \\t]*[\"']?)?(?<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
                    s -> true, "AKIA", "ASIA"),
            PatternRule.of("github-token", START + "(?:gh[pousr]_[A-Za-z0-9]{20,}+|github_pat_[A-Za-z0-9_]{20,}+)",
                    s -> true, "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
            PatternRule.of("gitlab-token", START
                    + "gl(?:pat|dt|rt|ptt|cbt|ft|imt|oas|soat|agent)-[A-Za-z0-9_-]{20,}+(?:\\.[A-Za-z0-9_-]++)*+",
                    s -> true, "glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glft-", "glimt-", "gloas-", "glsoat-",
                    "glagent-"),
            PatternRule.of("slack-webhook",
                    "https?://hooks\\.slack\\.com/(?:services|workflows|triggers)/(?<secret>[A-Za-z0-9_/-]{16,}+)",
                    s -> true, "hooks.slack.com"),
            PatternRule.of("slack-token", START + "(?:xox[abprs]-[A-Za-z0-9-]{10,}+|xapp-[0-9]-[A-Za-z0-9-]{10,}+)",
                    s -> true, "xox", "xapp-"),
            PatternRule.of("stripe-key", START + "(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}+|whsec_[A-Za-z0-9]{20,}+)",
                    s -> true, "k_live_", "k_test_", "whsec_"),
            PatternRule.of("anthropic-key", START + "sk-ant-[A-Za-z0-9_-]{20,}+", s -> true, "sk-ant-"),
            PatternRule.of("openai-key", START + "sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}+",
                    StandardRules::mixedCase, "sk-"),
            PatternRule.of("google-api-key", START + "AIza[A-Za-z0-9_-]{30,}+", s -> true, "AIza"),
            // scheme://user:password@host: the user stays, the password goes.
            PatternRule.of("url-password", "://(?<=(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,20}://)"
                    + "[^\\s:@/?#\\[\\]\"'<>]{1,100}+:(?<secret>[^\\s@/?#\"'<>]{1,200}+)@(?=[A-Za-z0-9\\[])",
                    StandardRules::isPassword, "://"),
            // curl -u user:password (but not docker -u 1000:1000)
            PatternRule.of("password", "(?<![\\w-])(?:-u|--user)[ =]+[\"']?[^\\s:\"'$]{1,100}+:(?<secret>[^\\s\"']{1,200}+)",
                    value -> isPassword(value) && !value.chars().allMatch(Character::isDigit), "-u", "--user"));

    /** Rules that come after the user's: secrets known only by their context. */
    static final List<Rule> CONTEXTUAL = List.of(new AssignmentRule(), new ContextEntropyRule());

    private StandardRules() {
    }

    /** A BEGIN line with no key after it (code that looks for one) is not a key. */
    private static boolean hasKeyMaterial(String block) {
        return BASE64_RUN.matcher(block.substring(block.indexOf("-----", 5) + 5)).find();
    }

    /** OpenAI keys are random base62: this keeps kebab-case names that start with sk- out. */
    private static boolean mixedCase(String key) {
        String body = key.substring(3);
        return body.chars().anyMatch(Character::isUpperCase) && body.chars().anyMatch(Character::isLowerCase)
                && body.chars().anyMatch(Character::isDigit);
    }

    private static boolean isPassword(String value) {
        return !NOT_A_PASSWORD.matcher(value).matches();
    }
}
