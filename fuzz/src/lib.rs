//! What each fuzz target checks, on any input: no panic, no hang, and the
//! answers that must agree do.
//!
//! The targets in `fuzz_targets/` call these functions; so does
//! `tests/fuzz_corpora.rs` (it includes this file with `#[path]`), which replays
//! every seed and every committed crash on stable Rust, as an ordinary test.
//!
//! The expression parser of the `smem` binary is compiled in from its file
//! (it is self-contained: only `std`, `smallvec` and `smem_model` imports);
//! the trace reader is the library's (feature `trace`).

#![allow(clippy::missing_panics_doc)]

use smem_model::corpus::{self, Record};
use smem_model::kernel::ptx::{self, Operand};
use smem_model::{
    AccessWidth, BankConfig, Classification, ComputeCapability, ConstantLoad, Lane, LaneSet, Op,
    SharedMemConfig, StoreOrder, WarpRequest, WARP_SIZE,
};

/// The `smem analyze` expression parser.
#[allow(dead_code)]
#[path = "../../src/bin/smem/analyze/expr.rs"]
pub mod expr;

/// The Accel-Sim trace-line parser of the library.
use smem_model::kernel::accelsim::line as accelsim;

/// Bytes read front to back; past the end, every read is 0, so that every
/// input, however short, means something.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&first, rest)) => {
                self.0 = rest;
                first
            }
            None => 0,
        }
    }

    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }
}

/// Every op the model has, atomics of every kind and cp.async included.
const OPS: [Op; Op::ALL.len()] = Op::ALL;

/// Target `request`: a capability, a bank mode, an op, a width, an active mask
/// and 32 addresses from the bytes; every constructor and every method of the
/// request and of its partition, and the agreement of `partition`, `cost` and
/// `wavefronts`.
///
/// Layout of the input: capability, bank mode, op, width (a byte: one of the
/// five widths, or from 250 on a raw `u32` that follows), how addresses are
/// made (raw, `base + stride * lane`, small multiples of the width), the
/// active mask, the lanes left out of the address array, then the addresses.
pub fn request(data: &[u8]) {
    let mut bytes = Bytes(data);
    let all = ComputeCapability::ALL;
    let capability = all[usize::from(bytes.u8()) % all.len()];
    let mode = [
        SharedMemConfig::Default,
        SharedMemConfig::FourByte,
        SharedMemConfig::EightByte,
    ][usize::from(bytes.u8() % 3)];
    let config = BankConfig::new(capability).with_shared_mem_config(mode);
    let op = OPS[usize::from(bytes.u8()) % OPS.len()];
    let width = match bytes.u8() {
        pick @ 0..250 => [1, 2, 4, 8, 16][usize::from(pick % 5)],
        _ => bytes.u32(),
    };
    let shape = bytes.u8() % 4;
    let mask = LaneSet::from_bits(bytes.u32());
    let absent = bytes.u32();
    let (base, stride) = (bytes.u32(), bytes.u32());
    let addresses: [Option<u32>; WARP_SIZE] = core::array::from_fn(|lane| {
        let address = match shape {
            0 => bytes.u32(),
            1 => base.wrapping_add(stride.wrapping_mul(lane as u32)),
            2 => u32::from(bytes.u8()).wrapping_mul(width),
            _ => bytes.u32() & 0xffff & !(width.wrapping_sub(1)),
        };
        (absent >> lane & 1 == 0).then_some(address)
    });

    let built = WarpRequest::new(op, width, addresses);
    // Every constructor agrees with `new`.
    assert_eq!(
        WarpRequest::from_fn(op, width, |lane| addresses[lane.index()]),
        built
    );
    assert_eq!(WarpRequest::from_slice(op, width, &addresses), built);
    assert_eq!(
        WarpRequest::try_from_iter(op, width, addresses.iter().copied()),
        built
    );
    // The simulator's constructors: a mask with 32 offsets (stale values in
    // inactive lanes), and generic addresses above a window base.
    let offsets: [u32; WARP_SIZE] =
        core::array::from_fn(|lane| addresses[lane].unwrap_or(lane as u32 * 3 + 1));
    let from_offsets = WarpRequest::from_offsets(op, width, mask, &offsets);
    assert_eq!(
        from_offsets,
        WarpRequest::from_fn(op, width, |lane| mask
            .contains(lane)
            .then_some(offsets[lane.index()]))
    );
    let window_base = u64::from(bytes.u32()) << 32 | u64::from(bytes.u32());
    let generic = offsets.map(|offset| window_base.wrapping_add(u64::from(offset)));
    assert_eq!(
        WarpRequest::from_generic(op, width, mask, &generic, window_base),
        from_offsets
    );
    let stray = generic.map(|address| address ^ u64::from(bytes.u8()) << 40);
    if let Ok(request) = WarpRequest::from_generic(op, width, mask, &stray, window_base) {
        exercise(config, &request);
    }
    let short = usize::from(bytes.u8()) % WARP_SIZE;
    assert!(WarpRequest::from_slice(op, width, &addresses[..short]).is_err());
    let _ = AccessWidth::from_bytes(width);
    let _ = config.check_op(op);
    if let Ok(width) = AccessWidth::from_bytes(width) {
        let _ = config.phase_lanes(op, width);
        let _ = config.parts(width);
    }
    let Ok(request) = built else { return };
    for request in [request, request.with_mask(mask)] {
        exercise(config, &request);
        round_trip(config, &request);
    }
    for &address in &addresses {
        let address = address.unwrap_or(u32::MAX);
        let _ = (config.bank_of(address), config.word_of(address));
    }
}

/// Every method of a request and of its partition under `config`.
fn exercise(config: BankConfig, request: &WarpRequest) {
    let _ = format!("{request:?}");
    let active = request.active();
    assert!(active.bits() & !request.op().address_lanes().bits() == 0);
    let array = request.to_array();
    for lane in Lane::all() {
        assert_eq!(request.address(lane), array[lane.index()]);
        assert_eq!(request.address(lane).is_some(), active.contains(lane));
    }
    assert_eq!(request.active_addresses().count(), active.len());
    for collision in request.write_collisions() {
        assert!(collision.lanes().len() > 1);
        for order in [
            StoreOrder::Undefined,
            StoreOrder::LowestLane,
            StoreOrder::HighestLane,
        ] {
            if let Some(lane) = collision.winner(order) {
                assert!(collision.lanes().contains(lane));
            }
        }
    }

    let partition = config.partition(request);
    let cost = config.cost(request);
    let wavefronts = config.wavefronts(request);
    let partition = match (partition, cost, wavefronts) {
        (Ok(partition), Ok(cost), Ok(wavefronts)) => {
            assert_eq!(partition.cost(), cost);
            assert_eq!(partition.wavefronts(), wavefronts);
            partition
        }
        (Err(a), Err(b), Err(c)) => {
            assert_eq!(a, b);
            assert_eq!(a, c);
            let _ = a.to_string();
            return;
        }
        (p, c, w) => panic!("partition, cost and wavefronts disagree: {p:?} {c:?} {w:?}"),
    };
    assert_eq!(partition.config(), config);
    assert_eq!(partition.request(), request);
    let (wavefronts, ideal) = (partition.wavefronts(), partition.ideal_wavefronts());
    assert!(ideal <= wavefronts);
    assert_eq!(partition.bank_conflicts(), wavefronts - ideal);
    assert!(partition.ways() <= wavefronts);
    assert_eq!(partition.transactions().len(), wavefronts as usize);
    if let Some(fraction) = partition.bandwidth_fraction() {
        assert!(fraction > 0.0 && fraction <= 1.0);
    }
    let classification = partition.classification();
    let _ = classification.to_string();
    assert_eq!(classification == Classification::Empty, active.is_empty());
    let mut served = LaneSet::EMPTY;
    for transaction in partition.transactions() {
        let lanes = transaction.lanes();
        served = served.union(lanes);
        let _ = (transaction.phase(), transaction.part());
        let words = transaction.words();
        let banks = transaction.banks();
        assert!(banks.len() <= words.len());
        for word in &words {
            assert!(banks.contains(word.bank));
            assert!((word.bank.index() as u32) < config.bank_count());
            assert!(word.lanes.bits() & !lanes.bits() == 0);
        }
        assert!(transaction
            .broadcast_words()
            .all(|word| word.lanes.len() > 1));
        for lane in Lane::all() {
            assert_eq!(transaction.serves(lane), lanes.contains(lane));
        }
    }
    assert_eq!(
        served, active,
        "every active lane is served, and only those"
    );
}

/// The request, its configuration, its partition and its cost through serde:
/// each reads back as it was written.
fn round_trip(config: BankConfig, request: &WarpRequest) {
    fn again<T>(value: &T) -> T
    where
        T: serde::Serialize + serde::de::DeserializeOwned,
    {
        let json = serde_json::to_string(value).expect("a value serialises");
        serde_json::from_str(&json).unwrap_or_else(|err| panic!("{json} reads back: {err}"))
    }
    assert_eq!(again(&config), config);
    assert_eq!(&again(request), request);
    if let Ok(partition) = config.partition(request) {
        assert_eq!(again(&partition), partition);
        assert_eq!(again(&partition.cost()), partition.cost());
        for collision in request.write_collisions() {
            assert_eq!(again(&collision), collision);
        }
    }
}

/// Target `record`: a corpus line (JSON) read as a record, checked under its
/// own capability and a few others, and written back; and the bytes read as a
/// corpus file.
pub fn record(data: &[u8]) {
    for item in corpus::read(data, "fuzz.jsonl") {
        let _ = item.map_err(|err| err.to_string());
    }
    let Ok(line) = core::str::from_utf8(data) else {
        return;
    };
    let Ok(record) = Record::from_json(line) else {
        return;
    };
    let own = record.capability();
    let _ = record.operation();
    let checked = record.check(None);
    if let Ok(capability) = own {
        assert_eq!(
            record.check(Some(capability)),
            checked,
            "a record checks the same under its own capability"
        );
    }
    for capability in [
        ComputeCapability::Sm13,
        ComputeCapability::Sm20,
        ComputeCapability::Sm35,
        ComputeCapability::Sm61,
        ComputeCapability::Sm90,
    ] {
        if let Ok(request) = record.request(capability) {
            exercise(BankConfig::new(capability), &request);
        }
        if let Ok(check) = record.check(Some(capability)) {
            assert!(check.bank_conflicts <= check.wavefronts);
            let _ = check.is_exact();
        }
    }
    let json = serde_json::to_string(&record).expect("a record serialises");
    assert_eq!(Record::from_json(&json).as_ref(), Ok(&record));
}

/// Target `expr`: the bytes as `smem analyze` input: every line but the last
/// a `--define NAME=VALUE`, the last the expression, parsed with those
/// constants (and without) and evaluated for every lane. Every error locates
/// itself inside the text it is about.
pub fn expr(data: &[u8]) {
    let Ok(text) = core::str::from_utf8(data) else {
        return;
    };
    let (definitions, source) = text.rsplit_once('\n').unwrap_or(("", text));
    let mut constants = expr::Constants::new();
    for definition in definitions.lines() {
        if let Err(err) = constants.define(definition) {
            let _ = (err.to_string(), err.show(definition));
        }
    }
    let _ = constants.get(source);
    for parsed in [expr::parse(source), expr::parse_with(source, &constants)] {
        match parsed {
            Ok(parsed) => {
                for lane in 0..WARP_SIZE as u32 {
                    if let Err(err) = parsed.eval(lane) {
                        let _ = (err.to_string(), err.show(source));
                    }
                }
            }
            Err(err) => {
                let _ = (err.to_string(), err.show(source));
            }
        }
    }
}

/// Target `trace_line`: the bytes as the lines of an Accel-Sim trace, headers
/// read into the kernel and every other line parsed as an instruction; a
/// shared-memory instruction's addresses are built into a request.
pub fn trace_line(data: &[u8]) {
    let mut kernel = accelsim::Kernel::default();
    for line in data.split(|&b| b == b'\n') {
        match accelsim::line(line, &kernel.context) {
            Ok(accelsim::Line::Header(header)) => kernel.apply(&header),
            Ok(accelsim::Line::Instruction(instruction)) => {
                let mask = instruction.mask;
                if let accelsim::Class::Constant { width, addressed } = instruction.class {
                    if addressed {
                        let request = WarpRequest::from_fn(Op::Load, width, |lane| {
                            (mask >> lane.index() & 1 == 1)
                                .then(|| instruction.addresses[lane.index()])
                        });
                        if let Ok(load) = request.and_then(|r| ConstantLoad::from_request(&r)) {
                            assert!(load.requests(ComputeCapability::Sm90) <= mask.count_ones());
                        }
                    } else {
                        assert_eq!(instruction.addresses, [0; WARP_SIZE], "{line:?}");
                    }
                    continue;
                }
                let accelsim::Class::Shared { op, width } = instruction.class else {
                    continue;
                };
                for (lane, &address) in instruction.addresses.iter().enumerate() {
                    // Inactive lanes hold 0.
                    assert!(mask >> lane & 1 == 1 || address == 0, "{line:?}");
                }
                let request = WarpRequest::from_fn(op, width, |lane| {
                    (mask >> lane.index() & 1 == 1).then(|| instruction.addresses[lane.index()])
                });
                if let Ok(request) = request {
                    exercise(BankConfig::new(ComputeCapability::Sm90), &request);
                }
            }
            Ok(_) => {}
            Err(message) => assert!(!message.is_empty()),
        }
    }
    // The whole reader, into events and a tally: every line it cannot read
    // is an error naming its place (or, where the bytes read as a kernel
    // list, the file it names that cannot be read), never a panic.
    let named = |err: &smem_model::Error| {
        let text = err.to_string();
        assert!(
            text.starts_with("fuzz.traceg") || text.starts_with("cannot read "),
            "{text}"
        );
    };
    let mut tally = smem_model::kernel::tally::Tally::default();
    let trace = smem_model::kernel::accelsim::Trace::from_reader(
        "fuzz.traceg",
        std::io::Cursor::new(data.to_vec()),
    );
    let mut trace = trace;
    let summary = trace.read_with(&mut tally, |err| {
        named(&err);
        Ok(())
    });
    if let Ok(summary) = summary {
        assert!(summary.lines >= summary.instructions);
        assert!(tally.totals().requests <= summary.instructions);
    }
    // `smem racecheck`'s use of the library: the same trace into the race
    // checker, a block it refuses dropped and the rest checked; never a
    // panic, and the requests it counts are the reader's.
    let mut check = Skipping::default();
    let mut trace = smem_model::kernel::accelsim::Trace::from_reader(
        "fuzz.traceg",
        std::io::Cursor::new(data.to_vec()),
    );
    let summary = trace.read_with(&mut check, |err| {
        named(&err);
        Ok(())
    });
    if let Ok(summary) = summary {
        let requests: u64 = check.check.kernels().iter().map(|k| k.requests()).sum();
        assert!(requests <= summary.instructions);
    }
    // `smem trace`'s reading, chunk by chunk (its lines cut by the fast
    // check of other instructions): the same lines, never a panic.
    let mut reader = smem_model::kernel::accelsim::input::Reader::new(vec![
        smem_model::kernel::accelsim::input::Input::reader(
            "fuzz.traceg",
            std::io::Cursor::new(data.to_vec()),
        ),
    ]);
    let mut tally = smem_model::kernel::tally::Tally::default();
    while let Some(chunk) = reader.next_chunk() {
        let lines = chunk.lines().count() as u64;
        let summary =
            smem_model::kernel::accelsim::read_chunk(&chunk, &mut tally, &mut |_, reason| {
                assert!(!reason.is_empty());
            })
            .expect("a tally takes every event");
        assert_eq!(summary.lines, lines);
        assert!(summary.instructions <= lines);
    }
}

/// A `Racecheck` as `smem racecheck` drives it: an error of the model drops
/// the open block (`Racecheck::discard_block`) and reading goes on.
#[derive(Default)]
struct Skipping {
    check: smem_model::Racecheck,
    failed: bool,
}

impl Skipping {
    fn fail(&mut self) {
        self.check.discard_block();
        self.failed = true;
    }
}

impl smem_model::kernel::Consumer for Skipping {
    fn begin_kernel(
        &mut self,
        kernel: &smem_model::kernel::KernelInfo<'_>,
    ) -> Result<(), smem_model::Error> {
        self.failed = false;
        if self.check.begin_kernel(kernel).is_err() {
            self.fail();
        }
        Ok(())
    }

    fn begin_block(
        &mut self,
        block: &smem_model::kernel::BlockInfo,
    ) -> Result<(), smem_model::Error> {
        self.failed = false;
        if self.check.begin_block(block).is_err() {
            self.fail();
        }
        Ok(())
    }

    fn event(
        &mut self,
        warp: u32,
        event: &smem_model::kernel::Event<'_>,
    ) -> Result<(), smem_model::Error> {
        if !self.failed && self.check.event(warp, event).is_err() {
            self.fail();
        }
        Ok(())
    }

    fn end_block(&mut self) -> Result<(), smem_model::Error> {
        if !std::mem::take(&mut self.failed) && self.check.end_block().is_err() {
            self.check.discard_block();
        }
        Ok(())
    }

    fn end_kernel(&mut self) -> Result<(), smem_model::Error> {
        self.failed = false;
        if self.check.end_kernel().is_err() {
            self.check.discard_block();
        }
        Ok(())
    }
}

/// Target `ptx`: the bytes (made UTF-8, lossily) as a PTX module. A module
/// that reads holds only what it promises: every register an operand or
/// guard names is one of its function's, every label and branch target is
/// inside the function, lines are lines of the text. A text that does not
/// read is a `PtxSyntax` error whose line and column are in the text and
/// whose quote of it is short.
pub fn ptx(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let lines = text.split('\n').count();
    let result = ptx::parse(&text);
    match result {
        Ok(module) => {
            for function in &module.functions {
                let mut next = 0;
                for decl in &function.registers {
                    assert_eq!(decl.first.0, next, "registers are numbered densely");
                    next += decl.count.unwrap_or(1);
                }
                assert_eq!(next, function.register_count);
                let count = function.instructions.len() as u32;
                for label in &function.labels {
                    assert!(label.target <= count);
                }
                for instruction in &function.instructions {
                    assert!(!instruction.opcode().is_empty());
                    assert!(instruction.line >= 1 && instruction.line as usize <= lines);
                    if let Some(guard) = instruction.guard {
                        assert!(function.register(guard.reg).is_some());
                    }
                    for operand in &instruction.operands {
                        ptx_operand(function, count, operand);
                    }
                }
            }
        }
        Err(smem_model::Error::PtxSyntax {
            line,
            column,
            expected,
            found,
        }) => {
            assert!(line >= 1 && line <= lines, "line {line} of {lines}");
            let line_text = text.split('\n').nth(line - 1).unwrap_or("");
            assert!(column >= 1 && column <= line_text.chars().count() + 1);
            assert!(!expected.is_empty());
            // 32 characters, the quotes and "...".
            assert!(found.chars().count() <= 32 + 2 + 3, "{found}");
        }
        Err(other) => panic!("a PTX text fails with PtxSyntax only, not {other:?}"),
    }
}

fn ptx_operand(function: &ptx::Function<'_>, count: u32, operand: &Operand<'_>) {
    match operand {
        Operand::Reg { id, .. } => assert!(function.register(*id).is_some()),
        Operand::RegPair(a, b) => {
            assert!(function.register(*a).is_some() && function.register(*b).is_some());
        }
        Operand::Label(target) => assert!(*target <= count),
        Operand::Address(address) => {
            if let ptx::AddressBase::Reg(id) = address.base {
                assert!(function.register(id).is_some());
            }
        }
        Operand::Vector(items) | Operand::List(items) => {
            for item in items {
                assert!(!matches!(item, Operand::Vector(_) | Operand::List(_)));
                ptx_operand(function, count, item);
            }
        }
        Operand::Opaque(text) => assert!(text.starts_with('[') && text.ends_with(']')),
        _ => {}
    }
}

/// Gives every event to a tally and a race checker, as `smem kernel` does.
struct TallyAndRaces {
    tally: smem_model::kernel::tally::Tally,
    races: smem_model::Racecheck,
}

impl smem_model::kernel::Consumer for TallyAndRaces {
    fn begin_kernel(
        &mut self,
        kernel: &smem_model::kernel::KernelInfo<'_>,
    ) -> Result<(), smem_model::Error> {
        self.tally.begin_kernel(kernel)?;
        self.races.begin_kernel(kernel)
    }

    fn begin_block(
        &mut self,
        block: &smem_model::kernel::BlockInfo,
    ) -> Result<(), smem_model::Error> {
        self.tally.begin_block(block)?;
        self.races.begin_block(block)
    }

    fn place(&mut self, place: &smem_model::kernel::Place<'_>) {
        self.tally.place(place);
        self.races.place(place);
    }

    fn event(
        &mut self,
        warp: u32,
        event: &smem_model::kernel::Event<'_>,
    ) -> Result<(), smem_model::Error> {
        self.tally.event(warp, event)?;
        self.races.event(warp, event)
    }

    fn event_unchanged(
        &mut self,
        warp: u32,
        event: &smem_model::kernel::Event<'_>,
        unchanged: LaneSet,
    ) -> Result<(), smem_model::Error> {
        self.tally.event_unchanged(warp, event, unchanged)?;
        self.races.event_unchanged(warp, event, unchanged)
    }

    fn end_block(&mut self) -> Result<(), smem_model::Error> {
        self.tally.end_block()?;
        self.races.end_block()
    }

    fn end_kernel(&mut self) -> Result<(), smem_model::Error> {
        self.tally.end_kernel()?;
        self.races.end_kernel()
    }
}

/// A PTX module run as `smem kernel` runs it: each of its first 4 kernels
/// lowered and launched on 2 blocks of 64 threads (2 warps) with every scalar
/// argument 3 and 256 dynamic shared bytes, a budget of 20,000 warp
/// instructions a block, into a tally and the race checker. No input may
/// panic, hang or take memory past what the launch needs: an error is fine.
pub fn ptx_run(data: &[u8]) {
    use smem_model::kernel::ptx::{Kernel, KernelLaunch, ParamKind, RunOptions};

    let text = String::from_utf8_lossy(data);
    let Ok(module) = ptx::parse(&text) else {
        return;
    };
    for function in module.entries().take(4) {
        let Ok(kernel) = Kernel::new(&module, Some(function.name)) else {
            continue;
        };
        let _ = kernel.opaque_instructions();
        let Ok(mut launch) = KernelLaunch::new([2, 1, 1], [64, 1, 1]) else {
            return;
        };
        launch = launch.with_dynamic_shared(256);
        for (i, param) in kernel.params().iter().enumerate() {
            if param.kind != ParamKind::Pointer {
                if let Ok(arg) = format!("{i}=3").parse() {
                    launch = launch.with_arg(arg);
                }
            }
        }
        let mut both = TallyAndRaces {
            tally: smem_model::kernel::tally::Tally::new(),
            races: smem_model::Racecheck::new(),
        };
        let options = RunOptions::new().with_step_budget(20_000);
        if let Ok(summary) = kernel.run(&launch, &options, &mut both) {
            assert!(summary.blocks_run <= 2);
            let _ = summary.notes.len();
        }
        let _ = both.tally.totals();
        let _ = both.races.into_kernels();
    }
}

/// Nsight Compute's CSV exports (`smem kernel --ncu`): any bytes read as a
/// raw, details or Source page or refused with an error, never a panic; a
/// page read answers every question the comparison asks of it (each counter
/// of the `--metrics` list, the kernel names, the Source page's sums).
pub fn ncu_csv(data: &[u8]) {
    use smem_model::kernel::ncu::profile;

    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(launches) = profile::read_launches(text) {
        for launch in &launches {
            for name in profile::METRICS {
                let _ = launch.counter(name);
            }
            let _ = launch.is_kernel("_Z20transposeNaiveSharedPfPKfii");
        }
    }
    if let Ok(kernels) = profile::read_source(text) {
        for kernel in &kernels {
            let by_family = kernel.by_family();
            let total = kernel.total();
            let _ = (by_family, total, kernel.is_kernel("fx_matmul"));
        }
    }
    match profile::read_export(text) {
        Ok(profile::Export::Launches(launches)) => {
            let kernel = launches.first().map_or("k", |l| l.kernel.as_str());
            let _ = profile::select(&launches, kernel, [8, 8, 1], [32, 32, 1], None);
            let _ = profile::select(&launches, kernel, [1, 1, 1], [1, 1, 1], Some(0));
        }
        Ok(profile::Export::Source(kernels)) => {
            let kernel = kernels.first().map_or("k", |k| k.kernel.as_str());
            let _ = profile::select_source(&kernels, kernel, None);
            let _ = profile::select_source(&kernels, kernel, Some(1));
        }
        Ok(_) => {}
        Err(err) => {
            let _ = err.to_string();
        }
    }
}

/// A kernel with a parameter of every kind a launch binds: pointer, signed
/// and unsigned integers of each width, each float, and a 24-byte struct
/// (its name is C++'s, so that `Signature::of_cpp` gives the source types).
const KINDS_PTX: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
    .visible .entry _Z1kPfijxytfd4Trip(\n\
    .param .u64 .ptr .global .align 4 p0, .param .u32 p1, .param .u32 p2,\n\
    .param .u64 p3, .param .u64 p4, .param .u16 p5, .param .f32 p6, .param .f64 p7,\n\
    .param .align 8 .b8 p8[24])\n\
    {\n.reg .b64 %rd<2>;\n.shared .align 4 .b8 s[64];\n\
    ld.param.u64 %rd1, [p8+16];\nret;\n}\n";

/// An error's message stays short whatever the input: at most twice the
/// input and a few hundred bytes (issue 36: a list of 200,000 names in one
/// line).
fn bounded(error: &smem_model::Error, input: usize) {
    let message = error.to_string();
    assert!(
        message.len() <= 1024 + 2 * input,
        "a {}-byte message for a {input}-byte input",
        message.len()
    );
}

/// Launch arguments as `smem kernel` and Python read them: the first line
/// as `--grid`/`--block` dimensions, each later line (at most 32) as `--arg
/// KEY=VALUE`, checked against a kernel with a parameter of every kind, with
/// and without its C++ source types, then bound. Anything is read or
/// refused with a short error, never a panic; bound values have exactly
/// their parameter's bytes.
pub fn launch_args(data: &[u8]) {
    use smem_model::kernel::ptx::{resolve, Arg, Kernel, KernelLaunch};

    let text = String::from_utf8_lossy(data);
    let mut lines = text.lines();
    let dims = match lines.next().map(ptx::parse_dims) {
        Some(Ok(dims)) => dims,
        Some(Err(e)) => {
            bounded(&e, text.len());
            [1, 1, 1]
        }
        None => [1, 1, 1],
    };
    let launch = match KernelLaunch::new(dims, [32, 1, 1]) {
        Ok(launch) => {
            assert!(launch.blocks() <= (1 << 31) * 65_535 * 65_535);
            launch
        }
        Err(e) => {
            bounded(&e, text.len());
            KernelLaunch::new([1, 1, 1], [32, 1, 1]).unwrap()
        }
    };
    let mut args = Vec::new();
    for line in lines.take(32) {
        match line.parse::<Arg>() {
            Ok(arg) => args.push(arg),
            Err(e) => bounded(&e, text.len()),
        }
    }
    let module = ptx::parse(KINDS_PTX).unwrap();
    let kernel = Kernel::new(&module, None).unwrap();
    let params = kernel.params();
    let cpp = resolve::Signature::of_cpp(kernel.name());
    for signature in [None, cpp.as_ref()] {
        let prepared = match resolve::prepare_args(&kernel, signature, &args) {
            Ok(prepared) => prepared,
            Err(e) => {
                bounded(&e, text.len());
                continue;
            }
        };
        let launch = prepared
            .into_iter()
            .fold(launch.clone(), |launch, arg| launch.with_arg(arg));
        match launch.bind(&params) {
            Ok(bound) => {
                assert_eq!(bound.len(), params.len());
                for (bytes, param) in bound.iter().zip(&params) {
                    assert_eq!(bytes.len(), param.kind.bytes() as usize);
                }
            }
            Err(e) => bounded(&e, text.len()),
        }
    }
}

/// Triton's metadata as a cache entry gives it: the input is the entry's
/// `.json`, then (after a line `----`) its TTIR/TTGIR text, then (after
/// another) one `--arg` a line. The metadata and the IR's signature are
/// read, the kernel found and launched as `smem kernel` launches a Triton
/// kernel (a block of 32 x `num_warps` threads, `shared` dynamic bytes, the
/// metadata's arch) on one block with a budget of 20,000 warp instructions:
/// no panic, no allocation the launch does not need (issue 36: `"shared":
/// 4294967295` aborted after 34 GB), a short error or a run.
pub fn triton_meta(data: &[u8]) {
    use smem_model::kernel::ptx::{resolve, Arg, KernelLaunch, RunOptions};

    let text = String::from_utf8_lossy(data);
    let mut parts = text.splitn(3, "\n----\n");
    let json = parts.next().unwrap_or("");
    let ir = parts.next().unwrap_or("");
    let args = parts.next().unwrap_or("");
    let Some(mut meta) = resolve::TritonMeta::from_json(json) else {
        return;
    };
    let name = meta.name.clone().unwrap_or_else(|| "fx".to_owned());
    meta.signature = resolve::Signature::of_triton_ir(ir, &name);
    let ptx_text = format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n\
         .visible .entry {name}(.param .u64 .ptr .global .align 1 {name}_param_0, \
         .param .u32 {name}_param_1, .param .f32 {name}_param_2)\n\
         .reqntid 128\n{{\n.reg .b32 %r<4>;\n.shared .align 16 .b8 s[1024];\n\
         .extern .shared .align 16 .b8 d[];\n\
         mov.u32 %r1, %tid.x;\nshl.b32 %r2, %r1, 2;\n\
         ld.param.u32 %r3, [{name}_param_1];\nadd.u32 %r2, %r2, %r3;\n\
         st.shared.u32 [%r2], %r1;\nret;\n}}\n"
    );
    let Ok(module) = ptx::parse(&ptx_text) else {
        return;
    };
    let (kernel, signature) = match resolve::kernel(&module, None, Some(&meta)) {
        Ok(found) => found,
        Err(e) => {
            bounded(&e, text.len() + ptx_text.len());
            return;
        }
    };
    let args: Vec<Arg> = args
        .lines()
        .take(32)
        .filter_map(|l| l.parse().ok())
        .collect();
    let prepared = match resolve::prepare_args(&kernel, signature.as_ref(), &args) {
        Ok(prepared) => prepared,
        Err(e) => {
            bounded(&e, text.len() + ptx_text.len());
            return;
        }
    };
    // As `smem kernel`: 32 x num_warps threads, saturating.
    let threads = meta.num_warps.unwrap_or(4).saturating_mul(32);
    let launch = match KernelLaunch::new([1, 1, 1], [threads, 1, 1]) {
        Ok(launch) => launch.with_dynamic_shared(meta.shared.unwrap_or(0)),
        Err(e) => {
            assert!(threads > 1024 || threads == 0, "{e}");
            return;
        }
    };
    let launch = prepared
        .into_iter()
        .fold(launch, |launch, arg| launch.with_arg(arg));
    let capability = resolve::capability(&module, Some(&meta), None);
    let options = RunOptions::new()
        .with_step_budget(20_000)
        .with_capability(capability);
    let mut both = TallyAndRaces {
        tally: smem_model::kernel::tally::Tally::new(),
        races: smem_model::Racecheck::new(),
    };
    match kernel.run(&launch, &options, &mut both) {
        Ok(summary) => assert_eq!(summary.blocks_run, 1),
        Err(e) => bounded(&e, text.len() + ptx_text.len()),
    }
}
