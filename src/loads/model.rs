//! The CPU twin of glsl/loads: the data every resource holds, and what each invocation's
//! sum must be. `--verify` compares every invocation's stored sum with these.
//!
//! Workgroups are independent and identical (start offsets depend on the local index only),
//! so a load case has 256 expected values, one per local index. The data makes every sum
//! exact in f32 (see formats.rs), so the comparison is exact except for bilinear filtering of
//! UNORM8, whose filter precision belongs to the implementation.

use super::cases::{Pattern, Source, BUFFER_ELEMS, PUSH_VEC4, TEX_DIM};
use super::formats::{mix, quarter};

pub const WORKGROUP: u32 = 256;

/// Word `i` of the raw (ByteAddressBuffer) data: a small integer, exact as a float.
pub fn raw_word(i: u32) -> u32 {
    mix(i ^ 0x9e37_79b9) >> 28
}

/// Float `i` (flat index) of the structured, uniform-buffer, push-constant and device-address
/// data.
pub fn float_at(i: u32) -> f32 {
    quarter(mix(i.wrapping_add(0x632b_e5ab)))
}

/// Float `i` of the sweep's working set (small integers: sums of millions stay exact).
pub fn sweep_float(i: u32) -> f32 {
    (mix(i ^ 0x5bd1_e995) >> 28) as f32
}

/// The device-address data starts one float past a 16-byte boundary for the 4-byte-aligned
/// pointer.
pub fn bda_first_float(align: u32) -> u32 {
    if align == 4 { 1 } else { 0 }
}

/// The push-constant mask of a source: elements (or words, or texels per axis) - 1.
pub fn mask(source: Source) -> u32 {
    match source {
        Source::Raw { .. } => 4 * BUFFER_ELEMS - 1,
        Source::PushConstants => PUSH_VEC4 - 1,
        s if s.is_2d() => TEX_DIM - 1,
        _ => BUFFER_ELEMS - 1,
    }
}

/// The word offset of raw loads: 1 for "unaligned".
pub fn offset(source: Source) -> u32 {
    matches!(source, Source::Raw { unaligned: true, .. }) as u32
}

fn weyl_hash(c: u32) -> u32 {
    c.wrapping_mul(0x3504_f333)
}

fn start(pattern: Pattern, lid: u32, two_d: bool) -> (u32, u32) {
    let l = if two_d { (lid & 15, lid >> 4) } else { (lid, 0) };
    match pattern {
        Pattern::Uniform => (0, 0),
        Pattern::Linear => l,
        Pattern::Random => (weyl_hash(l.0) & 15, if two_d { weyl_hash(l.1) & 15 } else { 0 }),
    }
}

fn texel(f: super::formats::Format, x: u32, y: u32) -> [f64; 4] {
    let m = TEX_DIM - 1;
    let e = (y & m) * TEX_DIM + (x & m);
    std::array::from_fn(|c| if (c as u32) < f.channels() { f.value(e, c as u32) as f64 } else { 0.0 })
}

/// What load `k` of an invocation starting at `s` returns, before spreading.
fn fetch(source: Source, s: (u32, u32), k: u32) -> [f64; 4] {
    let m = mask(source);
    let idx = (s.0 + k) & m;
    let (x, y) = ((s.0 + (k & 15)) & m, (s.1 + (k >> 4)) & m);
    let floats = |first: u32, n: u32| -> [f64; 4] {
        std::array::from_fn(|c| if (c as u32) < n { float_at(first + c as u32) as f64 } else { 0.0 })
    };
    match source {
        Source::TypedBuffer(f) | Source::StorageTexelBuffer(f) => {
            std::array::from_fn(|c| if (c as u32) < f.channels() { f.value(idx, c as u32) as f64 } else { 0.0 })
        }
        Source::Raw { words, .. } => {
            let w = ((s.0 + k) * words + offset(source)) & m;
            std::array::from_fn(|c| if (c as u32) < words { raw_word(w + c as u32) as f64 } else { 0.0 })
        }
        Source::Structured { floats: n } => floats(idx * n, n),
        Source::Cbuffer | Source::PushConstants => floats(idx * 4, 4),
        Source::DeviceAddress { align } => floats(bda_first_float(align) + idx * 4, 4),
        Source::TextureLoad(f) | Source::StorageImage(f) | Source::TextureSample { format: f, bilinear: false } => {
            texel(f, x, y)
        }
        Source::TextureSample { format: f, bilinear: true } => {
            // At the corner (x + 1, y + 1) / 32 the four texels around it weigh 1/4 each.
            let t = [texel(f, x, y), texel(f, x + 1, y), texel(f, x, y + 1), texel(f, x + 1, y + 1)];
            std::array::from_fn(|c| t.iter().map(|v| v[c]).sum::<f64>() / 4.0)
        }
    }
}

fn spread(v: [f64; 4], width: u32) -> [f64; 4] {
    match width {
        1 => [v[0]; 4],
        2 => [v[0], v[1], v[0], v[1]],
        3 => [v[0], v[1], v[2], v[0]],
        _ => v,
    }
}

/// The sum each local index stores (load.comp's keep(): x + y + z + w of the accumulator).
/// The broadcast variant stores the uniform case's values.
pub fn expected(source: Source, pattern: Pattern, loads: u32) -> Vec<f64> {
    (0..WORKGROUP)
        .map(|lid| {
            let s = start(pattern, lid, source.is_2d());
            let mut acc = [0.0f64; 4];
            for k in 0..loads {
                let v = spread(fetch(source, s, k), source.width());
                (0..4).for_each(|c| acc[c] += v[c]);
            }
            acc.iter().sum()
        })
        .collect()
}

/// How far a stored sum may be from the model: 0 (bit-exact) except for bilinear UNORM8,
/// where each filtered channel may be off by one 8-bit step.
pub fn tolerance(source: Source, loads: u32) -> f64 {
    match source {
        Source::TextureSample { format, bilinear: true } if format.unorm() => loads as f64 * 4.0 / 255.0,
        _ => 0.0,
    }
}

/// x + y + z + w of vec4 `e` of the sweep's working set.
pub fn sweep_elem(e: u32) -> f64 {
    (0..4).map(|c| sweep_float(e * 4 + c) as f64).sum()
}

/// The sweep's loads per invocation: at least `min_loads`, and enough that `threads`
/// invocations read every one of `vec4s` elements in a trial.
pub fn sweep_count(vec4s: u32, threads: u32, min_loads: u32) -> u32 {
    min_loads.max(vec4s.div_ceil(threads))
}

/// The sweep's step between one invocation's loads over `vec4s` elements (a power of two),
/// with `threads` invocations of `count` loads each. Where no invocation wraps (`vec4s` at
/// least `threads * count`) it is `threads`: each pass over the grid reads the next
/// `threads` elements, in order. Otherwise an odd step near 0.618 of the set: an invocation
/// then reads `min(count, vec4s)` distinct elements, each far from the last, and the grid's
/// windows land spread over the set, so the set's size (not an invocation's few elements,
/// reread from L1) sets the level of the hierarchy the loads come from.
pub fn sweep_step(vec4s: u32, threads: u32, count: u32) -> u32 {
    if vec4s as u64 >= threads as u64 * count as u64 {
        threads
    } else {
        (((vec4s as u64 * 0x9E37_79B9) >> 32) as u32) | 1
    }
}

/// The sweep's sum for invocation `gid`, `count` loads `step` apart over `mask + 1` vec4,
/// given each element's sum (`elem`, e.g. a table of [`sweep_elem`]).
pub fn sweep_expected(gid: u32, step: u32, count: u32, mask: u32, elem: impl Fn(u32) -> f64) -> f64 {
    (0..count).map(|i| elem(gid.wrapping_add(i.wrapping_mul(step)) & mask)).sum()
}

/// The chase's cycle: `next[j]` is the line after line j, one random cycle through all
/// `lines` (Sattolo's algorithm), the same for a given size on every run.
pub fn chase_cycle(lines: u32) -> Vec<u32> {
    let mut order: Vec<u32> = (0..lines).collect();
    let mut state = lines;
    for i in (1..lines as usize).rev() {
        state = mix(state.wrapping_add(0x9e37_79b9));
        let j = ((state as u64 * i as u64) >> 32) as usize; // uniform in 0..i
        order.swap(i, j);
    }
    let mut next = vec![0u32; lines as usize];
    for w in 0..lines as usize {
        next[order[w] as usize] = order[(w + 1) % lines as usize];
    }
    next
}

/// The word index the chase ends at after `hops` hops from word 0.
pub fn chase_end(next: &[u32], words_per_line: u32, hops: u32) -> u32 {
    let mut line = 0u32;
    for _ in 0..hops {
        line = next[line as usize];
    }
    line * words_per_line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loads::formats::Format;

    /// Every sweep size at the lab's thread counts (GPU default, CPU default, the tests'):
    /// no invocation reads an element twice (up to the set's size), and the grid's windows
    /// (`threads` elements from i * step) cover the whole set, as the README promises. With
    /// the invocation count as the step, a set smaller than that read one element per lane.
    #[test]
    fn sweep_loads_spread_and_cover_the_set() {
        use crate::loads::cases::{SWEEP_MAX, SWEEP_MIN};
        for threads in [1u32 << 20, 32768, 1024] {
            let mut bytes = SWEEP_MIN;
            while bytes <= SWEEP_MAX {
                let vec4s = (bytes / 16) as u32;
                let count = sweep_count(vec4s, threads, 64);
                let step = sweep_step(vec4s, threads, count);
                let mask = vec4s - 1;
                let mut starts: Vec<u32> = (0..count).map(|i| i.wrapping_mul(step) & mask).collect();
                // One invocation's loads: distinct up to the set's size.
                let mut seen = starts.clone();
                seen.sort_unstable();
                seen.dedup();
                assert_eq!(seen.len() as u32, count.min(vec4s), "{bytes} B, {threads} threads: an invocation rereads");
                // Coverage: no circular gap between window starts longer than a window.
                if threads < vec4s {
                    starts.sort_unstable();
                    let gaps = starts.windows(2).map(|w| w[1] - w[0]).chain([vec4s - starts[starts.len() - 1] + starts[0]]);
                    assert!(gaps.max().unwrap() <= threads, "{bytes} B, {threads} threads: part of the set is never read");
                }
                bytes *= 2;
            }
        }
        // The reference sum follows the step.
        assert_eq!(sweep_expected(3, 5, 4, 15, |e| e as f64), (3 + 8 + 13 + 2) as f64);
    }

    #[test]
    fn chase_is_one_cycle() {
        for lines in [1u32, 2, 3, 128, 1000] {
            let next = chase_cycle(lines);
            let mut seen = vec![false; lines as usize];
            let mut p = 0u32;
            for _ in 0..lines {
                assert!(!seen[p as usize]);
                seen[p as usize] = true;
                p = next[p as usize];
            }
            assert_eq!(p, 0);
        }
    }

    #[test]
    fn sums_are_exact_and_patterns_differ() {
        let f = Source::TypedBuffer(Format::Rgba8);
        let (u, l, r) = (expected(f, Pattern::Uniform, 256), expected(f, Pattern::Linear, 256), expected(f, Pattern::Random, 256));
        assert!(u.iter().all(|&v| v == u[0]));
        assert!(l.iter().any(|&v| v != l[0]), "linear starts differ, so do some sums");
        assert_eq!(l[0], u[0]);
        assert!(r.iter().all(|v| v.fract() == 0.0));
        // Bilinear averages of quarters stay on a 1/16 grid.
        let b = expected(Source::TextureSample { format: Format::Rg16f, bilinear: true }, Pattern::Random, 256);
        assert!(b.iter().all(|v| (v * 16.0).fract() == 0.0));
    }
}
