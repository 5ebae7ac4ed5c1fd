package dev.funes;

/**
 * What one {@link MemoryStore#addAll} call did.
 *
 * @param added     memories newly stored
 * @param unchanged memories that were already stored with the same id (nothing written)
 * @param embedded  texts that had to be embedded; texts whose embedding was already stored are
 *                  not embedded again
 */
public record AddResult(int added, int unchanged, int embedded) {

    /** Nothing added. */
    public static final AddResult NONE = new AddResult(0, 0, 0);

    /** The sum of two results. */
    public AddResult plus(AddResult other) {
        return new AddResult(added + other.added, unchanged + other.unchanged, embedded + other.embedded);
    }
}
