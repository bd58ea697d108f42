//! A trace's files, read in order into a consumer's events: kernels from
//! their headers, thread blocks from their markers (`.traceg`) or gathered
//! from the block and warp on each line (the raw `.trace` form).

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use super::ended::{Ended, Inserted, Unheld, MAX_ENDED_RUNS, MAX_GRID_BITMAP};
use super::input::{Chunk, Format, Input, Location, Reader};
use super::line::{self, Class, Header, Instruction, Line};
use crate::kernel::{BlockInfo, Consumer, Event, KernelInfo, Place, Site};
use crate::{ComputeCapability, ConstantLoad, Error, LaneSet, Op, WarpRequest};

/// The most events of raw-form thread blocks still being gathered (their
/// blocks not yet ended), counting each warp that exited as one: a raw trace
/// whose blocks never end is refused beyond this, so memory stays bounded
/// (some 160 bytes an event).
pub const MAX_GATHERED: usize = 1 << 22;

/// The most raw-form thread blocks gathered at once (begun, not yet ended):
/// a raw trace with more is refused beyond this, so memory stays bounded
/// (some 400 bytes a block, 26 MB in all). A GPU runs a few thousand blocks
/// at once, and the tracer writes `-block dim`, by which a block ends when
/// all its threads exited.
pub const MAX_OPEN_BLOCKS: usize = 1 << 16;

/// The largest warp id a trace may name, plus one: a block's threads are
/// numbered in 32 bits (32 a warp), so a warp id is below 2^27.
pub const WARP_LIMIT: u32 = 1 << 27;

/// What a [`Trace`] read, besides the events it passed on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Summary {
    /// Lines read.
    pub lines: u64,
    /// Kernels announced to the consumer.
    pub kernels: u64,
    /// Thread blocks announced to the consumer.
    pub blocks: u64,
    /// Instruction lines.
    pub instructions: u64,
    /// Instruction lines that became no event (they neither touch shared
    /// memory nor synchronise).
    pub other_instructions: u64,
    /// Lines and files that could not be read (each passed to the error
    /// handler of [`Trace::read_with`]).
    pub errors: u64,
}

/// An Accel-Sim / NVBit trace: one or more files read in order into a
/// [`Consumer`]'s events (see the [module docs](super) for which instruction
/// becomes which event).
///
/// Nothing is opened before [`read`](Trace::read): a file that cannot be
/// opened is an error of the reading, located at the file.
///
/// # Example
///
/// ```
/// use smem_model::kernel::accelsim::Trace;
/// use smem_model::kernel::{Consumer, Event};
/// use smem_model::Error;
///
/// let trace = "-kernel name = copy\n-binary version = 80\n\
///              #BEGIN_TB\nthread block = 0,0,0\nwarp = 0\n\
///              0010 ffffffff 0 STS 2 R1 R2 4 1 0x0 4\n\
///              0020 ffffffff 0 BAR.SYNC 0 0 0\n\
///              0030 ffffffff 1 R3 LDS 1 R2 4 1 0x4 4\n#END_TB\n";
///
/// struct Ops(Vec<String>);
/// impl Consumer for Ops {
///     fn event(&mut self, warp: u32, event: &Event<'_>) -> Result<(), Error> {
///         self.0.push(match event {
///             Event::Access { request, .. } => format!("{warp}: {}", request.op()),
///             Event::Barrier { id, .. } => format!("{warp}: barrier {id}"),
///             other => format!("{other:?}"),
///         });
///         Ok(())
///     }
/// }
///
/// let mut ops = Ops(Vec::new());
/// let summary = Trace::from_reader("copy.traceg", trace.as_bytes()).read(&mut ops)?;
/// assert_eq!(ops.0, ["0: STS", "0: barrier 0", "0: LDS"]);
/// assert_eq!((summary.kernels, summary.blocks, summary.instructions), (1, 1, 3));
/// # Ok::<(), Error>(())
/// ```
pub struct Trace {
    reader: Reader,
    capability: Option<ComputeCapability>,
}

impl std::fmt::Debug for Trace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Trace")
            .field("inputs", &self.reader.inputs)
            .field("capability", &self.capability)
            .finish_non_exhaustive()
    }
}

impl Trace {
    /// A trace in one file: a kernel's `.traceg` or raw `.trace`, or
    /// `kernelslist.g` (its kernel files are read in its place, relative to
    /// its folder; `kernel-N.traceg.xz` where only that is there), any of
    /// them xz-compressed (told by its first bytes). `-` is standard input.
    pub fn open(path: impl Into<PathBuf>) -> Trace {
        Trace::inputs(vec![Input::path(path)])
    }

    /// A trace in several files, read in order, each as [`Trace::open`]
    /// reads one.
    pub fn files<P: Into<PathBuf>>(paths: impl IntoIterator<Item = P>) -> Trace {
        Trace::inputs(paths.into_iter().map(Input::path).collect())
    }

    /// A trace on standard input.
    pub fn stdin() -> Trace {
        Trace::inputs(vec![Input::stdin()])
    }

    /// A trace from any reader (xz-compressed or not), named `name` in
    /// messages. A kernel list read this way names files relative to the
    /// current folder.
    pub fn from_reader(
        name: impl Into<String>,
        reader: impl std::io::Read + Send + 'static,
    ) -> Trace {
        Trace::inputs(vec![Input::reader(name, reader)])
    }

    /// A trace in these inputs.
    pub fn inputs(inputs: Vec<Input>) -> Trace {
        Trace {
            reader: Reader::new(inputs),
            capability: None,
        }
    }

    /// Announces every kernel with this compute capability, instead of the
    /// one its header's `-binary version` names (none when it names none).
    #[must_use]
    pub fn with_capability(mut self, capability: ComputeCapability) -> Trace {
        self.capability = Some(capability);
        self
    }

    /// The reader: the inputs (with kernel lists' files once read), progress.
    pub fn reader(&self) -> &Reader {
        &self.reader
    }

    /// Reads the whole trace into `consumer`, stopping at the first line or
    /// file that cannot be read.
    ///
    /// # Errors
    ///
    /// [`Error::Trace`] for the first line that cannot be read (with its file
    /// and line, and the same text `smem trace` prints), a file that cannot
    /// be opened or read, a file that is not an Accel-Sim trace; the
    /// consumer's own error, unchanged.
    pub fn read(&mut self, consumer: &mut impl Consumer) -> Result<Summary, Error> {
        self.read_with(consumer, Err)
    }

    /// Reads the whole trace into `consumer`; each line or file that cannot
    /// be read goes to `on_error` (an [`Error::Trace`]), which says whether to
    /// go on (`Ok`: the line is skipped; a file that cannot be read, or that
    /// stops, is skipped) or to stop with an error.
    ///
    /// # Errors
    ///
    /// What `on_error` returns, or the consumer's error, unchanged.
    ///
    /// # Example
    ///
    /// ```
    /// use smem_model::kernel::accelsim::Trace;
    /// use smem_model::kernel::tally::Tally;
    ///
    /// let trace = "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\n\
    ///              0010 ffffffff 0 LDS 1 R2 4 1 0x0 4\n0020 ffffffff 0 LDS 1 R2 4 7\n#END_TB\n";
    /// let mut errors = Vec::new();
    /// let mut tally = Tally::default();
    /// Trace::from_reader("t.traceg", trace.as_bytes()).read_with(&mut tally, |e| {
    ///     errors.push(e.to_string());
    ///     Ok(())
    /// })?;
    /// assert_eq!(errors, ["t.traceg:5: LDS: unknown address mode `7`: expected 0 (list), 1 (base and stride) or 2 (base and deltas)"]);
    /// # Ok::<(), smem_model::Error>(())
    /// ```
    pub fn read_with<C: Consumer + ?Sized>(
        &mut self,
        consumer: &mut C,
        mut on_error: impl FnMut(Error) -> Result<(), Error>,
    ) -> Result<Summary, Error> {
        let mut state = State::new(self.capability);
        while let Some(chunk) = self.reader.next_chunk() {
            let inputs = &self.reader.inputs;
            let name = |file: u32| inputs.get(file as usize).map_or("?", |i| i.name.as_str());
            if state.file != Some(chunk.file) {
                let previous = name(state.file.unwrap_or(0));
                state.end_kernel(consumer, &mut |e| on_error(e), previous)?;
                state.new_file(chunk.file);
            }
            state.chunk(&chunk, consumer, &mut on_error, inputs)?;
            for error in &chunk.errors {
                state.summary.errors += 1;
                on_error(Error::Trace {
                    source_name: name(error.at.input).to_owned(),
                    line: error.at.line,
                    whole_file: error.file_level,
                    reason: error.reason.clone(),
                })?;
            }
            self.reader.recycle(chunk.buf);
        }
        let inputs = &self.reader.inputs;
        let last = inputs
            .get(state.file.unwrap_or(0) as usize)
            .map_or("?", |i| i.name.as_str());
        state.end_kernel(consumer, &mut |e| on_error(e), last)?;
        Ok(state.summary)
    }
}

/// Why a line was not read: the line's (or its file's) problem, or the
/// consumer's error, which stops the reading.
enum Problem {
    Line { reason: String, whole_file: bool },
    Consumer(Error),
}

impl Problem {
    fn line(reason: impl Into<String>) -> Problem {
        Problem::Line {
            reason: reason.into(),
            whole_file: false,
        }
    }

    fn file(reason: impl Into<String>) -> Problem {
        Problem::Line {
            reason: reason.into(),
            whole_file: true,
        }
    }
}

impl From<Error> for Problem {
    fn from(err: Error) -> Problem {
        Problem::Consumer(err)
    }
}

/// A raw-form event, kept until its block ends.
struct Gathered {
    line: u64,
    opcode: u32,
    event: Event<'static>,
}

/// A raw-form thread block being gathered.
#[derive(Default)]
struct RawBlock {
    warps: BTreeMap<u32, Vec<Gathered>>,
    /// Lanes of each warp that executed `EXIT`.
    exited: HashMap<u32, u32>,
    /// Events and exited warps held (each counts in [`MAX_GATHERED`]).
    events: usize,
}

/// A `.traceg` block open between `#BEGIN_TB` and `#END_TB`.
struct OpenBlock {
    /// From `thread block = X,Y,Z`, once read (the block is then begun).
    id: Option<[u32; 3]>,
    line: u64,
}

/// The reading state: the kernel's headers, the block and warp open.
struct State {
    capability: Option<ComputeCapability>,
    file: Option<u32>,
    /// A file whose lines are skipped (it is not a trace).
    skip: Option<u32>,
    header: line::Kernel,
    block_dim: Option<[u32; 3]>,
    grid_dim: Option<[u32; 3]>,
    kernel_open: bool,
    block: Option<OpenBlock>,
    warp: Option<u32>,
    raw: HashMap<[u32; 3], RawBlock>,
    gathered: usize,
    /// Blocks ended (raw form) or begun (`.traceg`) in this kernel.
    done: Ended,
    /// Whether a block of this kernel could not be remembered in `done`
    /// (said once a kernel).
    done_full: bool,
    /// Source files of lineinfo (`FILE:N`), as [`Site::file`] indices.
    source_files: HashMap<Box<str>, u32>,
    /// Opcodes of gathered raw events.
    opcodes: Vec<Box<str>>,
    opcode_ids: HashMap<Box<str>, u32>,
    summary: Summary,
}

fn ids(b: [u32; 3]) -> String {
    format!("{},{},{}", b[0], b[1], b[2])
}

/// Block ids compared z, then y, then x.
fn block_key(b: [u32; 3]) -> [u32; 3] {
    [b[2], b[1], b[0]]
}

/// `(16,1,8)` into its three dimensions.
fn dims(value: &str) -> Option<[u32; 3]> {
    let inner = value.trim().strip_prefix('(')?.strip_suffix(')')?;
    let mut out = [0u32; 3];
    let mut parts = inner.split(',');
    for slot in &mut out {
        *slot = parts.next()?.trim().parse().ok()?;
    }
    parts.next().is_none().then_some(out)
}

/// The threads of a block of these dimensions, if they fit 32 bits.
fn threads(dim: [u32; 3]) -> Option<u32> {
    dim[0].checked_mul(dim[1])?.checked_mul(dim[2])
}

/// The dimensions of a `-block dim` or `-grid dim` header; a block's
/// threads must fit 32 bits.
fn check_dims(key: &str, value: &str) -> Result<[u32; 3], String> {
    let mut end = value.len().min(64);
    while !value.is_char_boundary(end) {
        end -= 1;
    }
    let shown = &value[..end];
    let dim = dims(value).ok_or_else(|| format!("expected `-{key} = (X,Y,Z)`, found `{shown}`"))?;
    if key == "block dim" && threads(dim).is_none() {
        return Err(format!(
            "`-block dim = {value}` is {} threads, more than fit 32 bits",
            u64::from(dim[0]) * u64::from(dim[1]) * u64::from(dim[2])
        ));
    }
    Ok(dim)
}

/// Remembers a block of the kernel (whose grid is `grid`, where the trace
/// gives it) as read in `done`: [`Inserted::Full`] only the first time one
/// cannot be in a kernel (`full` says it was; later ones read as `New`, read
/// on but not remembered).
fn remember(done: &mut Ended, full: &mut bool, id: [u32; 3], grid: Option<[u32; 3]>) -> Inserted {
    match done.insert(id, grid) {
        Inserted::Full(_) if *full => Inserted::New,
        Inserted::Full(why) => {
            *full = true;
            Inserted::Full(why)
        }
        inserted => inserted,
    }
}

fn too_many_gathered() -> Problem {
    Problem::line(format!(
        "more than {MAX_GATHERED} instructions of unfinished thread blocks \
         (bounded memory): split the trace by block"
    ))
}

/// The first block of a kernel that [`Ended`] cannot hold, and why.
fn not_remembered(id: [u32; 3], why: Unheld) -> Problem {
    let bitmap = match why {
        Unheld::NoGrid => "the trace gives no `-grid dim` for a bitmap of its blocks".to_owned(),
        Unheld::GridTooLarge(count) => format!(
            "its grid has {count} blocks, more than the {MAX_GRID_BITMAP} a bitmap of blocks \
             holds"
        ),
        Unheld::OutsideGrid(grid) => format!(
            "the block is outside its grid, `-grid dim = ({})`, which a bitmap holds",
            ids(grid)
        ),
    };
    Problem::line(format!(
        "thread block ({}) is read but not remembered: {MAX_ENDED_RUNS} runs of thread-block \
         ids are held for this kernel already, the most kept, and {bitmap} (bounded memory); \
         repeats of its blocks from here on are not caught",
        ids(id)
    ))
}

fn check_warp(warp: u32) -> Result<u32, Problem> {
    if warp >= WARP_LIMIT {
        return Err(Problem::line(format!(
            "warp {warp} is past the last warp id, {}: a block's threads (32 a warp) are \
             numbered in 32 bits",
            WARP_LIMIT - 1
        )));
    }
    Ok(warp)
}

impl State {
    fn new(capability: Option<ComputeCapability>) -> State {
        State {
            capability,
            file: None,
            skip: None,
            header: line::Kernel::default(),
            block_dim: None,
            grid_dim: None,
            kernel_open: false,
            block: None,
            warp: None,
            raw: HashMap::new(),
            gathered: 0,
            done: Ended::default(),
            done_full: false,
            source_files: HashMap::new(),
            opcodes: Vec::new(),
            opcode_ids: HashMap::new(),
            summary: Summary::default(),
        }
    }

    fn new_file(&mut self, file: u32) {
        self.file = Some(file);
        self.header = line::Kernel::default();
        self.block_dim = None;
        self.grid_dim = None;
    }

    fn capability(&self) -> Option<ComputeCapability> {
        self.capability.or_else(|| {
            self.header
                .binary_version
                .and_then(|v| ComputeCapability::new(v / 10, v % 10))
        })
    }

    fn begin_kernel<C: Consumer + ?Sized>(&mut self, consumer: &mut C) -> Result<(), Error> {
        if self.kernel_open {
            return Ok(());
        }
        let mut info = KernelInfo::named(&self.header.name);
        info.capability = self.capability();
        info.block_dim = self.block_dim;
        info.grid_dim = self.grid_dim;
        consumer.begin_kernel(&info)?;
        self.kernel_open = true;
        self.summary.kernels += 1;
        Ok(())
    }

    /// Ends the kernel: a `.traceg` block left open is an error (and ended),
    /// raw blocks still gathered end as they are, lowest first.
    fn end_kernel<C: Consumer + ?Sized>(
        &mut self,
        consumer: &mut C,
        on_error: &mut dyn FnMut(Error) -> Result<(), Error>,
        name: &str,
    ) -> Result<(), Error> {
        if let Some(block) = self.block.take() {
            self.summary.errors += 1;
            on_error(Error::Trace {
                source_name: name.to_owned(),
                line: block.line,
                whole_file: false,
                reason: format!(
                    "thread block ({}) has no #END_TB",
                    block.id.map_or_else(|| "?".to_owned(), ids)
                ),
            })?;
            if block.id.is_some() {
                consumer.end_block()?;
            }
        }
        let mut open: Vec<([u32; 3], RawBlock)> = self.raw.drain().collect();
        open.sort_by_key(|(id, _)| block_key(*id));
        for (id, block) in open {
            self.flush(consumer, id, block)?;
        }
        if self.kernel_open {
            consumer.end_kernel()?;
        }
        self.kernel_open = false;
        self.done.clear();
        self.done_full = false;
        self.warp = None;
        Ok(())
    }

    /// Hands a gathered raw block to the consumer. Returns whether the block
    /// could not be remembered as ended (the first time in the kernel).
    fn flush<C: Consumer + ?Sized>(
        &mut self,
        consumer: &mut C,
        id: [u32; 3],
        block: RawBlock,
    ) -> Result<Option<Unheld>, Error> {
        self.gathered -= block.events;
        let full = match remember(&mut self.done, &mut self.done_full, id, self.grid_dim) {
            Inserted::Full(why) => Some(why),
            _ => None,
        };
        consumer.begin_block(&BlockInfo::new(id, self.block_dim.and_then(threads)))?;
        self.summary.blocks += 1;
        let file = self.file.unwrap_or(0);
        for (warp, events) in block.warps {
            for gathered in events {
                let opcode = self.opcodes.get(gathered.opcode as usize).map_or("", |o| o);
                consumer.place(&Place::new(file, gathered.line, opcode));
                consumer.event(warp, &gathered.event)?;
            }
        }
        consumer.end_block()?;
        Ok(full)
    }

    /// Whether the lines read now are a `.traceg` block's warp's, where
    /// most are other instructions, told by their opcode alone.
    fn in_warp(&self) -> bool {
        self.warp.is_some() && self.block.as_ref().is_some_and(|b| b.id.is_some())
    }

    /// Reads the lines of one chunk ([`Reader::next_chunk`]) in order, each
    /// line that cannot be read to `on_error` (named by `inputs`).
    fn chunk<C: Consumer + ?Sized>(
        &mut self,
        chunk: &Chunk,
        consumer: &mut C,
        on_error: &mut dyn FnMut(Error) -> Result<(), Error>,
        inputs: &[Input],
    ) -> Result<(), Error> {
        #[cfg(target_arch = "x86_64")]
        if line::avx2_available() {
            // SAFETY: the CPU has AVX2, checked just above.
            #[allow(unsafe_code)]
            return unsafe { self.chunk_avx2(chunk, consumer, on_error, inputs) };
        }
        self.chunk_with::<false, C>(chunk, consumer, on_error, inputs)
    }

    /// [`State::chunk`] compiled for AVX2 (as [`read_chunk`]).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn chunk_avx2<C: Consumer + ?Sized>(
        &mut self,
        chunk: &Chunk,
        consumer: &mut C,
        on_error: &mut dyn FnMut(Error) -> Result<(), Error>,
        inputs: &[Input],
    ) -> Result<(), Error> {
        self.chunk_with::<true, C>(chunk, consumer, on_error, inputs)
    }

    /// [`State::chunk`], with `AVX2` only where the CPU has it
    /// ([`line::other_line_end`]'s contract).
    #[inline(always)]
    fn chunk_with<const AVX2: bool, C: Consumer + ?Sized>(
        &mut self,
        chunk: &Chunk,
        consumer: &mut C,
        on_error: &mut dyn FnMut(Error) -> Result<(), Error>,
        inputs: &[Input],
    ) -> Result<(), Error> {
        let name = |file: u32| inputs.get(file as usize).map_or("?", |i| i.name.as_str());
        // The lines are cut here rather than by `Chunk::lines`: inside a
        // block, most are told other instructions from their first bytes,
        // which also give their end (as in `read_chunk`).
        let (buf, len) = (&chunk.buf[..], chunk.len);
        let mut start = 0;
        let mut index = 0u64;
        while start < len {
            let this = index;
            index += 1;
            self.summary.lines += 1;
            let format = chunk.format.filter(|_| this >= chunk.format_from);
            // Whether the fast check read the line (and said nothing).
            let mut checked = false;
            if format == Some(Format::AccelSim) && start + 64 <= len && self.in_warp() {
                if let Some(end) =
                    line::other_line_end::<AVX2>(buf, start, len, &self.header.context)
                {
                    self.summary.instructions += 1;
                    self.summary.other_instructions += 1;
                    start = end + 1;
                    continue;
                }
                checked = true;
            }
            let end = memchr::memchr(b'\n', &buf[start..len]).map_or(len, |n| start + n);
            let bytes = &buf[start..end];
            start = end + 1;
            let at = Location {
                input: chunk.file,
                line: chunk.first_line + this,
            };
            let outcome = match format {
                Some(Format::AccelSim) => self.line(consumer, at, bytes, checked),
                Some(Format::Corpus) => {
                    if self.skip == Some(at.input) {
                        continue;
                    }
                    self.skip = Some(at.input);
                    Err(Problem::file(
                        "corpus records (JSON lines), not an Accel-Sim trace: \
                         smem_model::corpus reads them",
                    ))
                }
                Some(Format::KernelList) => Ok(()),
                None if std::str::from_utf8(bytes).is_err() => Err(Problem::line(
                    "cannot read: stream did not contain valid UTF-8",
                )),
                None => Ok(()),
            };
            match outcome {
                Ok(()) => {}
                Err(Problem::Consumer(err)) => return Err(err),
                Err(Problem::Line { reason, whole_file }) => {
                    self.summary.errors += 1;
                    on_error(Error::Trace {
                        source_name: name(at.input).to_owned(),
                        line: at.line,
                        whole_file,
                        reason,
                    })?;
                }
            }
        }
        Ok(())
    }

    /// Reads one line of an Accel-Sim trace; `checked`: the fast check of
    /// [`line::other_line_end`] read it already and said nothing.
    fn line<C: Consumer + ?Sized>(
        &mut self,
        consumer: &mut C,
        at: Location,
        bytes: &[u8],
        checked: bool,
    ) -> Result<(), Problem> {
        let number = at.line;
        // Inside a block, most lines are told by their opcode alone (those
        // the fast check could not read: short of its window).
        if !checked && self.in_warp() && line::is_other_instruction(bytes, &self.header.context) {
            self.summary.instructions += 1;
            self.summary.other_instructions += 1;
            return Ok(());
        }
        let parsed = line::line(bytes, &self.header.context).map_err(Problem::line)?;
        match parsed {
            Line::Instruction(instruction) => self.instruction(consumer, at, &instruction)?,
            Line::Header(header) => {
                match header {
                    Header::KernelName(_) => {
                        // A new kernel: the one before ends, the headers
                        // start again.
                        let unclosed = self.block.as_ref().map(|b| {
                            format!(
                                "thread block ({}) begun at line {} has no #END_TB",
                                b.id.map_or_else(|| "?".to_owned(), ids),
                                b.line
                            )
                        });
                        self.force_end(consumer)?;
                        self.header = line::Kernel::default();
                        self.block_dim = None;
                        self.grid_dim = None;
                        self.header.apply(&header);
                        return unclosed.map_or(Ok(()), |reason| Err(Problem::line(reason)));
                    }
                    Header::Other {
                        key: key @ ("block dim" | "grid dim"),
                        value,
                    } => {
                        let dim = check_dims(key, value).map_err(Problem::line)?;
                        if key == "block dim" {
                            self.block_dim = Some(dim);
                        } else {
                            self.grid_dim = Some(dim);
                        }
                    }
                    _ => {}
                }
                self.header.apply(&header);
            }
            Line::BeginBlock => {
                if let Some(open) = &self.block {
                    return Err(Problem::line(format!(
                        "#BEGIN_TB inside thread block ({}) begun at line {}",
                        open.id.map_or_else(|| "?".to_owned(), ids),
                        open.line
                    )));
                }
                self.begin_kernel(consumer)?;
                self.block = Some(OpenBlock {
                    id: None,
                    line: number,
                });
                self.warp = None;
            }
            Line::ThreadBlock(id) => match &mut self.block {
                Some(block) if block.id.is_none() => {
                    let inserted = remember(&mut self.done, &mut self.done_full, id, self.grid_dim);
                    if inserted == Inserted::Again {
                        return Err(Problem::line(format!(
                            "thread block ({}) appears twice in kernel {}",
                            ids(id),
                            self.header.name
                        )));
                    }
                    block.id = Some(id);
                    consumer.begin_block(&BlockInfo::new(id, self.block_dim.and_then(threads)))?;
                    self.summary.blocks += 1;
                    if let Inserted::Full(why) = inserted {
                        return Err(not_remembered(id, why));
                    }
                }
                Some(block) => {
                    return Err(Problem::line(format!(
                        "thread block ({}) begins before thread block ({}) ends (#END_TB)",
                        ids(id),
                        block.id.map_or_else(|| "?".to_owned(), ids)
                    )))
                }
                None => {
                    return Err(Problem::line(
                        "`thread block` outside #BEGIN_TB ... #END_TB",
                    ))
                }
            },
            Line::Warp(warp) => {
                let warp = check_warp(warp)?;
                if self.block.as_ref().is_some_and(|b| b.id.is_none()) {
                    return Err(Problem::line(
                        "`warp = N` before `thread block = X,Y,Z` in #BEGIN_TB ... #END_TB",
                    ));
                }
                self.warp = Some(warp);
            }
            Line::EndBlock => {
                let Some(block) = self.block.take() else {
                    return Err(Problem::line("#END_TB without #BEGIN_TB"));
                };
                self.warp = None;
                if block.id.is_some() {
                    consumer.end_block()?;
                }
            }
            Line::Blank | Line::Comment | Line::Insts(_) => {}
        }
        Ok(())
    }

    /// Ends the kernel without reporting (a kernel header inside one: the
    /// header's line is the error).
    fn force_end<C: Consumer + ?Sized>(&mut self, consumer: &mut C) -> Result<(), Problem> {
        if let Some(block) = self.block.take() {
            if block.id.is_some() {
                consumer.end_block()?;
            }
        }
        let mut open: Vec<([u32; 3], RawBlock)> = self.raw.drain().collect();
        open.sort_by_key(|(id, _)| block_key(*id));
        for (id, block) in open {
            self.flush(consumer, id, block)?;
        }
        if self.kernel_open {
            consumer.end_kernel()?;
        }
        self.kernel_open = false;
        self.done.clear();
        self.done_full = false;
        self.warp = None;
        Ok(())
    }

    fn site(&mut self, instruction: &Instruction<'_>) -> Site {
        let mut site = Site::pc(instruction.pc);
        if let Some(source) = instruction.source {
            site = site.with_line(source.line);
            if let Some(file) = source.file {
                let next = self.source_files.len() as u32;
                let index = match self.source_files.get(file) {
                    Some(&index) => index,
                    None => {
                        self.source_files.insert(file.into(), next);
                        next
                    }
                };
                site = site.with_file(index);
            }
        }
        site
    }

    fn instruction<C: Consumer + ?Sized>(
        &mut self,
        consumer: &mut C,
        at: Location,
        instruction: &Instruction<'_>,
    ) -> Result<(), Problem> {
        self.summary.instructions += 1;
        let site = self.site(instruction);
        let event = event(site, instruction).map_err(Problem::line)?;
        let is_exit = instruction.opcode.split('.').next() == Some("EXIT");
        if event.is_none() {
            self.summary.other_instructions += 1;
        }
        // Inside `#BEGIN_TB` ... `#END_TB` the block and warp are the
        // markers' (pre-v3 lines there also carry ids: the markers win);
        // elsewhere, the ids on the line (the raw form).
        if let (Some(block), Some(warp)) = (&self.block, self.warp) {
            if block.id.is_some() {
                if let Some(event) = event {
                    let mut place = Place::new(at.input, at.line, instruction.opcode);
                    if let Some(file) = instruction.source.and_then(|s| s.file) {
                        place = place.with_source_file(file);
                    }
                    consumer.place(&place);
                    consumer.event(warp, &event)?;
                }
                return Ok(());
            }
        }
        let Some((block, warp)) = instruction.block_warp else {
            return Err(Problem::line(
                "an instruction outside a thread block and warp \
                 (no #BEGIN_TB, `warp = N`, nor block and warp on the line)",
            ));
        };
        let warp = check_warp(warp)?;
        self.begin_kernel(consumer)?;
        self.raw_instruction(consumer, at, instruction, block, warp, event, is_exit)
    }

    /// A raw-form instruction of `block`, `warp`: gathered until the block
    /// ends (every warp exited, with the block's size known; or the kernel's
    /// end).
    #[allow(clippy::too_many_arguments)]
    fn raw_instruction<C: Consumer + ?Sized>(
        &mut self,
        consumer: &mut C,
        at: Location,
        instruction: &Instruction<'_>,
        block: [u32; 3],
        warp: u32,
        event: Option<Event<'static>>,
        is_exit: bool,
    ) -> Result<(), Problem> {
        if self.done.contains(block) {
            return Err(Problem::line(format!(
                "thread block ({}) has an instruction after all its warps exited",
                ids(block)
            )));
        }
        if (event.is_some() || is_exit)
            && self.raw.len() >= MAX_OPEN_BLOCKS
            && !self.raw.contains_key(&block)
        {
            return Err(Problem::line(format!(
                "more than {MAX_OPEN_BLOCKS} unfinished thread blocks at once (bounded memory): \
                 give the trace's `-block dim` (blocks end when all their threads exit), or split \
                 it by block"
            )));
        }
        if let Some(event) = event {
            if self.gathered >= MAX_GATHERED {
                return Err(too_many_gathered());
            }
            let opcode = match self.opcode_ids.get(instruction.opcode) {
                Some(&id) => id,
                None => {
                    let id = self.opcodes.len() as u32;
                    self.opcodes.push(instruction.opcode.into());
                    self.opcode_ids.insert(instruction.opcode.into(), id);
                    id
                }
            };
            let open = self.raw.entry(block).or_default();
            open.warps.entry(warp).or_default().push(Gathered {
                line: at.line,
                opcode,
                event,
            });
            open.events += 1;
            self.gathered += 1;
        }
        if is_exit {
            // A warp's first exit is held too (its lanes, until the block ends).
            if !self
                .raw
                .get(&block)
                .is_some_and(|b| b.exited.contains_key(&warp))
            {
                if self.gathered >= MAX_GATHERED {
                    return Err(too_many_gathered());
                }
                self.raw.entry(block).or_default().events += 1;
                self.gathered += 1;
            }
            let open = self.raw.entry(block).or_default();
            open.warps.entry(warp).or_default();
            *open.exited.entry(warp).or_default() |= instruction.mask;
            // With the block's size known, it ends when every thread exited.
            if let Some(threads) = self.block_dim.and_then(threads) {
                let warps = threads.div_ceil(32);
                let all_out = (0..warps).all(|w| {
                    let lanes = (threads - 32 * w).min(32);
                    let full = if lanes == 32 {
                        u32::MAX
                    } else {
                        (1 << lanes) - 1
                    };
                    open.exited.get(&w).is_some_and(|&m| m & full == full)
                });
                if all_out {
                    let block_events = self.raw.remove(&block).unwrap_or_default();
                    if let Some(why) = self.flush(consumer, block, block_events)? {
                        return Err(not_remembered(block, why));
                    }
                }
            }
        }
        Ok(())
    }
}

/// The event an instruction line is, if any.
///
/// # Errors
///
/// A request the model refuses (misaligned, a width the op lacks), a
/// constant load past the bank, a barrier id past 15: the message names the
/// opcode.
fn event(site: Site, instruction: &Instruction<'_>) -> Result<Option<Event<'static>>, String> {
    let lanes = LaneSet::from_bits(instruction.mask);
    let opcode = instruction.opcode;
    let request = |op: Op, width: u32| {
        WarpRequest::from_offsets(op, width, lanes, &instruction.addresses)
            .map_err(|e| format!("{opcode}: {e}"))
    };
    Ok(Some(match instruction.class {
        Class::Shared { op, width } => Event::Access {
            site,
            request: request(op, width)?,
        },
        Class::CasRound { op, width } => Event::CasRound {
            site,
            request: request(op, width)?,
        },
        Class::Unmodelled { name } => Event::Unmodelled { site, lanes, name },
        Class::Constant { width, addressed } => Event::ConstantLoad {
            site,
            lanes,
            width,
            load: if addressed {
                let load = request(Op::Load, width)?;
                Some(ConstantLoad::from_request(&load).map_err(|e| format!("{opcode}: {e}"))?)
            } else {
                None
            },
        },
        Class::Barrier { kind } => {
            let (id, threads) = instruction.barrier();
            if id >= crate::BARRIERS {
                return Err(format!("{opcode}: {}", Error::BarrierId { id }));
            }
            Event::Barrier {
                site,
                lanes,
                id,
                threads,
                kind,
            }
        }
        Class::SyncWarp => Event::SyncWarp {
            site,
            lanes,
            mask: match instruction.immediates().first() {
                Some(&mask) => LaneSet::from_bits(mask as u32),
                None => LaneSet::FULL,
            },
        },
        Class::Nop => Event::SyncWarp {
            site,
            lanes,
            mask: lanes,
        },
        Class::Fence => Event::Fence { site, lanes },
        Class::CpAsyncCommit => Event::CpAsyncCommit { site, lanes },
        Class::CpAsyncWait => Event::CpAsyncWait {
            site,
            lanes,
            pending: instruction
                .immediates()
                .first()
                .map_or(0, |&n| u32::try_from(n).unwrap_or(u32::MAX)),
        },
        Class::CpAsyncArrive => Event::CpAsyncArrive { site, lanes },
        _ => return Ok(None),
    }))
}

/// Reads the Accel-Sim lines of one chunk ([`Reader::next_chunk`]) into
/// `consumer`'s events, in order, for readers that analyse chunks on several
/// threads (`smem trace` does). Each kernel of the chunk is a
/// `begin_kernel` ... `end_kernel` of its own (a kernel's lines may span
/// chunks); blocks are not announced (a chunk may begin or end inside one),
/// and each event's warp is the last `warp = N` of the chunk, or the one on
/// its line (the raw form), 0 before either. So it suits consumers that sum,
/// such as the [`Tally`](crate::kernel::tally::Tally); [`Trace`] gives whole
/// blocks. Lines of other formats are left to the caller; lines before the
/// file's format is known that are not UTF-8 are errors.
///
/// Each line that cannot be read goes to `on_error` with its place and
/// reason (the text `smem trace` prints after `FILE:LINE: `); the chunk's
/// reader errors ([`Chunk::errors`](super::input::Chunk::errors)) are the caller's.
///
/// # Errors
///
/// The consumer's own, unchanged.
///
/// # Example
///
/// ```
/// use smem_model::kernel::accelsim::{input::{Input, Reader}, read_chunk};
/// use smem_model::kernel::tally::Tally;
///
/// let trace = "-kernel name = k\n0010 ffffffff 0 LDS 1 R2 4 1 0x0 128\n0020 ffffffff 0 BRA 0 0 0\n";
/// let mut reader = Reader::new(vec![Input::reader("k.traceg", trace.as_bytes())]);
/// let mut tally = Tally::default();
/// while let Some(chunk) = reader.next_chunk() {
///     let summary = read_chunk(&chunk, &mut tally, &mut |at, reason| panic!("{at:?}: {reason}"))?;
///     tally.add_other_instructions(summary.other_instructions);
/// }
/// assert_eq!((tally.totals().wavefronts, tally.other_instructions()), (32, 1));
/// # Ok::<(), smem_model::Error>(())
/// ```
pub fn read_chunk<C: Consumer + ?Sized>(
    chunk: &super::input::Chunk,
    consumer: &mut C,
    on_error: &mut dyn FnMut(Location, String),
) -> Result<Summary, Error> {
    #[cfg(target_arch = "x86_64")]
    if line::avx2_available() {
        // SAFETY: the CPU has AVX2, checked just above.
        #[allow(unsafe_code)]
        return unsafe { read_chunk_avx2(chunk, consumer, on_error) };
    }
    read_chunk_with::<false, C>(chunk, consumer, on_error)
}

/// [`read_chunk`] compiled for AVX2, its lines' masks 32 bytes at a time.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn read_chunk_avx2<C: Consumer + ?Sized>(
    chunk: &super::input::Chunk,
    consumer: &mut C,
    on_error: &mut dyn FnMut(Location, String),
) -> Result<Summary, Error> {
    read_chunk_with::<true, C>(chunk, consumer, on_error)
}

/// [`read_chunk`], with `AVX2` only where the CPU has it
/// ([`line::other_line_end`]'s contract).
#[inline(always)]
fn read_chunk_with<const AVX2: bool, C: Consumer + ?Sized>(
    chunk: &super::input::Chunk,
    consumer: &mut C,
    on_error: &mut dyn FnMut(Location, String),
) -> Result<Summary, Error> {
    let mut summary = Summary::default();
    let mut kernel: Option<super::input::KernelState> = None;
    let mut warp = 0u32;
    // The lines are cut here rather than by `Chunk::lines`: most are told
    // other instructions from their first bytes, which also give their end.
    let (buf, len) = (&chunk.buf[..], chunk.len);
    let mut switch = 0;
    let mut current = chunk.kernels.first().map(|k| k.1).unwrap_or_default();
    let mut next_switch = chunk.kernels.get(1).map_or(u64::MAX, |k| k.0);
    // Whether `current` is the kernel begun on the consumer.
    let mut begun = false;
    let mut start = 0;
    let mut index = 0u64;
    while start < len {
        while next_switch <= index {
            switch += 1;
            current = chunk.kernels[switch].1;
            next_switch = chunk.kernels.get(switch + 1).map_or(u64::MAX, |k| k.0);
            begun = false;
        }
        let this = index;
        index += 1;
        summary.lines += 1;
        // Whether the fast check read the line (and said nothing).
        let mut checked = false;
        if begun && start + 64 <= len {
            if let Some(end) = line::other_line_end::<AVX2>(buf, start, len, &current.context) {
                summary.instructions += 1;
                summary.other_instructions += 1;
                start = end + 1;
                continue;
            }
            checked = true;
        }
        let end = memchr::memchr(b'\n', &buf[start..len]).map_or(len, |n| start + n);
        let line = super::input::Line {
            at: Location {
                input: chunk.file,
                line: chunk.first_line + this,
            },
            bytes: &buf[start..end],
            format: chunk.format.filter(|_| this >= chunk.format_from),
            kernel: current,
        };
        start = end + 1;
        match line.format {
            Some(Format::AccelSim) => {}
            None => {
                if std::str::from_utf8(line.bytes).is_err() {
                    on_error(
                        line.at,
                        "cannot read: stream did not contain valid UTF-8".to_owned(),
                    );
                    summary.errors += 1;
                }
                continue;
            }
            Some(_) => continue,
        }
        if kernel != Some(line.kernel) {
            if kernel.is_some() {
                consumer.end_kernel()?;
            }
            let state = line.kernel;
            let mut info = KernelInfo::named(chunk.kernel_name(state.name));
            info.capability = state
                .binary_version
                .and_then(|v| ComputeCapability::new(v / 10, v % 10));
            consumer.begin_kernel(&info)?;
            summary.kernels += 1;
            kernel = Some(state);
        }
        begun = true;
        // Lines the fast check above could not read (the chunk's last
        // bytes), told by their opcode where they can be.
        if !checked && line::is_other_instruction(line.bytes, &line.kernel.context) {
            summary.instructions += 1;
            summary.other_instructions += 1;
            continue;
        }
        let instruction = match line::line(line.bytes, &line.kernel.context) {
            Ok(Line::Instruction(instruction)) => instruction,
            Ok(Line::Warp(w)) => {
                match check_warp(w) {
                    Ok(w) => warp = w,
                    Err(Problem::Line { reason, .. }) => {
                        summary.errors += 1;
                        on_error(line.at, reason);
                    }
                    Err(Problem::Consumer(err)) => return Err(err),
                }
                continue;
            }
            Ok(Line::Header(Header::Other {
                key: key @ ("block dim" | "grid dim"),
                value,
            })) => {
                if let Err(reason) = check_dims(key, value) {
                    summary.errors += 1;
                    on_error(line.at, reason);
                }
                continue;
            }
            Ok(_) => continue,
            Err(reason) => {
                summary.errors += 1;
                on_error(line.at, reason);
                continue;
            }
        };
        summary.instructions += 1;
        let warp = match instruction.block_warp {
            Some((_, w)) => match check_warp(w) {
                Ok(w) => w,
                Err(Problem::Line { reason, .. }) => {
                    summary.errors += 1;
                    on_error(line.at, reason);
                    continue;
                }
                Err(Problem::Consumer(err)) => return Err(err),
            },
            None => warp,
        };
        let mut site = Site::pc(instruction.pc);
        if let Some(source) = instruction.source {
            site = site.with_line(source.line);
        }
        match event(site, &instruction) {
            Ok(Some(event)) => {
                let mut place = Place::new(line.at.input, line.at.line, instruction.opcode);
                if let Some(file) = instruction.source.and_then(|s| s.file) {
                    place = place.with_source_file(file);
                }
                consumer.place(&place);
                consumer.event(warp, &event)?;
            }
            Ok(None) => summary.other_instructions += 1,
            Err(reason) => {
                summary.errors += 1;
                on_error(line.at, reason);
            }
        }
    }
    if kernel.is_some() {
        consumer.end_kernel()?;
    }
    Ok(summary)
}
