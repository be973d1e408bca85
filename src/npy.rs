//! .npy input and output for the CLI: 1-D little-endian arrays of 4- and 8-byte integers and
//! floats, read as raw 32-bit words (two per 8-byte element). The header is checked before
//! any data is read; writes go to a temporary file renamed into place, so a failure leaves no
//! output behind.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::error::{invalid, Error, Result};
use crate::prims::sort::KeyType;
use crate::prims::DType;

/// Element types the CLI reads and writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NpyType {
    U32,
    I32,
    F32,
    U64,
    I64,
    F64,
}

impl NpyType {
    fn from_descr(descr: &str) -> Option<NpyType> {
        Some(match descr {
            "<u4" => NpyType::U32,
            "<i4" => NpyType::I32,
            "<f4" => NpyType::F32,
            "<u8" => NpyType::U64,
            "<i8" => NpyType::I64,
            "<f8" => NpyType::F64,
            _ => return None,
        })
    }
    pub fn descr(self) -> &'static str {
        match self {
            NpyType::U32 => "<u4",
            NpyType::I32 => "<i4",
            NpyType::F32 => "<f4",
            NpyType::U64 => "<u8",
            NpyType::I64 => "<i8",
            NpyType::F64 => "<f8",
        }
    }
    pub fn bytes(self) -> usize {
        match self {
            NpyType::U32 | NpyType::I32 | NpyType::F32 => 4,
            _ => 8,
        }
    }
    /// The scan dtype, for 4-byte types.
    pub fn scan_dtype(self) -> Option<DType> {
        match self {
            NpyType::U32 => Some(DType::U32),
            NpyType::I32 => Some(DType::I32),
            NpyType::F32 => Some(DType::F32),
            _ => None,
        }
    }
    pub fn key_type(self) -> KeyType {
        match self {
            NpyType::U32 => KeyType::U32,
            NpyType::I32 => KeyType::I32,
            NpyType::F32 => KeyType::F32,
            NpyType::U64 => KeyType::U64,
            NpyType::I64 => KeyType::I64,
            NpyType::F64 => KeyType::F64,
        }
    }
    pub fn from_scan_dtype(d: DType) -> NpyType {
        match d {
            DType::U32 => NpyType::U32,
            DType::I32 => NpyType::I32,
            DType::F32 => NpyType::F32,
        }
    }
}

/// A 1-D .npy file whose header has been checked; the data is read on demand, so a size can
/// be checked against the device before any of it is read.
pub struct NpyInput {
    path: PathBuf,
    /// Positioned at the first data byte.
    reader: std::io::BufReader<std::fs::File>,
    pub dtype: NpyType,
    pub n: u64,
}

impl NpyInput {
    /// Open and check the header: a 1-D array of one of the [`NpyType`]s.
    pub fn open(path: &Path) -> Result<NpyInput> {
        let f = std::fs::File::open(path).map_err(|e| Error::Invalid(format!("{}: {e}", path.display())))?;
        let mut reader = std::io::BufReader::new(f);
        let file = npyz::NpyHeader::from_reader(&mut reader)
            .map_err(|e| Error::Invalid(format!("{}: not a valid .npy file ({e})", path.display())))?;
        let descr = match file.dtype() {
            npyz::DType::Plain(t) => t.to_string(),
            other => other.descr(),
        };
        let Some(dtype) = NpyType::from_descr(&descr) else {
            return invalid(format!(
                "{}: unsupported dtype '{descr}' (supported: little-endian <u4 <i4 <f4 <u8 <i8 <f8)",
                path.display()
            ));
        };
        if file.shape().len() != 1 {
            return invalid(format!("{}: expected a 1-D array, found shape {:?}", path.display(), file.shape()));
        }
        let n = file.len();
        Ok(NpyInput { path: path.to_path_buf(), reader, dtype, n })
    }

    /// Read the data as raw little-endian 32-bit words (two per 8-byte element).
    pub fn read_words(self) -> Result<Vec<u32>> {
        let (path, n, width) = (self.path, self.n, self.dtype.bytes());
        let mut bytes = Vec::new();
        let mut reader = self.reader;
        reader
            .read_to_end(&mut bytes)
            .map_err(|e| Error::Invalid(format!("{}: unreadable data ({e})", path.display())))?;
        let want = n as usize * width;
        if bytes.len() < want {
            return invalid(format!(
                "{}: truncated: {} of {n} elements present",
                path.display(),
                bytes.len() / width
            ));
        }
        Ok(bytemuck::pod_collect_to_vec(&bytes[..want]))
    }
}

/// Read a 1-D .npy array as raw words.
pub fn read_words(path: &Path) -> Result<(NpyType, Vec<u32>)> {
    let input = NpyInput::open(path)?;
    let dtype = input.dtype;
    Ok((dtype, input.read_words()?))
}

/// Write raw words as a 1-D .npy array of `dtype`, atomically.
pub fn write_words(path: &Path, dtype: NpyType, words: &[u32]) -> Result<()> {
    let n = words.len() * 4 / dtype.bytes();
    let mut header = format!("{{'descr': '{}', 'fortran_order': False, 'shape': ({n},), }}", dtype.descr());
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(bytemuck::cast_slice(words));
    let tmp = path.with_extension("npy.partial");
    let res = std::fs::write(&tmp, &out).and_then(|_| std::fs::rename(&tmp, path));
    if let Err(e) = res {
        let _ = std::fs::remove_file(&tmp);
        return invalid(format!("{}: cannot write ({e})", path.display()));
    }
    Ok(())
}
