package dev.funes.store;

/**
 * The Porter stemming algorithm (M. F. Porter, "An algorithm for suffix stripping", Program 14(3),
 * 1980, with its author's two later changes to step 2: {@code bli} to {@code ble}, and
 * {@code logi} to {@code log}), the stemmer of the full-text index's tokenizer (SQLite's
 * {@code porter}): {@code committing}, {@code commits} and {@code committed} stem to
 * {@code commit}, {@code files} to {@code file}, {@code queries} to {@code queri} like
 * {@code query}. The rerank stage and the roll-up compare a query's words with
 * a candidate's by their stems, so they match what the index matched. Words that are not all
 * lower-case ASCII letters (identifiers with digits, other scripts) and words of one or two
 * letters are returned as given.
 */
final class PorterStemmer {

    private static final String[][] STEP2 = {
            {"ational", "ate"}, {"tional", "tion"}, {"enci", "ence"}, {"anci", "ance"}, {"izer", "ize"},
            {"bli", "ble"}, {"alli", "al"}, {"entli", "ent"}, {"eli", "e"}, {"ousli", "ous"},
            {"ization", "ize"}, {"ation", "ate"}, {"ator", "ate"}, {"alism", "al"}, {"iveness", "ive"},
            {"fulness", "ful"}, {"ousness", "ous"}, {"aliti", "al"}, {"iviti", "ive"}, {"biliti", "ble"},
            {"logi", "log"}};
    private static final String[][] STEP3 = {
            {"icate", "ic"}, {"ative", ""}, {"alize", "al"}, {"iciti", "ic"}, {"ical", "ic"}, {"ful", ""},
            {"ness", ""}};
    private static final String[] STEP4 = {
            "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou", "ism",
            "ate", "iti", "ous", "ive", "ize"};

    /** The word being stemmed; {@code end} is its current length. */
    private final char[] b;
    private int end;

    private PorterStemmer(String word) {
        this.b = word.toCharArray();
        this.end = b.length;
    }

    /** The stem of a lower-case word. */
    static String stem(String word) {
        if (word.length() <= 2) {
            return word;
        }
        for (int i = 0; i < word.length(); i++) {
            char c = word.charAt(i);
            if (c < 'a' || c > 'z') {
                return word;
            }
        }
        PorterStemmer s = new PorterStemmer(word);
        s.step1a();
        s.step1b();
        s.step1c();
        s.step2();
        s.step3();
        s.step4();
        s.step5();
        return new String(s.b, 0, s.end);
    }

    /** Whether {@code b[i]} is a consonant: not a vowel, and {@code y} only after a vowel or first. */
    private boolean consonant(int i) {
        switch (b[i]) {
            case 'a', 'e', 'i', 'o', 'u' -> {
                return false;
            }
            case 'y' -> {
                return i == 0 || !consonant(i - 1);
            }
            default -> {
                return true;
            }
        }
    }

    /** The measure m of {@code b[0, len)}: how many vowel-consonant sequences it holds. */
    private int measure(int len) {
        int m = 0;
        int i = 0;
        while (i < len && consonant(i)) {
            i++;
        }
        while (i < len) {
            while (i < len && !consonant(i)) {
                i++;
            }
            if (i >= len) {
                break;
            }
            while (i < len && consonant(i)) {
                i++;
            }
            m++;
        }
        return m;
    }

    /** Whether {@code b[0, len)} holds a vowel. */
    private boolean hasVowel(int len) {
        for (int i = 0; i < len; i++) {
            if (!consonant(i)) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code b[0, len)} ends with a double consonant. */
    private boolean doubleConsonant(int len) {
        return len >= 2 && b[len - 1] == b[len - 2] && consonant(len - 1);
    }

    /** Whether {@code b[0, len)} ends consonant-vowel-consonant, the last not w, x or y. */
    private boolean cvc(int len) {
        if (len < 3 || !consonant(len - 1) || consonant(len - 2) || !consonant(len - 3)) {
            return false;
        }
        char c = b[len - 1];
        return c != 'w' && c != 'x' && c != 'y';
    }

    private boolean endsWith(String suffix) {
        int n = suffix.length();
        if (n > end) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (b[end - n + i] != suffix.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** Replaces the last {@code cut} letters with {@code with} (never longer than what it replaces plus one). */
    private void replace(int cut, String with) {
        int at = end - cut;
        for (int i = 0; i < with.length(); i++) {
            b[at + i] = with.charAt(i);
        }
        end = at + with.length();
    }

    private void step1a() {
        if (endsWith("sses")) {
            replace(4, "ss");
        } else if (endsWith("ies")) {
            replace(3, "i");
        } else if (!endsWith("ss") && endsWith("s")) {
            replace(1, "");
        }
    }

    private void step1b() {
        if (endsWith("eed")) {
            if (measure(end - 3) > 0) {
                replace(3, "ee");
            }
            return;
        }
        int cut = endsWith("ed") ? 2 : endsWith("ing") ? 3 : 0;
        if (cut == 0 || !hasVowel(end - cut)) {
            return;
        }
        replace(cut, "");
        if (endsWith("at") || endsWith("bl") || endsWith("iz")) {
            // b has room: at least the two letters just cut
            replace(0, "e");
        } else if (doubleConsonant(end) && b[end - 1] != 'l' && b[end - 1] != 's' && b[end - 1] != 'z') {
            end--;
        } else if (measure(end) == 1 && cvc(end)) {
            replace(0, "e");
        }
    }

    private void step1c() {
        if (endsWith("y") && hasVowel(end - 1)) {
            b[end - 1] = 'i';
        }
    }

    private void step2() {
        replaceLongest(STEP2);
    }

    private void step3() {
        replaceLongest(STEP3);
    }

    /** Replaces the longest suffix of {@code rules} that the word ends with, when its stem's measure is above 0. */
    private void replaceLongest(String[][] rules) {
        String[] found = null;
        for (String[] rule : rules) {
            if (endsWith(rule[0]) && (found == null || rule[0].length() > found[0].length())) {
                found = rule;
            }
        }
        if (found != null && measure(end - found[0].length()) > 0) {
            replace(found[0].length(), found[1]);
        }
    }

    private void step4() {
        String found = null;
        for (String suffix : STEP4) {
            if (endsWith(suffix) && (found == null || suffix.length() > found.length())) {
                found = suffix;
            }
        }
        if (found == null) {
            return;
        }
        int stem = end - found.length();
        if (measure(stem) <= 1) {
            return;
        }
        if (found.equals("ion") && !(stem > 0 && (b[stem - 1] == 's' || b[stem - 1] == 't'))) {
            return;
        }
        end = stem;
    }

    private void step5() {
        if (endsWith("e")) {
            int m = measure(end - 1);
            if (m > 1 || m == 1 && !cvc(end - 1)) {
                end--;
            }
        }
        if (end > 1 && b[end - 1] == 'l' && doubleConsonant(end) && measure(end) > 1) {
            end--;
        }
    }
}
