package dev.funes.redact;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Passwords given to a command on its command line, where only the command says what the
 * argument is: {@code mysql -pPW}, {@code redis-cli -a PW}, {@code sshpass -p PW},
 * {@code docker login -p PW}, {@code sqlcmd -P PW}, {@code ldapsearch -w PW},
 * {@code keytool -storepass PW}, {@code openssl ... pass:PW}, {@code smbclient -U user%PW},
 * {@code htpasswd -b file user PW}, and a password piped into what reads it
 * ({@code echo PW | sudo -S}, {@code echo -n user:PW | base64}, {@code ... | docker login --password-stdin}).
 */
final class CommandRule implements Rule {

    private static final String TYPE = "password";
    /** Longest command line read. */
    private static final int MAX_LINE = 4000;

    /** How a flag takes its value: glued to it ({@code -pPW}), as the next argument, or either. */
    private enum Mode { ATTACHED, SEPARATE, BOTH }

    private record Flag(String flag, Mode mode) {
    }

    /** A command's password flags; {@code needs}: an argument without which the flags mean something else. */
    private record Command(List<Flag> flags, String needs) {
    }

    private static final Command MYSQL = new Command(List.of(new Flag("-p", Mode.ATTACHED)), null);
    private static final Command REDIS = new Command(List.of(new Flag("-a", Mode.BOTH), new Flag("--pass", Mode.SEPARATE)), null);
    private static final Command LOWER_P = new Command(List.of(new Flag("-p", Mode.BOTH)), null);
    private static final Command LOGIN_P = new Command(List.of(new Flag("-p", Mode.BOTH)), "login");
    private static final Command UPPER_P = new Command(List.of(new Flag("-P", Mode.BOTH)), null);
    private static final Command LDAP = new Command(List.of(new Flag("-w", Mode.BOTH)), null);
    private static final Command OPENSSL = new Command(List.of(new Flag("-k", Mode.SEPARATE), new Flag("-K", Mode.SEPARATE)), null);
    private static final Command KEYTOOL = new Command(List.of(new Flag("-storepass", Mode.SEPARATE),
            new Flag("-keypass", Mode.SEPARATE), new Flag("-srcstorepass", Mode.SEPARATE),
            new Flag("-deststorepass", Mode.SEPARATE), new Flag("-srckeypass", Mode.SEPARATE),
            new Flag("-destkeypass", Mode.SEPARATE), new Flag("-new", Mode.SEPARATE)), null);
    private static final Command SSH_KEYGEN = new Command(List.of(new Flag("-N", Mode.SEPARATE), new Flag("-P", Mode.SEPARATE)), null);
    private static final Command NONE = new Command(List.of(), null);

    private static final Map<String, Command> COMMANDS = Map.ofEntries(
            Map.entry("mysql", MYSQL), Map.entry("mysqldump", MYSQL), Map.entry("mysqladmin", MYSQL),
            Map.entry("mysqlimport", MYSQL), Map.entry("mysqlcheck", MYSQL), Map.entry("mysqlshow", MYSQL),
            Map.entry("mysqlpump", MYSQL), Map.entry("mysqlsh", MYSQL), Map.entry("mariadb", MYSQL),
            Map.entry("mariadb-dump", MYSQL), Map.entry("mariadb-admin", MYSQL),
            Map.entry("7z", MYSQL), Map.entry("7za", MYSQL), Map.entry("7zr", MYSQL), Map.entry("7zz", MYSQL),
            Map.entry("rar", MYSQL), Map.entry("unrar", MYSQL),
            Map.entry("redis-cli", REDIS), Map.entry("keydb-cli", REDIS), Map.entry("valkey-cli", REDIS),
            Map.entry("sshpass", LOWER_P), Map.entry("cqlsh", LOWER_P),
            Map.entry("mongo", LOWER_P), Map.entry("mongosh", LOWER_P), Map.entry("mongodump", LOWER_P),
            Map.entry("mongorestore", LOWER_P), Map.entry("mongoexport", LOWER_P), Map.entry("mongoimport", LOWER_P),
            Map.entry("mongostat", LOWER_P), Map.entry("mongotop", LOWER_P), Map.entry("mongofiles", LOWER_P),
            Map.entry("docker", LOGIN_P), Map.entry("podman", LOGIN_P), Map.entry("nerdctl", LOGIN_P),
            Map.entry("helm", LOGIN_P), Map.entry("oras", LOGIN_P), Map.entry("buildah", LOGIN_P),
            Map.entry("skopeo", LOGIN_P), Map.entry("crane", LOGIN_P), Map.entry("az", LOGIN_P),
            Map.entry("sqlcmd", UPPER_P), Map.entry("bcp", UPPER_P), Map.entry("osql", UPPER_P),
            Map.entry("zip", UPPER_P), Map.entry("unzip", UPPER_P), Map.entry("mosquitto_pub", UPPER_P),
            Map.entry("mosquitto_sub", UPPER_P), Map.entry("mosquitto_rr", UPPER_P),
            Map.entry("ldapsearch", LDAP), Map.entry("ldapmodify", LDAP), Map.entry("ldapadd", LDAP),
            Map.entry("ldapdelete", LDAP), Map.entry("ldapwhoami", LDAP), Map.entry("ldappasswd", LDAP),
            Map.entry("ldapcompare", LDAP), Map.entry("ldapmodrdn", LDAP),
            Map.entry("openssl", OPENSSL), Map.entry("keytool", KEYTOOL), Map.entry("jarsigner", KEYTOOL),
            Map.entry("ssh-keygen", SSH_KEYGEN),
            Map.entry("smbclient", NONE), Map.entry("rpcclient", NONE), Map.entry("smbmap", NONE), Map.entry("smbget", NONE),
            Map.entry("lftp", NONE), Map.entry("htpasswd", NONE), Map.entry("rabbitmqctl", NONE),
            Map.entry("echo", NONE), Map.entry("printf", NONE));

    private static final int LONGEST_NAME = COMMANDS.keySet().stream().mapToInt(String::length).max().orElse(0);
    /** The command names by first letter, so that most words are rejected without a copy. */
    private static final String[][] BY_FIRST = new String[128][];

    static {
        Map<Character, List<String>> byFirst = new java.util.HashMap<>();
        for (String name : COMMANDS.keySet()) {
            byFirst.computeIfAbsent(name.charAt(0), k -> new ArrayList<>()).add(name);
        }
        byFirst.forEach((c, names) -> BY_FIRST[c] = names.toArray(new String[0]));
    }
    /** What may read a password piped to it. */
    private static final Pattern READER = Pattern.compile(
            "(?:sudo\\s[^|;&\\n]*-S|chpasswd|passwd\\s[^|;&\\n]*--stdin|[^|;&\\n]*--password-stdin|base64|kinit|vault\\s+login\\s+-"
                    + "|openssl\\s+(?:base64|enc\\s[^|;&\\n]*-base64))\\b");

    /** An argument: its span in the text, with the quotes (if any) that enclose all of it. */
    private record Arg(int start, int end, String raw) {
    }

    @Override
    public void find(Input input, Sink sink) {
        String text = input.text;
        int n = text.length();
        for (int i = 0; i < n; i++) {
            if (!isNameChar(text.charAt(i)) || i > 0 && (isNameChar(text.charAt(i - 1)) || text.charAt(i - 1) == '.')) {
                continue;
            }
            int j = i;
            while (j < n && isNameChar(text.charAt(j)) && j - i <= LONGEST_NAME) {
                j++;
            }
            int after = text.startsWith(".exe", j) ? j + 4 : j;
            if (j - i > LONGEST_NAME || after >= n || text.charAt(after) != ' ' && text.charAt(after) != '\t') {
                i = j;
                continue;
            }
            String name = commandAt(text, i, j);
            if (name == null) {
                i = j;
                continue;
            }
            List<Arg> args = new ArrayList<>();
            int end = arguments(text, after, args);
            switch (name) {
                case "echo", "printf" -> piped(text, name, args, end, sink);
                case "smbclient", "rpcclient", "smbmap", "smbget" -> after(args, "-U", '%', sink);
                case "lftp" -> after(args, "-u", ',', sink);
                case "htpasswd" -> htpasswd(args, sink);
                case "rabbitmqctl" -> rabbitmq(args, sink);
                default -> flags(COMMANDS.get(name), name, args, sink);
            }
            i = j;
        }
    }

    /** The command named by text[i, j), or null. */
    private static String commandAt(String text, int i, int j) {
        char c = text.charAt(i);
        String[] names = c < 128 ? BY_FIRST[c] : null;
        if (names == null) {
            return null;
        }
        for (String name : names) {
            if (name.length() == j - i && text.startsWith(name, i)) {
                return name;
            }
        }
        return null;
    }

    /** Characters of a command's name (and of the words skipped over while looking for one). */
    private static boolean isNameChar(char c) {
        return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c >= 'A' && c <= 'Z';
    }

    private static void flags(Command command, String name, List<Arg> args, Sink sink) {
        if (command.needs() != null && args.stream().noneMatch(a -> a.raw().equals(command.needs()))) {
            return;
        }
        for (int i = 0; i < args.size(); i++) {
            String raw = args.get(i).raw();
            if ("openssl".equals(name) && raw.startsWith("pass:")) {
                value(args.get(i), 5, sink);
                continue;
            }
            for (Flag f : command.flags()) {
                if (f.mode() != Mode.ATTACHED && raw.equals(f.flag()) && i + 1 < args.size()) {
                    value(args.get(i + 1), 0, sink);
                } else if (f.mode() != Mode.SEPARATE && raw.startsWith(f.flag()) && raw.length() > f.flag().length()
                        && !raw.startsWith("--")) {
                    value(args.get(i), f.flag().length(), sink);
                }
            }
        }
    }

    /** {@code -U user%PW}: what follows the separator in the flag's value. */
    private static void after(List<Arg> args, String flag, char separator, Sink sink) {
        for (int i = 0; i + 1 < args.size(); i++) {
            if (args.get(i).raw().equals(flag)) {
                Arg a = args.get(i + 1);
                int sep = a.raw().indexOf(separator);
                if (sep >= 0) {
                    value(a, sep + 1, sink);
                }
            }
        }
    }

    /** {@code htpasswd -b[c] [file] user PW}: with -b the password is the last argument. */
    private static void htpasswd(List<Arg> args, Sink sink) {
        boolean batch = args.stream().anyMatch(a -> a.raw().matches("-[a-zA-Z]*b[a-zA-Z]*"));
        if (batch && args.size() >= 3 && !args.get(args.size() - 1).raw().startsWith("-")) {
            value(args.get(args.size() - 1), 0, sink);
        }
    }

    /** {@code rabbitmqctl add_user USER PW}, {@code change_password USER PW}. */
    private static void rabbitmq(List<Arg> args, Sink sink) {
        for (int i = 0; i + 2 < args.size(); i++) {
            String raw = args.get(i).raw();
            if (raw.equals("add_user") || raw.equals("change_password")) {
                value(args.get(i + 2), 0, sink);
            }
        }
    }

    /** {@code echo PW | sudo -S ...}, {@code echo -n user:PW | base64}: the password piped. */
    private static void piped(String text, String name, List<Arg> args, int end, Sink sink) {
        if (end >= text.length() || text.charAt(end) != '|' || end + 1 < text.length() && text.charAt(end + 1) == '|') {
            return;
        }
        Matcher reader = READER.matcher(text).region(end + 1, Math.min(text.length(), end + 1 + 300));
        int i = end + 1;
        while (i < text.length() && (text.charAt(i) == ' ' || text.charAt(i) == '\t')) {
            i++;
        }
        reader.region(i, reader.regionEnd());
        if (!reader.lookingAt()) {
            return;
        }
        List<Arg> values = new ArrayList<>();
        for (Arg a : args) {
            if (values.isEmpty() && a.raw().matches("-[neE]{1,3}")) {
                continue;
            }
            values.add(a);
        }
        if (values.isEmpty()) {
            return;
        }
        // printf FORMAT VALUE: the value is the last argument.
        Arg v = "printf".equals(name) || values.size() == 1 ? values.get(values.size() - 1) : null;
        if (v == null) {
            return; // echo of several words: a sentence, not a password
        }
        String content = unquoted(v.raw());
        int colon = content.indexOf(':');
        boolean encoder = reader.group().startsWith("base64") || reader.group().startsWith("openssl");
        if (encoder && colon <= 0) {
            return; // any text may be encoded; user:password is what a Basic header holds
        }
        boolean pair = encoder || reader.group().startsWith("chpasswd");
        value(v, pair && colon > 0 ? offsetOf(v.raw(), colon + 1) : 0, sink);
    }

    /** Where in {@code raw} character {@code i} of its unquoted content lies. */
    private static int offsetOf(String raw, int i) {
        return raw.length() >= 2 && (raw.charAt(0) == '\'' || raw.charAt(0) == '"') ? i + 1 : i;
    }

    private static String unquoted(String raw) {
        if (raw.length() >= 2 && (raw.charAt(0) == '\'' || raw.charAt(0) == '"') && raw.charAt(raw.length() - 1) == raw.charAt(0)) {
            return raw.substring(1, raw.length() - 1);
        }
        return raw;
    }

    /** Reports the argument's content from {@code offset} on, without enclosing quotes, if it is a password. */
    private static void value(Arg a, int offset, Sink sink) {
        String raw = a.raw();
        int s = offset;
        int e = raw.length();
        if (s < e && (raw.charAt(s) == '\'' || raw.charAt(s) == '"')) {
            char q = raw.charAt(s);
            s++;
            int close = raw.indexOf(q, s);
            e = close >= 0 ? close : e;
        } else if (e > s && (raw.charAt(e - 1) == '\'' || raw.charAt(e - 1) == '"') && raw.indexOf(raw.charAt(e - 1)) < s) {
            e--; // 'user:PW' with the pair's quote left before the password
        }
        if (e <= s) {
            return;
        }
        String v = raw.substring(s, e);
        if (v.startsWith("$") || v.startsWith("-") || v.startsWith("<") || v.startsWith("`") || !StandardRules.isPassword(v)
                || v.startsWith("env:") || v.startsWith("file:") || v.startsWith("fd:")) {
            return;
        }
        sink.found(a.start() + s, a.start() + e, TYPE);
    }

    /**
     * Splits the command line from {@code from} into arguments, quotes kept, up to its end: a
     * newline (not escaped), a pipe, a semicolon, an ampersand or a closing parenthesis.
     *
     * @return where the line ends
     */
    private static int arguments(String text, int from, List<Arg> args) {
        int i = from;
        int limit = Math.min(text.length(), from + MAX_LINE);
        while (i < limit) {
            char c = text.charAt(i);
            if (c == '\\' && i + 1 < limit && text.charAt(i + 1) == '\n') {
                i += 2;
                continue;
            }
            if (c == ' ' || c == '\t' || c == '<' || c == '>') {
                i++;
                continue;
            }
            if (c == '\n' || c == '|' || c == ';' || c == '&' || c == ')' || c == '\r') {
                return i;
            }
            int start = i;
            while (i < limit) {
                c = text.charAt(i);
                if (c == '\'' || c == '"') {
                    int close = text.indexOf(c, i + 1);
                    if (close < 0 || close >= limit) {
                        i = limit;
                        break;
                    }
                    i = close + 1;
                } else if (c == '\\' && i + 1 < limit && text.charAt(i + 1) != '\n') {
                    i += 2;
                } else if (Character.isWhitespace(c) || c == '|' || c == ';' || c == '&' || c == ')' || c == '<' || c == '>') {
                    break;
                } else {
                    i++;
                }
            }
            String raw = text.substring(start, i);
            if (COMMANDS.containsKey(raw)) {
                return start; // another command's arguments: its own turn reads them
            }
            args.add(new Arg(start, i, raw));
        }
        return i;
    }
}
