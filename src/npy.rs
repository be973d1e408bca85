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

/// A 1-D .npy file whose header has been checked; the data is read on demand, so a size
/// can be checked against the device before any of it is read.
pub struct NpyInput {
    path: std::path::PathBuf,
    file: npyz::NpyFile<std::io::BufReader<std::fs::File>>,
    pub dtype: DType,
    pub n: u64,
}

impl NpyInput {
    /// Open and check the header: a 1-D array of u32, i32 or f32.
    pub fn open(path: &Path) -> Result<NpyInput> {
        let f = std::fs::File::open(path).map_err(|e| Error::Invalid(format!("{}: {e}", path.display())))?;
        let file = npyz::NpyFile::new(std::io::BufReader::new(f))
            .map_err(|e| Error::Invalid(format!("{}: not a valid .npy file ({e})", path.display())))?;
        let dtype = match file.dtype() {
            npyz::DType::Plain(t) => dtype_of(&t.to_string(), path)?,
            other => return invalid(format!("{}: unsupported dtype {}", path.display(), other.descr())),
        };
        if file.shape().len() != 1 {
            return invalid(format!("{}: expected a 1-D array, found shape {:?}", path.display(), file.shape()));
        }
        let n = file.len();
        Ok(NpyInput { path: path.to_path_buf(), file, dtype, n })
    }

    /// Read the data as raw little-endian words.
    pub fn read_words(self) -> Result<Vec<u32>> {
        let (path, n) = (self.path, self.n);
        let trunc = |e: std::io::Error| {
            Error::Invalid(format!("{}: truncated or unreadable data ({e}); the header says {n} elements", path.display()))
        };
        let words: Vec<u32> = match self.dtype {
            DType::U32 => self.file.into_vec::<u32>().map_err(trunc)?,
            DType::I32 => self.file.into_vec::<i32>().map_err(trunc)?.into_iter().map(|v| v as u32).collect(),
            DType::F32 => self.file.into_vec::<f32>().map_err(trunc)?.into_iter().map(f32::to_bits).collect(),
        };
        if words.len() as u64 != n {
            return invalid(format!("{}: truncated: {} of {n} elements present", path.display(), words.len()));
        }
        Ok(words)
    }
}

/// Read a 1-D .npy array of u32, i32 or f32 as raw little-endian words.
pub fn read_words(path: &Path) -> Result<(DType, Vec<u32>)> {
    let input = NpyInput::open(path)?;
    let dtype = input.dtype;
    Ok((dtype, input.read_words()?))
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
