package dev.funes.redact;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Heroku API keys, which are UUIDs (what {@code heroku auth:token} prints, the password of
 * {@code api.heroku.com} in {@code .netrc}, {@code HEROKU_API_KEY}): a UUID is one when the word
 * {@code heroku} stands near it. Elsewhere a UUID is an identifier and stays.
 */
final class HerokuRule implements Rule {

    static final String TYPE = "heroku-key";
    /** How far from the word a key may stand: a command and its output, a .netrc entry. */
    private static final int BEFORE = 300;
    private static final int AFTER = 120;
    private static final Pattern UUID = Pattern.compile(
            "(?<![0-9A-Za-z-])[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?![0-9A-Za-z-])");

    @Override
    public void find(Input input, Sink sink) {
        String lower = input.lower();
        if (!lower.contains("heroku")) {
            return;
        }
        List<Integer> words = new ArrayList<>();
        for (int at = lower.indexOf("heroku"); at >= 0; at = lower.indexOf("heroku", at + 6)) {
            words.add(at);
        }
        Matcher m = UUID.matcher(input.text);
        int w = 0;
        while (m.find()) {
            // The first word that is not too far behind this key.
            while (w < words.size() && words.get(w) + BEFORE < m.start()) {
                w++;
            }
            if (w < words.size() && words.get(w) <= m.start() + AFTER) {
                sink.found(m.start(), m.end(), TYPE);
            }
        }
    }
}
