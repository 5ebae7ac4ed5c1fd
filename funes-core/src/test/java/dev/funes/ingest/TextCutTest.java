package dev.funes.ingest;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Shortening cuts between words, so no fragment of a word (or of a secret) is left at a cut. */
class TextCutTest {

    private static final String TOKEN = "Zq8xV3nB7mK2pL9wR4tY6uI1oP5aS0dF";

    @Test
    void headTailNeverSplitsAWordThatHasSpacesAround() {
        for (int shift = 0; shift < 60; shift++) {
            String s = "x".repeat(shift) + " " + "lorem ipsum dolor ".repeat(20) + TOKEN + " "
                    + "sit amet consectetur ".repeat(30) + TOKEN + " " + "adipiscing elit ".repeat(20);
            String cut = Text.headTail(s, 500);
            assertThat(cut.length()).isLessThanOrEqualTo(500);
            assertNoFragment(cut);
        }
    }

    @Test
    void headNeverSplitsAWordThatHasSpacesAround() {
        for (int max = 100; max < 160; max++) {
            String s = "curl -s -H Authorization: Bearer " + TOKEN + " https://api.acme.dev/v1/items?page=2 " + TOKEN;
            String cut = Text.head(s, max);
            assertThat(cut.length()).isLessThanOrEqualTo(max);
            assertNoFragment(cut);
        }
    }

    @Test
    void aCutFallsOnPunctuationInsideLongJson() {
        String prefix = "{\"id\":1234567,\"created\":\"2025-11-14T10:00:00Z\",\"user\":\"admin\",\"password\":\"";
        String json = prefix + TOKEN + "\",\"host\":\"db.internal\",\"port\":5432,\"pool\":{\"max\":20}}";
        // From where the quote before the token lies in the last half of what is kept.
        for (int max = prefix.length() + 2; max < json.length(); max++) {
            assertNoFragment(Text.head(json, max));
        }
    }

    @Test
    void aWordLongerThanHalfTheRoomIsStillCut() {
        String s = "data " + "A".repeat(300);
        assertThat(Text.head(s, 100)).hasSize(100).startsWith("data AAAA").endsWith("A\u2026");
    }

    @Test
    void aHeadTailCutIsRecognisedAndNothingElse() {
        String s = "word ".repeat(400);
        assertThat(Text.isHeadTailCut(Text.headTail(s, 300))).isTrue();
        assertThat(Text.isHeadTailCut(Text.headTail("short enough", 300))).isFalse();
        assertThat(Text.isHeadTailCut(Text.head(s, 300))).as("a head's lone ellipsis").isFalse();
    }

    private static void assertNoFragment(String cut) {
        String withoutWhole = cut.replace(TOKEN, "");
        for (int n = 6; n < TOKEN.length(); n++) {
            assertThat(withoutWhole).as("piece of the token in %s", cut)
                    .doesNotContain(TOKEN.substring(0, n) + "\u2026")
                    .doesNotContain(TOKEN.substring(0, n) + " \u2026")
                    .doesNotContain("\u2026 " + TOKEN.substring(TOKEN.length() - n));
        }
    }
}
