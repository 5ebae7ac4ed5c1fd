package dev.funes.store;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which segments of a {@link SegmentedIndex} its background thread merges next: {@code fanIn}
 * segments of one size tier, so that a vector is rewritten about {@code log(n / memtableLimit)}
 * times in all, not once per seal.
 *
 * @param memtableLimit the size of a sealed memtable: segments up to it are tier 0
 * @param fanIn         how many segments of one tier are merged into one
 */
record MergePolicy(int memtableLimit, int fanIn) {

    /** The policy of these options. */
    static MergePolicy of(SegmentedIndex.Options options) {
        return new MergePolicy(options.memtableLimit(), options.mergeFanIn());
    }

    /**
     * The segments to merge next: {@code fanIn} of one size tier (tier {@code t} holds segments of
     * {@code memtableLimit * fanIn^t} vectors and up), the smallest first; or {@code null}.
     */
    List<IndexSegment> pick(List<IndexSegment> segments) {
        Map<Integer, List<IndexSegment>> tiers = new HashMap<>();
        for (IndexSegment s : segments) {
            double ratio = Math.max(1.0, (double) s.size() / memtableLimit);
            int tier = (int) Math.floor(Math.log(ratio) / Math.log(fanIn) + 1e-9);
            tiers.computeIfAbsent(tier, t -> new ArrayList<>()).add(s);
        }
        for (int tier = 0; tier < 64; tier++) {
            List<IndexSegment> group = tiers.get(tier);
            if (group != null && group.size() >= fanIn) {
                group.sort((a, b) -> Integer.compare(a.size(), b.size()));
                return List.copyOf(group.subList(0, fanIn));
            }
        }
        return null;
    }
}
