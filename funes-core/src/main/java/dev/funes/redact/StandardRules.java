package dev.funes.redact;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The built-in rules, most specific first: where two rules find overlapping secrets, the earlier
 * one's is kept, so a GitHub token assigned to {@code GITHUB_TOKEN=} counts as a
 * {@code github-token}, not a {@code token}. docs/REDACTION.md lists them with examples.
 *
 * <p>Every expression here runs on texts of up to a few MiB (whole tool outputs): repetitions
 * are possessive or bounded, so no input makes one backtrack for long.
 */
final class StandardRules {

    /**
     * A token must not start in the middle of a longer string (an identifier, a base64 blob). A
     * slash may come before: https://ghp_...@github.com, ci/AIza... Rules made with
     * {@link PatternRule#token} have no such look-behind: a token glued to the word before is
     * taken when its body looks random.
     */
    private static final String START = "(?<![A-Za-z0-9_+-])";
    private static final String PEM_LABEL = "[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----";
    private static final String PEM_BODY = "[A-Za-z0-9+/=\\s:,\\\\-]";
    private static final Pattern BASE64_RUN = Pattern.compile("[A-Za-z0-9+/=]{20,}");
    private static final Pattern NOT_A_PASSWORD = Pattern.compile(
            "(?i)x+|\\*+|\\.+|\u2022+|\\$.*|%.*|<.*|\\{.*|\\[.*|password|pass|secret|passwd|pwd|pw|changeme");
    /** Punctuation a sentence puts after a value: docker -u 1000:1000) is still a user and a group. */
    private static final Pattern TRAILING = Pattern.compile("[)\\]}.,;]+$");
    /** A port and a path after {@code host:}, which the URL rule would otherwise read as a password. */
    private static final Pattern PORT_AND_PATH = Pattern.compile("[0-9]{1,5}(?:/.*)?");

    /**
     * Tokens of services that give theirs a recognisable prefix, as their documentation
     * describes them; each entry is a type, an expression, and the literal every match holds
     * when it is not the expression's first characters (texts without it are skipped).
     */
    private static final String[][] PREFIXED = {
            {"huggingface-token", "hf_[A-Za-z0-9]{30,}+"},
            {"huggingface-token", "api_org_[A-Za-z0-9]{30,}+"},
            {"npm-token", "npm_[A-Za-z0-9]{30,}+"},
            {"pypi-token", "pypi-AgE[A-Za-z0-9_-]{40,}+"},
            {"sendgrid-key", "SG\\.[A-Za-z0-9_-]{16,}+\\.[A-Za-z0-9_-]{16,}+"},
            {"vault-token", "hv[sbr]\\.[A-Za-z0-9_-]{20,}+"},
            {"vault-token", "b\\.AAAAAQ[A-Za-z0-9_-]{30,}+"},
            {"heroku-key", "HRKU-[A-Za-z0-9_-]{20,}+"},
            {"google-oauth", "GOCSPX-[A-Za-z0-9_-]{20,}+"},
            {"google-oauth", "ya29\\.[A-Za-z0-9_-]{20,}+"},
            {"google-oauth", "1//0[A-Za-z0-9_-]{30,}+", "1//0"},
            {"azure-secret", "[A-Za-z0-9_~.-]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}+", "Q~"},
            {"api-token", "do[opr]_v1_[0-9a-f]{64}", "_v1_"},
            {"api-token", "shp(?:at|ca|pa|ss)_[0-9a-fA-F]{32}"},
            {"api-token", "dapi[0-9a-f]{32}(?:-[0-9])?"},
            {"api-token", "dp\\.(?:pt|st|sa|ct|scim|audit)\\.[A-Za-z0-9]{40,}+"},
            {"api-token", "lin_(?:api|oauth)_[A-Za-z0-9]{40,}+"},
            {"api-token", "ntn_[A-Za-z0-9]{40,}+"},
            {"api-token", "secret_[A-Za-z0-9]{43}(?![A-Za-z0-9])"},
            {"api-token", "PMAK-[0-9a-f]{24}-[0-9a-f]{34}"},
            {"api-token", "gsk_[A-Za-z0-9]{40,}+"},
            {"api-token", "r8_[A-Za-z0-9]{30,}+"},
            {"api-token", "pplx-[A-Za-z0-9]{40,}+"},
            {"api-token", "xai-[A-Za-z0-9]{60,}+"},
            {"api-token", "ATATT3[A-Za-z0-9_=-]{50,}+"},
            {"api-token", "NR(?:AK|JS|II)-[A-Za-z0-9]{20,}+"},
            {"api-token", "sntry[su]_[A-Za-z0-9+/=_-]{40,}+"},
            {"api-token", "gl(?:c|sa)_[A-Za-z0-9+/=_-]{32,}+"},
            {"api-token", "fo1_[A-Za-z0-9_-]{40,}+"},
            {"api-token", "fm[12][ar]?_[A-Za-z0-9_-]{40,}+"},
            {"api-token", "sbp_[0-9a-f]{40}"},
            {"api-token", "sb_secret_[A-Za-z0-9_-]{20,}+"},
            {"api-token", "[A-Za-z0-9]{14}\\.atlasv1\\.[A-Za-z0-9_-]{60,}+", ".atlasv1."},
            {"api-token", "pul-[0-9a-f]{40}"},
            {"api-token", "AGE-SECRET-KEY-1[0-9A-Z]{58}"},
            {"api-token", "dckr_pat_[A-Za-z0-9_-]{20,}+"},
            {"api-token", "ATBB[A-Za-z0-9_=.-]{32,}+"},
            {"api-token", "sq0(?:atp|csp)-[A-Za-z0-9_-]{22,}+"},
            {"api-token", "sk-or-v1-[0-9a-f]{64}"},
            {"api-token", "lsv2_(?:pt|sk)_[0-9a-f]{32}_[0-9a-f]{10}"},
            {"api-token", "pcsk_[A-Za-z0-9_]{40,}+"},
            {"api-token", "tvly-[A-Za-z0-9_-]{30,}+"},
            {"api-token", "[0-9]{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])", ":AA"},
    };

    /** Rules that come before the user's: secrets with a known shape. */
    static final List<Rule> SPECIFIC = specific();

    /** Rules that come after the user's: secrets known only by their context. */
    static final List<Rule> CONTEXTUAL = List.of(new HerokuRule(), new AssignmentRule(), new NameValueRule(),
            new EncodedAssignmentRule(), new ContextEntropyRule(), new ProseRule(), new PemLineRule(), new CutRule(),
            new PathRule());

    private StandardRules() {
    }

    private static List<Rule> specific() {
        List<Rule> rules = new ArrayList<>(List.of(
                // A whole PEM block; when a cut left no END line, the base64 that follows BEGIN.
                PatternRule.of("private-key", "-----BEGIN" + PEM_LABEL
                        + "(?:" + PEM_BODY + "{0,20000}?-----END" + PEM_LABEL + "|" + PEM_BODY + "{0,20000}+)",
                        StandardRules::hasKeyMaterial, "-----BEGIN"),
                // The end of a PEM block whose beginning was cut away.
                new PemTailRule(),
                // A JWT, or what a cut left of one: a header and a dot are enough.
                PatternRule.token("jwt", "eyJ[A-Za-z0-9_-]{8,}+(?:\\.[A-Za-z0-9_-]*+)++", s -> true, "eyJ"),
                PatternRule.token("aws-access-key-id", "(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])",
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
                PatternRule.token("github-token", "(?:gh[pousr]_[A-Za-z0-9]{20,}+|github_pat_[A-Za-z0-9_]{20,}+)",
                        s -> true, "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
                PatternRule.token("gitlab-token",
                        "gl(?:pat|dt|rt|ptt|cbt|ft|imt|oas|soat|agent)-[A-Za-z0-9_-]{20,}+(?:\\.[A-Za-z0-9_-]++)*+",
                        s -> true, "glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glft-", "glimt-", "gloas-", "glsoat-",
                        "glagent-"),
                PatternRule.of("slack-webhook",
                        "https?://hooks\\.slack\\.com/(?:services|workflows|triggers)/(?<secret>[A-Za-z0-9_/-]{16,}+)",
                        s -> true, "hooks.slack.com"),
                PatternRule.of("discord-webhook",
                        "discord(?:app)?\\.com/api/webhooks/[0-9]{5,30}+/(?<secret>[A-Za-z0-9_-]{30,}+)",
                        s -> true, "/api/webhooks/"),
                PatternRule.token("slack-token", "(?:xox[abprs]-[A-Za-z0-9-]{10,}+|xapp-[0-9]-[A-Za-z0-9-]{10,}+)",
                        s -> true, "xox", "xapp-"),
                PatternRule.token("stripe-key", "(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}+|whsec_[A-Za-z0-9]{20,}+)",
                        s -> true, "k_live_", "k_test_", "whsec_"),
                PatternRule.token("anthropic-key", "sk-ant-[A-Za-z0-9_-]{20,}+", s -> true, "sk-ant-"),
                PatternRule.token("openai-key", "sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}+", s -> true, "sk-"),
                PatternRule.token("openai-key", "sk-[A-Za-z0-9_-]{0,80}?T3BlbkFJ[A-Za-z0-9_-]{0,80}+", s -> true, "T3BlbkFJ"),
                PatternRule.of("openai-key", START + "sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}+",
                        StandardRules::mixedCase, "sk-"),
                // sk- and hex: DeepSeek and other OpenAI-compatible services.
                PatternRule.of("api-token", START + "sk-[0-9a-f]{32,}+(?![A-Za-z0-9_-])", s -> true, "sk-"),
                PatternRule.token("google-api-key", "AIza[A-Za-z0-9_-]{30,}+", s -> true, "AIza")));
        for (String[] p : PREFIXED) {
            rules.add(PatternRule.token(p[0], p[1], s -> true, p.length > 2 ? p[2] : prefixOf(p[1])));
        }
        rules.add(PatternRule.of("vault-token", "\\.(?<=(?<![A-Za-z0-9_+-])[sbr]\\.)[A-Za-z0-9]{24}(?![A-Za-z0-9_.-])",
                s -> Randomness.looksRandom(s.substring(1)) || Randomness.isRandomish(s.substring(1)), "s.", "b.", "r."));
        rules.add(new SignedUrlRule());
        // Azure storage account and Service Bus keys in connection strings: 44 or 88 base64 characters.
        rules.add(PatternRule.of("azure-key", "(?:AccountKey|SharedAccessKey)=(?<secret>[A-Za-z0-9+/]{40,}+={0,2})",
                s -> true, "AccountKey=", "SharedAccessKey="));
        // scheme://user:password@host: the user stays, the password goes. The password runs to the
        // last @ before a host, so one holding @ # / ? goes whole.
        rules.add(PatternRule.of("url-password", "://(?<=(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,20}://)"
                + "[^\\s:@/?#\\[\\]\"'<>]{0,100}+:(?<secret>[^\\s\"'<>`]{1,200})@"
                + "(?=[A-Za-z0-9\\[][A-Za-z0-9.\\-]{0,253}+(?:[:/?#\\s\"'<>)\\],;]|$))",
                value -> isPassword(value) && !PORT_AND_PATH.matcher(value).matches(), "://"));
        // curl -u user:password (but not docker -u 1000:1000)
        rules.add(PatternRule.of("password", "(?<![\\w-])(?:-u|--user|--proxy-user)[ =]++[\"']?[^\\s:\"'$]{1,100}+:"
                + "(?<secret>[^\\s\"']{1,200}+)",
                value -> isPassword(value) && !TRAILING.matcher(value).replaceAll("").chars().allMatch(Character::isDigit),
                "-u", "--user", "--proxy-user"));
        rules.add(new CommandRule());
        rules.add(new PgpassRule());
        // .netrc: machine HOST login USER password PASSWORD, on one line or several.
        rules.add(PatternRule.of("password", "(?<![A-Za-z])machine\\s++\\S++\\s++(?:\\S++\\s++){0,4}?login\\s++\\S++\\s++"
                + "(?:\\S++\\s++){0,2}?(?:password|passwd)\\s++(?<secret>[^\\s]{1,200}+)",
                StandardRules::isPassword, "machine"));
        return List.copyOf(rules);
    }

    /** The literal characters an expression starts with, which every match holds. */
    private static String prefixOf(String regex) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < regex.length(); i++) {
            char c = regex.charAt(i);
            if (c == '\\' && i + 1 < regex.length() && regex.charAt(i + 1) == '.') {
                s.append('.');
                i++;
            } else if (Character.isLetterOrDigit(c) || c == '_' || c == '-' || c == '~') {
                s.append(c);
            } else {
                break;
            }
        }
        if (s.length() < 2) {
            throw new IllegalArgumentException("name the literal of " + regex);
        }
        return s.toString();
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

    static boolean isPassword(String value) {
        return !NOT_A_PASSWORD.matcher(value).matches();
    }
}
