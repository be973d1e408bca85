//! SPIR-V modules compiled by build.rs from glsl/, looked up by variant name.

include!(concat!(env!("OUT_DIR"), "/shaders.rs"));

/// The SPIR-V words of a variant (names are listed in build.rs).
pub fn spirv(name: &str) -> Option<Vec<u32>> {
    MODULES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, bytes)| ash::util::read_spv(&mut std::io::Cursor::new(bytes)).expect("valid SPIR-V from build.rs"))
}

/// The static name of a variant (for a [`crate::gpu::PipelineKey`] built from parts).
pub fn name(name: &str) -> Option<&'static str> {
    MODULES.iter().find(|(n, _)| *n == name).map(|(n, _)| *n)
}
