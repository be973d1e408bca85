//! Shared by the integration tests: one validated context per test binary.
//!
//! The tests run on whatever device `VKPRIMS_TEST_DEVICE` names (default: the best one, which
//! is lavapipe on a machine without a GPU); `scripts/test` runs them at lavapipe's subgroup
//! widths 4, 8 and 16 (LP_NATIVE_VECTOR_WIDTH = 128, 256, 512).

#![allow(dead_code)]

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use vkprims::gpu::Context;
use vkprims::ContextOptions;

pub fn ctx() -> Arc<Context> {
    static CTX: OnceLock<Arc<Context>> = OnceLock::new();
    CTX.get_or_init(|| {
        let opts = ContextOptions {
            device: std::env::var("VKPRIMS_TEST_DEVICE").ok(),
            validate: true,
            timeout: Duration::from_secs(120),
        };
        let ctx = Context::new(&opts).expect("a Vulkan device with the validation layer (install mesa-vulkan-drivers and vulkan-validationlayers)");
        eprintln!("testing on {} at subgroup size {}", ctx.info().name, ctx.info().subgroup.default_size);
        ctx
    })
    .clone()
}

/// Any validation or synchronisation-validation message fails the test.
pub fn assert_no_validation_messages(ctx: &Context) {
    let msgs = ctx.take_validation_messages();
    assert!(msgs.is_empty(), "validation layer reported {} message(s):\n{}", msgs.len(), msgs.join("\n"));
}
