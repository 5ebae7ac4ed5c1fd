package dev.funes.cli;

import dev.funes.FunesException;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One {@code config.toml} of Funes: top-level keys whose values are strings, arrays of strings or
 * numbers. Anything else (a table, an unknown key, a number where a string belongs, a key given
 * twice) is an error naming the file and line, so a typo is never silently ignored.
 */
final class ConfigFile {

    /** What a key's value is. */
    enum Type {
        /** One string. */
        STRING,
        /** An array of strings. */
        STRINGS,
        /** A number, integer or decimal ({@code 0.25}, {@code 1}, {@code 2.5e-1}). */
        NUMBER
    }

    /** A TOML integer or float, without underscores, {@code inf} or {@code nan}. */
    private static final java.util.regex.Pattern NUMBER =
            java.util.regex.Pattern.compile("[+-]?\\d+(\\.\\d+)?([eE][+-]?\\d+)?");

    /**
     * One key's value where the file sets it.
     *
     * @param key    the key
     * @param values the string, the array's strings in order, or the number as written
     * @param array  whether the value is an array
     * @param file   the file
     * @param line   1-based line of the key
     */
    record Entry(String key, List<String> values, boolean array, Path file, int line) {

        /** Where the value was set: {@code FILE:LINE}. */
        String where() {
            return file + ":" + line;
        }
    }

    private final Path file;
    private final Map<String, Entry> entries;

    private ConfigFile(Path file, Map<String, Entry> entries) {
        this.file = file;
        this.entries = entries;
    }

    /**
     * Reads {@code file} if it exists.
     *
     * @param keys the keys this file may set, each mapped to what its value is
     * @throws FunesException {@code FILE:LINE: reason} when the file is not such a config
     */
    static Optional<ConfigFile> read(Path file, Map<String, Type> keys) {
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(Files.readAllBytes(file))).toString();
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (CharacterCodingException e) {
            throw new FunesException(file + ": not UTF-8 text");
        } catch (IOException e) {
            throw new FunesException(file + ": cannot be read: " + e.getMessage(), e);
        }
        if (Files.isDirectory(file)) {
            throw new FunesException(file + ": a folder, not a config file");
        }
        Map<String, Entry> entries = new LinkedHashMap<>();
        for (TomlText.Statement statement : TomlText.parse(text, file)) {
            String where = file + ":" + statement.line();
            if (statement.kind() != TomlText.Kind.KEY_VALUE) {
                throw new FunesException(where + ": tables are not used in a Funes config; set top-level keys ("
                        + String.join(", ", keys.keySet()) + ")");
            }
            String key = String.join(".", statement.path());
            Type type = keys.get(key);
            if (type == null) {
                throw new FunesException(where + ": unknown key '" + key + "'; known: " + String.join(", ", keys.keySet()));
            }
            if (entries.containsKey(key)) {
                throw new FunesException(where + ": '" + key + "' is set twice (first on line " + entries.get(key).line() + ")");
            }
            String value = text.substring(statement.valueStart(), statement.end());
            List<String> values = new Values(value, where).parse(type, key);
            entries.put(key, new Entry(key, values, type == Type.STRINGS, file, statement.line()));
        }
        return Optional.of(new ConfigFile(file, entries));
    }

    /** The file read. */
    Path file() {
        return file;
    }

    /** The entry of {@code key}, if the file sets it. */
    Optional<Entry> entry(String key) {
        return Optional.ofNullable(entries.get(key));
    }

    /** The keys set, in file order. */
    Set<String> keys() {
        return entries.keySet();
    }

    /** Reads one value: a TOML string, an array of strings, or a number. */
    private static final class Values {
        private final String text;
        private final String where;
        private int pos;

        Values(String text, String where) {
            this.text = text;
            this.where = where;
        }

        List<String> parse(Type type, String key) {
            if (type == Type.NUMBER) {
                if (!NUMBER.matcher(text).matches()) {
                    throw new FunesException(where + ": '" + key + "' takes a number, such as 0.25, not " + text);
                }
                return List.of(text);
            }
            if (type == Type.STRING) {
                if (text.isEmpty() || (text.charAt(0) != '"' && text.charAt(0) != '\'')) {
                    throw new FunesException(where + ": '" + key + "' takes a string in quotes, not " + text);
                }
                String s = string();
                if (pos != text.length()) {
                    throw new FunesException(where + ": '" + key + "' takes one string");
                }
                return List.of(s);
            }
            if (text.isEmpty() || text.charAt(0) != '[') {
                throw new FunesException(where + ": '" + key + "' takes an array of strings, such as [\"~/logs\"]");
            }
            pos = 1;
            List<String> values = new ArrayList<>();
            while (true) {
                skipBlank();
                if (pos >= text.length()) {
                    throw new FunesException(where + ": the array of '" + key + "' is not closed");
                }
                char c = text.charAt(pos);
                if (c == ']') {
                    return List.copyOf(values);
                }
                if (c != '"' && c != '\'') {
                    throw new FunesException(where + ": '" + key + "' takes an array of strings in quotes");
                }
                values.add(string());
                skipBlank();
                if (pos < text.length() && text.charAt(pos) == ',') {
                    pos++;
                }
            }
        }

        /** Spaces, newlines and comments between array items. */
        private void skipBlank() {
            while (pos < text.length()) {
                char c = text.charAt(pos);
                if (c == '#') {
                    while (pos < text.length() && text.charAt(pos) != '\n') {
                        pos++;
                    }
                } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                    pos++;
                } else {
                    return;
                }
            }
        }

        /** A one-line basic ({@code "…"}, with escapes) or literal ({@code '…'}) string. */
        private String string() {
            char quote = text.charAt(pos);
            if (text.startsWith(String.valueOf(quote).repeat(3), pos)) {
                throw new FunesException(where + ": multi-line strings are not used in a Funes config");
            }
            pos++;
            StringBuilder s = new StringBuilder();
            while (pos < text.length()) {
                char c = text.charAt(pos++);
                if (c == quote) {
                    return s.toString();
                }
                if (c == '\n') {
                    break;
                }
                if (c == '\\' && quote == '"') {
                    s.append(escape());
                } else {
                    s.append(c);
                }
            }
            throw new FunesException(where + ": a string is not closed on its line");
        }

        private String escape() {
            if (pos >= text.length()) {
                throw new FunesException(where + ": a string ends with a backslash");
            }
            char c = text.charAt(pos++);
            switch (c) {
                case '"': return "\"";
                case '\\': return "\\";
                case 'n': return "\n";
                case 't': return "\t";
                case 'r': return "\r";
                case 'b': return "\b";
                case 'f': return "\f";
                case 'u':
                case 'U':
                    int digits = c == 'u' ? 4 : 8;
                    if (pos + digits > text.length()) {
                        throw new FunesException(where + ": a \\" + c + " escape needs " + digits + " hex digits");
                    }
                    try {
                        int code = Integer.parseInt(text.substring(pos, pos + digits), 16);
                        pos += digits;
                        return new String(Character.toChars(code));
                    } catch (IllegalArgumentException e) {
                        throw new FunesException(where + ": a \\" + c + " escape needs " + digits + " hex digits");
                    }
                default:
                    throw new FunesException(where + ": unknown escape \\" + c + " (write a Windows path in '…' quotes)");
            }
        }
    }
}
