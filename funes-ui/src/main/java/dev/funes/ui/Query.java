package dev.funes.ui;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Parameters of a request (its URL query, or a form body) and links carrying parameters.
 * Repeated names keep the first value; a name without a value has the empty string.
 */
final class Query {

    private final Map<String, String> values;

    private Query(Map<String, String> values) {
        this.values = values;
    }

    /** Parses {@code a=1&b=x%20y} (a raw query or an {@code application/x-www-form-urlencoded} body). */
    static Query parse(String raw) {
        Map<String, String> values = new LinkedHashMap<>();
        if (raw != null && !raw.isEmpty()) {
            for (String pair : raw.split("&")) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                String name = decode(eq < 0 ? pair : pair.substring(0, eq));
                String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
                values.putIfAbsent(name, value);
            }
        }
        return new Query(values);
    }

    private static String decode(String s) {
        try {
            return URLDecoder.decode(s, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return s; // a malformed escape: keep it as written rather than fail the page
        }
    }

    /** The value, stripped; {@code null} when absent or blank. */
    String get(String name) {
        String v = values.get(name);
        return v == null || v.isBlank() ? null : v.strip();
    }

    /** The value, or {@code fallback} when absent or blank. */
    String get(String name, String fallback) {
        String v = get(name);
        return v == null ? fallback : v;
    }

    /** {@code path?name=value&...} for the non-null values, in order; pairs are name, value, name, value... */
    static String link(String path, String... pairs) {
        StringBuilder s = new StringBuilder(path);
        char sep = '?';
        for (int i = 0; i + 1 < pairs.length; i += 2) {
            if (pairs[i + 1] == null) {
                continue;
            }
            s.append(sep).append(encode(pairs[i])).append('=').append(encode(pairs[i + 1]));
            sep = '&';
        }
        return s.toString();
    }

    static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
