// One word plane gathered (PASS_ROLE bit 3, policy `xgather`) for the sort and the multisplit:
// the tile is staged as one word an element whatever its key and value sizes, (bucket << 16)
// | the element's index in the tile, so no key is read again to stage it and a tile of
// 8-byte keys or of pairs needs a quarter or half the shared memory; the scatter reads each
// position's key and value back by that index (from cache: the tile was read moments
// before), in one round, with no value round after the keys (sort/binning.glsl, ONE_PLANE).
// Requires PASS_ROLE, vals_in and vals_out.
#ifndef GATHER_PLANE_GLSL
#define GATHER_PLANE_GLSL
#define ONE_PLANE
const uint ONE_PLANE_ON = (PASS_ROLE >> 3) & 1u;
bool one_plane() { return ONE_PLANE_ON != 0u; }
uint plane_word(uint first, uint i, KEY k, uint b) { return (b << 16) | (i - first); }
bool plane_needs_blk() { return false; }
uint plane_bucket(uint i, uint w) { return w >> 16; }
KEY key_in(uint i);
void key_out(uint i, KEY k);
void plane_scatter(uint dst, uint first, uint w) {
    uint src = first + (w & 0xFFFFu);
    key_out(dst, key_in(src));
#if VALUE_WORDS > 0
    vals_out[dst] = vals_in[src];
#endif
}
#endif
