//! Reading a trace's files into chunks: blocks of whole lines of one file,
//! read with one copy into recycled buffers, numbered, their format told,
//! their kernel headers followed.
//!
//! The [`Reader`] does only what must be done in input order: it numbers
//! lines, enforces the maximum line length, tells each file's format by its
//! first line, follows trace headers (which name the kernel of the
//! instructions after them; names are interned once, as small integers) and
//! kernel lists (`kernelslist.g`, whose kernel files are read in its place). It
//! decompresses `.xz` input (told by its magic bytes, whatever the name).
//! Splitting the lines, classifying and parsing them is left to whoever takes
//! the chunks ([`Chunk::lines`]), on any thread: [`Trace`](super::Trace) reads
//! them in order into events, `smem trace` on several threads.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::line::{self as accelsim, Header};

/// Bytes a chunk is read in: large enough that a chunk is worth sending to a
/// thread and that reads are few, small enough that the queued chunks stay a
/// few megabytes. A chunk holds whole lines; its buffer grows (and is then
/// not recycled) only for a line longer than that.
pub const CHUNK_BYTES: usize = 512 * 1024;

/// The longest line read, in bytes (without its line end): 1 MiB. The longest
/// Accel-Sim line (32 addresses) is under 1 KB and a corpus record under
/// 2 KB, but a header can carry a long C++ kernel name. A longer line is an
/// error naming the file, the line and this limit, reported as soon as the
/// limit is passed, and the rest of that file is not read: memory stays
/// bounded on any input (`smem trace /dev/zero` ends at once).
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// The most kernel files one kernel list may name.
pub const MAX_LISTED: usize = 1_000_000;

/// The magic bytes of an xz stream.
const XZ_MAGIC: &[u8; 6] = b"\xfd7zXZ\0";

/// Where an input's bytes come from.
pub enum Origin {
    /// A file (or a directory, refused when opened).
    Path(PathBuf),
    /// Standard input.
    Stdin,
    /// Any reader, taken when the input is opened.
    Reader(Option<Box<dyn Read + Send>>),
}

impl std::fmt::Debug for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Path(path) => f.debug_tuple("Path").field(path).finish(),
            Origin::Stdin => f.write_str("Stdin"),
            Origin::Reader(_) => f.write_str("Reader"),
        }
    }
}

/// A file to read and the format found in it.
#[derive(Debug)]
pub struct Input {
    /// Where its bytes come from.
    pub origin: Origin,
    /// Its name in messages: the path as given, `<stdin>`.
    pub name: String,
    /// Its format, once its first line that is not blank was read.
    pub format: Option<Format>,
    /// Named by a kernel list (which must then not be another list).
    pub listed: bool,
}

impl Input {
    /// A file; `-` is standard input.
    pub fn path(path: impl Into<PathBuf>) -> Input {
        let path = path.into();
        if path.as_os_str() == "-" {
            return Input::stdin();
        }
        Input {
            name: path.display().to_string(),
            origin: Origin::Path(path),
            format: None,
            listed: false,
        }
    }

    /// Standard input, named `<stdin>`.
    pub fn stdin() -> Input {
        Input {
            origin: Origin::Stdin,
            name: "<stdin>".to_owned(),
            format: None,
            listed: false,
        }
    }

    /// Any reader, named `name` in messages.
    pub fn reader(name: impl Into<String>, reader: impl Read + Send + 'static) -> Input {
        Input {
            origin: Origin::Reader(Some(Box::new(reader))),
            name: name.into(),
            format: None,
            listed: false,
        }
    }

    /// The file's path, if it is one.
    pub fn file(&self) -> Option<&Path> {
        match &self.origin {
            Origin::Path(path) => Some(path),
            _ => None,
        }
    }
}

/// The format of an input, told by its first line that is not blank.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Corpus records, one JSON object a line (`smem_model::corpus`): passed
    /// on as lines, not read here.
    Corpus,
    /// An Accel-Sim / NVBit trace (`.traceg`, raw `.trace`).
    AccelSim,
    /// Accel-Sim's `kernelslist.g`: the kernel files it names are read.
    KernelList,
}

pub use crate::kernel::tally::Location;

/// An error found while reading, at its place in the input: a file that
/// could not be opened or read on (`file_level`), or a line that could not be read.
#[derive(Debug, Clone)]
pub struct ReadError {
    /// Where: the input, and the line (0: the file could not be opened).
    pub at: Location,
    /// What.
    pub reason: String,
    /// Whether the rest of the file is not read.
    pub file_level: bool,
}

/// What the headers say about the kernel of the instructions that follow:
/// small and `Copy`, the name an index into the reader's interned names.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KernelState {
    /// The kernel's name, as an index for [`Reader::name`] (0: no name).
    pub name: u32,
    /// `-binary version`, e.g. 86 for sm_86.
    pub binary_version: Option<u32>,
    /// What instruction lines need to be read.
    pub context: accelsim::Context,
}

/// Whole lines of one file, read together and analysed by one thread.
#[derive(Debug, Default)]
pub struct Chunk {
    /// The lines are `buf[..len]`, each ending in a newline but perhaps the
    /// file's last. The rest of the buffer is stale bytes of earlier chunks
    /// (buffers are recycled, never cleared).
    pub buf: Vec<u8>,
    /// The length of the lines in `buf`.
    pub len: usize,
    /// The input the lines are of.
    pub file: u32,
    /// The number of the first line.
    pub first_line: u64,
    /// The file's format, known from line `format_from` of the chunk on
    /// (earlier lines are blank or unreadable).
    pub format: Option<Format>,
    /// The index of the chunk's line from which `format` holds.
    pub format_from: u64,
    /// The kernel of trace instructions from each line on (an index into the
    /// chunk's lines, in order; the first at 0).
    pub kernels: Vec<(u64, KernelState)>,
    /// Errors found while reading, after the chunk's lines.
    pub errors: Vec<ReadError>,
    /// The names of the kernels in `kernels`, by their index.
    pub names: Vec<(u32, Arc<str>)>,
}

/// One line of a chunk.
pub struct Line<'a> {
    /// Its input and number.
    pub at: Location,
    /// The line without its `\n` (a `\r` before it is left to the parsers,
    /// which read it as whitespace).
    pub bytes: &'a [u8],
    /// The format, where known.
    pub format: Option<Format>,
    /// The kernel of a trace instruction on this line.
    pub kernel: KernelState,
}

impl Chunk {
    /// The name of a kernel of the chunk's lines ([`KernelState::name`]).
    pub fn kernel_name(&self, kernel: u32) -> &str {
        self.names
            .iter()
            .find(|(id, _)| *id == kernel)
            .map_or("", |(_, name)| name)
    }

    /// The chunk's lines, in order.
    pub fn lines(&self) -> Lines<'_> {
        Lines {
            chunk: self,
            start: 0,
            index: 0,
            kernel: 0,
            next_switch: self.kernels.get(1).map_or(u64::MAX, |k| k.0),
            current: self.kernels.first().map(|k| k.1).unwrap_or_default(),
            ends: Vec::with_capacity(ENDS),
            line: 0,
            scanned: 0,
        }
    }

    fn error(at: Location, reason: String, file_level: bool) -> Chunk {
        Chunk {
            file: at.input,
            errors: vec![ReadError {
                at,
                reason,
                file_level,
            }],
            ..Chunk::default()
        }
    }
}

/// The lines of a chunk ([`Chunk::lines`]).
pub struct Lines<'a> {
    chunk: &'a Chunk,
    /// Where the next line starts, and its index in the chunk.
    start: usize,
    index: u64,
    /// The kernel of the lines from `chunk.kernels[kernel]`'s on, and the
    /// index of the line where the next one starts.
    kernel: usize,
    next_switch: u64,
    current: KernelState,
    /// Where the next lines end (their newlines), found some hundreds at a
    /// time; the next line's index in them; where the search goes on.
    ends: Vec<usize>,
    line: usize,
    scanned: usize,
}

/// Newlines found at a time: memory stays bounded whatever the lines' length.
const ENDS: usize = 1024;

impl<'a> Iterator for Lines<'a> {
    type Item = Line<'a>;

    #[inline]
    fn next(&mut self) -> Option<Line<'a>> {
        let chunk = self.chunk;
        let len = chunk.len;
        if self.start >= len {
            return None;
        }
        if self.line == self.ends.len() {
            self.ends.clear();
            self.line = 0;
            self.scanned = newlines(&chunk.buf, len, self.scanned, &mut self.ends);
        }
        let end = self.ends.get(self.line).copied().unwrap_or(len);
        self.line += 1;
        let index = self.index;
        while self.next_switch <= index {
            self.kernel += 1;
            self.current = chunk.kernels[self.kernel].1;
            self.next_switch = chunk.kernels.get(self.kernel + 1).map_or(u64::MAX, |k| k.0);
        }
        let line = Line {
            at: Location {
                input: chunk.file,
                line: chunk.first_line + index,
            },
            bytes: &chunk.buf[self.start..end],
            format: chunk.format.filter(|_| index >= chunk.format_from),
            kernel: self.current,
        };
        self.start = end + 1;
        self.index += 1;
        Some(line)
    }
}

/// Appends to `ends` where the newlines of `buf[from..len]` are, in order,
/// found 64 bytes at a time (a bit mask of each block's newlines), not by one
/// search a line; stops once `ends` holds `ENDS - 64` or more. Returns where
/// the search stopped (`from` a multiple of 64, or `len`).
fn newlines(buf: &[u8], len: usize, from: usize, ends: &mut Vec<usize>) -> usize {
    let whole = len - len % 64;
    let mut block = from;
    while block < whole {
        if ends.len() > ENDS - 64 {
            return block;
        }
        let Some(bytes) = buf.get(block..).and_then(<[u8]>::first_chunk::<64>) else {
            break;
        };
        let mut bits = block_newlines(bytes);
        while bits != 0 {
            ends.push(block + bits.trailing_zeros() as usize);
            bits &= bits - 1;
        }
        block += 64;
    }
    if block < len {
        if ends.len() > ENDS - 64 {
            return block;
        }
        // The last, partial block: the bytes past `len` are stale (or not
        // there) and masked out.
        let mut bits = match buf.get(block..).and_then(<[u8]>::first_chunk::<64>) {
            Some(bytes) => block_newlines(bytes),
            None => block_newlines_scalar(&buf[block..len]),
        } & ((1u64 << (len - block)) - 1);
        while bits != 0 {
            ends.push(block + bits.trailing_zeros() as usize);
            bits &= bits - 1;
        }
    }
    len
}

/// A bit for each newline of `block` (bit i for byte i): with SSE2 on
/// x86-64, byte by byte elsewhere.
#[inline(always)]
fn block_newlines(block: &[u8; 64]) -> u64 {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    return sse2::newlines(block);
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    return block_newlines_scalar(block);
}

/// A bit for each newline of `bytes` (at most 64; bit i for byte i).
fn block_newlines_scalar(bytes: &[u8]) -> u64 {
    let mut bits = 0;
    for (i, &b) in bytes.iter().enumerate().take(64) {
        bits |= u64::from(b == b'\n') << i;
    }
    bits
}

/// Newlines sixteen bytes at a time with SSE2, which every x86-64 CPU has
/// (part of the architecture's baseline: the module exists only where the
/// compiler may assume it).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[allow(unsafe_code)]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
    };

    /// A bit for each newline of `block` (bit i for byte i).
    #[inline(always)]
    pub fn newlines(block: &[u8; 64]) -> u64 {
        // SAFETY: the intrinsics need SSE2, which this module's cfg says the
        // compiler may assume on every CPU the program runs on; the loads
        // read the 64 bytes of `block`, 16 at a time, at any alignment.
        unsafe {
            let newline = _mm_set1_epi8(b'\n' as i8);
            let bits = |i: usize| {
                let v = _mm_loadu_si128(block.as_ptr().add(16 * i).cast::<__m128i>());
                u64::from(_mm_movemask_epi8(_mm_cmpeq_epi8(v, newline)) as u16)
            };
            bits(0) | bits(1) << 16 | bits(2) << 32 | bits(3) << 48
        }
    }
}

/// The file being read.
struct Open {
    index: u32,
    reader: Box<dyn Read + Send>,
    /// Lines handed out so far.
    line: u64,
    format: Option<Format>,
    kernel: KernelState,
    /// The start of a line read past the last chunk's end.
    carry: Vec<u8>,
    /// The kernel files a kernel list names, as written.
    listed: Vec<String>,
}

/// Reads the inputs into chunks.
pub struct Reader {
    /// The inputs, kernel lists' files inserted after each list as it ends.
    pub inputs: Vec<Input>,
    next_file: usize,
    open: Option<Open>,
    progress: Progress,
    /// Buffers the workers are done with.
    pool: Vec<Vec<u8>>,
    /// Kernel names, interned: each name is stored once, however many headers
    /// and instructions name it.
    names: HashMap<Arc<str>, u32>,
    name_list: Vec<Arc<str>>,
}

/// How far reading has gone, for a progress bar: shared with the reader,
/// read from any thread.
#[derive(Debug, Clone, Default)]
pub struct Progress {
    read: Arc<AtomicU64>,
    total: Arc<AtomicU64>,
}

impl Progress {
    /// Bytes read from the files so far (compressed bytes, for `.xz`).
    pub fn read(&self) -> u64 {
        self.read.load(Ordering::Relaxed)
    }

    /// The sizes of the files known so far (those given, and those of kernel
    /// lists read); standard input and other readers count 0.
    pub fn total(&self) -> u64 {
        self.total.load(Ordering::Relaxed)
    }
}

/// A reader that counts its bytes into [`Progress::read`].
struct Counted<R> {
    inner: R,
    read: Arc<AtomicU64>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

impl Reader {
    /// A reader of `inputs`.
    pub fn new(inputs: Vec<Input>) -> Reader {
        let empty: Arc<str> = Arc::from("");
        let progress = Progress::default();
        let known: u64 = inputs
            .iter()
            .filter_map(|input| input.file())
            .filter_map(|path| std::fs::metadata(path).ok())
            .map(|meta| meta.len())
            .sum();
        progress.total.store(known, Ordering::Relaxed);
        Reader {
            inputs,
            next_file: 0,
            open: None,
            progress,
            pool: Vec::new(),
            names: HashMap::from_iter([(Arc::clone(&empty), 0)]),
            name_list: vec![empty],
        }
    }

    /// How far reading has gone (a handle that stays current).
    pub fn progress(&self) -> Progress {
        self.progress.clone()
    }

    /// The kernel name of an interned id.
    pub fn name(&self, id: u32) -> &str {
        self.name_list.get(id as usize).map_or("", |n| n)
    }

    /// Takes back a chunk's buffer for a later chunk.
    pub fn recycle(&mut self, buf: Vec<u8>) {
        if buf.len() == CHUNK_BYTES && self.pool.len() < 64 {
            self.pool.push(buf);
        }
    }

    /// The next chunk (perhaps holding only an error); `None` at the end of
    /// the last input.
    pub fn next_chunk(&mut self) -> Option<Chunk> {
        loop {
            let Some(open) = &mut self.open else {
                let input = self.inputs.get_mut(self.next_file)?;
                let index = self.next_file as u32;
                self.next_file += 1;
                match open_input(input, &self.progress.read) {
                    Ok(reader) => {
                        self.open = Some(Open {
                            index,
                            reader,
                            line: 0,
                            format: None,
                            kernel: KernelState::default(),
                            carry: Vec::new(),
                            listed: Vec::new(),
                        })
                    }
                    Err(err) => {
                        let at = Location {
                            input: index,
                            line: 0,
                        };
                        return Some(Chunk::error(at, err.to_string(), true));
                    }
                }
                continue;
            };
            let mut buf = self.pool.pop().unwrap_or_default();
            // A buffer at least half free after the carried line start: a
            // long line doubles it, so a line is copied O(1) times a byte.
            let size = CHUNK_BYTES.max(2 * open.carry.len());
            if buf.len() < size {
                buf.resize(size, 0);
            }
            let carried = open.carry.len();
            buf[..carried].copy_from_slice(&open.carry);
            open.carry.clear();
            let (len, failure) = fill(&mut *open.reader, &mut buf, carried);
            let at_end = failure.is_some() || len < buf.len();
            let mut len = len;
            if !at_end {
                // Whole lines only: what follows the last newline waits for
                // the next chunk (the carried part holds no newline).
                match memchr::memrchr(b'\n', &buf[carried..len]) {
                    Some(last) => {
                        let last = carried + last;
                        open.carry.extend_from_slice(&buf[last + 1..len]);
                        len = last + 1;
                    }
                    None => {
                        // One line fills the buffer: read on, or stop at the limit.
                        if len > MAX_LINE_BYTES {
                            let at = Location {
                                input: open.index,
                                line: open.line + 1,
                            };
                            self.recycle(buf);
                            self.close();
                            return Some(Chunk::error(at, too_long(at.line), true));
                        }
                        open.carry.extend_from_slice(&buf[..len]);
                        self.recycle(buf);
                        continue;
                    }
                }
            }
            if len == 0 && failure.is_none() {
                self.recycle(buf);
                self.close();
                continue;
            }
            let chunk = Chunk {
                buf,
                len,
                file: open.index,
                first_line: open.line + 1,
                ..Chunk::default()
            };
            return Some(self.finish(chunk, failure, at_end));
        }
    }

    /// Numbers the chunk's lines, checks their length, tells the format and
    /// follows the headers; closes the file at its end or on an error.
    fn finish(&mut self, mut chunk: Chunk, failure: Option<io::Error>, at_end: bool) -> Chunk {
        let Some(open) = self.open.as_mut() else {
            return chunk;
        };
        chunk.kernels.push((0, open.kernel));
        chunk.format = open.format;
        let mut lines = 0u64;
        let mut start = 0;
        let mut stop: Option<(String, bool)> = None;
        if chunk.len <= MAX_LINE_BYTES
            && matches!(open.format, Some(Format::AccelSim | Format::Corpus))
        {
            // No line can be too long, and only headers matter: the lines
            // are counted and the headers found in bulk, not line by line.
            let text = &chunk.buf[..chunk.len];
            if open.format == Some(Format::AccelSim) {
                let mut counted = (0, 0u64);
                for dash in memchr::memchr_iter(b'-', text) {
                    let Some(begin) = header_start(text, dash) else {
                        continue;
                    };
                    counted.1 += memchr::memchr_iter(b'\n', &text[counted.0..begin]).count() as u64;
                    counted.0 = begin;
                    let end = memchr::memchr(b'\n', &text[dash..]).map_or(text.len(), |n| dash + n);
                    let header = accelsim::header(&text[begin..end]);
                    open.kernel = apply(open.kernel, &header, &mut self.names, &mut self.name_list);
                    chunk.kernels.push((counted.1 + 1, open.kernel));
                }
            }
            lines = memchr::memchr_iter(b'\n', text).count() as u64
                + u64::from(text.last().is_some_and(|&b| b != b'\n'));
            start = chunk.len;
        }
        while start < chunk.len {
            let begin = start;
            let text = &chunk.buf[..chunk.len];
            let end = memchr::memchr(b'\n', &text[begin..]).map_or(text.len(), |n| begin + n);
            let index = lines;
            let number = open.line + index + 1;
            if end - begin > MAX_LINE_BYTES {
                chunk.len = begin;
                stop = Some((too_long(number), true));
                break;
            }
            lines += 1;
            start = end + 1;
            let line = &text[begin..end];
            match open.format {
                // Only headers matter here; the workers read the rest.
                Some(Format::AccelSim) => {
                    let first = match line.first() {
                        Some(b' ' | b'\t' | b'\r' | b'\x0c') => line.trim_ascii_start().first(),
                        first => first,
                    };
                    if first == Some(&b'-') {
                        let header = accelsim::header(line);
                        open.kernel =
                            apply(open.kernel, &header, &mut self.names, &mut self.name_list);
                        chunk.kernels.push((index + 1, open.kernel));
                    }
                }
                Some(Format::KernelList) => {
                    let entry = line.trim_ascii();
                    if entry.is_empty() || entry.starts_with(b"Memcpy") {
                        continue;
                    }
                    if open.listed.len() == MAX_LISTED {
                        lines -= 1;
                        stop = Some((
                            format!(
                                "line {number}: the kernel list names more than {MAX_LISTED} \
                                 kernel files (the most read from one list)"
                            ),
                            true,
                        ));
                        break;
                    }
                    open.listed
                        .push(String::from_utf8_lossy(entry).into_owned());
                }
                Some(Format::Corpus) => {}
                None => {
                    // The file's first readable line that is not blank tells
                    // its format; unreadable ones before it are the workers'
                    // to report.
                    let trimmed = line.trim_ascii();
                    if trimmed.is_empty() || std::str::from_utf8(trimmed).is_err() {
                        continue;
                    }
                    let listed = self.inputs[open.index as usize].listed;
                    match detect(trimmed, &open.kernel.context, number, listed) {
                        Ok(format) => {
                            open.format = Some(format);
                            chunk.format = Some(format);
                            chunk.format_from = index;
                            match format {
                                Format::AccelSim if trimmed.starts_with(b"-") => {
                                    let header = accelsim::header(trimmed);
                                    open.kernel = apply(
                                        open.kernel,
                                        &header,
                                        &mut self.names,
                                        &mut self.name_list,
                                    );
                                    chunk.kernels.push((index + 1, open.kernel));
                                }
                                Format::KernelList if !trimmed.starts_with(b"Memcpy") => {
                                    open.listed
                                        .push(String::from_utf8_lossy(trimmed).into_owned());
                                }
                                _ => {}
                            }
                        }
                        Err(reason) => {
                            // The file stops here; the lines before it stay.
                            chunk.len = begin;
                            lines -= 1;
                            stop = Some((reason, true));
                            break;
                        }
                    }
                }
            }
        }
        if open.format == Some(Format::KernelList) {
            // A list's lines are followed here, not analysed.
            chunk.len = 0;
        }
        open.line += lines;
        if let Some((reason, file_level)) = stop {
            chunk.errors.push(ReadError {
                at: Location {
                    input: open.index,
                    line: open.line + 1,
                },
                reason,
                file_level,
            });
            self.close();
        } else if let Some(err) = failure {
            chunk.errors.push(ReadError {
                at: Location {
                    input: open.index,
                    line: open.line + 1,
                },
                reason: format!("cannot read: {err}"),
                file_level: false,
            });
            self.close();
        } else if at_end {
            self.close();
        }
        for &(_, kernel) in &chunk.kernels {
            if !chunk.names.iter().any(|(id, _)| *id == kernel.name) {
                let name = self.name_list.get(kernel.name as usize).cloned();
                chunk
                    .names
                    .push((kernel.name, name.unwrap_or_else(|| Arc::from(""))));
            }
        }
        chunk
    }

    /// Closes the open file; a kernel list's kernel files are read next.
    fn close(&mut self) {
        let Some(open) = self.open.take() else {
            return;
        };
        let input = &mut self.inputs[open.index as usize];
        input.format = open.format;
        if open.listed.is_empty() {
            return;
        }
        let folder = input
            .file()
            .and_then(Path::parent)
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let listed: Vec<Input> = open
            .listed
            .iter()
            .map(|entry| {
                let mut path = folder.join(entry);
                // Accel-Sim lists kernel-N.traceg; stored traces are often
                // kernel-N.traceg.xz beside the list.
                if !path.exists() && !entry.ends_with(".xz") {
                    let xz = folder.join(format!("{entry}.xz"));
                    if xz.exists() {
                        path = xz;
                    }
                }
                if let Ok(meta) = std::fs::metadata(&path) {
                    self.progress.total.fetch_add(meta.len(), Ordering::Relaxed);
                }
                Input {
                    name: path.display().to_string(),
                    origin: Origin::Path(path),
                    format: None,
                    listed: true,
                }
            })
            .collect();
        let at = self.next_file;
        self.inputs.splice(at..at, listed);
    }
}

/// Where the line holding the `-` at `dash` starts, if it is a header line:
/// the `-` is its first byte that is not whitespace (as the line-by-line
/// reading checks it).
fn header_start(text: &[u8], dash: usize) -> Option<usize> {
    let mut begin = dash;
    while begin > 0 && matches!(text[begin - 1], b' ' | b'\t' | b'\r' | b'\x0c') {
        begin -= 1;
    }
    (begin == 0 || text[begin - 1] == b'\n').then_some(begin)
}

/// The kernel state after a header: the name interned.
fn apply(
    mut kernel: KernelState,
    header: &Header<'_>,
    names: &mut HashMap<Arc<str>, u32>,
    name_list: &mut Vec<Arc<str>>,
) -> KernelState {
    match *header {
        Header::KernelName(name) => {
            kernel.name = match names.get(name) {
                Some(&id) => id,
                None => {
                    let id = name_list.len() as u32;
                    let name: Arc<str> = Arc::from(name);
                    names.insert(Arc::clone(&name), id);
                    name_list.push(name);
                    id
                }
            };
        }
        Header::BinaryVersion(version) => kernel.binary_version = version,
        Header::ShmemBase(base) => kernel.context.shmem_base = base,
        Header::LineInfo(on) => kernel.context.lineinfo = on,
        Header::Other { .. } => {}
    }
    kernel
}

fn too_long(line: u64) -> String {
    format!(
        "line {line} is longer than the limit of {MAX_LINE_BYTES} bytes (1 MiB); \
         the rest of the file is not read"
    )
}

/// The format a file's first non-blank line shows.
fn detect(
    line: &[u8],
    context: &accelsim::Context,
    number: u64,
    listed: bool,
) -> Result<Format, String> {
    if line.starts_with(b"{") {
        return Ok(Format::Corpus);
    }
    if line.starts_with(b"MemcpyHtoD") || line.starts_with(b"kernel-") {
        if listed {
            return Err(format!(
                "line {number}: a kernel list inside a kernel list is not followed"
            ));
        }
        return Ok(Format::KernelList);
    }
    match accelsim::line(line, context) {
        Err(reason) if reason == accelsim::NOT_AN_INSTRUCTION => Err(format!(
            "line {number}: neither a corpus record (a JSON object) nor an Accel-Sim trace line"
        )),
        _ => Ok(Format::AccelSim),
    }
}

/// Reads into `buf[len..]` until it is full or the input ends; the new
/// length, and the error that stopped it, if one did. Reads straight into
/// the buffer: nothing is zeroed or copied on the way.
fn fill(reader: &mut dyn Read, buf: &mut [u8], mut len: usize) -> (usize, Option<io::Error>) {
    while len < buf.len() {
        match reader.read(&mut buf[len..]) {
            Ok(0) => break,
            Ok(n) => len += n,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return (len, Some(err)),
        }
    }
    (len, None)
}

/// Opens an input, counting its bytes into `read` and decompressing it when
/// it is xz (by its magic bytes). Directories are refused up front: on Linux
/// they open and fail only on the first read.
///
/// # Errors
///
/// The file's: it cannot be opened or read, it is a directory (with a hint
/// when the directory holds a `kernelslist.g`), or a reader was taken already.
fn open_input(input: &mut Input, read: &Arc<AtomicU64>) -> io::Result<Box<dyn Read + Send>> {
    let raw: Box<dyn Read + Send> = match &mut input.origin {
        Origin::Stdin => Box::new(io::stdin()),
        Origin::Reader(reader) => reader
            .take()
            .ok_or_else(|| io::Error::other("the reader was read already"))?,
        Origin::Path(path) => {
            let file = File::open(&*path)?;
            if file.metadata()?.is_dir() {
                let hint = if path.join("kernelslist.g").exists() {
                    format!(
                        " (pass {} to read the traces it lists)",
                        path.join("kernelslist.g").display()
                    )
                } else {
                    String::new()
                };
                return Err(io::Error::other(format!("is a directory{hint}")));
            }
            Box::new(file)
        }
    };
    let mut raw = Counted {
        inner: raw,
        read: Arc::clone(read),
    };
    let mut magic = [0u8; 6];
    let (got, failure) = fill(&mut raw, &mut magic, 0);
    if let Some(err) = failure {
        return Err(err);
    }
    let input = io::Cursor::new(magic[..got].to_vec()).chain(raw);
    if magic[..got] == XZ_MAGIC[..] {
        // Concatenated streams (as `xz` and `pixz` may write) read as one.
        Ok(Box::new(Xz(liblzma::read::XzDecoder::new_multi_decoder(
            input,
        ))))
    } else {
        Ok(Box::new(input))
    }
}

/// An xz decoder whose errors say that the data is xz.
struct Xz<R: Read>(liblzma::read::XzDecoder<R>);

impl<R: Read> Read for Xz<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0
            .read(buf)
            .map_err(|err| io::Error::new(err.kind(), format!("xz-compressed data: {err}")))
    }
}

#[cfg(test)]
mod tests {
    use super::newlines;

    /// The newlines found 64 bytes at a time (SSE2 where the buffer holds a
    /// whole block, byte by byte where it does not) are memchr's, for every
    /// length, with stale newlines past the end in the buffer.
    #[test]
    fn newlines_are_memchrs() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut random = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..20_000 {
            let size = if random() % 8 == 0 {
                (random() % 5000) as usize
            } else {
                (random() % 300) as usize
            };
            let density = 1 + random() % 40;
            let buf: Vec<u8> = (0..size)
                .map(|_| {
                    if random() % density == 0 {
                        b'\n'
                    } else {
                        (random() % 256) as u8
                    }
                })
                .collect();
            let len = if size == 0 {
                0
            } else {
                (random() as usize) % (size + 1)
            };
            let mut found = Vec::new();
            let mut from = 0;
            loop {
                let mut ends = Vec::new();
                from = newlines(&buf, len, from, &mut ends);
                assert!(ends.len() <= super::ENDS, "{} newlines at once", ends.len());
                found.extend(ends);
                if from >= len {
                    break;
                }
            }
            let expected: Vec<usize> = memchr::memchr_iter(b'\n', &buf[..len]).collect();
            assert_eq!(found, expected, "size {size}, len {len}");
        }
    }
}
