//! .npy input and output for the CLI: 1-D arrays read as raw 32-bit words (two per 8-byte
//! element): little-endian 4- and 8-byte integers and floats, which the primitives compute on,
//! and any other fixed-size dtype of 4 or 8 bytes, which a sort's or multisplit's values and a
//! shuffle move as raw bytes. The header is checked before any data is read. Every output is
//! claimed before any GPU work ([`Outputs`]): distinct paths, each one's temporary file
//! created; the files are renamed into place only once all are written, so a failure leaves
//! no output behind.

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

/// An array's element type: one the primitives compute on, or any other fixed-size type of 4
/// or 8 bytes (complex64, datetime64, big-endian, 4-byte strings, records, ...), moved as raw
/// bytes and written back under the input's own header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Elem {
    Num(NpyType),
    /// `descr` as the header gives it (a quoted type string or a record list).
    Raw { descr: String, bytes: usize },
}

impl Elem {
    pub fn bytes(&self) -> usize {
        match self {
            Elem::Num(t) => t.bytes(),
            Elem::Raw { bytes, .. } => *bytes,
        }
    }
    pub fn numeric(&self) -> Option<NpyType> {
        match self {
            Elem::Num(t) => Some(*t),
            Elem::Raw { .. } => None,
        }
    }
    /// The dtype as errors name it (`<c8`, a record list).
    pub fn shown(&self) -> &str {
        match self {
            Elem::Num(t) => t.descr(),
            Elem::Raw { descr, .. } => descr.trim_matches('\''),
        }
    }
    /// The header's `descr` value.
    fn header_descr(&self) -> String {
        match self {
            Elem::Num(t) => format!("'{}'", t.descr()),
            Elem::Raw { descr, .. } => descr.clone(),
        }
    }
}

impl From<NpyType> for Elem {
    fn from(t: NpyType) -> Elem {
        Elem::Num(t)
    }
}

/// A 1-D .npy file whose header has been checked; the data is read on demand, so a size can
/// be checked against the device before any of it is read.
pub struct NpyInput {
    path: PathBuf,
    /// Positioned at the first data byte.
    reader: std::io::BufReader<std::fs::File>,
    pub elem: Elem,
    pub n: u64,
}

impl NpyInput {
    /// Open and check the header: a 1-D array of a fixed-size dtype of 4 or 8 bytes.
    pub fn open(path: &Path) -> Result<NpyInput> {
        let f = std::fs::File::open(path).map_err(|e| Error::Invalid(format!("{}: {e}", path.display())))?;
        let mut reader = std::io::BufReader::new(f);
        let file = npyz::NpyHeader::from_reader(&mut reader)
            .map_err(|e| Error::Invalid(format!("{}: not a valid .npy file ({})", path.display(), first_line(&e.to_string()))))?;
        let dtype = file.dtype();
        let elem = match &dtype {
            npyz::DType::Plain(t) => NpyType::from_descr(&t.to_string()).map(Elem::Num),
            _ => None,
        };
        // (A top-level subarray dtype is not an element type: numpy folds it into the shape.)
        let raw = match (&dtype, dtype.num_bytes()) {
            (npyz::DType::Array(..), _) => None,
            (_, Some(bytes @ (4 | 8))) => Some(Elem::Raw { descr: dtype.descr(), bytes }),
            _ => None,
        };
        let Some(elem) = elem.or(raw) else {
            let shown = match &dtype {
                npyz::DType::Plain(t) => t.to_string(),
                other => other.descr(),
            };
            return invalid(format!(
                "{}: unsupported dtype '{shown}' (keys and scans: little-endian <u4 <i4 <f4 <u8 <i8 <f8; values and shuffles: any fixed-size dtype of 4 or 8 bytes)",
                path.display()
            ));
        };
        if file.shape().len() != 1 {
            return invalid(format!("{}: expected a 1-D array, found shape {:?}", path.display(), file.shape()));
        }
        let n = file.len();
        Ok(NpyInput { path: path.to_path_buf(), reader, elem, n })
    }

    /// The element type where the primitive computes on it (keys, splitters): `role` names
    /// that use in the error.
    pub fn numeric(&self, role: &str) -> Result<NpyType> {
        self.elem.numeric().ok_or_else(|| {
            Error::Invalid(format!(
                "{}: unsupported dtype '{}' for {role} (little-endian <u4 <i4 <f4 <u8 <i8 <f8)",
                self.path.display(),
                self.elem.shown()
            ))
        })
    }

    /// Read the data as raw little-endian 32-bit words (two per 8-byte element).
    pub fn read_words(self) -> Result<Vec<u32>> {
        let (path, n, width) = (self.path, self.n, self.elem.bytes());
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
pub fn read_words(path: &Path) -> Result<(Elem, Vec<u32>)> {
    let input = NpyInput::open(path)?;
    let elem = input.elem.clone();
    Ok((elem, input.read_words()?))
}

/// The first non-blank line of a message (npyz's header errors add a parser's caret diagram
/// below it; the CLI's errors are one line).
fn first_line(msg: &str) -> &str {
    msg.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("")
}

/// The bytes of a 1-D .npy array of `elem` holding `words`: format 1.0, or 2.0 for a header
/// longer than 65,535 bytes, or 3.0 for one that is not ASCII (a record's field names).
fn encode(elem: &Elem, words: &[u32]) -> Vec<u8> {
    let n = words.len() * 4 / elem.bytes();
    let mut header = format!("{{'descr': {}, 'fortran_order': False, 'shape': ({n},), }}", elem.header_descr());
    let major: u8 = if !header.is_ascii() { 3 } else if header.len() + 64 <= u16::MAX as usize { 1 } else { 2 };
    let prefix = if major == 1 { 10 } else { 12 };
    while (prefix + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = vec![0x93, b'N', b'U', b'M', b'P', b'Y', major, 0];
    if major == 1 {
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&(header.len() as u32).to_le_bytes());
    }
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

    /// Write the output claimed for `option` as a 1-D .npy array of `elem` (to its
    /// temporary: it appears at its path on commit).
    pub fn write(&self, option: &str, elem: &Elem, words: &[u32]) -> Result<()> {
        let (_, path, tmp) = self.files.iter().find(|(o, ..)| *o == option).expect("output claimed");
        std::fs::write(tmp, encode(elem, words)).map_err(|e| Error::Invalid(format!("{}: cannot write ({e})", path.display())))
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
