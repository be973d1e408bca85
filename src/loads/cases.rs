//! The case matrix, as data: perftest's 138 cases under their own names, the Vulkan-native
//! cases beyond them, the subgroup-broadcast variant of every uniform case, and the
//! working-set sweep and pointer chase. Nothing here needs a device.

use serde::Serialize;

use super::formats::Format;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Pattern {
    /// Every invocation walks the same addresses.
    Uniform,
    /// Invocation i starts at element i (coalesced).
    Linear,
    /// Invocation i starts at perftest's hash(i) & 15.
    Random,
}

impl Pattern {
    pub const ALL: [Pattern; 3] = [Pattern::Uniform, Pattern::Linear, Pattern::Random];
    pub fn name(self) -> &'static str {
        ["uniform", "linear", "random"][self as usize]
    }
}

/// What a load case reads, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Source {
    /// `Buffer<fmt>.Load`: a uniform texel buffer, texelFetch.
    TypedBuffer(Format),
    /// `RWBuffer<fmt>.Load`: a storage texel buffer, imageLoad.
    StorageTexelBuffer(Format),
    /// `ByteAddressBuffer.LoadN`: N scalar 32-bit loads from a storage buffer, at a word offset
    /// of 0 (aligned) or 1 (unaligned).
    Raw { words: u32, unaligned: bool },
    /// `StructuredBuffer<float|float2|float4>.Load`: a typed storage-buffer array.
    Structured { floats: u32 },
    /// `cbuffer{float4} load`: a uniform buffer of vec4, dynamic index.
    Cbuffer,
    /// Push constants: vec4 at a dynamic index.
    PushConstants,
    /// vec4 through a buffer device address whose pointer promises `align` bytes.
    DeviceAddress { align: u32 },
    /// `Texture2D<fmt>.Load`: a sampled image, texelFetch.
    TextureLoad(Format),
    /// `Texture2D<fmt>.Sample(nearest|bilinear)`: a combined image sampler, textureLod.
    TextureSample { format: Format, bilinear: bool },
    /// `RWTexture2D<fmt>.Load`: a storage image, imageLoad.
    StorageImage(Format),
}

/// Texels per axis of every image, elements of every buffer, vec4 of the push constants.
pub const TEX_DIM: u32 = 32;
pub const BUFFER_ELEMS: u32 = 1024;
pub const PUSH_VEC4: u32 = 4;

impl Source {
    /// The perftest name before the pattern ("Buffer<RGBA8>.Load").
    fn stem(self) -> String {
        match self {
            Source::TypedBuffer(f) => format!("Buffer<{}>.Load", f.buffer_name()),
            Source::StorageTexelBuffer(f) => format!("RWBuffer<{}>.Load", f.buffer_name()),
            Source::Raw { words, unaligned } => {
                let n = if words == 1 { String::new() } else { words.to_string() };
                format!("ByteAddressBuffer.Load{n}{}", if unaligned { " unaligned" } else { "" })
            }
            Source::Structured { floats } => {
                format!("StructuredBuffer<float{}>.Load", if floats == 1 { String::new() } else { floats.to_string() })
            }
            Source::Cbuffer => "cbuffer{float4} load".into(),
            Source::PushConstants => "PushConstants{float4} load".into(),
            Source::DeviceAddress { align } => format!("BufferDeviceAddress<float4>.Load align{align}"),
            Source::TextureLoad(f) => format!("Texture2D<{}>.Load", f.texture_name()),
            Source::TextureSample { format, bilinear } => {
                format!("Texture2D<{}>.Sample({})", format.texture_name(), if bilinear { "bilinear" } else { "nearest" })
            }
            Source::StorageImage(f) => format!("RWTexture2D<{}>.Load", f.texture_name()),
        }
    }

    /// The Vulkan resource behind it, for the table's second column.
    pub fn resource(self) -> String {
        let d = TEX_DIM;
        match self {
            Source::TypedBuffer(f) => format!("uniform texel buffer {}, texelFetch", f.vk_name()),
            Source::StorageTexelBuffer(f) => format!("storage texel buffer {}, imageLoad", f.vk_name()),
            Source::Raw { words, unaligned } => {
                format!("storage buffer uint[], {words} x 32-bit loads{}", if unaligned { " at +4 B" } else { "" })
            }
            Source::Structured { floats } => {
                format!("storage buffer {}[]", ["float", "vec2", "", "vec4"][floats as usize - 1])
            }
            Source::Cbuffer => format!("uniform buffer vec4[{BUFFER_ELEMS}], dynamic index"),
            Source::PushConstants => format!("push constants vec4[{PUSH_VEC4}], dynamic index"),
            Source::DeviceAddress { align } => format!("buffer device address vec4[], {align}-byte aligned pointer"),
            Source::TextureLoad(f) => format!("sampled image {} {d}x{d}, texelFetch", f.vk_name()),
            Source::TextureSample { format, bilinear: false } => {
                format!("image+sampler {} {d}x{d}, nearest, textureLod", format.vk_name())
            }
            Source::TextureSample { format, bilinear: true } => {
                format!("image+sampler {} {d}x{d}, linear filter, textureLod", format.vk_name())
            }
            Source::StorageImage(f) => format!("storage image {} {d}x{d}, imageLoad", f.vk_name()),
        }
    }

    /// Bytes one load returns from the resource (a filtered sample counts one texel).
    pub fn bytes_per_load(self) -> u32 {
        match self.format() {
            Some(f) => f.texel_bytes(),
            None => 4 * self.width(),
        }
    }

    /// Channels (or words) a load feeds into the sum: the kernels' WIDTH.
    pub fn width(self) -> u32 {
        match (self.format(), self) {
            (Some(f), _) => f.channels(),
            (None, Source::Raw { words, .. }) => words,
            (None, Source::Structured { floats }) => floats,
            _ => 4, // vec4 from a uniform buffer, push constants or a device address
        }
    }

    pub fn is_2d(self) -> bool {
        matches!(self, Source::TextureLoad(_) | Source::TextureSample { .. } | Source::StorageImage(_))
    }

    pub fn format(self) -> Option<Format> {
        match self {
            Source::TypedBuffer(f)
            | Source::StorageTexelBuffer(f)
            | Source::TextureLoad(f)
            | Source::StorageImage(f)
            | Source::TextureSample { format: f, .. } => Some(f),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// One of the matrix: LOADS loads per invocation from `source` in `pattern`; `broadcast`
    /// loads once per subgroup lane and shares by subgroupShuffle (uniform pattern only).
    Load { source: Source, pattern: Pattern, broadcast: bool },
    /// Coalesced vec4 loads over a working set of this many bytes (bandwidth).
    Sweep { bytes: u64 },
    /// Dependent loads around a random cycle of cache lines in this many bytes (latency).
    Chase { bytes: u64 },
}

#[derive(Clone, Debug, Serialize)]
pub struct Case {
    pub name: String,
    pub kind: Kind,
}

/// The smallest and largest working sets of the sweep and the chase.
pub const SWEEP_MIN: u64 = 16 << 10;
pub const SWEEP_MAX: u64 = 1 << 30;
/// The chase puts one node in each line of this many bytes (a cache line or more on every GPU).
pub const CHASE_LINE: u64 = 128;

pub fn size_name(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 && b % (1 << 30) == 0 => format!("{}GiB", b >> 30),
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{}MiB", b >> 20),
        b => format!("{}KiB", b >> 10),
    }
}

impl Case {
    fn load(source: Source, pattern: Pattern, broadcast: bool) -> Case {
        let mut name = format!("{} {}", source.stem(), pattern.name());
        if broadcast {
            name.push_str(" (subgroup broadcast)");
        }
        Case { name, kind: Kind::Load { source, pattern, broadcast } }
    }

    /// One of perftest's 138.
    pub fn is_original(&self) -> bool {
        matches!(self.kind, Kind::Load { source, broadcast: false, .. } if matches!(source,
            Source::TypedBuffer(_) | Source::Raw { .. } | Source::Structured { .. } | Source::Cbuffer
            | Source::TextureLoad(_) | Source::TextureSample { .. }))
    }

    /// "perftest", "vulkan", "broadcast", "sweep" or "chase".
    pub fn group(&self) -> &'static str {
        match self.kind {
            Kind::Load { broadcast: true, .. } => "broadcast",
            Kind::Load { .. } if self.is_original() => "perftest",
            Kind::Load { .. } => "vulkan",
            Kind::Sweep { .. } => "sweep",
            Kind::Chase { .. } => "chase",
        }
    }

    pub fn resource(&self) -> String {
        match self.kind {
            Kind::Load { source, broadcast, .. } => {
                let r = source.resource();
                if broadcast { format!("{r}; subgroupShuffle broadcast") } else { r }
            }
            Kind::Sweep { bytes } => format!("storage buffer vec4[], {} working set", size_name(bytes)),
            Kind::Chase { bytes } => {
                format!("storage buffer, dependent 32-bit loads, one node per {CHASE_LINE} B line in {}", size_name(bytes))
            }
        }
    }

    /// What the case measures and how it is kept honest (`vkprims loads --describe`).
    pub fn describe(&self) -> String {
        let mut s = format!("{}\n  Vulkan resource: {}\n  group: {}\n", self.name, self.resource(), self.group());
        match self.kind {
            Kind::Load { source, pattern, broadcast } => {
                let start = match (pattern, source.is_2d()) {
                    (Pattern::Uniform, _) => "every invocation starts at element 0 (the same addresses in every lane)".to_string(),
                    (Pattern::Linear, false) => "invocation i of the workgroup starts at element i (coalesced)".into(),
                    (Pattern::Random, false) => "invocation i starts at perftest's hash(i) & 15 (0..15, no coalescing)".into(),
                    (Pattern::Linear, true) => "invocation i starts at texel (i % 16, i / 16)".into(),
                    (Pattern::Random, true) => "invocation i starts at (hash(i % 16) & 15, hash(i / 16) & 15)".into(),
                };
                let walk = if source.is_2d() {
                    format!("load k reads texel (start + (k % 16, k / 16)) & (mask, mask) of a {TEX_DIM}x{TEX_DIM} image")
                } else {
                    "load k reads element (start + k) & mask".into()
                };
                s.push_str(&format!(
                    "  pattern: {}: {start}\n  loads: --loads per invocation (256; twice that for the doubling check), {walk}; \
                     the mask and write index are push constants the compiler cannot see\n  bytes per load: {} \
                     ({} values summed per load)\n",
                    pattern.name(),
                    source.bytes_per_load(),
                    source.width(),
                ));
                if let Source::Raw { unaligned: true, .. } = source {
                    s.push_str("  the word address carries a push-constant offset of 1 word: 4-byte aligned only\n");
                }
                if let Source::TextureSample { bilinear, .. } = source {
                    s.push_str(if bilinear {
                        "  samples at texel corners (x + 1, y + 1) / 32, where bilinear filtering averages four texels \
                         (REPEAT addressing)\n"
                    } else {
                        "  samples at texel centres (x + 0.5, y + 0.5) / 32\n"
                    });
                }
                if broadcast {
                    s.push_str(
                        "  subgroup broadcast: each lane loads a different one of the next gl_SubgroupSize uniform loads, then \
                         every lane adds them all in order via subgroupShuffle (same sum, 1/gl_SubgroupSize of the loads)\n",
                    );
                }
                s.push_str(
                    "  results: each invocation sums its loads (x+y+z+w), writes shared memory and stores only when the \
                     write index says so: never when timed, always under --verify, where every invocation's sum is compared \
                     with the CPU model (src/loads/model.rs)\n",
                );
            }
            Kind::Sweep { .. } => s.push_str(
                "  each invocation loads vec4 at (global id + i * step) & mask until the working set has been read at \
                 least once and at least 64 times per invocation; step = invocations where no invocation wraps around \
                 the set (in order), else an odd step near 0.618 of the set, so no invocation rereads an element before \
                 it has read the whole set; GB/s = bytes loaded / time\n",
            ),
            Kind::Chase { .. } => s.push_str(
                "  one invocation follows a random cyclic permutation of the lines (each line's first word holds the next \
                 line's address); ns per load = (time of 2H hops - time of H hops) / H, so launch costs cancel; with \
                 VK_KHR_shader_clock also cycles per load, the same difference of subgroup-clock cycles (independent of the \
                 clock rate)\n",
            ),
        }
        s
    }
}

/// Every case, in a stable order: perftest's 138 in its order, the Vulkan-native loads, the
/// broadcast variants, the sweep, the chase.
pub fn catalogue() -> Vec<Case> {
    let mut sources: Vec<Source> = Format::ALL.iter().map(|&f| Source::TypedBuffer(f)).collect();
    sources.extend((1..=4).map(|words| Source::Raw { words, unaligned: false }));
    sources.extend([2, 4].map(|words| Source::Raw { words, unaligned: true }));
    sources.extend([1, 2, 4].map(|floats| Source::Structured { floats }));
    sources.push(Source::Cbuffer);
    sources.extend(Format::ALL.iter().map(|&f| Source::TextureLoad(f)));
    for bilinear in [false, true] {
        sources.extend(Format::ALL.iter().map(|&format| Source::TextureSample { format, bilinear }));
    }
    sources.extend(Format::ALL.iter().map(|&f| Source::StorageTexelBuffer(f)));
    sources.extend(Format::ALL.iter().map(|&f| Source::StorageImage(f)));
    sources.extend([16, 4].map(|align| Source::DeviceAddress { align }));
    sources.push(Source::PushConstants);

    let mut cases: Vec<Case> =
        sources.iter().flat_map(|&s| Pattern::ALL.map(|p| Case::load(s, p, false))).collect();
    cases.extend(sources.iter().map(|&s| Case::load(s, Pattern::Uniform, true)));
    let sizes: Vec<u64> = std::iter::successors(Some(SWEEP_MIN), |&b| (b < SWEEP_MAX).then_some(b * 2)).collect();
    cases.extend(sizes.iter().map(|&bytes| Case { name: format!("sweep vec4 {}", size_name(bytes)), kind: Kind::Sweep { bytes } }));
    cases.extend(sizes.iter().map(|&bytes| Case { name: format!("chase {}", size_name(bytes)), kind: Kind::Chase { bytes } }));
    cases
}

/// The case every ratio is relative to, as in perftest.
pub const BASELINE: &str = "Buffer<RGBA8>.Load random";

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn counts_and_unique_names() {
        let c = catalogue();
        assert_eq!(c.iter().filter(|c| c.is_original()).count(), 138);
        let mut names: Vec<_> = c.iter().map(|c| c.name.as_str()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), c.len());
        assert!(c.iter().any(|c| c.name == BASELINE));
        assert_eq!(size_name(16 << 10), "16KiB");
        assert_eq!(size_name(1 << 30), "1GiB");
    }
}
