//! Reading the inputs of `smem trace` into chunks of lines: one file after
//! another, each line tagged with where it is and what it is (a corpus record,
//! a trace instruction with its kernel, or an error), trace headers followed
//! and instructions that cannot touch shared memory skipped on the way.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::PathBuf;
use std::sync::Arc;

use indicatif::ProgressBar;

use super::accelsim::{self, Kernel};

/// Lines per chunk, and bytes: small enough that a batch of chunks stays a few
/// megabytes, large enough that a chunk is worth sending to a thread and that
/// naming its instructions (once a chunk) costs little beside its requests.
const CHUNK_LINES: usize = 4096;
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

/// What a line of a chunk is.
#[derive(Debug, Clone)]
pub(super) enum LineKind {
    /// A corpus record, to parse.
    Corpus,
    /// A possible shared-memory instruction of a trace, with its kernel.
    AccelSim(Arc<Kernel>),
    /// A line that could not be read: the reason.
    Unreadable(String),
    /// A file that could not be read: the reason.
    FileError(String),
}

/// One line of a chunk: where it is, and its text in the chunk's buffer.
#[derive(Debug, Clone)]
pub(super) struct LineRef {
    pub(super) at: Location,
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) kind: LineKind,
}

/// A file (index in the inputs) and line (from 1; 0 for the file itself),
/// ordered as the input is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) struct Location {
    pub(super) file: u32,
    pub(super) line: u64,
}

/// Lines read together and analysed by one thread.
#[derive(Debug, Default)]
pub(super) struct Chunk {
    pub(super) text: String,
    pub(super) lines: Vec<LineRef>,
}

impl Chunk {
    fn push(&mut self, at: Location, text: &str, kind: LineKind) {
        let start = self.text.len();
        self.text.push_str(text);
        self.lines.push(LineRef {
            at,
            start,
            end: self.text.len(),
            kind,
        });
    }

    fn is_full(&self) -> bool {
        self.lines.len() >= CHUNK_LINES || self.text.len() >= CHUNK_BYTES
    }
}

/// The file being read.
pub(super) struct Open {
    pub(super) index: u32,
    pub(super) reader: Box<dyn BufRead + Send>,
    pub(super) line: u64,
    pub(super) format: Option<Format>,
    pub(super) kernel: Arc<Kernel>,
}

/// Reads the inputs one line at a time into chunks.
pub(super) struct Reader {
    pub(super) inputs: Vec<Input>,
    pub(super) next_file: usize,
    pub(super) open: Option<Open>,
    pub(super) progress: ProgressBar,
    pub(super) buffer: Vec<u8>,
    /// Trace instructions that do not touch shared memory.
    pub(super) other_instructions: u64,
}

impl Reader {
    /// Up to `chunks` chunks; fewer (or none) at the end of the input.
    pub(super) fn batch(&mut self, chunks: usize) -> Vec<Chunk> {
        let mut batch = Vec::new();
        let mut chunk = Chunk::default();
        while self.next_line(&mut chunk) {
            if chunk.is_full() {
                batch.push(std::mem::take(&mut chunk));
                if batch.len() == chunks {
                    return batch;
                }
            }
        }
        if !chunk.lines.is_empty() {
            batch.push(chunk);
        }
        batch
    }

    /// Reads one line (or opens a file) into `chunk`; false at the end of the
    /// last input.
    fn next_line(&mut self, chunk: &mut Chunk) -> bool {
        loop {
            let Some(open) = &mut self.open else {
                let Some(input) = self.inputs.get(self.next_file) else {
                    return false;
                };
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
                        })
                    }
                    Err(err) => {
                        let at = Location {
                            file: index,
                            line: 0,
                        };
                        chunk.push(at, "", LineKind::FileError(err.to_string()));
                        return true;
                    }
                }
                continue;
            };
            self.buffer.clear();
            match open.reader.read_until(b'\n', &mut self.buffer) {
                Ok(0) => {
                    self.inputs[open.index as usize].format = open.format;
                    self.open = None;
                }
                Ok(_) => {
                    open.line += 1;
                    let at = Location {
                        file: open.index,
                        line: open.line,
                    };
                    if open.line == 1 && self.buffer.starts_with(b"\xfd7zXZ\0") {
                        let reason =
                            "xz-compressed: decompress it first (xz -dc FILE | smem trace -)";
                        chunk.push(at, "", LineKind::FileError(reason.to_owned()));
                        self.open = None;
                        return true;
                    }
                    while self
                        .buffer
                        .last()
                        .is_some_and(|b| *b == b'\n' || *b == b'\r')
                    {
                        self.buffer.pop();
                    }
                    // Taken out of `self` while `classify` borrows it.
                    let buffer = std::mem::take(&mut self.buffer);
                    match std::str::from_utf8(&buffer) {
                        Ok(text) => self.classify(text, at, chunk),
                        Err(_) => {
                            let reason = "cannot read: stream did not contain valid UTF-8";
                            chunk.push(at, "", LineKind::Unreadable(reason.to_owned()));
                        }
                    }
                    self.buffer = buffer;
                    return true;
                }
                Err(err) => {
                    let at = Location {
                        file: open.index,
                        line: open.line + 1,
                    };
                    chunk.push(at, "", LineKind::Unreadable(format!("cannot read: {err}")));
                    self.inputs[open.index as usize].format = open.format;
                    self.open = None;
                    return true;
                }
            }
        }
    }

    /// Detects the format on a file's first line, follows trace headers, and
    /// puts the lines to analyse into `chunk`.
    fn classify(&mut self, text: &str, at: Location, chunk: &mut Chunk) {
        let Some(open) = &mut self.open else { return };
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return;
        }
        let format = match open.format {
            Some(format) => format,
            None => {
                let format = if trimmed.starts_with('{') {
                    Format::Corpus
                } else if trimmed.starts_with('-')
                    || trimmed.starts_with('#')
                    || !matches!(accelsim::parse(trimmed, &open.kernel), Err(ref e) if e.starts_with("not an instruction"))
                {
                    Format::AccelSim
                } else {
                    let hint = if trimmed.starts_with("MemcpyHtoD")
                        || trimmed.starts_with("kernel-")
                    {
                        ": this looks like a kernel list; pass the kernel-N.traceg files it names"
                    } else {
                        ""
                    };
                    let reason = format!(
                        "line {}: neither a corpus record (a JSON object) nor an Accel-Sim trace line{hint}",
                        at.line
                    );
                    chunk.push(at, "", LineKind::FileError(reason));
                    self.open = None;
                    return;
                };
                open.format = Some(format);
                format
            }
        };
        match format {
            Format::Corpus => chunk.push(at, trimmed, LineKind::Corpus),
            Format::AccelSim => {
                if trimmed.starts_with('-') {
                    Arc::make_mut(&mut open.kernel).header(trimmed);
                } else if trimmed.starts_with('#')
                    || trimmed.starts_with("thread block")
                    || trimmed.starts_with("warp")
                    || trimmed.starts_with("insts")
                {
                    // Structure of the .traceg form: nothing to analyse.
                } else if accelsim::may_be_shared(trimmed) {
                    chunk.push(at, trimmed, LineKind::AccelSim(Arc::clone(&open.kernel)));
                } else {
                    self.other_instructions += 1;
                }
            }
        }
    }
}

/// Opens a file (or stdin), counting its bytes on the progress bar. Directories
/// are refused up front: on Linux they open and fail only on the first read.
pub(super) fn open_input(
    input: &Input,
    progress: &ProgressBar,
) -> io::Result<Box<dyn BufRead + Send>> {
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
    Ok(Box::new(BufReader::with_capacity(
        256 * 1024,
        progress.wrap_read(reader),
    )))
}
