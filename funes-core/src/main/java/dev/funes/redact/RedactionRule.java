package dev.funes.redact;

import dev.funes.FunesException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * A user's redaction rule: text matching {@code pattern} is a secret of {@code type}.
 *
 * <p>The whole match is replaced by {@code [REDACTED:<type>]}, unless the pattern has a group
 * named {@code secret}: then only that group is, so the context around it stays readable
 * ({@code (?i)dbpass=(?<secret>\S+)} turns {@code dbpass=hunter2} into
 * {@code dbpass=[REDACTED:db-password]}).
 *
 * @param type    the placeholder's type: lower-case letters, digits and single hyphens, at most
 *                40 characters, for example {@code acme-token}
 * @param pattern what to find
 */
public record RedactionRule(String type, Pattern pattern) {

    /** Name of the rules file a store folder may hold (see {@link #readAll}). */
    public static final String FILE_NAME = "redaction-rules.txt";

    private static final Pattern TYPE = Pattern.compile("[a-z0-9]+(?:-[a-z0-9]+)*");

    /**
     * Validates the type.
     *
     * @throws IllegalArgumentException if the type is malformed
     */
    public RedactionRule {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(pattern, "pattern");
        if (type.length() > 40 || !TYPE.matcher(type).matches()) {
            throw new IllegalArgumentException("redaction type '" + type
                    + "' must be lower-case letters, digits and single hyphens, at most 40 characters");
        }
    }

    /** Whether only the group named {@code secret} is replaced, not the whole match. */
    public boolean hasSecretGroup() {
        return pattern.pattern().contains("(?<secret>");
    }

    /**
     * Reads a rules file: UTF-8, one rule a line, {@code <type> <regular expression>} (the first
     * run of spaces or tabs separates them; the expression runs to the end of the line). Blank
     * lines and lines starting with {@code #} are ignored.
     *
     * <pre>
     * # internal tokens
     * acme-token   acme_[a-z0-9]{32}
     * db-password  (?i)dbpass=(?&lt;secret&gt;\S+)
     * </pre>
     *
     * @return the rules in file order
     * @throws FunesException naming the file (and line) if it cannot be read or a line is not a rule
     */
    public static List<RedactionRule> readAll(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new FunesException(file + ": redaction rules cannot be read: " + e, e);
        }
        List<RedactionRule> rules = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String where = file + ":" + (i + 1) + ": ";
            String[] parts = line.split("[ \t]+", 2);
            if (parts.length < 2) {
                throw new FunesException(where + "expected '<type> <regular expression>', found '" + line + "'");
            }
            try {
                rules.add(new RedactionRule(parts[0], Pattern.compile(parts[1])));
            } catch (PatternSyntaxException e) {
                throw new FunesException(where + "bad regular expression: " + e.getDescription()
                        + " near index " + e.getIndex() + " of '" + parts[1] + "'", e);
            } catch (IllegalArgumentException e) {
                throw new FunesException(where + e.getMessage(), e);
            }
        }
        return rules;
    }
}
