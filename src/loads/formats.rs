//! The nine texel formats of perftest, and the data the lab stores in them.
//!
//! The data is chosen so that every load returns an exactly representable value and every
//! sum of them is exact in f32 whatever the order: UNORM8 channels hold 0 or 255 (0.0 or
//! 1.0), float channels hold multiples of 1/4 in [0, 3.75]. So `--verify` can compare the
//! GPU's sums with the CPU model bit for bit (bilinear filtering of UNORM8 aside, whose
//! precision is the implementation's).

use ash::vk;
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Format {
    R8,
    Rg8,
    Rgba8,
    R16f,
    Rg16f,
    Rgba16f,
    R32f,
    Rg32f,
    Rgba32f,
}

impl Format {
    /// perftest's order.
    pub const ALL: [Format; 9] = [
        Format::R8,
        Format::Rg8,
        Format::Rgba8,
        Format::R16f,
        Format::Rg16f,
        Format::Rgba16f,
        Format::R32f,
        Format::Rg32f,
        Format::Rgba32f,
    ];

    /// As perftest spells it in `Buffer<...>` names ("R16f").
    pub fn buffer_name(self) -> &'static str {
        ["R8", "RG8", "RGBA8", "R16f", "RG16f", "RGBA16f", "R32f", "RG32f", "RGBA32f"][self as usize]
    }
    /// As perftest spells it in `Texture2D<...>` names ("R16F").
    pub fn texture_name(self) -> &'static str {
        ["R8", "RG8", "RGBA8", "R16F", "RG16F", "RGBA16F", "R32F", "RG32F", "RGBA32F"][self as usize]
    }
    /// The GLSL format qualifier of its storage variants (build.rs lists the same).
    pub fn glsl(self) -> &'static str {
        ["r8", "rg8", "rgba8", "r16f", "rg16f", "rgba16f", "r32f", "rg32f", "rgba32f"][self as usize]
    }
    pub fn vk(self) -> vk::Format {
        [
            vk::Format::R8_UNORM,
            vk::Format::R8G8_UNORM,
            vk::Format::R8G8B8A8_UNORM,
            vk::Format::R16_SFLOAT,
            vk::Format::R16G16_SFLOAT,
            vk::Format::R16G16B16A16_SFLOAT,
            vk::Format::R32_SFLOAT,
            vk::Format::R32G32_SFLOAT,
            vk::Format::R32G32B32A32_SFLOAT,
        ][self as usize]
    }
    /// "R8G8_UNORM": the Vulkan name without its prefix.
    pub fn vk_name(self) -> &'static str {
        [
            "R8_UNORM",
            "R8G8_UNORM",
            "R8G8B8A8_UNORM",
            "R16_SFLOAT",
            "R16G16_SFLOAT",
            "R16G16B16A16_SFLOAT",
            "R32_SFLOAT",
            "R32G32_SFLOAT",
            "R32G32B32A32_SFLOAT",
        ][self as usize]
    }
    pub fn channels(self) -> u32 {
        [1, 2, 4][self as usize % 3]
    }
    pub fn channel_bytes(self) -> u32 {
        [1, 2, 4][self as usize / 3]
    }
    pub fn texel_bytes(self) -> u32 {
        self.channels() * self.channel_bytes()
    }
    pub fn unorm(self) -> bool {
        self.channel_bytes() == 1
    }
    /// Storage use needs shaderStorageImageExtendedFormats (SPIR-V StorageImageExtendedFormats).
    pub fn extended_storage(self) -> bool {
        matches!(self, Format::R8 | Format::Rg8 | Format::R16f | Format::Rg16f | Format::Rg32f)
    }

    /// Channel `c` of texel `e` as the shader reads it.
    pub fn value(self, e: u32, c: u32) -> f32 {
        let h = mix(e.wrapping_mul(4).wrapping_add(c));
        if self.unorm() { (h >> 31) as f32 } else { quarter(h) }
    }

    /// `texels` texels of lab data, tightly packed.
    pub fn encode(self, texels: u32) -> Vec<u8> {
        let mut out = Vec::with_capacity((texels * self.texel_bytes()) as usize);
        for e in 0..texels {
            for c in 0..self.channels() {
                let v = self.value(e, c);
                match self.channel_bytes() {
                    1 => out.push(if v == 1.0 { 255 } else { 0 }),
                    2 => out.extend_from_slice(&f16_bits(v).to_le_bytes()),
                    _ => out.extend_from_slice(&v.to_le_bytes()),
                }
            }
        }
        out
    }
}

/// A well-mixed 32-bit hash (lowbias32), the source of every data value in the lab.
pub fn mix(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846ca68b);
    x ^ (x >> 16)
}

/// A multiple of 1/4 in [0, 3.75] from the top bits of a hash: exact in f16 and f32, and
/// sums of up to 2^20 of them are exact in f32.
pub fn quarter(h: u32) -> f32 {
    (h >> 28) as f32 / 4.0
}

/// IEEE binary16 bits of `v`, which must be exactly representable (zero or normal).
pub fn f16_bits(v: f32) -> u16 {
    if v == 0.0 {
        return 0;
    }
    let b = v.to_bits();
    let exp = ((b >> 23) & 0xff) as i32 - 127 + 15;
    assert!((1..31).contains(&exp) && b & 0x1fff == 0, "{v} is not exact in f16");
    (((b >> 16) & 0x8000) | ((exp as u32) << 10) | ((b >> 13) & 0x3ff)) as u16
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn f16_of_quarters() {
        assert_eq!(f16_bits(1.0), 0x3c00);
        assert_eq!(f16_bits(0.25), 0x3400);
        assert_eq!(f16_bits(3.75), 0x4380);
    }
    #[test]
    fn names_and_sizes() {
        assert_eq!(Format::Rgba16f.texel_bytes(), 8);
        assert_eq!(Format::Rg8.channels(), 2);
        assert_eq!(Format::R32f.texture_name(), "R32F");
        assert_eq!(Format::R32f.buffer_name(), "R32f");
        assert!(Format::ALL.iter().all(|f| f.encode(3).len() == 3 * f.texel_bytes() as usize));
    }
}
