//! The load-pattern lab (`vkprims loads`): sebbbi's perftest matrix natively in Vulkan, and
//! further. Which resource type to load from, and what drivers do to load patterns.
//!
//! - `cases`: the matrix as data (perftest's 138 cases under their names, Vulkan-native
//!   cases, subgroup-broadcast variants, the working-set sweep and the pointer chase).
//! - `formats`, `model`: the data each resource holds and the CPU twin of glsl/loads, which
//!   `--verify` compares every invocation's stored sum with.
//! - `resources`: texel buffers, storage/uniform buffers, device addresses, images, samplers.
//! - `run`, `sweep`: skips with reasons, timing (median of trials), the doubling check,
//!   verification. `report`: the markdown table and CSV.

pub mod cases;
pub mod formats;
pub mod model;
pub mod report;
mod resources;
mod run;
mod sweep;

pub use cases::{catalogue, Case, Kind, Pattern, Source, BASELINE};
pub use run::{describe, run_lab, select, skip_reason, LabOptions, LabResults, LoadRow};
