// Where a multisplit element's bucket comes from (spec constant SOURCE), shared by the
// histogram and the binning pass:
//   0  a bit field of the raw key: (key >> shift) & (2^bits - 1)
//   1  a bucket-id array: ids[index]
//   2  sorted splitters: the number of splitters <= key, compared by order key (the
//      partition step of a sample sort)
// Requires SOURCE, KEY_KIND, DESCENDING (0) spec constants, sort/sort_keys.glsl, push
// constants pc.shift, pc.bits, pc.buckets, and the binding `aux` (ids or splitters).
#ifndef BUCKETS_GLSL
#define BUCKETS_GLSL

uint bucket_from(uint index, KEY key) {
    if (SOURCE == 0u) return uint(key >> pc.shift) & ((1u << pc.bits) - 1u);
    if (SOURCE == 1u) return aux_ids[index];
    // upper_bound over buckets - 1 sorted splitters
    KEY k = order_key(key);
    uint lo = 0u, hi = pc.buckets - 1u;
    while (lo < hi) {
        uint mid = (lo + hi) / 2u;
        if (order_key(aux_splitters[mid]) <= k) lo = mid + 1u; else hi = mid;
    }
    return lo;
}

#endif
