//! .npy input and output for the CLI: 1-D arrays of the kernel dtypes, read as raw words.
//! Writes go to a temporary file renamed into place, so a failure leaves no output behind.

use std::path::Path;

use crate::error::{invalid, Error, Result};
use crate::prims::DType;

fn dtype_of(descr: &str, path: &Path) -> Result<DType> {
    match descr {
        "<u4" => Ok(DType::U32),
        "<i4" => Ok(DType::I32),
        "<f4" => Ok(DType::F32),
        other => invalid(format!(
            "{}: unsupported dtype '{other}' (supported: little-endian uint32 '<u4', int32 '<i4', float32 '<f4')",
            path.display()
        )),
    }
}

/// Read a 1-D .npy array of u32, i32 or f32 as raw little-endian words.
pub fn read_words(path: &Path) -> Result<(DType, Vec<u32>)> {
    let bytes = std::fs::read(path).map_err(|e| Error::Invalid(format!("{}: {e}", path.display())))?;
    let file = npyz::NpyFile::new(&bytes[..])
        .map_err(|e| Error::Invalid(format!("{}: not a valid .npy file ({e})", path.display())))?;
    let dtype = match file.dtype() {
        npyz::DType::Plain(t) => dtype_of(&t.to_string(), path)?,
        other => return invalid(format!("{}: unsupported dtype {}", path.display(), other.descr())),
    };
    if file.shape().len() != 1 {
        return invalid(format!("{}: expected a 1-D array, found shape {:?}", path.display(), file.shape()));
    }
    let n = file.len();
    let trunc = |e: std::io::Error| Error::Invalid(format!("{}: truncated or unreadable data ({e}); header says {n} elements", path.display()));
    let words = match dtype {
        DType::U32 => file.into_vec::<u32>().map_err(trunc)?,
        DType::I32 => file.into_vec::<i32>().map_err(trunc)?.into_iter().map(|v| v as u32).collect(),
        DType::F32 => file.into_vec::<f32>().map_err(trunc)?.into_iter().map(f32::to_bits).collect(),
    };
    if words.len() as u64 != n {
        return invalid(format!("{}: truncated: {} of {n} elements present", path.display(), words.len()));
    }
    Ok((dtype, words))
}

/// Write raw words as a 1-D .npy array of `dtype`, atomically.
pub fn write_words(path: &Path, dtype: DType, words: &[u32]) -> Result<()> {
    let tmp = path.with_extension("npy.partial");
    let res = match dtype {
        DType::U32 => npyz::to_file_1d(&tmp, words.iter().copied()),
        DType::I32 => npyz::to_file_1d(&tmp, words.iter().map(|&w| w as i32)),
        DType::F32 => npyz::to_file_1d(&tmp, words.iter().map(|&w| f32::from_bits(w))),
    };
    let res = res.and_then(|_| std::fs::rename(&tmp, path));
    if let Err(e) = res {
        let _ = std::fs::remove_file(&tmp);
        return invalid(format!("{}: cannot write ({e})", path.display()));
    }
    Ok(())
}
