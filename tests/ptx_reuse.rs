//! Blocks that run alike, interpreted once (`RunOptions::with_reuse`), and
//! blocks on several threads (`RunOptions::with_threads`): the consumer gets
//! exactly what it gets when every block is interpreted in order on one
//! thread, call for call, on every fixture of tests/data/ptx and on
//! generated kernels that use the block index everywhere it can matter.
//! The library's own consumers, the tally and the race checker, which add
//! a class's part for each block that repeats it
//! (`Consumer::repeat_block`) instead of taking its calls, end with what
//! they hold when they take every call.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::PathBuf;

use smem_model::kernel::ptx::{self, Kernel, KernelLaunch, RunOptions};
use smem_model::kernel::tally::Tally;
use smem_model::kernel::{BlockInfo, Consumer, Event, KernelInfo, Place, Repeat};
use smem_model::{Error, KernelRaces, LaneSet, Racecheck};

#[path = "support/fixture.rs"]
mod fixture;

/// Every call a consumer gets, hashed in order, and counted.
#[derive(Default)]
struct Calls {
    hash: DefaultHasher,
    calls: u64,
}

impl Calls {
    fn add(&mut self, call: impl Hash) {
        call.hash(&mut self.hash);
        self.calls += 1;
    }

    fn digest(&self) -> (u64, u64) {
        (self.hash.finish(), self.calls)
    }
}

impl Consumer for Calls {
    fn begin_kernel(&mut self, kernel: &KernelInfo<'_>) -> Result<(), Error> {
        self.add(("kernel", kernel.name, kernel.grid_dim, kernel.block_dim));
        Ok(())
    }

    fn begin_block(&mut self, block: &BlockInfo) -> Result<(), Error> {
        self.add(("block", block.id, block.threads));
        Ok(())
    }

    fn place(&mut self, place: &Place<'_>) {
        self.add((
            "place",
            place.input,
            place.line,
            place.instruction,
            place.source_file,
        ));
    }

    fn event(&mut self, warp: u32, event: &Event<'_>) -> Result<(), Error> {
        self.add(("event", warp, event));
        Ok(())
    }

    fn event_unchanged(
        &mut self,
        warp: u32,
        event: &Event<'_>,
        unchanged: LaneSet,
    ) -> Result<(), Error> {
        self.add(("unchanged", warp, event, unchanged));
        Ok(())
    }

    fn end_block(&mut self) -> Result<(), Error> {
        self.add("end block");
        Ok(())
    }

    fn end_kernel(&mut self) -> Result<(), Error> {
        self.add("end kernel");
        Ok(())
    }
}

/// The calls, hashed, with the tally and the race checker beside them: a
/// block that repeats its class is given to each as `smem kernel` gives it
/// (the calls hashed by `Consumer::repeat_block`'s default, which gives
/// them).
#[derive(Default)]
struct Every {
    calls: Calls,
    tally: Tally,
    races: Racecheck,
}

impl Consumer for Every {
    fn begin_kernel(&mut self, kernel: &KernelInfo<'_>) -> Result<(), Error> {
        self.calls.begin_kernel(kernel)?;
        self.tally.begin_kernel(kernel)?;
        self.races.begin_kernel(kernel)
    }

    fn begin_block(&mut self, block: &BlockInfo) -> Result<(), Error> {
        self.calls.begin_block(block)?;
        self.tally.begin_block(block)?;
        self.races.begin_block(block)
    }

    fn place(&mut self, place: &Place<'_>) {
        self.calls.place(place);
        self.tally.place(place);
        self.races.place(place);
    }

    fn event(&mut self, warp: u32, event: &Event<'_>) -> Result<(), Error> {
        self.calls.event(warp, event)?;
        self.tally.event(warp, event)?;
        self.races.event(warp, event)
    }

    fn event_unchanged(
        &mut self,
        warp: u32,
        event: &Event<'_>,
        unchanged: LaneSet,
    ) -> Result<(), Error> {
        self.calls.event_unchanged(warp, event, unchanged)?;
        self.tally.event_unchanged(warp, event, unchanged)?;
        self.races.event_unchanged(warp, event, unchanged)
    }

    fn end_block(&mut self) -> Result<(), Error> {
        self.calls.end_block()?;
        self.tally.end_block()?;
        self.races.end_block()
    }

    fn repeat_block(&mut self, block: &BlockInfo, repeat: &Repeat<'_>) -> Result<(), Error> {
        self.calls.repeat_block(block, repeat)?;
        self.tally.repeat_block(block, repeat)?;
        self.races.repeat_block(block, repeat)
    }

    fn end_kernel(&mut self) -> Result<(), Error> {
        self.calls.end_kernel()?;
        self.tally.end_kernel()?;
        self.races.end_kernel()
    }
}

/// Everything a tally tells, in order.
fn told(tally: &Tally) -> String {
    let entries: Vec<String> = tally.entries().map(|e| format!("{e:?}")).collect();
    format!(
        "{:?}\n{:?}\n{}\n{:?}\n{:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}\n{:?}",
        tally.totals(),
        tally.by_op(),
        entries.join("\n"),
        tally.ranking(10).iter().map(|e| &e.key).collect::<Vec<_>>(),
        tally.capabilities(),
        tally.other_instructions(),
        tally.unmodelled(),
        tally.unknown_addresses(),
        tally.cas_loops(),
        tally.predicated_off(),
        tally.constant(),
        tally.gmma(),
        tally.ldgsts_without_source(),
        tally.ldgsts_bypass_estimated(),
        tally.ldgsts_bypass_bounds(),
        tally.error_count(),
        tally.errors(),
    )
}

/// What a run came to: the summary (less the blocks interpreted, the one
/// figure reuse changes) or the error, the consumer's calls, and where the
/// run ended without error, what the tally and the race checker hold.
#[derive(Debug, PartialEq)]
struct Outcome {
    summary: Result<String, String>,
    calls: (u64, u64),
    results: Option<(String, Vec<KernelRaces>)>,
}

/// The outcome, and the blocks interpreted and run.
fn outcome(kernel: &Kernel, launch: &KernelLaunch, options: &RunOptions) -> (Outcome, u64, u64) {
    let mut every = Every::default();
    let (summary, interpreted, run) = match kernel.run(launch, options, &mut every) {
        Ok(mut s) => {
            let counts = (s.blocks_interpreted, s.blocks_run);
            s.blocks_interpreted = 0;
            (Ok(format!("{s:?}")), counts.0, counts.1)
        }
        Err(e) => (Err(e.to_string()), 0, 0),
    };
    // After an error, a consumer's state is unspecified (the tally may
    // have taken the whole block where the race checker stopped).
    let results = summary
        .is_ok()
        .then(|| (told(&every.tally), every.races.into_kernels()));
    let outcome = Outcome {
        summary,
        calls: every.calls.digest(),
        results,
    };
    (outcome, interpreted, run)
}

/// Runs `launch` every way and checks every way gives the same; returns the
/// blocks interpreted with reuse and the blocks run (0 and 0 for a run that
/// ends in an error).
fn same_every_way(kernel: &Kernel, launch: &KernelLaunch, base: RunOptions) -> (u64, u64) {
    same_these_ways(
        kernel,
        launch,
        base,
        &[(true, 1), (false, 3), (true, 3), (true, 2)],
    )
}

/// [`same_every_way`] for the ways given: (reuse, threads), the first with
/// reuse on one thread the one whose blocks interpreted are returned.
fn same_these_ways(
    kernel: &Kernel,
    launch: &KernelLaunch,
    base: RunOptions,
    ways: &[(bool, usize)],
) -> (u64, u64) {
    let (plain, _, run) = outcome(kernel, launch, &base.clone().with_reuse(false));
    let mut reused = 0;
    for &(reuse, threads) in ways {
        let options = base.clone().with_reuse(reuse).with_threads(threads);
        let (got, interpreted, _) = outcome(kernel, launch, &options);
        assert_eq!(got, plain, "reuse {reuse}, {threads} threads");
        if reuse && reused == 0 {
            reused = interpreted;
        }
    }
    (reused, run)
}

/// Every fixture with a launch: the same calls every way. The blocks
/// interpreted with reuse, for the fixtures whose block index reaches
/// nothing the consumer sees, are fewer than those run.
#[test]
fn every_fixture_gives_the_same_calls_with_reuse_and_threads() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/ptx");
    let mut names: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| {
            let e = e.unwrap();
            e.path()
                .join("launch.json")
                .exists()
                .then(|| e.file_name().to_string_lossy().into_owned())
        })
        .collect();
    names.sort();
    assert!(names.len() >= 30, "{names:?}");
    let mut table = Vec::new();
    for name in &names {
        let (kernel, launch) = fixture::load(name);
        let (interpreted, run) = same_every_way(&kernel, &launch, RunOptions::new());
        table.push(format!("{name}: {interpreted} of {run}"));
    }
    eprintln!("{}", table.join("\n"));
}

/// Issue 34's acceptance launches (tests/data/ncu/hopper/launches.txt:
/// cuda-samples' WMMA and cp.async GEMMs, a Triton wgmma matmul): the same
/// calls every way.
#[test]
fn the_hopper_launches_give_the_same_calls_with_reuse_and_threads() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/ncu/hopper");
    let table = std::fs::read_to_string(dir.join("launches.txt")).unwrap();
    let mut rows = Vec::new();
    for line in table
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let f: Vec<&str> = line.split_whitespace().collect();
        // As `smem kernel` reads it: a Triton kernel's metadata and Python names too.
        let input = ptx::resolve::locate(&dir.join(f[1]), Some(f[2]), None).unwrap();
        let module = ptx::parse(&input.text).unwrap();
        let query = input.kernel_query(Some(f[2]));
        let (kernel, signature) =
            ptx::resolve::kernel(&module, query, input.triton.as_ref()).unwrap();
        // `map:PARAM=FIELDS` is a tensor map (`--tensor-map`), the rest `--arg`s.
        let mut maps = Vec::new();
        let mut given: Vec<ptx::Arg> = Vec::new();
        for field in &f[9..] {
            match field.strip_prefix("map:") {
                Some(map) => {
                    let arg: ptx::Arg = map.parse().unwrap();
                    maps.push((arg.key, arg.value.parse::<ptx::TensorMap>().unwrap()));
                }
                None => given.push(field.parse().unwrap()),
            }
        }
        let (maps, derived) =
            ptx::resolve::tensor_map_args(&kernel, signature.as_ref(), &maps, &given).unwrap();
        given.extend(derived);
        let mut launch = KernelLaunch::new(
            ptx::parse_dims(f[3]).unwrap(),
            ptx::parse_dims(f[4]).unwrap(),
        )
        .unwrap()
        .with_dynamic_shared(f[5].parse().unwrap());
        for arg in ptx::resolve::prepare_args(&kernel, signature.as_ref(), &given).unwrap() {
            launch = launch.with_arg(arg);
        }
        for (index, map) in maps {
            launch = launch.with_tensor_map(ptx::ArgKey::Index(index), map);
        }
        let options = RunOptions::new().with_capability(smem_model::ComputeCapability::Sm90);
        // Big launches: reuse on two threads against every block on one.
        let (interpreted, run) = same_these_ways(&kernel, &launch, options, &[(true, 2)]);
        assert!(run > 0, "{}", f[0]);
        rows.push(format!("{}: {interpreted} of {run}", f[0]));
    }
    eprintln!("{}", rows.join("\n"));
}

/// Where a generated statement takes a value from.
const SOURCES: [&str; 6] = ["%tid.x", "%ctaid.x", "%ctaid.y", "%ctaid.z", "%r1", "7"];

/// One generated statement: `kind` picks what, `a` and `b` where its
/// values come from ([`SOURCES`]), `k` a constant; `i` makes its registers
/// and labels its own.
fn statement(out: &mut String, i: usize, (kind, a, b, k): (u8, u8, u8, u8)) {
    use std::fmt::Write as _;
    let a = SOURCES[usize::from(a) % SOURCES.len()];
    let b = SOURCES[usize::from(b) % SOURCES.len()];
    let r = |j: usize| format!("%r{}", 20 + 10 * i + j);
    let (r0, r1, r2, r3, r4, r5) = (r(0), r(1), r(2), r(3), r(4), r(5));
    // Written once each (the analyses are flow-insensitive: a register
    // written twice holds what either write may leave).
    let (r6, r7, r8, r9) = (r(6), r(7), r(8), r(9));
    // A word of s chosen by `x`: s + 4 (x & 255).
    let at = |out: &mut String, x: &str| {
        writeln!(
            out,
            "and.b32 {r2}, {x}, 255;\nshl.b32 {r2}, {r2}, 2;\nadd.s32 {r2}, {r2}, %r2;"
        )
        .unwrap();
    };
    writeln!(out, "mov.u32 {r0}, {a};\nmov.u32 {r1}, {b};").unwrap();
    // A cp.async to the thread's word from g + {r4} + 4 tid, reading where
    // `size` is not 0 (the bytes given where `size` is none).
    let copy = |out: &mut String, size: &str| {
        at(out, "%r3");
        writeln!(
            out,
            "shl.b32 {r5}, %r3, 2;\nadd.s32 {r4}, {r4}, {r5};\ncvt.u64.u32 %rd5, {r4};\n\
             add.s64 %rd6, %rd1, %rd5;\ncp.async.ca.shared.global [{r2}], [%rd6], 4, {size};\n\
             cp.async.wait_all;"
        )
        .unwrap();
    };
    // A 16-byte cp.async.cg to the thread's 16 bytes from
    // g + ({r4} << 4) + 16 (tid & 7), reading where `size` is not 0: its
    // event carries the lanes' sources relative to the first one's
    // 128-byte line.
    let bypass = |out: &mut String, size: &str| {
        writeln!(
            out,
            "and.b32 {r2}, %r3, 63;\nshl.b32 {r2}, {r2}, 4;\nadd.s32 {r2}, {r2}, %r2;\n\
             and.b32 {r5}, %r3, 7;\nshl.b32 {r6}, {r4}, 4;\nshl.b32 {r7}, {r5}, 4;\n\
             add.s32 {r8}, {r6}, {r7};\ncvt.u64.u32 %rd2, {r8};\nadd.s64 %rd3, %rd1, %rd2;\n\
             cp.async.cg.shared.global [{r2}], [%rd3], 16, {size};\ncp.async.wait_all;"
        )
        .unwrap();
    };
    match kind % 14 {
        // A shared store: address from a, value from b.
        0 => {
            at(out, &r0);
            writeln!(out, "st.shared.u32 [{r2}], {r1};").unwrap();
        }
        // A shared load from a, stored at b.
        1 => {
            at(out, &r0);
            writeln!(out, "ld.shared.u32 {r3}, [{r2}];").unwrap();
            at(out, &r1);
            writeln!(out, "st.shared.u32 [{r2}], {r3};").unwrap();
        }
        // A guarded store.
        2 => {
            at(out, "%r3");
            writeln!(
                out,
                "setp.lt.u32 %p1, {r0}, {k};\n@%p1 st.shared.u32 [{r2}], {r1};"
            )
            .unwrap();
        }
        // A branch over a store.
        3 => {
            at(out, "%r3");
            writeln!(
                out,
                "setp.eq.u32 %p1, {r0}, {k};\n@%p1 bra SKIP{i};\nst.shared.u32 [{r2}], {r1};\nSKIP{i}:"
            )
            .unwrap();
        }
        // A global load of address g + 4a, stored to shared at the thread's
        // word (numbered: equal loads store equal values).
        4 => {
            writeln!(
                out,
                "mul.wide.u32 %rd5, {r0}, 4;\nadd.s64 %rd6, %rd1, %rd5;\nld.global.u32 {r3}, [%rd6];"
            )
            .unwrap();
            at(out, "%r3");
            writeln!(out, "st.shared.u32 [{r2}], {r3};").unwrap();
        }
        // A global store of b at g + 4a.
        5 => writeln!(
            out,
            "mul.wide.u32 %rd5, {r0}, 4;\nadd.s64 %rd6, %rd1, %rd5;\nst.global.u32 [%rd6], {r1};"
        )
        .unwrap(),
        6 => writeln!(out, "bar.sync 0;").unwrap(),
        // A loop of (a & 3) trips, each a store of the counter.
        7 => {
            at(out, "%r3");
            writeln!(
                out,
                "and.b32 {r0}, {r0}, 3;\nmov.u32 {r3}, 0;\nLOOP{i}:\nsetp.ge.u32 %p1, {r3}, {r0};\n\
                 @%p1 bra DONE{i};\nst.shared.u32 [{r2}], {r3};\nadd.s32 {r3}, {r3}, 1;\n\
                 bra LOOP{i};\nDONE{i}:"
            )
            .unwrap();
        }
        // Through param memory.
        8 => {
            at(out, "%r3");
            writeln!(out, "st.param.b32 [tmp], {r0};\nld.param.b32 {r3}, [tmp];").unwrap();
            writeln!(out, "st.shared.u32 [{r2}], {r3};").unwrap();
        }
        // A cp.async from a shifted left by k: the event carries the low 7
        // bits of the source, so only a's bits below 7 - k matter.
        10 => {
            writeln!(out, "shl.b32 {r4}, {r0}, {k};").unwrap();
            copy(out, "4");
        }
        // A cp.async from (a n >> (k % 4)) % 12 << 5, reading where b & 4.
        11 => {
            writeln!(
                out,
                "mul.lo.s32 {r4}, {r0}, %r1;\nshr.u32 {r4}, {r4}, {};\nrem.u32 {r4}, {r4}, 12;\n\
                 shl.b32 {r4}, {r4}, 5;\nand.b32 {r3}, {r1}, 4;",
                k % 4
            )
            .unwrap();
            copy(out, &r3);
        }
        // A shared atomic at a.
        9 => {
            at(out, &r0);
            writeln!(out, "atom.shared.add.u32 {r3}, [{r2}], {r1};").unwrap();
        }
        // A bypassing copy from a << (k + 4): 128-byte aligned where
        // k >= 3, the same in every lane where a is the block index or a
        // constant.
        12 => {
            writeln!(out, "shl.b32 {r4}, {r0}, {k};").unwrap();
            bypass(out, "16");
        }
        // The same from a b << k (varying by lane where one is the thread
        // index and the other the block index), with a src-size register:
        // 16 where tid.x & 4 (lanes 0 to 3 of each 8 read nothing).
        13 => {
            writeln!(
                out,
                "mul.lo.s32 {r9}, {r0}, {r1};\nshl.b32 {r4}, {r9}, {k};\nand.b32 {r3}, %r3, 4;\n\
                 shl.b32 {r3}, {r3}, 2;"
            )
            .unwrap();
            bypass(out, &r3);
        }
        _ => unreachable!("kind % 14"),
    }
}

fn generated(statements: &[(u8, u8, u8, u8)]) -> String {
    let mut body = String::new();
    for (i, &s) in statements.iter().enumerate() {
        statement(&mut body, i, s);
    }
    format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n\
         .visible .entry k(.param .u64 .ptr .global .align 4 g, .param .u32 n)\n{{\n\
         .reg .b32 %r<{regs}>;\n.reg .b64 %rd<8>;\n.reg .pred %p<4>;\n\
         .shared .align 4 .b8 s[1024];\n.param .b32 tmp;\n\
         ld.param.u64 %rd1, [g];\nld.param.u32 %r1, [n];\nmov.u32 %r2, s;\n\
         mov.u32 %r3, %tid.x;\n{body}ret;\n}}\n",
        regs = 20 + 10 * statements.len() + 10
    )
}

mod cases;

use proptest::prelude::*;

proptest! {
    #![proptest_config(cases::cases(64))]

    /// Generated kernels that use the block index in shared addresses,
    /// stored values, guards, branches, loop bounds, global addresses,
    /// param memory, atomics and cp.async sources (`.ca`, and `.cg` at
    /// block-dependent offsets the same in every lane, 128-byte aligned or
    /// not, or varying by lane): the same calls every way.
    #[test]
    fn generated_kernels_give_the_same_calls_every_way(
        statements in prop::collection::vec((any::<u8>(), any::<u8>(), any::<u8>(), 0u8..8), 1..8),
        grid in (1u32..5, 1u32..4, 1u32..3),
        threads in prop::sample::select(vec![32u32, 64, 96]),
        sample in prop::option::of(1u64..6),
        n in prop::sample::select(vec![5u32, 8, 64, 96]),
    ) {
        let text = generated(&statements);
        let module = ptx::parse(&text).unwrap();
        let kernel = Kernel::new(&module, None).unwrap();
        let launch = KernelLaunch::new([grid.0, grid.1, grid.2], [threads, 1, 1])
            .unwrap()
            .with_arg(format!("n={n}").parse().unwrap());
        let mut options = RunOptions::new();
        if let Some(n) = sample {
            options = options.with_sample(n);
        }
        let (interpreted, run) = same_every_way(&kernel, &launch, options);
        // Every generated kernel runs (the comparison is not of errors).
        prop_assert!(run > 0 && interpreted >= 1 && interpreted <= run);
    }
}

/// The generator's statements one by one on a grid of 4x3x2: each is run
/// (no statement is refused by the reader or the interpreter), and those
/// that do not take the block index into what the consumer sees are
/// interpreted once.
#[test]
fn each_generated_statement_runs_and_reuse_follows_the_block_index() {
    let launch = KernelLaunch::new([4, 3, 2], [64, 1, 1])
        .unwrap()
        .with_arg("n=5".parse().unwrap());
    for kind in 0..14u8 {
        // Values from the thread index only: every block alike.
        let kernel =
            Kernel::new(&ptx::parse(&generated(&[(kind, 0, 0, 3)])).unwrap(), None).unwrap();
        let (plain, _, _) = outcome(&kernel, &launch, &RunOptions::new());
        assert!(plain.summary.is_ok(), "statement {kind}: {plain:?}");
        let (interpreted, run) = same_every_way(&kernel, &launch, RunOptions::new());
        assert_eq!((interpreted, run), (1, 24), "statement {kind}");
        // From %ctaid.y: 3 kinds of block, but where it reaches only a
        // global store's address and value, or a bypassing copy's source
        // in 128-byte steps the same in every lane.
        let kernel =
            Kernel::new(&ptx::parse(&generated(&[(kind, 2, 2, 3)])).unwrap(), None).unwrap();
        let (interpreted, run) = same_every_way(&kernel, &launch, RunOptions::new());
        let expected = if matches!(kind, 5 | 6 | 12 | 13) {
            1
        } else {
            3
        };
        assert_eq!((interpreted, run), (expected, 24), "statement {kind}");
    }
    // A cp.async from g + (ctaid.y << k): the low 7 bits keep ctaid.y mod
    // 2^(7 - k), so 3, 2 and 1 kinds of block for k = 5, 6 and 7.
    for (k, expected) in [(5, 3), (6, 2), (7, 1)] {
        let kernel = Kernel::new(&ptx::parse(&generated(&[(10, 2, 0, k)])).unwrap(), None).unwrap();
        let (interpreted, run) = same_every_way(&kernel, &launch, RunOptions::new());
        assert_eq!((interpreted, run), (expected, 24), "shift {k}");
    }
    // A .cg from g + (ctaid.y << (k + 4)) + 16 (tid & 7), or 5 ctaid.y
    // with a src-size register: the lanes' lines move together, the low 7
    // bits keep ctaid.y mod 2^(3 - k). From g + 16 ctaid.y tid.x << k, the
    // lanes move apart: every block on its own.
    for (kind, b) in [(12, 0), (13, 4)] {
        for (k, expected) in [(1, 3), (2, 2), (3, 1)] {
            let text = generated(&[(kind, 2, b, k)]);
            let kernel = Kernel::new(&ptx::parse(&text).unwrap(), None).unwrap();
            let (interpreted, run) = same_every_way(&kernel, &launch, RunOptions::new());
            assert_eq!((interpreted, run), (expected, 24), "{kind} shift {k}");
        }
    }
    let kernel = Kernel::new(&ptx::parse(&generated(&[(13, 2, 0, 3)])).unwrap(), None).unwrap();
    let (interpreted, run) = same_every_way(&kernel, &launch, RunOptions::new());
    assert_eq!((interpreted, run), (3, 24));
}

/// The lead's case (04:45 UTC, found on main by the generator before its
/// cp.async statements): an atomic adds ctaid.y to s[0] and a later store
/// of 0 there writes what memory holds in one block only, so ctaid.y
/// separates the blocks though it reaches no address or stored value.
#[test]
fn an_atomic_operand_decides_whether_a_later_store_changes_memory() {
    let text = generated(&[(0, 55, 57, 0), (9, 127, 80, 0)]);
    let kernel = Kernel::new(&ptx::parse(&text).unwrap(), None).unwrap();
    let launch = KernelLaunch::new([1, 2, 1], [64, 1, 1])
        .unwrap()
        .with_arg("n=5".parse().unwrap());
    let (interpreted, run) = same_every_way(&kernel, &launch, RunOptions::new());
    assert_eq!((interpreted, run), (2, 2));
}

/// Blocks that repeat their class, given to the tally and the race checker
/// as `smem kernel` gives them: two classes (an even or odd `%ctaid.x`
/// stores from two instructions, every thread to one word, a race between
/// the warps), four blocks each on a grid of 2x4. Each race names its
/// class's lowest block and counts its four; each instruction counts its
/// class's requests; all as with every block interpreted, on any number of
/// threads.
#[test]
fn repeated_blocks_are_counted_and_named_as_interpreted_ones() {
    let text = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\
                .reg .b32 %r<8>;\n.reg .pred %p<2>;\n.shared .align 4 .b8 s[64];\n\
                mov.u32 %r1, %ctaid.x;\nand.b32 %r2, %r1, 1;\nmov.u32 %r3, %tid.x;\n\
                mov.u32 %r4, s;\nsetp.eq.u32 %p1, %r2, 0;\n@%p1 bra EVEN;\n\
                st.shared.u32 [%r4+4], %r3;\nbra DONE;\nEVEN:\nst.shared.u32 [%r4], %r3;\n\
                DONE:\nret;\n}\n";
    let kernel = Kernel::new(&ptx::parse(text).unwrap(), None).unwrap();
    let launch = KernelLaunch::new([2, 4, 1], [64, 1, 1]).unwrap();
    let (interpreted, run) = same_every_way(&kernel, &launch, RunOptions::new());
    assert_eq!((interpreted, run), (2, 8));
    let mut every = Every::default();
    kernel.run(&launch, &RunOptions::new(), &mut every).unwrap();
    let races = every.races.into_kernels();
    let found: Vec<([u32; 3], u64, u64)> = races[0]
        .hazards()
        .map(|h| (h.block(), h.blocks(), h.bytes()))
        .collect();
    // The odd blocks' store comes first in the PTX: its site sorts first.
    assert_eq!(found, [([1, 0, 0], 4, 16), ([0, 0, 0], 4, 16)]);
    assert_eq!((races[0].blocks(), races[0].requests()), (8, 16));
    let requests: Vec<u64> = every.tally.entries().map(|e| e.totals.requests).collect();
    assert_eq!(requests, [8, 8]);
}

/// Triton's sm_90 matmul at 1024^3 (256 blocks): its `cp.async.cg` sources
/// wrap the row index (`offs_am % M`), which the static analysis cannot
/// prove the same in every block, so the key records them, each lane less
/// the first lane's 128-byte line: the blocks' tiles differ by whole lines,
/// so they share keys and few are interpreted (all 4,096 of the 4096^3
/// launch were, with the sources' absolute bits in the key).
#[test]
fn a_triton_matmul_keys_its_copies_by_their_lines() {
    let (kernel, fixture) = fixture::load("triton_matmul");
    let mut launch = KernelLaunch::new([256, 1, 1], fixture.block())
        .unwrap()
        .with_dynamic_shared(fixture.dynamic_shared());
    for i in 3..=8 {
        launch = launch.with_arg(format!("{i}=1024").parse().unwrap());
    }
    let (interpreted, run) = same_every_way(&kernel, &launch, RunOptions::new());
    assert_eq!(run, 256);
    assert!(interpreted <= 4, "{interpreted} of {run} interpreted");
}
