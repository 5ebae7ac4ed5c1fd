package dev.funes.redact;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Values assigned to names that say they hold a secret, in the forms configuration and code use:
 * {@code DB_PASSWORD=hunter2}, {@code "client_secret": "..."}, {@code token: ...},
 * {@code password = '...'}, {@code --api-key=...}, {@code --password hunter2},
 * {@code Authorization: Bearer ...}. The type is {@code password}, {@code token} or
 * {@code secret} after the name.
 *
 * <p>Names are split into words (on {@code _ - .} and camelCase) and judged by their last word:
 * {@code input_tokens}, {@code tokenizer}, {@code next_page_token} and {@code password_policy}
 * do not name secrets. Values that are not secrets are left: references ({@code $TOKEN},
 * {@code ${{ secrets.X }}}, {@code <your-token>}), placeholders ({@code xxxx}, {@code ***},
 * {@code changeme}), type names and identifiers ({@code token: str}, {@code password=password}),
 * numbers (except for passwords), paths and URLs; and for tokens and keys, which machines
 * generate, values that read as words ({@code apiKey: 'proxy-handled'}). How much a bare value
 * must look like a value depends on where it stands ({@link Form}).
 */
final class AssignmentRule implements Rule {

    /** Longest name considered; longer runs of name characters are data, not names. */
    private static final int MAX_NAME = 80;
    /**
     * Share of rare letter pairs from which an unquoted identifier-like value in code is taken
     * for a value after all: CPython's identifiers have 0.11 (median) to 0.33 (95th percentile).
     */
    private static final double CODE_RARE_PAIRS = 0.6;
    /** Where a name may contain a secret word; each hit is widened to the whole name. */
    private static final String[] KEYWORDS = {"pass", "pwd", "pw", "token", "auth", "credential", "bearer",
            "secret", "key"};

    /** What follows a name: a separator and a value (quoted, JSON-escaped, or bare). */
    private static final Pattern VALUE = Pattern.compile(
            "(?:\\\\?[\"'])?[ \\t]*(?<sep>:=|=>|=(?![=~>])|:(?![:/=]|\\\\(?!\")))[ \\t]*"
                    + "(?:\\\\\"(?<v1>[^\"\\\\\\n]{1,300}+)\\\\\""
                    + "|\"(?<v2>(?:[^\"\\\\\\n]|\\\\[^\\n]){1,300}+)\""
                    + "|'(?<v3>[^'\\n]{1,300}+)'"
                    // A quoted value cut short by shortening: it ends at the ellipsis.
                    + "|[\"'](?<v5>[^\"'\\\\\\n\u2026]{1,300}+)(?=\\s?\u2026)"
                    // Bare: up to a space or delimiter; & ends it only before the next name= (a URL query).
                    + "|(?:(?i:bearer|basic|token|bot|digest|ssws)[ \\t]+)?"
                    + "(?<v4>(?:[^\\s\"'`,;&|<>(){}\\[\\]]|&(?![A-Za-z_][A-Za-z0-9_]*=)){1,300}+))");
    /** What follows a {@code --flag} name: spaces and a value. */
    private static final Pattern FLAG_VALUE = Pattern.compile(
            "[ \\t]+(?:\"(?<v2>[^\"\\n]{1,300}+)\"|'(?<v3>[^'\\n]{1,300}+)'"
                    + "|(?<v4>[^\\s\"'`;&|<>()-](?:[^\\s\"'`;&|<>()]|&(?=[^\\s&])){0,300}+))");

    private static final Set<String> PASSWORD_WORDS = Set.of("password", "passwd", "passphrase");
    private static final Set<String> PASSWORD_WORDS_WITH_PREFIX = Set.of("pwd", "pass", "pw");
    private static final Set<String> TOKEN_WORDS = Set.of("token", "auth", "authorization", "credential",
            "credentials", "bearer");
    /** Secret words that names also glue to the word before: {@code PGPASSWORD}, {@code apikey}, {@code authtoken}, {@code storepass}. */
    private static final List<String> GLUED = List.of("password", "passwd", "passphrase", "token", "secret", "key", "pass");
    /** Words that end in {@code pass} without naming a password. */
    private static final Set<String> NOT_PASS = Set.of("by", "com", "sur", "over", "tres", "under", "encom", "im",
            "multi", "one", "first", "second", "render", "sub", "shadow", "bi", "cross", "high", "low", "band", "all");
    /**
     * Words before {@code key} that name a lookup key: with other words ({@code STRIPE_KEY},
     * {@code MAPBOX_KEY}) a key is a secret when its value looks generated.
     */
    private static final Set<String> LOOKUP_KEYS = Set.of("primary", "foreign", "sort", "partition", "cache", "storage",
            "hash", "map", "lookup", "dict", "idempotency", "cursor", "composite", "unique", "public", "pub", "ssh",
            "host", "object", "row", "column", "index", "field", "attr", "attribute", "property", "config",
            "translation", "i18n", "message", "label", "react", "list", "item", "group", "route", "routing", "state",
            "store", "query", "s3", "bucket", "file", "menu", "hot", "short", "shortcut", "keyboard", "press", "music",
            "enum", "entry", "cell", "join", "dedup", "dedupe", "shard", "kv", "data", "table", "record", "filter",
            "context", "memo", "sign", "gpg", "pgp", "ca", "cert", "tls", "ssl", "dns", "dkim", "next", "prev",
            "parent", "child", "node", "element", "dom", "tab", "hotkey", "media", "localization", "locale", "lang",
            "text", "string", "name", "type", "value", "default", "setting", "settings", "option", "options", "flag",
            "feature", "event", "metric", "tag", "path", "url", "i", "the", "a", "this", "that", "my", "your", "new",
            "old", "lock", "mutex", "redis", "cache_", "session", "user", "id", "uid", "uuid", "version", "schema",
            "sequence", "sharding", "bucketing", "distribution", "cluster", "clustering", "order", "group_", "dedupe_");
    /** Words before {@code key} that make it a secret key rather than a lookup key. */
    private static final Set<String> KEY_PREFIXES = Set.of("api", "access", "secret", "private", "client",
            "signing", "encryption", "master", "account", "license", "auth", "app", "service", "subscription",
            "consumer", "webhook", "shared", "admin", "deploy");
    /** Words after the secret word that still name the secret ({@code SECRET_KEY_BASE}). */
    private static final Set<String> SUFFIXES = Set.of("base", "value", "b64", "base64", "hex", "raw");
    /** Words before {@code token} that name something other than a credential. */
    private static final Set<String> NOT_CREDENTIAL_TOKENS = Set.of("page", "next", "prev", "previous",
            "continuation", "cancellation", "cancel", "sync", "pagination", "max", "min", "num", "eos", "bos",
            "pad", "unk", "sep", "cls", "mask", "stop", "start", "end", "special", "input", "output", "total",
            "count", "reasoning", "cached", "prompt", "completion", "vocab", "last", "first", "cursor", "lexer",
            "parse", "parser", "syntax", "design", "css", "color", "theme");
    private static final Set<String> NOT_VALUES = Set.of("null", "none", "nil", "undefined", "true", "false",
            "yes", "no", "on", "off", "required", "optional", "string", "str", "bytes", "int", "integer", "number",
            "bool", "boolean", "any", "object", "secret", "secrets", "password", "passwd", "token", "hidden",
            "redacted", "empty", "changeme", "placeholder", "example", "dummy", "sample", "bearer", "basic",
            "unknown", "unset", "default", "masked", "removed", "omitted", "provided", "missing", "invalid",
            "secure", "auto", "env", "environment", "value", "text", "pass", "test", "testing", "foo", "bar", "baz",
            "qux", "blah", "spam", "eggs", "fake", "mock");
    /** A word of code: {@code token}, {@code Token}; with digits only when dotted ({@code base64.b64decode}). */
    private static final Pattern IDENTIFIER = Pattern.compile(
            "[A-Za-z_$][A-Za-z_$]*|[A-Za-z_$][A-Za-z0-9_$]*(?:\\.[A-Za-z_$][A-Za-z0-9_$]*)+");
    private static final Pattern NUMBER = Pattern.compile("[-+]?[0-9][0-9.,_]*");
    private static final Pattern HEX_VALUE = Pattern.compile("[0-9a-fA-F]+");
    private static final Pattern BASE64_KEY = Pattern.compile("[A-Za-z0-9+/]+={0,2}");
    private static final Pattern UUID_VALUE = Pattern.compile(
            "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
    private static final Pattern WORDS = Pattern.compile("[A-Za-z]+(?:[-_. ][A-Za-z]+)*");
    private static final Pattern FILLER = Pattern.compile(
            "(?i)(.)\\1*|[x*.\u2022_\\-]+|.*(?:redacted|placeholder|\\bexample\\b|changeme).*");
    private static final Pattern PLACEHOLDER_START = Pattern.compile(
            "(?i)(?:\\$|%|\\{|<|\\[|@|#\\{|\\*|\u2026|\\.\\.\\.|(?:your|my|insert|enter|put|replace|add)[-_ ]"
                    + "|(?:process\\.env|os\\.environ|os\\.getenv|system\\.getenv|env\\.|secrets\\.|vars\\.)).*");
    private static final Pattern WINDOWS_PATH = Pattern.compile("[A-Za-z]:\\\\.*");
    private static final Pattern ENV_NAME = Pattern.compile("[A-Z][A-Z0-9_]*");
    private static final Pattern SCHEME = Pattern.compile("(?i)(?:bearer|basic|token|bot|digest|ssws)[ \\t]+");
    private static final Pattern SEPARATORS = Pattern.compile("[_.\\-]+");
    private static final Pattern CAMEL = Pattern.compile("(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])");

    /** How a value stands: a literal, the value of a configuration line, or maybe code. */
    enum Form { LITERAL, CONFIG, CODE }

    @Override
    public void find(Input input, Sink sink) {
        String lower = input.lower();
        String text = input.text;
        Set<Integer> seen = new HashSet<>();
        for (String keyword : KEYWORDS) {
            for (int at = lower.indexOf(keyword); at >= 0; at = lower.indexOf(keyword, at + keyword.length())) {
                int start = at;
                while (start > 0 && isNameChar(text.charAt(start - 1)) && at - start < MAX_NAME) {
                    start--;
                }
                if (at - start >= MAX_NAME) {
                    continue; // inside a long run (base64, a hash): not a name
                }
                int flagDashes = 0;
                while (start < at && !isNameStart(text.charAt(start))) {
                    flagDashes = text.charAt(start) == '-' ? flagDashes + 1 : 0;
                    start++;
                }
                if (!seen.add(start) || start > 0 && text.charAt(start - 1) == '$') {
                    continue;
                }
                int end = at + keyword.length();
                while (end < text.length() && isNameChar(text.charAt(end)) && end - start <= MAX_NAME) {
                    end++;
                }
                if (end - start > MAX_NAME || !separatorFollows(text, end, flagDashes >= 2)) {
                    continue;
                }
                while (end > start && (text.charAt(end - 1) == '.' || text.charAt(end - 1) == '-')) {
                    end--;
                }
                String name = text.substring(start, end);
                String type = typeOf(name);
                if (type != null) {
                    // A bare "auth" also names methods (AUTH=CRAM-MD5, auth: scram-sha-256): ask for a longer value.
                    int minLength = words(name).size() == 1 && "auth".equalsIgnoreCase(name) ? 16 : 0;
                    value(text, name, end, type, flagDashes >= 2, minLength, false, sink);
                } else if (name.regionMatches(true, name.length() - 3, "key", 0, 3) && isWeakKey(name)) {
                    value(text, name, end, "secret", flagDashes >= 2, 0, true, sink);
                }
            }
        }
    }

    private static void value(String text, String name, int nameEnd, String type, boolean flag, int minLength,
                              boolean generatedOnly, Sink sink) {
        Matcher m = VALUE.matcher(text).region(nameEnd, text.length());
        boolean assigned = m.lookingAt();
        if (!assigned && flag) {
            m = FLAG_VALUE.matcher(text).region(nameEnd, text.length());
            if (!m.lookingAt()) {
                return;
            }
        } else if (!assigned) {
            return;
        }
        String group = assigned && m.group("v1") != null ? "v1" : assigned && m.group("v5") != null ? "v5"
                : m.group("v2") != null ? "v2" : m.group("v3") != null ? "v3" : "v4";
        int start = m.start(group);
        int end = m.end(group);
        boolean quoted = !"v4".equals(group);
        if (quoted) {
            Matcher scheme = SCHEME.matcher(text).region(start, end);
            if (scheme.lookingAt()) {
                start = scheme.end();
            }
        }
        if (!quoted && end < text.length() && text.charAt(end) == '(') {
            return; // a call: token = getToken(), auth = base64.b64decode(auth)
        }
        String value = text.substring(start, end);
        // Values of .env lines and command-line flags are literals, never code.
        boolean envStyle = assigned && "=".equals(m.group("sep")) && ENV_NAME.matcher(name).matches();
        Form form = quoted || envStyle || !assigned ? Form.LITERAL
                : ":".equals(m.group("sep")) && configLine(text, nameEnd - name.length(), end) ? Form.CONFIG : Form.CODE;
        if (value.strip().length() >= minLength && isSecretValue(value, type, form)
                && (!generatedOnly || isGenerated(value))) {
            sink.found(start, end, type);
        }
    }

    /** Whether a separator (or, after a flag, a space) follows the name, before the costlier checks. */
    private static boolean separatorFollows(String text, int end, boolean flag) {
        int i = end;
        while (i < text.length() && i - end < 4 && (text.charAt(i) == '"' || text.charAt(i) == '\'' || text.charAt(i) == '\\')) {
            i++;
        }
        int spaces = i;
        while (i < text.length() && (text.charAt(i) == ' ' || text.charAt(i) == '\t')) {
            i++;
        }
        if (i >= text.length()) {
            return false;
        }
        char c = text.charAt(i);
        return c == '=' || c == ':' || flag && i > spaces;
    }

    /**
     * Whether {@code name: value} fills its line, as in YAML and other configuration files
     * (indentation or a list dash before, nothing but a comment after), rather than standing in
     * code ({@code f(token: str, ...)}, {@code {password: pw, user}}).
     */
    private static boolean configLine(String text, int nameStart, int valueEnd) {
        for (int i = nameStart - 1; i >= 0 && text.charAt(i) != '\n'; i--) {
            char c = text.charAt(i);
            if (c != ' ' && c != '\t' && c != '-') {
                return false;
            }
        }
        for (int i = valueEnd; i < text.length() && text.charAt(i) != '\n'; i++) {
            char c = text.charAt(i);
            if (c == '#' && i > valueEnd) {
                return true;
            }
            if (c != ' ' && c != '\t' && c != '\r') {
                return false;
            }
        }
        return true;
    }

    private static boolean isNameChar(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-';
    }

    private static boolean isNameStart(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_';
    }

    /** {@code password}, {@code token}, {@code secret}, or null when the name does not name a secret. */
    static String typeOf(String name) {
        List<String> words = words(name);
        int last = words.size() - 1;
        // A service account's private_key_id names its private key.
        if (last >= 2 && "id".equals(words.get(last)) && "key".equals(words.get(last - 1))
                && "private".equals(words.get(last - 2))) {
            return "secret";
        }
        if (last > 0 && SUFFIXES.contains(words.get(last))) {
            last--;
        }
        if (last < 0) {
            return null;
        }
        String word = words.get(last);
        String before = last > 0 ? words.get(last - 1) : null;
        for (String family : GLUED) {
            if (word.length() > family.length() && word.endsWith(family)) {
                String glued = word.substring(0, word.length() - family.length());
                if ("pass".equals(family) && NOT_PASS.contains(glued)) {
                    break;
                }
                before = glued;
                word = family;
                break;
            }
        }
        if (PASSWORD_WORDS.contains(word) || before != null && PASSWORD_WORDS_WITH_PREFIX.contains(word)) {
            return "password";
        }
        if (TOKEN_WORDS.contains(word)) {
            return before != null && NOT_CREDENTIAL_TOKENS.contains(before) ? null : "token";
        }
        if ("secret".equals(word) || "key".equals(word) && before != null && keyPrefix(before)) {
            return "secret";
        }
        return null;
    }

    /** A word before {@code key} that makes it a secret, also glued to another ({@code myapikey}). */
    private static boolean keyPrefix(String before) {
        if (KEY_PREFIXES.contains(before)) {
            return true;
        }
        for (String p : KEY_PREFIXES) {
            if (before.length() > p.length() && before.endsWith(p)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether the name ends in {@code key} after a word that is neither a secret's
     * ({@link #typeOf}) nor a lookup's: {@code STRIPE_KEY}, {@code MAPBOX_KEY}, {@code sendgridKey}.
     * Such a key is a secret when its value looks generated.
     */
    static boolean isWeakKey(String name) {
        List<String> words = words(name);
        if (words.isEmpty()) {
            return false;
        }
        String word = words.get(words.size() - 1);
        String before = words.size() > 1 ? words.get(words.size() - 2) : null;
        if (word.length() > 3 && word.endsWith("key")) {
            before = word.substring(0, word.length() - 3);
            word = "key";
        }
        return "key".equals(word) && before != null && !LOOKUP_KEYS.contains(before)
                && !NOT_CREDENTIAL_TOKENS.contains(before);
    }

    /** A value that only a machine makes: random, a long hex string, a UUID. */
    static boolean isGenerated(String value) {
        String v = value.strip();
        if (v.indexOf('.') > 0 && IDENTIFIER.matcher(v).matches()) {
            return false; // a name in code: Constants.API_KEY
        }
        return Randomness.looksRandom(v) || Randomness.isRandomish(v) || v.length() >= 32 && HEX_VALUE.matcher(v).matches()
                || UUID_VALUE.matcher(v).matches();
    }

    static List<String> words(String name) {
        List<String> words = new ArrayList<>();
        for (String part : SEPARATORS.split(name)) {
            for (String w : CAMEL.split(part)) {
                if (!w.isEmpty()) {
                    words.add(w.toLowerCase(Locale.ROOT));
                }
            }
        }
        return words;
    }

    /**
     * Whether a value is worth redacting. Quoted values, {@code UPPER_CASE=value} lines (.env
     * files, shell) and flags are literals, where even a plain word is a value; a configuration
     * line's value is one unless it reads as words ({@code password: SecretStr}); elsewhere a bare
     * identifier is more likely code ({@code token = token}, {@code auth = self._authkey}).
     */
    static boolean isSecretValue(String value, String type, Form form) {
        String v = value.strip();
        boolean password = "password".equals(type);
        // People choose short passwords; machines make long keys ('sk-ant-' is a prefix, not a key).
        if (v.length() < (password ? 4 : 8) || NOT_VALUES.contains(v.toLowerCase(Locale.ROOT))) {
            return false;
        }
        if (FILLER.matcher(v).matches() || PLACEHOLDER_START.matcher(v).matches()) {
            return false;
        }
        if (v.contains("://") || v.startsWith("/") && !isBase64Key(v) || v.startsWith("./") || v.startsWith("../")
                || v.startsWith("~/") || WINDOWS_PATH.matcher(v).matches()) {
            return false;
        }
        if (NUMBER.matcher(v).matches()) {
            return password;
        }
        if (!password && WORDS.matcher(v).matches() && !Randomness.looksRandom(v)) {
            // Tokens and keys are generated; a value of plain words is a name or a stand-in.
            return false;
        }
        switch (form) {
            case LITERAL:
                return true;
            case CONFIG:
                return !IDENTIFIER.matcher(v).matches()
                        || Randomness.rarePairShare(v.replace(".", "")) >= Randomness.MIN_RARE_PAIRS;
            default:
                return !looksLikeCode(v);
        }
    }

    /** A base64 key that happens to start with a slash, which a path would not end like or hold. */
    private static boolean isBase64Key(String v) {
        return v.length() >= 20 && BASE64_KEY.matcher(v).matches() && (v.indexOf('+') >= 0 || v.endsWith("=")
                || Randomness.looksRandom(v.replace("/", "")));
    }

    /**
     * An identifier or a dotted name made of words ({@code str}, {@code cancellationToken},
     * {@code self._authkey}); not when a part is random ({@code hvs.CAESIJ...}) or the letters
     * pair up as words seldom do ({@code dCrBF_SkATrGatj}).
     */
    private static boolean looksLikeCode(String v) {
        if (!IDENTIFIER.matcher(v).matches()) {
            return false;
        }
        for (String part : v.split("\\.")) {
            if (Randomness.looksRandom(part)) {
                return false;
            }
        }
        String letters = v.replace(".", "");
        return letters.length() < 10 || Randomness.rarePairShare(letters) < CODE_RARE_PAIRS;
    }
}
