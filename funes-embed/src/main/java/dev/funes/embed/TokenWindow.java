package dev.funes.embed;

/**
 * One model-sized slice of a text's tokens, special tokens included.
 *
 * @param owner  the index of the text it came from
 * @param ids    token ids
 * @param typeIds token type ids, as long as {@code ids}
 * @param weight how much this window counts in its text's vector: its number of text tokens
 */
record TokenWindow(int owner, long[] ids, long[] typeIds, int weight) {

    int length() {
        return ids.length;
    }
}
