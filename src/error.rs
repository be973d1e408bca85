//! The library's error type. Every error says what failed and why, in one line.

use ash::vk;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The caller asked for something the input or the device cannot do; raised before any
    /// GPU work is recorded.
    #[error("{0}")]
    Invalid(String),
    /// The device lacks a feature, extension, limit or subgroup operation a kernel needs.
    #[error("device '{device}' lacks {what}")]
    Unsupported { device: String, what: String },
    #[error("Vulkan error in {what}: {code:?}")]
    Vulkan { what: String, code: vk::Result },
    #[error("GPU timed out after {secs:.1} s while running {what}")]
    Timeout { what: String, secs: f64 },
    #[error("device lost while running {what}")]
    DeviceLost { what: String },
    #[error("memory allocation for {what} failed: {msg}")]
    Alloc { what: String, msg: String },
    #[error("validation layer reported {} message(s); first: {}", .0.len(), .0.first().map(String::as_str).unwrap_or(""))]
    Validation(Vec<String>),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Attach a description to a raw Vulkan result; device loss becomes its own error.
pub(crate) trait VkContext<T> {
    fn ctx(self, what: impl FnOnce() -> String) -> Result<T>;
}

impl<T> VkContext<T> for std::result::Result<T, vk::Result> {
    fn ctx(self, what: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|code| match code {
            vk::Result::ERROR_DEVICE_LOST => Error::DeviceLost { what: what() },
            code => Error::Vulkan { what: what(), code },
        })
    }
}

pub(crate) fn invalid<T>(msg: impl Into<String>) -> Result<T> {
    Err(Error::Invalid(msg.into()))
}
