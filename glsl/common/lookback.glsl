// Look-back spine for decoupled look-back with decoupled fallback (DESIGN.md, principle 2).
//
// Each tile owns two 32-bit words. A 32-bit value is split into 16-bit halves; each word holds
// one half in bits 0..15 and the tile's state in bits 30..31. Writers only ever atomicMax a
// word, so the state can only rise: NOT_READY (0) < AGGREGATE (1) < INCLUSIVE (2). A reader
// trusts a tile only when both words carry the same state; otherwise the halves may come from
// different postings and it treats the tile as not ready. Relaxed 32-bit atomics suffice:
// state and value travel in the same word, so there is no separate payload to publish.
//
// Requires: `coherent buffer` named SPINE_BUF with `uint SPINE_WORDS[]`, and SPINE_BASE, the
// word index of tile 0's first word.
#ifndef LOOKBACK_GLSL
#define LOOKBACK_GLSL
#extension GL_KHR_memory_scope_semantics : require

const uint LB_NOT_READY = 0u;
const uint LB_AGGREGATE = 1u;
const uint LB_INCLUSIVE = 2u;

void lb_post(uint tile, uint st, uint value) {
    uint w = SPINE_BASE + 2u * tile;
    atomicMax(SPINE_WORDS[w], (st << 30) | (value & 0xFFFFu));
    atomicMax(SPINE_WORDS[w + 1u], (st << 30) | (value >> 16));
}

// Returns the state; `value` is valid when the state is not LB_NOT_READY.
uint lb_read(uint tile, out uint value) {
    uint w = SPINE_BASE + 2u * tile;
    // Relaxed atomic loads at device scope: never a stale cached value, and no read-modify-write.
    uint lo = atomicLoad(SPINE_WORDS[w], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
    uint hi = atomicLoad(SPINE_WORDS[w + 1u], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
    value = (lo & 0xFFFFu) | ((hi & 0xFFFFu) << 16);
    uint s = lo >> 30;
    return s == (hi >> 30) ? s : LB_NOT_READY;
}

#endif
