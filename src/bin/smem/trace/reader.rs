//! Reading the inputs of `smem trace` into chunks: blocks of whole lines of
//! one file, read with one copy and handed to the workers as they are.
//!
//! The reader does only what must be done in input order: it numbers lines,
//! tells each file's format by its first line, and follows trace headers
//! (which name the kernel of the instructions after them). Splitting the lines,
//! checking their encoding, classifying and parsing them is the workers'
//! (`Chunk::lines`), so a second core shares all of the per-line work.

use std::fs::File;
use std::io::{self, Read};
use std::path::PathBuf;
use std::sync::Arc;

use indicatif::ProgressBar;

use super::accelsim::{self, Kernel};

/// Bytes per chunk: small enough that a batch of chunks stays a few megabytes,
/// large enough that a chunk is worth sending to a thread and that naming its
/// instructions (once a chunk) costs little beside its requests. A chunk holds
/// whole lines, so one with a longer line is as long as that line.
const CHUNK_BYTES: usize = 256 * 1024;

/// A file to read and the format found in it.
#[derive(Debug)]
pub(super) struct Input {
    pub(super) path: Option<PathBuf>,
    pub(super) name: String,
    pub(super) format: Option<Format>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Format {
    Corpus,
    AccelSim,
}

/// A file (index in the inputs) and line (from 1; 0 for the file itself),
/// ordered as the input is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) struct Location {
    pub(super) file: u32,
    pub(super) line: u64,
}

/// An error found while reading, at its place in the input: a file that
/// could not be opened or read on (`file_level`), or a line that could not be read.
#[derive(Debug, Clone)]
pub(super) struct ReadError {
    pub(super) at: Location,
    pub(super) reason: String,
    pub(super) file_level: bool,
}

/// Whole lines of one file, read together and analysed by one thread.
#[derive(Debug, Default)]
pub(super) struct Chunk {
    /// The lines, each ending in a newline but perhaps the file's last.
    pub(super) text: Vec<u8>,
    pub(super) file: u32,
    /// The number of the first line of `text`.
    pub(super) first_line: u64,
    /// The file's format, known from line `format_from` of the chunk on
    /// (earlier lines are blank or unreadable).
    pub(super) format: Option<Format>,
    pub(super) format_from: u64,
    /// The kernel of trace instructions from each line on (an index into the
    /// chunk's lines, in order; the first at 0).
    pub(super) kernels: Vec<(u64, Arc<Kernel>)>,
    /// Errors found while reading, after the chunk's lines.
    pub(super) errors: Vec<ReadError>,
}

/// One line of a chunk.
pub(super) struct Line<'a> {
    pub(super) at: Location,
    /// The line without its end (`\n`, `\r\n`).
    pub(super) bytes: &'a [u8],
    /// The format, where known.
    pub(super) format: Option<Format>,
    /// The kernel of a trace instruction on this line.
    pub(super) kernel: &'a Arc<Kernel>,
}

impl Chunk {
    /// The chunk's lines, in order.
    pub(super) fn lines(&self) -> impl Iterator<Item = Line<'_>> {
        let mut start = 0;
        let mut index = 0u64;
        let mut kernel = 0;
        std::iter::from_fn(move || {
            if start >= self.text.len() {
                return None;
            }
            let end =
                memchr::memchr(b'\n', &self.text[start..]).map_or(self.text.len(), |n| start + n);
            let mut bytes = &self.text[start..end];
            while let [rest @ .., b'\r'] = bytes {
                bytes = rest;
            }
            while self
                .kernels
                .get(kernel + 1)
                .is_some_and(|(from, _)| *from <= index)
            {
                kernel += 1;
            }
            let line = Line {
                at: Location {
                    file: self.file,
                    line: self.first_line + index,
                },
                bytes,
                format: self.format.filter(|_| index >= self.format_from),
                kernel: &self.kernels[kernel].1,
            };
            start = end + 1;
            index += 1;
            Some(line)
        })
    }
}

/// The file being read.
pub(super) struct Open {
    pub(super) index: u32,
    pub(super) reader: Box<dyn Read + Send>,
    /// Lines handed out so far.
    pub(super) line: u64,
    pub(super) format: Option<Format>,
    pub(super) kernel: Arc<Kernel>,
    /// The start of a line read past the last chunk's end.
    pub(super) carry: Vec<u8>,
}

/// Reads the inputs into chunks.
pub(super) struct Reader {
    pub(super) inputs: Vec<Input>,
    pub(super) next_file: usize,
    pub(super) open: Option<Open>,
    pub(super) progress: ProgressBar,
}

impl Reader {
    /// A reader of `inputs`, counting bytes on `progress`.
    pub(super) fn new(inputs: Vec<Input>, progress: ProgressBar) -> Reader {
        Reader {
            inputs,
            next_file: 0,
            open: None,
            progress,
        }
    }

    /// The next chunk (perhaps holding only an error); `None` at the end of
    /// the last input.
    pub(super) fn next_chunk(&mut self) -> Option<Chunk> {
        loop {
            let Some(open) = &mut self.open else {
                let input = self.inputs.get(self.next_file)?;
                let index = self.next_file as u32;
                self.next_file += 1;
                match open_input(input, &self.progress) {
                    Ok(reader) => {
                        self.open = Some(Open {
                            index,
                            reader,
                            line: 0,
                            format: None,
                            kernel: Arc::new(Kernel::default()),
                            carry: Vec::new(),
                        })
                    }
                    Err(err) => {
                        let at = Location {
                            file: index,
                            line: 0,
                        };
                        return Some(Chunk::error(at, err.to_string(), true));
                    }
                }
                continue;
            };
            let mut text = std::mem::take(&mut open.carry);
            let mut failure = fill_to(&mut *open.reader, &mut text, CHUNK_BYTES);
            // `fill_to` stops short only at the end of the input or on an error.
            let mut at_end = failure.is_some() || text.len() < CHUNK_BYTES;
            while !at_end {
                // Whole lines only: what follows the last newline waits for the
                // next chunk. Without a newline, the line goes on: read on.
                if let Some(last) = memchr::memrchr(b'\n', &text) {
                    open.carry = text.split_off(last + 1);
                    break;
                }
                let want = text.len() + CHUNK_BYTES;
                failure = fill_to(&mut *open.reader, &mut text, want);
                at_end = failure.is_some() || text.len() < want;
            }
            if text.is_empty() && failure.is_none() {
                self.close();
                continue;
            }
            let chunk = Chunk {
                text,
                file: open.index,
                first_line: open.line + 1,
                ..Chunk::default()
            };
            return Some(self.finish(chunk, failure, at_end));
        }
    }

    /// Numbers the chunk's lines, tells the format and follows the headers;
    /// closes the file at its end or on a failure to read it.
    fn finish(&mut self, mut chunk: Chunk, failure: Option<io::Error>, at_end: bool) -> Chunk {
        let Some(open) = &mut self.open else {
            return chunk;
        };
        if open.line == 0 && chunk.text.starts_with(b"\xfd7zXZ\0") {
            let at = Location {
                file: open.index,
                line: 1,
            };
            let reason = "xz-compressed: decompress it first (xz -dc FILE | smem trace -)";
            self.close();
            return Chunk::error(at, reason.to_owned(), true);
        }
        chunk.kernels.push((0, Arc::clone(&open.kernel)));
        chunk.format = open.format;
        let mut lines = 0u64;
        let mut start = 0;
        while start < chunk.text.len() {
            let begin = start;
            let end =
                memchr::memchr(b'\n', &chunk.text[begin..]).map_or(chunk.text.len(), |n| begin + n);
            let index = lines;
            lines += 1;
            start = end + 1;
            let line = trim_start(&chunk.text[begin..end]);
            match open.format {
                // Only headers matter here; the workers read the rest.
                Some(Format::AccelSim) if line.first() == Some(&b'-') => {
                    if let Ok(text) = std::str::from_utf8(line) {
                        Arc::make_mut(&mut open.kernel).header(text.trim());
                        chunk.kernels.push((index + 1, Arc::clone(&open.kernel)));
                    }
                }
                Some(_) => {}
                None => {
                    // The file's first readable line that is not blank tells
                    // its format; unreadable ones before it are the workers'
                    // to report.
                    let Ok(text) = std::str::from_utf8(line).map(str::trim) else {
                        continue;
                    };
                    if text.is_empty() {
                        continue;
                    }
                    let at = Location {
                        file: open.index,
                        line: open.line + index + 1,
                    };
                    match detect(text, &open.kernel, at.line) {
                        Ok(format) => {
                            open.format = Some(format);
                            chunk.format = Some(format);
                            chunk.format_from = index;
                            if format == Format::AccelSim && text.starts_with('-') {
                                Arc::make_mut(&mut open.kernel).header(text);
                                chunk.kernels.push((index + 1, Arc::clone(&open.kernel)));
                            }
                        }
                        Err(reason) => {
                            // The file stops here; the lines before it stay.
                            chunk.text.truncate(begin);
                            chunk.errors.push(ReadError {
                                at,
                                reason,
                                file_level: true,
                            });
                            self.close();
                            return chunk;
                        }
                    }
                }
            }
        }
        open.line += lines;
        if let Some(err) = failure {
            chunk.errors.push(ReadError {
                at: Location {
                    file: open.index,
                    line: open.line + 1,
                },
                reason: format!("cannot read: {err}"),
                file_level: false,
            });
            self.close();
        } else if at_end {
            self.close();
        }
        chunk
    }

    fn close(&mut self) {
        if let Some(open) = self.open.take() {
            self.inputs[open.index as usize].format = open.format;
        }
    }
}

impl Chunk {
    fn error(at: Location, reason: String, file_level: bool) -> Chunk {
        Chunk {
            file: at.file,
            kernels: vec![(0, Arc::new(Kernel::default()))],
            errors: vec![ReadError {
                at,
                reason,
                file_level,
            }],
            ..Chunk::default()
        }
    }
}

fn trim_start(line: &[u8]) -> &[u8] {
    let skip = line.iter().take_while(|b| b.is_ascii_whitespace()).count();
    &line[skip..]
}

/// The format a file's first non-blank line shows.
fn detect(line: &str, kernel: &Kernel, number: u64) -> Result<Format, String> {
    if line.starts_with('{') {
        return Ok(Format::Corpus);
    }
    if line.starts_with('-')
        || line.starts_with('#')
        || !matches!(accelsim::parse(line, kernel), Err(ref e) if e.starts_with("not an instruction"))
    {
        return Ok(Format::AccelSim);
    }
    let hint = if line.starts_with("MemcpyHtoD") || line.starts_with("kernel-") {
        ": this looks like a kernel list; pass the kernel-N.traceg files it names"
    } else {
        ""
    };
    Err(format!(
        "line {number}: neither a corpus record (a JSON object) nor an Accel-Sim trace line{hint}"
    ))
}

/// Reads into `text` until it holds `want` bytes or the input ends.
fn fill_to(reader: &mut dyn Read, text: &mut Vec<u8>, want: usize) -> Option<io::Error> {
    while text.len() < want {
        let len = text.len();
        text.resize(want, 0);
        match reader.read(&mut text[len..]) {
            Ok(0) => {
                text.truncate(len);
                return None;
            }
            Ok(n) => text.truncate(len + n),
            Err(err) if err.kind() == io::ErrorKind::Interrupted => text.truncate(len),
            Err(err) => {
                text.truncate(len);
                return Some(err);
            }
        }
    }
    None
}

/// Opens a file (or stdin), counting its bytes on the progress bar. Directories
/// are refused up front: on Linux they open and fail only on the first read.
pub(super) fn open_input(
    input: &Input,
    progress: &ProgressBar,
) -> io::Result<Box<dyn Read + Send>> {
    let reader: Box<dyn Read + Send> = match &input.path {
        None => Box::new(io::stdin()),
        Some(path) => {
            let file = File::open(path)?;
            if file.metadata()?.is_dir() {
                return Err(io::Error::other("is a directory"));
            }
            Box::new(file)
        }
    };
    Ok(Box::new(progress.wrap_read(reader)))
}
