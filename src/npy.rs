//! .npy input and output for the CLI: 1-D little-endian arrays of 4- and 8-byte integers and
//! floats, read as raw 32-bit words (two per 8-byte element). The header is checked before
//! any data is read. Every output is claimed before any GPU work ([`Outputs`]): distinct
//! paths, each one's temporary file created; the files are renamed into place only once all
//! are written, so a failure leaves no output behind.

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
            .map_err(|e| Error::Invalid(format!("{}: not a valid .npy file ({})", path.display(), first_line(&e.to_string()))))?;
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

/// The first non-blank line of a message (npyz's header errors add a parser's caret diagram
/// below it; the CLI's errors are one line).
fn first_line(msg: &str) -> &str {
    msg.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("")
}

/// The bytes of a 1-D .npy (v1.0) array of `dtype` holding `words`.
fn encode(dtype: NpyType, words: &[u32]) -> Vec<u8> {
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
    out
}

/// Where an output is written before it is renamed into place: `PATH.partial`.
pub fn partial_path(path: &Path) -> PathBuf {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".partial");
    PathBuf::from(tmp)
}

/// A command's output files, claimed before any GPU work so that a bad path is reported before
/// the work and no output is left by a failure: the paths are distinct, and each one's
/// temporary file (`PATH.partial`) has been created. [`Outputs::write`] fills a temporary;
/// [`Outputs::commit`] renames every one into place; dropped uncommitted, the temporaries are
/// removed.
pub struct Outputs {
    /// (option, path, its temporary)
    files: Vec<(&'static str, PathBuf, PathBuf)>,
    committed: bool,
}

impl Outputs {
    /// Claim `(option, path)` pairs; `None` paths (options not given) are skipped.
    pub fn claim(paths: &[(&'static str, Option<&Path>)]) -> Result<Outputs> {
        let mut out = Outputs { files: Vec::new(), committed: false };
        let mut seen: Vec<(&'static str, PathBuf)> = Vec::new();
        for &(option, path) in paths {
            let Some(path) = path else { continue };
            let bad = |why: String| Error::Invalid(format!("{option} {}: {why}", path.display()));
            let Some(name) = path.file_name() else { return Err(bad("not a file name".into())) };
            if path.is_dir() {
                return Err(bad("is a directory".into()));
            }
            let parent = match path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                _ => Path::new("."),
            };
            let dir = parent.canonicalize().map_err(|e| bad(format!("cannot write there ({e})")))?;
            let id = dir.join(name);
            if let Some((other, _)) = seen.iter().find(|(_, p)| *p == id) {
                return Err(bad(format!("the same file as {other}'s")));
            }
            seen.push((option, id));
            let tmp = partial_path(path);
            std::fs::File::create(&tmp).map_err(|e| bad(format!("cannot write ({e})")))?;
            out.files.push((option, path.to_path_buf(), tmp));
        }
        Ok(out)
    }

    /// Write the output claimed for `option` as a 1-D .npy array of `dtype` (to its
    /// temporary: it appears at its path on commit).
    pub fn write(&self, option: &str, dtype: NpyType, words: &[u32]) -> Result<()> {
        let (_, path, tmp) = self.files.iter().find(|(o, ..)| *o == option).expect("output claimed");
        std::fs::write(tmp, encode(dtype, words)).map_err(|e| Error::Invalid(format!("{}: cannot write ({e})", path.display())))
    }

    /// Rename every written temporary into place (should one fail, the drop removes those
    /// not yet renamed).
    pub fn commit(mut self) -> Result<()> {
        for (_, path, tmp) in &self.files {
            std::fs::rename(tmp, path).map_err(|e| Error::Invalid(format!("{}: cannot write ({e})", path.display())))?;
        }
        self.committed = true;
        Ok(())
    }
}

impl Drop for Outputs {
    fn drop(&mut self) {
        if !self.committed {
            for (_, _, tmp) in &self.files {
                let _ = std::fs::remove_file(tmp);
            }
        }
    }
}
