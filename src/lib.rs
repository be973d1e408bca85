//! vkprims: Vulkan-native GPU compute primitives and a perf lab.
//!
//! Every primitive has a plan (validated up front, before anything is recorded), a `record`
//! into a caller's [`gpu::Recorder`] with caller-owned buffers, a `run` convenience, and a
//! plain CPU `reference` that the tests and benchmarks check it against.

pub mod bench;
pub mod error;
pub mod gpu;
pub mod loads;
pub mod npy;
pub mod prims;
pub mod selftest;
pub mod soak;

pub use error::{Error, Result};
pub use gpu::{Context, ContextOptions};
pub mod testdata;
