//! `kernel::accelsim::Trace`: Accel-Sim traces read into a consumer's events,
//! kernel by kernel, block by block, each warp in program order.
#![cfg(feature = "trace")]

use std::path::Path;

use smem_model::kernel::accelsim::Trace;
use smem_model::kernel::tally::Tally;
use smem_model::kernel::{BarrierKind, BlockInfo, Consumer, Event, KernelInfo, Place};
use smem_model::{ComputeCapability, Error, Op};

/// Every call, as text: what a source told its consumer.
#[derive(Default)]
struct Record {
    calls: Vec<String>,
    line: u64,
}

impl Consumer for Record {
    fn begin_kernel(&mut self, kernel: &KernelInfo<'_>) -> Result<(), Error> {
        self.calls.push(format!(
            "kernel {} {:?} {:?}",
            kernel.name,
            kernel.capability.map(|cc| cc.sm_name()),
            kernel.block_dim
        ));
        Ok(())
    }

    fn begin_block(&mut self, block: &BlockInfo) -> Result<(), Error> {
        self.calls
            .push(format!("block {:?} {:?}", block.id, block.threads));
        Ok(())
    }

    fn place(&mut self, place: &Place<'_>) {
        self.line = place.line;
    }

    fn event(&mut self, warp: u32, event: &Event<'_>) -> Result<(), Error> {
        let lanes = event.lanes().bits();
        let text = match *event {
            Event::Access { site, request } => format!(
                "{:#x} {} {}B lanes {lanes:x} lane0 {:#x}",
                site.pc,
                request.op(),
                request.width().bytes(),
                request.to_array()[0].unwrap_or(0)
            ),
            Event::CasRound { request, .. } => format!("cas round {}", request.op()),
            Event::Barrier {
                id, threads, kind, ..
            } => format!("barrier {id} {threads:?} {kind:?}"),
            Event::SyncWarp { mask, .. } => format!("syncwarp {:x} lanes {lanes:x}", mask.bits()),
            Event::Fence { .. } => "fence".to_owned(),
            Event::CpAsyncCommit { .. } => "commit".to_owned(),
            Event::CpAsyncWait { pending, .. } => format!("wait {pending}"),
            Event::CpAsyncArrive { .. } => "arrive".to_owned(),
            Event::ConstantLoad { width, load, .. } => format!("const {width} {}", load.is_some()),
            Event::Unmodelled { name, .. } => format!("unmodelled {name}"),
            _ => "?".to_owned(),
        };
        self.calls.push(format!("{}: w{warp} {text}", self.line));
        Ok(())
    }

    fn end_block(&mut self) -> Result<(), Error> {
        self.calls.push("end block".to_owned());
        Ok(())
    }

    fn end_kernel(&mut self) -> Result<(), Error> {
        self.calls.push("end kernel".to_owned());
        Ok(())
    }
}

fn events(text: &str) -> Result<Vec<String>, Error> {
    let mut record = Record::default();
    Trace::from_reader("t.traceg", std::io::Cursor::new(text.as_bytes().to_vec()))
        .read(&mut record)?;
    Ok(record.calls)
}

fn data(path: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(path)
}

/// Every kind of event from one `.traceg` block, with its line, in order.
#[test]
fn every_event_kind() {
    let trace = "\
-kernel name = k
-block dim = (64,1,1)
-binary version = 80
-shmem base_addr = 0x7000000000
#BEGIN_TB
thread block = 1,2,0
warp = 1
0010 ffffffff 0 STS.128 2 R1 R2 16 1 0x7000000400 16 0
0020 00000000 0 LDS 1 R2 4 1 0x7000000400 4 0
0030 ffffffff 0 BAR.SYNC.DEFER_BLOCKING 0 0 0x0
0040 ffffffff 0 BAR.SYNC 0 0 0x1, 0x40
0050 ffffffff 0 BAR.ARV 0 0 0x2, 0x40
0060 0000ffff 0 WARPSYNC 0 0 0xffff
0070 0000000f 0 NOP 0 0
0080 ffffffff 0 MEMBAR.SC.CTA 0 0
0090 ffffffff 0 LDGSTS.E.BYPASS.LTC128B.128 2 R4 R12 16 1 0x7f0000000000 16 0
00a0 ffffffff 0 LDGDEPBAR 0 0 0
00b0 ffffffff 0 DEPBAR.LE 0 0 3
00c0 ffffffff 1 R3 LDC 0 0 0
00d0 ffffffff 0 UTMALDG.2D 2 R4 R12 0
00e0 ffffffff 0 SYNCS.ARRIVE.TRANS64 2 R4 R12 0
00f0 ffffffff 0 ARRIVES.LDGSTSBAR.64 1 R4 0
0100 ffffffff 1 R5 IMAD 2 R1 R2 0 0
#END_TB
";
    assert_eq!(
        events(trace).unwrap(),
        [
            "kernel k Some(\"sm_80\") Some([64, 1, 1])",
            "block [1, 2, 0] Some(64)",
            "8: w1 0x10 STS 16B lanes ffffffff lane0 0x400",
            "9: w1 0x20 LDS 4B lanes 0 lane0 0x0",
            "10: w1 barrier 0 None Sync",
            "11: w1 barrier 1 Some(64) Sync",
            "12: w1 barrier 2 Some(64) Arrive",
            "13: w1 syncwarp ffff lanes ffff",
            "14: w1 syncwarp f lanes f",
            "15: w1 fence",
            "16: w1 unmodelled LDGSTS",
            "17: w1 commit",
            "18: w1 wait 3",
            "19: w1 const 4 false",
            "20: w1 unmodelled TMA (UTMALDG, UTMASTG, UBLKCP, ...)",
            "21: w1 unmodelled SYNCS (mbarrier)",
            "22: w1 arrive",
            "end block",
            "end kernel",
        ]
    );
    let _ = BarrierKind::Sync;
}

/// `Trace` tells most lines other instructions from their first 64 bytes,
/// cutting the lines as it goes: over many chunks of mixed lines (long and
/// short, CRLF, a shared access or a bad line now and then, one warp after
/// another), every event and error keeps its line and warp, and the counts
/// are those of the lines written.
#[test]
fn the_fast_check_keeps_every_line_in_place() {
    let others = [
        "1 R1 IMAD.MOV.U32 2 R255 R255 0 0 ",
        "0 BRA 0 0 0",
        "1 R4 LDG.E.128 1 R2 16 1 0x7ff890202000 16 0",
        "1 R59 HFMA2.MMA 2 R255 R255 0 0\r",
        "0 EXIT 0 0 0",
        "1 R8 LD.E 1 R2 4 1 0x10 4 0",
    ];
    let mut text = String::from(
        "-kernel name = k\n-binary version = 80\n-shmem base_addr = 0x7000000000\n\
         #BEGIN_TB\nthread block = 0,0,0\n",
    );
    let mut line = 5u64;
    let mut expected = vec![
        "kernel k Some(\"sm_80\") None".to_owned(),
        "block [0, 0, 0] None".to_owned(),
    ];
    let mut expected_errors = Vec::new();
    let (mut instructions, mut other) = (0u64, 0u64);
    for warp in 0..8u32 {
        text += &format!("warp = {warp}\n");
        line += 1;
        for i in 0..12_000u32 {
            let pc = 16 * i;
            line += 1;
            instructions += 1;
            if i % 97 == 5 {
                let address = 0x70_0000_0000u64 + 4 * u64::from(i % 64);
                text += &format!("{pc:04x} ffffffff 1 R9 LDS 1 R2 4 1 {address:#x} 4 0\n");
                expected.push(format!(
                    "{line}: w{warp} {pc:#x} LDS 4B lanes ffffffff lane0 {:#x}",
                    address - 0x70_0000_0000
                ));
            } else if i % 1009 == 3 {
                text += &format!("{pc:04x} ffffffff 0 LDS 1 R2 4 9 0x0 4\n");
                expected_errors.push(format!(
                    "t.traceg:{line}: LDS: unknown address mode `9`: expected 0 (list), 1 (base \
                     and stride) or 2 (base and deltas)"
                ));
                instructions -= 1;
            } else {
                text += &format!("{pc:04x} ffffffff {}\n", others[i as usize % others.len()]);
                other += 1;
            }
        }
    }
    text += "#END_TB\n";
    expected.extend(["end block".to_owned(), "end kernel".to_owned()]);
    assert!(text.len() > 4 * 512 * 1024, "several chunks");
    let mut record = Record::default();
    let mut errors = Vec::new();
    let summary = Trace::from_reader("t.traceg", std::io::Cursor::new(text.into_bytes()))
        .read_with(&mut record, |err| {
            errors.push(err.to_string());
            Ok(())
        })
        .unwrap();
    assert_eq!(record.calls, expected);
    assert_eq!(errors, expected_errors);
    assert_eq!(
        (
            summary.lines,
            summary.instructions,
            summary.other_instructions
        ),
        (line + 1, instructions, other)
    );
}

/// The matrix ops as the library's op-name parser reads them: `MT88` is
/// `.trans` (the same cost as the plain form, measured: tests/data/hw-corpus/sm90-ldsm-trans.jsonl).
#[test]
fn ldmatrix_trans_from_a_trace_line() {
    let trace = "\
-shmem base_addr = 0x7000000000
#BEGIN_TB
thread block = 0,0,0
warp = 0
0010 ffffffff 1 R4 LDSM.16.MT88.4 1 R2 16 1 0x7000000000 16
0020 ffffffff 1 R4 LDSM.16.M88.4 1 R2 16 1 0x7000000000 16
0030 ffffffff 0 STSM.16.MT88.2 2 R2 R4 16 1 0x7000000000 16
#END_TB
";
    let calls = events(trace).unwrap();
    assert_eq!(
        calls[2..5],
        [
            "5: w0 0x10 LDSM.x4.trans 16B lanes ffffffff lane0 0x0",
            "6: w0 0x20 LDSM.x4 16B lanes ffffffff lane0 0x0",
            "7: w0 0x30 STSM.x2.trans 16B lanes ffff lane0 0x0",
        ]
    );
}

/// The raw form: blocks gathered from the ids on each line, each ending
/// when all its threads exited (with `-block dim`), warps in order.
#[test]
fn raw_blocks_are_gathered() {
    let trace = "\
-kernel name = raw
-block dim = (64,1,1)
0 0 0 1 0010 ffffffff 0 STS 2 R1 R2 4 1 0x100 4 0
1 0 0 0 0010 ffffffff 0 STS 2 R1 R2 4 1 0x200 4 0
0 0 0 0 0010 ffffffff 0 STS 2 R1 R2 4 1 0x0 4 0
0 0 0 0 0020 ffffffff 0 EXIT 0 0 0
0 0 0 1 0020 ffffffff 0 EXIT 0 0 0
1 0 0 0 0020 ffffffff 0 LDS 1 R2 4 1 0x200 4 0
";
    assert_eq!(
        events(trace).unwrap(),
        [
            "kernel raw None Some([64, 1, 1])",
            "block [0, 0, 0] Some(64)",
            "5: w0 0x10 STS 4B lanes ffffffff lane0 0x0",
            "3: w1 0x10 STS 4B lanes ffffffff lane0 0x100",
            "end block",
            // Never exited: ended with its kernel.
            "block [1, 0, 0] Some(64)",
            "4: w0 0x10 STS 4B lanes ffffffff lane0 0x200",
            "8: w0 0x20 LDS 4B lanes ffffffff lane0 0x200",
            "end block",
            "end kernel",
        ]
    );
}

/// A kernel list, its `.xz` file found beside the name it lists, and the
/// tally of it equal to the sum of the tallies of its files.
#[test]
fn kernel_lists_and_xz_files() {
    let mut list = Tally::default();
    let summary = Trace::open(data("traces/kernels/kernelslist.g"))
        .read(&mut list)
        .unwrap();
    assert_eq!(summary.kernels, 2);
    let mut parts = Tally::default();
    Trace::files([
        data("traces/kernels/kernel-1.traceg.xz"),
        data("traces/kernels/kernel-2.traceg"),
    ])
    .read(&mut parts)
    .unwrap();
    assert_eq!(list.totals(), parts.totals());
    // kernel-1 is transpose.traceg, compressed.
    let mut plain = Tally::default();
    Trace::open(data("traces/transpose.traceg"))
        .read(&mut plain)
        .unwrap();
    let mut xz = Tally::default();
    Trace::open(data("traces/kernels/kernel-1.traceg.xz"))
        .read(&mut xz)
        .unwrap();
    assert_eq!(plain.totals(), xz.totals());
    assert!(plain.totals().requests > 0);
}

/// The raw and post-processed forms of one kernel tally alike (on one
/// capability: their headers name different ones).
#[test]
fn raw_and_traceg_forms_agree() {
    let mut raw = Tally::default().with_capability(ComputeCapability::Sm90);
    Trace::open(data("traces/transpose.trace"))
        .read(&mut raw)
        .unwrap();
    let mut traceg = Tally::default().with_capability(ComputeCapability::Sm90);
    Trace::open(data("traces/transpose.traceg"))
        .read(&mut traceg)
        .unwrap();
    assert_eq!(raw.totals(), traceg.totals());
}

/// Bad lines stop `read` with the message `smem trace` prints; `read_with`
/// goes on past them.
#[test]
fn bad_input_is_located() {
    let err = events("0010 ffffffff 0 LDS 1 R2 4 9 0x0 4\n").unwrap_err();
    // (parse errors come before structure)
    assert_eq!(
        err.to_string(),
        "t.traceg:1: LDS: unknown address mode `9`: expected 0 (list), 1 (base and stride) or 2 (base and deltas)"
    );
    let err = events("hello\n").unwrap_err();
    assert_eq!(
        err.to_string(),
        "t.traceg: line 1: neither a corpus record (a JSON object) nor an Accel-Sim trace line"
    );
    let missing = data("traces/no-such-file.traceg");
    let err = Trace::open(&missing)
        .read(&mut Record::default())
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "cannot read {}: No such file or directory (os error 2)",
            missing.display()
        )
    );
    let err = events("#BEGIN_TB\nthread block = 0,0,0\n#BEGIN_TB\n").unwrap_err();
    assert_eq!(
        err.to_string(),
        "t.traceg:3: #BEGIN_TB inside thread block (0,0,0) begun at line 1"
    );
    let err = events("0010 ffffffff 0 LDS 1 R2 4 1 0x0 4\n").unwrap_err();
    assert_eq!(
        err.to_string(),
        "t.traceg:1: an instruction outside a thread block and warp (no #BEGIN_TB, `warp = N`, nor block and warp on the line)"
    );
    let err = events("{\"arch\": \"sm_90\"}\n").unwrap_err();
    assert_eq!(
        err.to_string(),
        "t.traceg: corpus records (JSON lines), not an Accel-Sim trace: smem_model::corpus reads them"
    );
    // Going on: both bad lines reported, the good one read.
    let mut seen = Vec::new();
    let mut tally = Tally::default();
    let summary = Trace::from_reader(
        "t.traceg",
        &b"#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\n0010 ffffffff 0 LDS 1 R2 4 9\n\
           0020 ffffffff 0 LDS 1 R2 4 1 0x0 4\n0030 ffffffff 0 LDS 1 R2 4 1 0x2 4\n#END_TB\n"[..],
    )
    .read_with(&mut tally, |err| {
        seen.push(err.to_string());
        Ok(())
    })
    .unwrap();
    assert_eq!(
        seen,
        [
            "t.traceg:4: LDS: unknown address mode `9`: expected 0 (list), 1 (base and stride) or 2 (base and deltas)",
            "t.traceg:6: LDS: misaligned address: lane 0 accesses 4 bytes at 0x2, which is not a multiple of 4",
        ]
    );
    assert_eq!((summary.errors, tally.totals().requests), (2, 1));
}

/// A block size past 32 bits and warp ids whose threads cannot be numbered
/// in 32 bits are errors naming the value, not overflows.
#[test]
fn block_sizes_and_warp_ids_past_32_bits() {
    let err = events("-block dim = (65536,65536,2)\n").unwrap_err();
    assert_eq!(
        err.to_string(),
        "t.traceg:1: `-block dim = (65536,65536,2)` is 8589934592 threads, more than fit 32 bits"
    );
    let err = events("-block dim = 7\n").unwrap_err();
    assert_eq!(
        err.to_string(),
        "t.traceg:1: expected `-block dim = (X,Y,Z)`, found `7`"
    );
    let err = events("#BEGIN_TB\nthread block = 0,0,0\nwarp = 4294967295\n").unwrap_err();
    assert_eq!(
        err.to_string(),
        "t.traceg:3: warp 4294967295 is past the last warp id, 134217727: a block's threads (32 a warp) are numbered in 32 bits"
    );
    let err = events("0 0 0 134217728 0010 ffffffff 0 STS 2 R1 R2 4 1 0x0 4 0\n").unwrap_err();
    assert_eq!(
        err.to_string(),
        "t.traceg:1: warp 134217728 is past the last warp id, 134217727: a block's threads (32 a warp) are numbered in 32 bits"
    );
}

/// The tally through the source: a column read of 32 words in one bank.
#[test]
fn a_tally_through_the_source() {
    let trace =
        "-kernel name = k\n-binary version = 90\n#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\n\
                 0010 ffffffff 0 LDS 1 R2 4 1 0x0 128 0\n#END_TB\n";
    let mut tally = Tally::default();
    Trace::from_reader("t.traceg", trace.as_bytes())
        .read(&mut tally)
        .unwrap();
    let totals = tally.totals();
    assert_eq!(
        (totals.requests, totals.wavefronts, totals.bank_conflicts),
        (1, 32, 31)
    );
    let top = tally.ranking(1);
    assert_eq!(&*top[0].instruction, "LDS");
    assert_eq!(top[0].first.line, 6);
    assert_eq!(top[0].op.0, Op::Load);
}

/// Tallies of parts of an input, merged, are the tally of the whole: the
/// totals, the per-op sums, the counts and the ranking.
#[test]
fn merged_tallies_are_the_tally_of_the_whole() {
    let parts = [
        data("traces/transpose.traceg"),
        data("traces/kernels/kernel-2.traceg"),
        data("traces/cas-loop.traceg"),
    ];
    let mut whole = Tally::default();
    let summary = Trace::files(parts.iter().cloned())
        .read(&mut whole)
        .unwrap();
    whole.add_other_instructions(summary.other_instructions);
    let mut merged = Tally::default();
    for part in &parts {
        let mut tally = Tally::default();
        let summary = Trace::open(part).read(&mut tally).unwrap();
        tally.add_other_instructions(summary.other_instructions);
        merged.merge(tally);
    }
    assert_eq!(merged.totals(), whole.totals());
    assert_eq!(merged.other_instructions(), whole.other_instructions());
    assert_eq!(merged.unmodelled(), whole.unmodelled());
    let by_op = |t: &Tally| {
        let mut v = t.by_op();
        v.sort_by_key(|(op, _)| format!("{op:?}"));
        v
    };
    assert_eq!(by_op(&merged), by_op(&whole));
    let rank = |t: &Tally| {
        t.ranking(5)
            .iter()
            .map(|e| {
                (
                    t.kernel_name(match e.key {
                        smem_model::kernel::tally::Key::Code { kernel, .. } => kernel,
                        _ => u32::MAX,
                    })
                    .to_owned(),
                    e.totals,
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(rank(&merged).len(), 5);
    assert_eq!(
        rank(&merged)
            .iter()
            .map(|r| r.1.bank_conflicts)
            .collect::<Vec<_>>(),
        rank(&whole)
            .iter()
            .map(|r| r.1.bank_conflicts)
            .collect::<Vec<_>>()
    );
}

/// Errors of a whole reading, going on past each.
fn errors_of(trace: String) -> (Vec<String>, u64) {
    let mut seen = Vec::new();
    let mut tally = Tally::default();
    let summary = Trace::from_reader("t.traceg", std::io::Cursor::new(trace.into_bytes()))
        .read_with(&mut tally, |err| {
            seen.push(err.to_string());
            Ok(())
        })
        .unwrap();
    (seen, summary.blocks)
}

/// The blocks read are remembered as runs of ids, at most
/// `MAX_ENDED_RUNS`: blocks in order are one run however many (repeats
/// caught after 200,000 of them); past the limit of gaps, one error names it
/// and reading goes on.
#[test]
fn remembered_blocks_are_bounded() {
    use smem_model::kernel::accelsim::MAX_ENDED_RUNS;
    let block = |x: usize| format!("#BEGIN_TB\nthread block = {x},0,0\n#END_TB\n");
    let mut trace = String::from("-kernel name = k\n");
    for x in 0..200_000 {
        trace += &block(x);
    }
    trace += &block(17);
    let (errors, blocks) = errors_of(trace);
    assert_eq!(
        errors,
        ["t.traceg:600003: thread block (17,0,0) appears twice in kernel k"]
    );
    assert_eq!(blocks, 200_000);
    // Every other id: a run each.
    let mut trace = String::from("-kernel name = k\n");
    for x in 0..MAX_ENDED_RUNS + 2 {
        trace += &block(2 * x);
    }
    trace += &block(2);
    let (errors, blocks) = errors_of(trace);
    let line = 3 + 3 * MAX_ENDED_RUNS;
    assert_eq!(
        errors,
        [
            format!(
                "t.traceg:{line}: thread block ({},0,0) is read but not remembered: 65536 runs \
                 of thread-block ids are held for this kernel already, the most kept, and the \
                 trace gives no `-grid dim` for a bitmap of its blocks (bounded memory); repeats \
                 of its blocks from here on are not caught",
                2 * MAX_ENDED_RUNS
            ),
            format!(
                "t.traceg:{}: thread block (2,0,0) appears twice in kernel k",
                line + 6
            ),
        ]
    );
    assert_eq!(blocks, MAX_ENDED_RUNS as u64 + 2);
    // A grid too large for the bitmap: the message names its blocks.
    let mut trace = String::from("-kernel name = k\n-grid dim = (1073741824,1,1)\n");
    for x in 0..MAX_ENDED_RUNS + 1 {
        trace += &block(2 * x);
    }
    let (errors, _) = errors_of(trace);
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0].contains(
            "and its grid has 1073741824 blocks, more than the 134217728 a bitmap of blocks holds"
        ),
        "{errors:?}"
    );
    // The raw form: blocks end as their warps exit, then are runs too.
    let mut trace = String::from("-kernel name = raw\n-block dim = (32,1,1)\n");
    for x in 0..100_000 {
        trace += &format!("{x} 0 0 0 0010 ffffffff 0 EXIT 0 0 0\n");
    }
    trace += "5 0 0 0 0020 ffffffff 0 LDS 1 R2 4 1 0x0 4\n";
    let (errors, blocks) = errors_of(trace);
    assert_eq!(
        errors,
        ["t.traceg:100003: thread block (5,0,0) has an instruction after all its warps exited"]
    );
    assert_eq!(blocks, 100_000);
}

/// With the kernel's `-grid dim`, blocks past `MAX_ENDED_RUNS` runs are
/// remembered by a bitmap over the grid: scattered ids (a run each) far past
/// the limit, then repeats of blocks read before and after the switch are
/// all caught, `.traceg` and raw form alike; a block outside the grid past
/// the limit is named.
#[test]
fn repeats_past_the_runs_are_caught_by_the_grid() {
    use smem_model::kernel::accelsim::MAX_ENDED_RUNS;
    let block = |x: usize, y: usize| format!("#BEGIN_TB\nthread block = {x},{y},0\n#END_TB\n");
    // Every other block of two rows: 2 * (MAX_ENDED_RUNS + 100) runs.
    let wide = 2 * (MAX_ENDED_RUNS + 100);
    let mut trace = format!("-kernel name = k\n-grid dim = ({wide},2,1)\n");
    for y in 0..2 {
        for x in 0..MAX_ENDED_RUNS + 100 {
            trace += &block(2 * x, y);
        }
    }
    let read = 2 * (MAX_ENDED_RUNS + 100);
    // Repeats: from before the switch, from after it (the second row), and
    // a new block between two read ones.
    trace += &block(2, 0);
    trace += &block(2 * (MAX_ENDED_RUNS + 50), 1);
    trace += &block(3, 1);
    trace += &block(3, 1);
    // Outside the grid, after the switch: in the runs, which the grid's
    // blocks left.
    trace += &block(wide, 0);
    trace += &block(wide, 0);
    let line = 3 + 3 * read;
    let (errors, blocks) = errors_of(trace);
    assert_eq!(
        errors,
        [
            format!(
                "t.traceg:{}: thread block (2,0,0) appears twice in kernel k",
                line + 1
            ),
            format!(
                "t.traceg:{}: thread block ({},1,0) appears twice in kernel k",
                line + 4,
                2 * (MAX_ENDED_RUNS + 50)
            ),
            format!(
                "t.traceg:{}: thread block (3,1,0) appears twice in kernel k",
                line + 10
            ),
            format!(
                "t.traceg:{}: thread block ({wide},0,0) appears twice in kernel k",
                line + 16
            ),
        ]
    );
    assert_eq!(blocks, read as u64 + 2);
    // Outside the grid when the runs are full: named.
    let mut trace = format!("-kernel name = k\n-grid dim = ({wide},1,1)\n");
    for x in 0..MAX_ENDED_RUNS {
        trace += &block(2 * x, 0);
    }
    trace += &block(0, 1);
    let (errors, _) = errors_of(trace);
    assert_eq!(
        errors,
        [format!(
            "t.traceg:{}: thread block (0,1,0) is read but not remembered: 65536 runs of \
             thread-block ids are held for this kernel already, the most kept, and the block is \
             outside its grid, `-grid dim = ({wide},1,1)`, which a bitmap holds (bounded \
             memory); repeats of its blocks from here on are not caught",
            4 + 3 * MAX_ENDED_RUNS
        )]
    );
    // The raw form: an instruction of a block that ended, past the limit.
    let mut trace =
        format!("-kernel name = raw\n-block dim = (32,1,1)\n-grid dim = ({wide},1,1)\n");
    for x in 0..MAX_ENDED_RUNS + 100 {
        trace += &format!("{} 0 0 0 0010 ffffffff 0 EXIT 0 0 0\n", 2 * x);
    }
    let late = 2 * (MAX_ENDED_RUNS + 90);
    trace += &format!("{late} 0 0 0 0020 ffffffff 0 LDS 1 R2 4 1 0x0 4\n");
    let (errors, blocks) = errors_of(trace);
    assert_eq!(
        errors,
        [format!(
            "t.traceg:{}: thread block ({late},0,0) has an instruction after all its warps exited",
            4 + MAX_ENDED_RUNS + 100
        )]
    );
    assert_eq!(blocks, MAX_ENDED_RUNS as u64 + 100);
}

/// Blocks that never end (no `-block dim`) are held until the kernel ends,
/// at most `MAX_OPEN_BLOCKS` of them; the exits of a block's warps are
/// counted with the gathered events.
#[test]
fn unfinished_blocks_are_bounded() {
    use smem_model::kernel::accelsim::MAX_OPEN_BLOCKS;
    let mut trace = String::from("-kernel name = raw\n");
    for x in 0..MAX_OPEN_BLOCKS + 2 {
        trace += &format!("{x} 0 0 0 0010 ffffffff 0 EXIT 0 0 0\n");
    }
    trace += "0 0 0 1 0010 ffffffff 0 EXIT 0 0 0\n";
    let (errors, blocks) = errors_of(trace);
    let refused = |line: usize| {
        format!(
            "t.traceg:{line}: more than {MAX_OPEN_BLOCKS} unfinished thread blocks at once \
             (bounded memory): give the trace's `-block dim` (blocks end when all their threads \
             exit), or split it by block"
        )
    };
    assert_eq!(
        errors,
        [refused(MAX_OPEN_BLOCKS + 2), refused(MAX_OPEN_BLOCKS + 3)]
    );
    // The blocks held, ended with the kernel; a held block's new warp taken.
    assert_eq!(blocks, MAX_OPEN_BLOCKS as u64);
}

/// The parallel tally (what `smem trace` prints) is the tally `Trace` gives,
/// whatever the number of threads; its errors come in input order, the first
/// ones handed on, the rest counted.
#[test]
fn parallel_tally_is_the_tally_of_the_trace() {
    use smem_model::kernel::accelsim::input::{Input, Reader};
    use smem_model::kernel::accelsim::parallel::{tally_files, ParallelTally};
    let files = [
        data("traces/kernels/kernelslist.g"),
        data("traces/transpose.traceg"),
    ];
    let mut whole = Tally::default();
    Trace::files(files.clone()).read(&mut whole).unwrap();
    for threads in 1..=3 {
        let tally = tally_files(files.clone(), threads).unwrap();
        assert_eq!(tally.totals(), whole.totals(), "{threads} threads");
        assert!(tally.totals().requests > 0);
    }
    // 300 bad lines among good ones, across many chunks.
    let mut text = String::from("#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\n");
    for i in 0..30_000 {
        text += if i % 100 == 7 {
            "0010 ffffffff 0 LDS 1 R2 4 9 0x0 4\n"
        } else {
            "0020 ffffffff 1 R1 IMAD.MOV.U32 2 R255 R255 0 0 \n"
        };
    }
    text += "#END_TB\n";
    for threads in [1, 3] {
        let mut reader = Reader::new(vec![Input::reader(
            "t.traceg",
            std::io::Cursor::new(text.clone().into_bytes()),
        )]);
        let mut seen = Vec::new();
        let tallied = ParallelTally::new()
            .with_threads(threads)
            .with_shown_errors(5)
            .read(
                &mut reader,
                |err| {
                    seen.push(err.to_string());
                    Ok(())
                },
                |_| {},
            )
            .unwrap();
        let expected: Vec<String> = (0..5)
            .map(|k| {
                format!(
                    "t.traceg:{}: LDS: unknown address mode `9`: expected 0 (list), 1 (base and \
                     stride) or 2 (base and deltas)",
                    11 + 100 * k
                )
            })
            .collect();
        assert_eq!(seen, expected, "{threads} threads");
        assert_eq!((tallied.lines_not_read, tallied.errors_reported), (300, 5));
        assert_eq!(tallied.tally.other_instructions(), 29_700);
    }
    // `tally_files` stops at the first.
    let err = tally_files([data("traces/no-such-file.traceg")], 2).unwrap_err();
    assert!(err.to_string().starts_with("cannot read "), "{err}");
}
