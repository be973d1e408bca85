//! Seeded input patterns shared by the selftest, the integration tests and the benchmarks:
//! random data plus the adversarial cases (all equal, alternating extremes, sorted, reversed,
//! IEEE specials). Words are raw bits of the dtype.

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use crate::prims::DType;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// Integers: every bit pattern. f32: uniform in [-1, 1).
    Random,
    AllEqual,
    /// The type's two extremes in turn (i32::MIN/MAX, 0/u32::MAX, -f32::MAX/f32::MAX).
    AlternatingExtremes,
    Ascending,
    Descending,
    /// Integers: 0, 1, -1, MIN, MAX in random order. f32: NaN of both signs, ±0, ±inf and
    /// subnormals mixed into random values.
    Specials,
}

impl Pattern {
    pub const ALL: [Pattern; 6] =
        [Pattern::Random, Pattern::AllEqual, Pattern::AlternatingExtremes, Pattern::Ascending, Pattern::Descending, Pattern::Specials];
    pub fn name(self) -> &'static str {
        match self {
            Pattern::Random => "random",
            Pattern::AllEqual => "all-equal",
            Pattern::AlternatingExtremes => "alternating-extremes",
            Pattern::Ascending => "ascending",
            Pattern::Descending => "descending",
            Pattern::Specials => "specials",
        }
    }
}

// No ±f32::MAX here: sums of them overflow in an association-dependent way
// (AlternatingExtremes covers the extremes in an order that cannot overflow).
const F32_SPECIALS: [u32; 10] = [
    0x7FC0_0000, // +NaN
    0xFFC0_0000, // -NaN
    0x7F80_0001, // +sNaN payload
    0x8000_0000, // -0.0
    0x0000_0000, // +0.0
    0x7F80_0000, // +inf
    0xFF80_0000, // -inf
    0x0000_0001, // smallest subnormal
    0x8000_0001, // its negative
    0x3F80_0000, // 1.0
];

pub fn generate(pattern: Pattern, dtype: DType, n: usize, seed: u64) -> Vec<u32> {
    let mut rng = StdRng::seed_from_u64(seed);
    let f = |x: f32| x.to_bits();
    match (pattern, dtype) {
        (Pattern::Random, DType::F32) => (0..n).map(|_| f(rng.random_range(-1.0f32..1.0))).collect(),
        (Pattern::Random, _) => (0..n).map(|_| rng.random::<u32>()).collect(),
        (Pattern::AllEqual, DType::U32) => vec![7; n],
        (Pattern::AllEqual, DType::I32) => vec![(-3i32) as u32; n],
        (Pattern::AllEqual, DType::F32) => vec![f(1.5); n],
        (Pattern::AlternatingExtremes, dt) => {
            let (a, b) = match dt {
                DType::U32 => (0, u32::MAX),
                DType::I32 => (i32::MIN as u32, i32::MAX as u32),
                DType::F32 => (f(-f32::MAX), f(f32::MAX)),
            };
            (0..n).map(|i| if i % 2 == 0 { a } else { b }).collect()
        }
        (Pattern::Ascending | Pattern::Descending, dt) => {
            let v = |i: usize| -> u32 {
                let i = if pattern == Pattern::Ascending { i } else { n - 1 - i };
                match dt {
                    DType::U32 => i as u32,
                    DType::I32 => (i as i32).wrapping_sub((n / 2) as i32) as u32,
                    DType::F32 => f(i as f32 - n as f32 / 2.0),
                }
            };
            (0..n).map(v).collect()
        }
        (Pattern::Specials, DType::F32) => (0..n)
            .map(|_| {
                if rng.random_bool(0.5) {
                    F32_SPECIALS[rng.random_range(0..F32_SPECIALS.len())]
                } else {
                    f(rng.random_range(-1.0f32..1.0))
                }
            })
            .collect(),
        (Pattern::Specials, dt) => {
            let set: [u32; 5] = match dt {
                DType::U32 => [0, 1, u32::MAX, 0x8000_0000, 0x7FFF_FFFF],
                _ => [0, 1, u32::MAX, i32::MIN as u32, i32::MAX as u32],
            };
            (0..n).map(|_| set[rng.random_range(0..set.len())]).collect()
        }
    }
}

/// Key patterns for the radix sort.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyPattern {
    /// Every bit pattern (for floats: NaNs of both signs, infinities, subnormals included).
    Random,
    Sorted,
    Reversed,
    AllEqual,
    /// Five distinct values.
    FewDistinct,
    /// Keys that differ only in the top 8 bits.
    TopDigitOnly,
    /// Keys that differ only in the bottom 8 bits.
    BottomDigitOnly,
    /// Floats: NaN of both signs, ±0.0, ±inf, subnormals, extremes, in random order.
    FloatSpecials,
    /// Keys whose low 16 bits take four values, the rest random: long classes of equal low
    /// digits for the sort's class steps (not in `ALL`).
    LowFour,
}

impl KeyPattern {
    pub const ALL: [KeyPattern; 8] = [
        KeyPattern::Random,
        KeyPattern::Sorted,
        KeyPattern::Reversed,
        KeyPattern::AllEqual,
        KeyPattern::FewDistinct,
        KeyPattern::TopDigitOnly,
        KeyPattern::BottomDigitOnly,
        KeyPattern::FloatSpecials,
    ];
}

/// Raw key words (two per element for 64-bit keys) of `n` keys.
pub fn sort_keys(pattern: KeyPattern, key: crate::prims::sort::KeyType, n: usize, seed: u64) -> Vec<u32> {
    let mut rng = StdRng::seed_from_u64(seed);
    let wide = key.wide();
    let bits = key.bits();
    let specials64: [u64; 12] = [
        0x7FF8_0000_0000_0000, 0xFFF8_0000_0000_0000, 0x8000_0000_0000_0000, 0, 0x7FF0_0000_0000_0000,
        0xFFF0_0000_0000_0000, 1, 0x8000_0000_0000_0001, 0x7FEF_FFFF_FFFF_FFFF, 0xFFEF_FFFF_FFFF_FFFF,
        0x3FF0_0000_0000_0000, 0xBFF0_0000_0000_0000,
    ];
    let specials32: [u64; 12] = [
        0x7FC0_0000, 0xFFC0_0000, 0x8000_0000, 0, 0x7F80_0000, 0xFF80_0000, 1, 0x8000_0001, 0x7F7F_FFFF, 0xFF7F_FFFF,
        0x3F80_0000, 0xBF80_0000,
    ];
    let few: Vec<u64> = (0..5).map(|_| rng.random::<u64>()).collect();
    let base = rng.random::<u64>();
    let mask = if wide { u64::MAX } else { u32::MAX as u64 };
    let mut v: Vec<u64> = (0..n)
        .map(|_| {
            (match pattern {
                KeyPattern::Random | KeyPattern::Sorted | KeyPattern::Reversed => rng.random::<u64>(),
                KeyPattern::AllEqual => base,
                KeyPattern::FewDistinct => few[rng.random_range(0..5)],
                KeyPattern::TopDigitOnly => (base & !(0xFFu64 << (bits - 8))) | (rng.random::<u64>() & 0xFF) << (bits - 8),
                KeyPattern::BottomDigitOnly => (base & !0xFF) | (rng.random::<u64>() & 0xFF),
                KeyPattern::LowFour => (rng.random::<u64>() & !0xFFFF) | [0x0000, 0x1234, 0xABCD, 0xFFFF][rng.random_range(0..4)],
                KeyPattern::FloatSpecials => {
                    let s = if wide { &specials64 } else { &specials32 };
                    if rng.random_bool(0.6) { s[rng.random_range(0..s.len())] } else { rng.random::<u64>() }
                }
            }) & mask
        })
        .collect();
    if matches!(pattern, KeyPattern::Sorted | KeyPattern::Reversed) {
        // Sorted by the raw unsigned value: for signed and float keys that is another
        // adversarial order (the sign bit splits it in two).
        v.sort_unstable();
        if pattern == KeyPattern::Reversed {
            v.reverse();
        }
    }
    if wide { v.iter().flat_map(|&k| [k as u32, (k >> 32) as u32]).collect() } else { v.iter().map(|&k| k as u32).collect() }
}
