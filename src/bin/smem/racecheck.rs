//! `smem racecheck`: shared-memory hazards and barrier errors in Accel-Sim
//! traces, found on a CPU by `smem_model::Block` (CUDA C++ Programming Guide, synchronization functions).
//!
//! Each thread block is checked on its own: its warps' instructions in their
//! order, `BAR.SYNC` / `BAR` lines as barriers (`BAR.SYNC 0x1, 0x40`: barrier 1
//! for 64 threads, where the trace gives the operands; no operand: barrier 0
//! for the whole block), `WARPSYNC` as `__syncwarp`, `MEMBAR` as a fence. On
//! sm_90, nvcc compiles a `__syncwarp()` in converged code to a `NOP` (seen in
//! the SASS of tools/racecheck/cases.cu, CUDA 13.0), so a `NOP` counts as a
//! `__syncwarp` of its active lanes: a modelling choice, without which every
//! warp-synchronous kernel written correctly would be reported.
//! A compare-and-swap loop's try (`ATOMS.CAST.SPIN`, nvcc's float and 64-bit
//! shared `atomicAdd`) is the atomic it emulates, and the round's `LDS` just
//! before it is taken as part of that atomic ([`push_event`]).
//!
//! # Streaming, threads, memory
//!
//! The main thread reads the lines, in order, and gathers each thread block's
//! instructions: a `.traceg` block ends at `#END_TB`; in a raw `.trace` (block
//! and warp on every line, blocks interleaved as they ran) a block ends when
//! each of its warps has executed `EXIT` with all its threads (the block's
//! size is the header's `-block dim`), or at the end of the kernel. Finished
//! blocks go to `--threads` workers through a bounded queue; each worker runs
//! the block model and sends back the block's report, which the main thread
//! merges by kernel, kind and pair of PCs. Memory holds the blocks being
//! gathered (at most [`MAX_GATHERED`] instructions together) and those queued
//! or being checked. The output does not depend on the number of threads:
//! counts are sums, and the example of each finding is its lowest block.
//!
//! # Bad input
//!
//! A line that cannot be read, a block that begins inside another, a block
//! seen twice, a block with no warps, more than 32 warps, a named barrier whose
//! count is not a multiple of 32: `FILE:LINE: reason` on stderr and exit status
//! 2. Warps with different numbers of barriers, or barriers reached from
//! different instructions or by part of a warp, are barrier errors (status 1).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::mpsc;

use smem_model::kernel::accelsim::line::{self as accelsim, Class, Context, Header, Kernel, Line};
use smem_model::{
    BarrierError, Block, BlockReport, ComputeCapability, Error, LaneSet, Op, SyncOp, WarpRequest,
};

use crate::output::{emit, plural};

/// The capability when neither `--arch` nor the trace says.
const DEFAULT_ARCH: ComputeCapability = ComputeCapability::Sm90;

/// The most instructions of blocks still being gathered: a raw trace whose
/// blocks never end, or a `.traceg` block larger than this, is refused.
pub const MAX_GATHERED: usize = 1 << 22;

/// Longest line read (as `smem trace`).
const MAX_LINE: usize = 1 << 20;

#[derive(Debug, clap::Args)]
#[command(after_help = "\
Reads Accel-Sim traces (.traceg, raw .trace, xz-compressed or not) and reports, per kernel, each \
pair of instructions that race on shared memory (read-write or write-write, between warps as \
errors and between lanes of one warp as warnings), with the blocks and bytes involved and one \
example, then the barrier errors (barriers not every warp reaches, reached at different \
instructions or by part of a warp). Exit status: 0 nothing found, 1 hazards or barrier errors, \
2 bad input.

Examples:
  smem racecheck kernel-1.traceg
  smem racecheck --json traces/*.traceg")]
pub struct Args {
    /// Trace files; `-` reads standard input.
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,

    /// Check on this compute capability, instead of each trace's `-binary
    /// version` (sm_90 when a trace has none).
    #[arg(long, value_name = "CC", value_parser = crate::arch::parse)]
    arch: Option<ComputeCapability>,

    /// Print one JSON object: `hazards` and `barrier_errors`.
    #[arg(long)]
    json: bool,

    /// Worker threads, 1 to 64 (default: one per core, at most 64).
    #[arg(long, short = 'j', value_name = "N")]
    threads: Option<usize>,
}

/// One event of a warp, with the trace line it came from.
#[derive(Debug, Clone, Copy)]
enum Event {
    Access {
        line: u64,
        pc: u64,
        request: WarpRequest,
    },
    Sync {
        line: u64,
        pc: u64,
        lanes: LaneSet,
        op: SyncOp,
    },
}

/// A thread block's instructions, gathered.
#[derive(Debug)]
struct Gathered {
    file: usize,
    kernel: usize,
    block: [u32; 3],
    /// Threads from the header's `-block dim`, if any.
    threads: Option<u32>,
    warps: BTreeMap<u32, Vec<Event>>,
    /// Lanes of each warp that executed `EXIT` (raw traces).
    exited: HashMap<u32, u32>,
    /// Where it began, for messages.
    line: u64,
    events: usize,
}

/// A block's result.
struct Checked {
    file: usize,
    kernel: usize,
    block: [u32; 3],
    result: Result<BlockReport, String>,
}

/// What the header says of a kernel, and what was found in it.
#[derive(Debug, Default)]
struct KernelResult {
    name: String,
    arch: Option<ComputeCapability>,
    blocks: u64,
    /// PC to source line, where the trace has lineinfo.
    lines: HashMap<u64, String>,
    hazards: BTreeMap<(smem_model::Severity, smem_model::HazardKind, u64, u64), Finding>,
    barrier_errors: BTreeMap<String, BarrierFinding>,
}

/// One hazard, over the kernel's blocks.
#[derive(Debug)]
struct Finding {
    blocks: u64,
    bytes: u64,
    block: [u32; 3],
    example: smem_model::Hazard,
}

#[derive(Debug)]
struct BarrierFinding {
    blocks: u64,
    block: [u32; 3],
    error: BarrierError,
}

/// Block ids compared z, then y, then x: the lowest is the example.
fn block_key(b: [u32; 3]) -> [u32; 3] {
    [b[2], b[1], b[0]]
}

/// Runs the block model on a gathered block.
fn check(block: &Gathered, arch: ComputeCapability) -> Result<BlockReport, String> {
    let warps = block.warps.keys().next_back().map_or(0, |w| w + 1);
    if block.warps.is_empty() {
        return Err(format!(
            "line {}: thread block ({}) has no warps",
            block.line,
            ids(block.block)
        ));
    }
    let threads = block.threads.unwrap_or(32 * warps);
    if threads.div_ceil(32) < warps {
        return Err(format!(
            "line {}: thread block ({}) has warp {} but its {} threads (-block dim) make {}",
            block.line,
            ids(block.block),
            warps - 1,
            threads,
            plural(u64::from(threads.div_ceil(32)), "warp")
        ));
    }
    let mut model = Block::new(arch, threads).map_err(|e| at(block.line, &e))?;
    // Round-robin over the warps, one event each in turn: the model holds the
    // events of warps that wait at a barrier, and the fewer it holds the
    // better.
    let mut cursors: Vec<(u32, std::slice::Iter<'_, Event>)> =
        block.warps.iter().map(|(&w, e)| (w, e.iter())).collect();
    loop {
        let mut any = false;
        for (warp, events) in &mut cursors {
            let Some(event) = events.next() else { continue };
            any = true;
            match *event {
                Event::Access { pc, request, .. } => model.access(*warp, pc, &request),
                Event::Sync { pc, lanes, op, .. } => {
                    // `BAR.SYNC 0x1` without a count waits for the whole block.
                    let op = match op {
                        SyncOp::Named { id, threads: 0 } => SyncOp::Named {
                            id,
                            threads: 32 * model.warps(),
                        },
                        op => op,
                    };
                    model.sync(*warp, pc, lanes, op)
                }
            }
            .map_err(|e| at(event_line(event), &e))?;
        }
        if !any {
            break;
        }
    }
    Ok(model.finish())
}

fn event_line(event: &Event) -> u64 {
    match *event {
        Event::Access { line, .. } | Event::Sync { line, .. } => line,
    }
}

fn at(line: u64, err: &Error) -> String {
    format!("line {line}: {err}")
}

fn ids(b: [u32; 3]) -> String {
    format!("{},{},{}", b[0], b[1], b[2])
}

/// The synchronisation an instruction is, if any.
fn sync_of(opcode: &str, operands: &[u64], mask: u32) -> Option<SyncOp> {
    let base = opcode.split('.').next().unwrap_or_default();
    Some(match base {
        // BAR.ARV (arrive without waiting) and BAR.RED (`__syncthreads_count`
        // and kin) are read as BAR.SYNC: a modelling choice (an arrival that
        // does not wait orders less than the model then assumes).
        "BAR" => match operands {
            [] | [0] => SyncOp::Threads,
            [id] => SyncOp::Named {
                id: u32::try_from(*id).unwrap_or(u32::MAX),
                threads: 0,
            },
            [id, count, ..] => {
                let id = u32::try_from(*id).unwrap_or(u32::MAX);
                let threads = u32::try_from(*count).unwrap_or(u32::MAX);
                if id == 0 && threads == 0 {
                    SyncOp::Threads
                } else {
                    SyncOp::Named { id, threads }
                }
            }
        },
        "WARPSYNC" => SyncOp::Warp(LaneSet::from_bits(match operands {
            [m, ..] => *m as u32,
            [] => u32::MAX,
        })),
        "NOP" => SyncOp::Warp(LaneSet::from_bits(mask)),
        "MEMBAR" => SyncOp::Fence,
        _ => return None,
    })
}

/// The numbers after an instruction's operand list: `SRC_NUM [srcs] MEM_WIDTH
/// [IMMEDIATES]`. Immediates are hexadecimal (`0x40`) or decimal.
fn immediates(text: &str, opcode: &str) -> Vec<u64> {
    let mut tokens = text.split_ascii_whitespace();
    for t in tokens.by_ref() {
        if t == opcode {
            break;
        }
    }
    let rest: Vec<&str> = tokens.collect();
    let number = |t: &str| {
        let t = t.trim_end_matches(',');
        match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
            Some(hex) => u64::from_str_radix(hex, 16).ok(),
            None => t.parse().ok(),
        }
    };
    let Some(srcs) = rest.first().and_then(|t| number(t)) else {
        return Vec::new();
    };
    // The source registers, then MEM_WIDTH (0 for barriers), then the
    // immediates.
    let skip = usize::try_from(srcs)
        .unwrap_or(usize::MAX)
        .saturating_add(2);
    rest.iter().skip(skip).map_while(|t| number(t)).collect()
}

/// Opens a file, or stdin, decompressing xz (by its magic bytes).
fn open(path: &PathBuf) -> io::Result<Box<dyn BufRead + Send>> {
    let raw: Box<dyn Read + Send> = if path.as_os_str() == "-" {
        Box::new(io::stdin())
    } else {
        let file = File::open(path)?;
        if file.metadata()?.is_dir() {
            return Err(io::Error::other("is a directory"));
        }
        Box::new(file)
    };
    let mut reader = BufReader::new(raw);
    let magic = reader.fill_buf()?;
    if magic.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]) {
        Ok(Box::new(BufReader::new(
            liblzma::read::XzDecoder::new_multi_decoder(reader),
        )))
    } else {
        Ok(Box::new(reader))
    }
}

/// The reading state of one file.
struct Reader<'a> {
    file: usize,
    name: String,
    arch: Option<ComputeCapability>,
    kernels: &'a mut Vec<KernelResult>,
    kernel: Option<usize>,
    header: Kernel,
    block_dim: Option<u32>,
    /// The `.traceg` block open, and its warp.
    current: Option<Gathered>,
    warp: Option<u32>,
    /// Raw-trace blocks open.
    open: HashMap<[u32; 3], Gathered>,
    /// Blocks finished in this kernel.
    done: HashSet<[u32; 3]>,
    gathered: usize,
    send: &'a mpsc::SyncSender<(Gathered, ComputeCapability)>,
}

impl Reader<'_> {
    fn arch(&self) -> ComputeCapability {
        self.arch
            .or_else(|| {
                self.header
                    .binary_version
                    .and_then(|v| ComputeCapability::new(v / 10, v % 10))
            })
            .unwrap_or(DEFAULT_ARCH)
    }

    fn kernel(&mut self) -> usize {
        if let Some(k) = self.kernel {
            return k;
        }
        self.kernels.push(KernelResult {
            name: self.header.name.clone(),
            arch: Some(self.arch()),
            ..KernelResult::default()
        });
        let k = self.kernels.len() - 1;
        self.kernel = Some(k);
        k
    }

    fn send(&mut self, block: Gathered) -> Result<(), String> {
        self.gathered -= block.events;
        if !self.done.insert(block.block) {
            return Err(format!(
                "line {}: thread block ({}) appears twice in kernel {}",
                block.line,
                ids(block.block),
                self.header.name
            ));
        }
        self.kernels[block.kernel].blocks += 1;
        let arch = self.arch();
        self.send
            .send((block, arch))
            .map_err(|_| "a worker thread stopped".to_owned())
    }

    /// Ends the kernel: its open blocks are checked as they are.
    fn end_kernel(&mut self) -> Result<(), String> {
        if let Some(block) = self.current.take() {
            return Err(format!(
                "line {}: thread block ({}) has no #END_TB",
                block.line,
                ids(block.block)
            ));
        }
        let mut open: Vec<Gathered> = self.open.drain().map(|(_, b)| b).collect();
        open.sort_by_key(|b| block_key(b.block));
        for block in open {
            self.send(block)?;
        }
        self.kernel = None;
        self.done.clear();
        Ok(())
    }

    fn line(&mut self, number: u64, bytes: &[u8]) -> Result<(), String> {
        let context: Context = self.header.context;
        let parsed = accelsim::line(bytes, &context).map_err(|e| format!("line {number}: {e}"))?;
        match parsed {
            Line::Header(header) => {
                if let Header::KernelName(_) = header {
                    self.end_kernel()?;
                    self.header = Kernel::default();
                    self.block_dim = None;
                }
                if let Header::Other { key: "block dim", value } = header {
                    self.block_dim = block_dim(value);
                }
                self.header.apply(&header);
            }
            Line::BeginBlock => {
                if let Some(open) = &self.current {
                    return Err(format!(
                        "line {number}: #BEGIN_TB inside thread block ({}) begun at line {}",
                        ids(open.block),
                        open.line
                    ));
                }
                let kernel = self.kernel();
                self.current = Some(Gathered {
                    file: self.file,
                    kernel,
                    block: [u32::MAX; 3],
                    threads: self.block_dim,
                    warps: BTreeMap::new(),
                    exited: HashMap::new(),
                    line: number,
                    events: 0,
                });
                self.warp = None;
            }
            Line::ThreadBlock(ids3) => match &mut self.current {
                Some(block) if block.block == [u32::MAX; 3] => block.block = ids3,
                Some(block) => {
                    return Err(format!(
                        "line {number}: thread block ({}) begins before thread block ({}) ends (#END_TB)",
                        ids(ids3),
                        ids(block.block)
                    ))
                }
                None => {
                    return Err(format!(
                        "line {number}: `thread block` outside #BEGIN_TB ... #END_TB"
                    ))
                }
            },
            Line::Warp(warp) => {
                if let Some(block) = &mut self.current {
                    block.warps.entry(warp).or_default();
                }
                self.warp = Some(warp);
            }
            Line::EndBlock => {
                let Some(block) = self.current.take() else {
                    return Err(format!("line {number}: #END_TB without #BEGIN_TB"));
                };
                self.send(block)?;
            }
            Line::Instruction(instruction) => {
                let kernel = self.kernel();
                if let Some(source) = instruction.source {
                    let text = match source.file {
                        Some(file) => format!("{file}:{}", source.line),
                        None => format!("line {}", source.line),
                    };
                    self.kernels[kernel]
                        .lines
                        .entry(instruction.pc)
                        .or_insert(text);
                }
                let cas_round = matches!(instruction.class, Class::CasRound { .. });
                let event = match instruction.class {
                    // A CAS loop's try (`ATOMS.CAST.SPIN`) is the atomic it
                    // emulates: it writes its words, racing with plain
                    // accesses, never with other atomics.
                    Class::Shared { op, width } | Class::CasRound { op, width } => {
                        let mask = instruction.mask;
                        let request = WarpRequest::from_fn(op, width, |lane| {
                            (mask >> lane.index() & 1 == 1)
                                .then(|| instruction.addresses[lane.index()])
                        })
                        .map_err(|e| at(number, &e))?;
                        Some(Event::Access {
                            line: number,
                            pc: instruction.pc,
                            request,
                        })
                    }
                    // LDGSTS, TMA: not modelled (their shared addresses are
                    // not in the trace).
                    Class::Unmodelled { .. } => None,
                    // Constant memory is read only: no hazard.
                    Class::Constant { .. } => None,
                    // Barriers, fences and the rest: by their opcode.
                    _ => {
                        let text = std::str::from_utf8(bytes).unwrap_or("");
                        let operands = immediates(text, instruction.opcode);
                        sync_of(instruction.opcode, &operands, instruction.mask).map(|op| {
                            Event::Sync {
                                line: number,
                                pc: instruction.pc,
                                lanes: LaneSet::from_bits(instruction.mask),
                                op,
                            }
                        })
                    }
                };
                let is_exit = instruction.opcode.split('.').next() == Some("EXIT");
                // Inside `#BEGIN_TB` ... `#END_TB` the block and warp are the
                // markers' (pre-v3 lines there also carry ids: the markers
                // win); elsewhere, the ids on the line (the raw form).
                if let (Some(block), Some(warp)) = (&mut self.current, self.warp) {
                    if let Some(event) = event {
                        push_event(block.warps.entry(warp).or_default(), event, cas_round);
                        block.events += 1;
                        self.gathered += 1;
                    }
                } else if let Some((block, warp)) = instruction.block_warp {
                    let event = event.map(|e| (e, cas_round));
                    self.raw(number, kernel, block, warp, event, is_exit, instruction.mask)?;
                } else {
                    return Err(format!(
                        "line {number}: an instruction outside a thread block and warp \
                         (no #BEGIN_TB, `warp = N`, nor block and warp on the line)"
                    ));
                }
                if self.gathered > MAX_GATHERED {
                    return Err(format!(
                        "line {number}: more than {MAX_GATHERED} instructions of unfinished \
                         thread blocks (bounded memory): split the trace by block"
                    ));
                }
            }
            Line::Blank | Line::Comment | Line::Insts(_) => {}
        }
        Ok(())
    }

    /// A raw-trace instruction of `block`, `warp`.
    #[allow(clippy::too_many_arguments)]
    fn raw(
        &mut self,
        number: u64,
        kernel: usize,
        block: [u32; 3],
        warp: u32,
        event: Option<(Event, bool)>,
        is_exit: bool,
        mask: u32,
    ) -> Result<(), String> {
        if self.done.contains(&block) {
            return Err(format!(
                "line {number}: thread block ({}) has an instruction after all its warps exited",
                ids(block)
            ));
        }
        let threads = self.block_dim;
        let file = self.file;
        let open = self.open.entry(block).or_insert_with(|| Gathered {
            file,
            kernel,
            block,
            threads,
            warps: BTreeMap::new(),
            exited: HashMap::new(),
            line: number,
            events: 0,
        });
        let events = open.warps.entry(warp).or_default();
        if let Some((event, cas_round)) = event {
            push_event(events, event, cas_round);
            open.events += 1;
            self.gathered += 1;
        }
        if is_exit {
            *open.exited.entry(warp).or_default() |= mask;
        }
        // With the block's size known, it ends when every thread exited.
        if let Some(threads) = open.threads {
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
                let block = self.open.remove(&block).expect("the block is open");
                self.send(block)?;
            }
        }
        Ok(())
    }
}

/// Adds `event` to its warp's events. After a CAS loop's try (`cas_round`),
/// the round's `LDS` just before it (the same lanes reading the same words at
/// the same width) becomes part of the atomic: nvcc emits the two for one
/// `atomicAdd` and the loop retries whatever another thread wrote between
/// them, so that read races with no other atomic (a modelling choice, without
/// which every correct float or 64-bit shared `atomicAdd` by two lanes on one
/// word would be reported). It still races with plain writes, as the try does.
fn push_event(events: &mut Vec<Event>, event: Event, cas_round: bool) {
    if let (true, Some(Event::Access { request: load, .. }), Event::Access { request: cas, .. }) =
        (cas_round, events.last_mut(), &event)
    {
        if load.op() == Op::Load && load.width() == cas.width() && load.to_array() == cas.to_array()
        {
            *load = *cas;
        }
    }
    events.push(event);
}

/// `(32,8,1)` into 256.
fn block_dim(value: &str) -> Option<u32> {
    let inner = value.trim().trim_start_matches('(').trim_end_matches(')');
    inner
        .split(',')
        .map(|p| p.trim().parse::<u32>().ok())
        .try_fold(1u32, |acc, d| acc.checked_mul(d?))
}

/// The kernel's name demangled, when it is a C++ name.
fn demangled(name: &str) -> String {
    cpp_demangle::Symbol::new(name)
        .ok()
        .and_then(|s| s.demangle().ok())
        .unwrap_or_else(|| name.to_owned())
}

pub fn run(args: &Args) -> ExitCode {
    let threads = match args.threads {
        Some(n @ 1..=64) => n,
        Some(n) => {
            crate::output::warn(format!("--threads {n}: expected 1 to 64"));
            return ExitCode::from(2);
        }
        None => std::thread::available_parallelism().map_or(1, |n| n.get().min(64)),
    };
    let mut kernels: Vec<KernelResult> = Vec::new();
    let mut bad: Vec<String> = Vec::new();
    let (send, receive) = mpsc::sync_channel::<(Gathered, ComputeCapability)>(2 * threads);
    let receive = std::sync::Mutex::new(receive);
    let (report_send, report_receive) = mpsc::channel::<Checked>();
    let mut checked: Vec<Checked> = Vec::new();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let receive = &receive;
            let report_send = report_send.clone();
            scope.spawn(move || loop {
                let job = receive.lock().map(|r| r.recv());
                let Ok(Ok((block, arch))) = job else { break };
                let result = check(&block, arch);
                let done = Checked {
                    file: block.file,
                    kernel: block.kernel,
                    block: block.block,
                    result,
                };
                if report_send.send(done).is_err() {
                    break;
                }
            });
        }
        drop(report_send);
        for (file, path) in args.files.iter().enumerate() {
            let name = path.display().to_string();
            let mut reader = Reader {
                file,
                name: name.clone(),
                arch: args.arch,
                kernels: &mut kernels,
                kernel: None,
                header: Kernel::default(),
                block_dim: None,
                current: None,
                warp: None,
                open: HashMap::new(),
                done: HashSet::new(),
                gathered: 0,
                send: &send,
            };
            if let Err(err) = read_file(path, &mut reader) {
                bad.push(format!("{}:{err}", reader.name));
            }
        }
        drop(send);
        checked.extend(report_receive.iter());
    });
    for done in checked {
        let kernel = &mut kernels[done.kernel];
        match done.result {
            Ok(report) => merge(kernel, done.block, &report),
            Err(err) => bad.push(format!(
                "{}:{}",
                args.files[done.file].display(),
                err.strip_prefix("line ").unwrap_or(&err)
            )),
        }
    }
    bad.sort();
    for message in &bad {
        crate::output::warn(message);
    }
    let text = if args.json {
        json(&kernels)
    } else {
        text(&kernels)
    };
    if emit(&text).is_err() {
        return ExitCode::from(2);
    }
    if !bad.is_empty() {
        ExitCode::from(2)
    } else if kernels
        .iter()
        .any(|k| !k.hazards.is_empty() || !k.barrier_errors.is_empty())
    {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Reads one file's lines into the reader; the first error stops it.
fn read_file(path: &PathBuf, reader: &mut Reader<'_>) -> Result<(), String> {
    let mut input = open(path).map_err(|e| format!(" cannot read: {e}"))?;
    let mut buffer = Vec::new();
    let mut number = 0u64;
    loop {
        buffer.clear();
        let got = (&mut input)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut buffer)
            .map_err(|e| format!("{}: {e}", number + 1))?;
        if got == 0 {
            break;
        }
        number += 1;
        if buffer.len() > MAX_LINE && buffer.last() != Some(&b'\n') {
            return Err(format!("{number}: line longer than {MAX_LINE} bytes"));
        }
        let line = buffer.strip_suffix(b"\n").unwrap_or(&buffer);
        reader
            .line(number, line)
            .map_err(|e| e.strip_prefix("line ").map_or(e.clone(), |r| r.to_owned()))?;
    }
    reader
        .end_kernel()
        .map_err(|e| e.strip_prefix("line ").map_or(e.clone(), |r| r.to_owned()))
}

fn merge(kernel: &mut KernelResult, block: [u32; 3], report: &BlockReport) {
    for hazard in report.hazards() {
        let key = (
            hazard.severity(),
            hazard.kind(),
            hazard.first().site(),
            hazard.second().site(),
        );
        let entry = kernel.hazards.entry(key).or_insert_with(|| Finding {
            blocks: 0,
            bytes: 0,
            block,
            example: hazard.clone(),
        });
        entry.blocks += 1;
        entry.bytes += u64::from(hazard.bytes());
        if block_key(block) < block_key(entry.block) {
            entry.block = block;
            entry.example = hazard.clone();
        }
    }
    for error in report.barrier_errors() {
        let entry = kernel
            .barrier_errors
            .entry(error.to_string())
            .or_insert_with(|| BarrierFinding {
                blocks: 0,
                block,
                error: error.clone(),
            });
        entry.blocks += 1;
        if block_key(block) < block_key(entry.block) {
            entry.block = block;
        }
    }
}

fn pc_text(kernel: &KernelResult, pc: u64) -> String {
    match kernel.lines.get(&pc) {
        Some(line) => format!("pc {pc:#06x} ({line})"),
        None => format!("pc {pc:#06x}"),
    }
}

fn text(kernels: &[KernelResult]) -> String {
    let mut out = String::new();
    if kernels.is_empty() {
        out.push_str("no kernels in the input\n");
    }
    for kernel in kernels {
        let arch = kernel.arch.unwrap_or(DEFAULT_ARCH);
        let _ = writeln!(
            out,
            "kernel {} ({}), {}:",
            demangled(&kernel.name),
            arch.sm_name(),
            plural(kernel.blocks, "block")
        );
        if kernel.hazards.is_empty() && kernel.barrier_errors.is_empty() {
            out.push_str("  no hazards, no barrier errors\n");
            continue;
        }
        for finding in kernel.hazards.values() {
            let h = &finding.example;
            let (a, b) = (h.first(), h.second());
            let _ = writeln!(
                out,
                "  {} {}: {} and {}, {}, {}",
                h.severity(),
                h.kind(),
                pc_text(kernel, a.site()),
                pc_text(kernel, b.site()),
                plural(finding.blocks, "block"),
                plural(finding.bytes, "byte")
            );
            let _ = writeln!(
                out,
                "    e.g. block ({}) byte {:#x}: {} by warp {} lane {}, {} by warp {} lane {}",
                ids(finding.block),
                h.address(),
                a.access(),
                a.warp(),
                a.lane(),
                b.access(),
                b.warp(),
                b.lane()
            );
        }
        for finding in kernel.barrier_errors.values() {
            let _ = writeln!(
                out,
                "  barrier error: {} ({}, e.g. block ({}))",
                finding.error,
                plural(finding.blocks, "block"),
                ids(finding.block)
            );
        }
    }
    out
}

fn json(kernels: &[KernelResult]) -> String {
    use serde_json::json;
    let mut hazards = Vec::new();
    let mut barrier_errors = Vec::new();
    for kernel in kernels {
        for finding in kernel.hazards.values() {
            let h = &finding.example;
            let side = |a: &smem_model::HazardAccess| {
                json!({
                    "pc": a.site(),
                    "line": kernel.lines.get(&a.site()),
                    "warp": a.warp(),
                    "lane": a.lane().get(),
                    "access": a.access().to_string(),
                })
            };
            hazards.push(json!({
                "kernel": kernel.name,
                "kind": h.kind().to_string(),
                "severity": h.severity().to_string(),
                "first": side(h.first()),
                "second": side(h.second()),
                "bytes": finding.bytes,
                "blocks": finding.blocks,
                "example_block": finding.block,
                "example_address": h.address(),
            }));
        }
        for finding in kernel.barrier_errors.values() {
            barrier_errors.push(json!({
                "kernel": kernel.name,
                "message": finding.error.to_string(),
                "error": finding.error,
                "blocks": finding.blocks,
                "example_block": finding.block,
            }));
        }
    }
    let kernels: Vec<_> = kernels
        .iter()
        .map(|k| {
            json!({
                "name": k.name,
                "arch": k.arch.unwrap_or(DEFAULT_ARCH).sm_name(),
                "blocks": k.blocks,
            })
        })
        .collect();
    let value = json!({
        "schema": "smem-racecheck/1",
        "kernels": kernels,
        "hazards": hazards,
        "barrier_errors": barrier_errors,
    });
    format!("{value:#}\n")
}
