//! `smem trace` end to end: the sample traces of `tests/data/traces` (corpus
//! and Accel-Sim formats), generated streams whose totals the library computes
//! independently, the same output whatever the thread count, bounded memory,
//! and every kind of bad input with its exact message.
#![cfg(feature = "cli")]

use std::fmt::Write as _;
use std::fs;
use std::io::Write as _;
use std::process::{Command, Output, Stdio};

use serde_json::Value;
use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};

const TRACES: &str = "tests/data/traces";

mod support;
use support::{has_row, stderr, stdout, TempFile};

/// Runs `smem trace ARGS` from the crate root.
fn trace(args: &[&str]) -> Output {
    support::smem("trace", args)
}

/// `smem trace --json ARGS`, parsed.
fn json(args: &[&str]) -> Value {
    support::json("trace", args)
}

#[test]
fn a_labelled_corpus() {
    let output = trace(&[&format!("{TRACES}/labelled.jsonl")]);
    assert!(output.status.success(), "{}", stderr(&output));
    let out = stdout(&output);
    assert!(out.starts_with(
        "15 shared-memory requests from 1 corpus file\n\
         predicted for: each record's arch and each trace's binary version (sm_90)\n"
    ));
    for row in [
        ["ATOMS.ADD", "1", "4", "1", "3", "1", "4-way"],
        ["LDS.32", "8", "132", "8", "124", "4", "32-way"],
        ["LDSM.x4", "1", "32", "4", "28", "1", "8-way"],
        ["STS.32", "4", "4", "4", "0", "0", "1-way"],
        ["all", "15", "176", "19", "157", "7", "32-way"],
    ] {
        assert!(has_row(&out, &row), "{row:?} in\n{out}");
    }
    // Records with one label are one instruction; unlabelled records stand alone.
    assert!(
        has_row(
            &out,
            &[
                "1",
                "v",
                "=",
                "tile[tx][ty]",
                "LDS.32",
                "tests/data/traces/labelled.jsonl:2",
                "4",
                "128",
                "124",
                "32-way"
            ]
        ),
        "{out}"
    );
    assert!(has_row(
        &out,
        &[
            "2",
            "(no",
            "label)",
            "LDSM.x4",
            "tests/data/traces/labelled.jsonl:15",
            "1",
            "32",
            "28",
            "8-way"
        ]
    ));
}

#[test]
fn an_accel_sim_trace() {
    let report = json(&[&format!("{TRACES}/transpose.traceg")]);
    assert_eq!(report["files"][0]["format"], "accel-sim");
    assert_eq!(report["archs"], serde_json::json!(["sm_90"]));
    assert_eq!(report["requests"], 12);
    assert_eq!(report["wavefronts"], 200);
    assert_eq!(report["ideal_wavefronts"], 20);
    assert_eq!(report["bank_conflicts"], 180);
    assert_eq!(report["other_instructions"], 10);
    assert_eq!(report["by_op"]["LDSM.x4"]["bank_conflicts"], 56);
    assert_eq!(report["by_op"]["LDS.128"]["wavefronts"], 4);
    let top = &report["top"][0];
    assert_eq!(top["instruction"], "_Z13transposeTilePfPKf 0x00b0 LDS");
    assert_eq!(top["op"], "LDS.32");
    assert_eq!(top["first_seen"], "tests/data/traces/transpose.traceg:28");
    assert_eq!(top["requests"], 2);
    assert_eq!(top["bank_conflicts"], 62);
    assert_eq!(top["worst_ways"], 32);
}

#[test]
fn the_raw_trace_form_and_its_binary_version() {
    // The same instructions with block and warp ids on each line, from sm_86.
    let raw = json(&[&format!("{TRACES}/transpose.trace")]);
    assert_eq!(raw["archs"], serde_json::json!(["sm_86"]));
    let post = json(&[&format!("{TRACES}/transpose.traceg")]);
    for field in [
        "requests",
        "wavefronts",
        "ideal_wavefronts",
        "bank_conflicts",
    ] {
        assert_eq!(raw[field], post[field], "{field}");
    }
    // --arch overrides the header.
    let kepler = json(&["--arch", "sm_75", &format!("{TRACES}/transpose.trace")]);
    assert_eq!(kepler["archs"], serde_json::json!(["sm_75"]));
    // stmatrix is not in this trace, so every instruction exists on 7.5.
    assert_eq!(kepler["requests"], 12);
}

#[test]
fn several_files_and_stdin() {
    let both = json(&[
        &format!("{TRACES}/labelled.jsonl"),
        &format!("{TRACES}/transpose.traceg"),
    ]);
    assert_eq!(both["requests"], 27);
    assert_eq!(both["bank_conflicts"], 157 + 180);
    assert_eq!(both["top"].as_array().unwrap().len(), 10);

    let mut child = Command::new(env!("CARGO_BIN_EXE_smem"))
        .args(["trace", "--json", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let text = fs::read(format!(
        "{}/{TRACES}/transpose.traceg",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    child.stdin.take().unwrap().write_all(&text).unwrap();
    let output = child.wait_with_output().unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["files"][0]["name"], "<stdin>");
    assert_eq!(report["bank_conflicts"], 180);
}

/// A corpus line for request `i` of a generated stream, and the request.
fn corpus_request(i: u64) -> (String, WarpRequest) {
    let width = [1u32, 2, 4, 8, 16][(i % 5) as usize];
    let stride = 1 + (i / 5 % 33) as u32;
    let offsets: Vec<i64> = (0..32u32)
        .map(|lane| {
            if i.is_multiple_of(5) && u64::from(lane) == i % 32 {
                -1
            } else {
                i64::from(width * (stride * lane % (16384 / width)))
            }
        })
        .collect();
    let label = match i % 3 {
        0 => String::new(),
        _ => format!(r#""label":"site{}","#, i % 50),
    };
    let list: Vec<String> = offsets.iter().map(i64::to_string).collect();
    let line = format!(
        r#"{{"arch":"sm_90",{label}"op":"ld","width":{width},"offsets":[{}]}}"#,
        list.join(",")
    );
    let request = WarpRequest::from_fn(Op::Load, width, |lane| {
        let offset = offsets[lane.index()];
        (offset >= 0).then(|| 0x400 + offset as u32)
    })
    .unwrap();
    (line, request)
}

/// A trace line for request `i` of a generated Accel-Sim stream (shared base
/// 0x7f0000000000), in one of the three address modes, and the request.
fn trace_request(i: u64) -> (String, WarpRequest) {
    let (opcode, op, width) = [
        ("LDS", Op::Load, 4u32),
        ("STS.64", Op::Store, 8),
        ("ATOMS.ADD", Op::ATOMIC_ADD, 4),
        ("LDS.U.128", Op::Load, 16),
    ][(i % 4) as usize];
    let stride = width * (1 + (i / 4 % 9) as u32);
    let mask: u32 = match i % 3 {
        1 => 0x0000_ffff,
        2 => 0x5a5a_f00f ^ (i as u32),
        _ => u32::MAX,
    };
    let address = |lane: u32| 0x800 + stride * lane % 8192;
    let active: Vec<u32> = (0..32).filter(|lane| mask >> lane & 1 == 1).collect();
    let base = 0x7f00_0000_0000u64;
    let mut line = format!(
        "{:04x} {mask:08x} 0 {opcode} 1 R2 {width} ",
        0x10 * (i % 40)
    );
    if i % 3 == 2 {
        // base_delta, the tracer's choice for scattered lanes.
        let _ = write!(line, "2 {:#x}", base + u64::from(address(active[0])));
        for pair in active.windows(2) {
            let delta = i64::from(address(pair[1])) - i64::from(address(pair[0]));
            let _ = write!(line, " {delta}");
        }
    } else if address(31) == address(0) + 31 * stride {
        let _ = write!(line, "1 {:#x} {stride}", base + u64::from(address(0)));
    } else {
        line.push('0');
        for &lane in &active {
            let _ = write!(line, " {:#018x}", base + u64::from(address(lane)));
        }
    }
    line.push_str(" 0");
    let request = WarpRequest::from_fn(op, width, |lane| {
        (mask >> lane.get() & 1 == 1).then(|| address(lane.get()))
    })
    .unwrap();
    (line, request)
}

/// The sums the library gives for `requests` on sm_90.
fn expected(requests: &[WarpRequest]) -> [u64; 4] {
    let config = BankConfig::new(ComputeCapability::Sm90);
    let mut sums = [requests.len() as u64, 0, 0, 0];
    for request in requests {
        let p = config.partition(request).unwrap();
        sums[1] += u64::from(p.wavefronts());
        sums[2] += u64::from(p.ideal_wavefronts());
        sums[3] += u64::from(p.bank_conflicts());
    }
    sums
}

fn sums(report: &Value) -> [u64; 4] {
    [
        "requests",
        "wavefronts",
        "ideal_wavefronts",
        "bank_conflicts",
    ]
    .map(|field| report[field].as_u64().unwrap())
}

const TRACE_HEADER: &str = "-kernel name = generated\n-binary version = 90\n\
                            -shmem base_addr = 0x00007f0000000000\n\n#BEGIN_TB\n\nwarp = 0\n";

#[test]
fn generated_streams_match_the_library_whatever_the_threads() {
    let n = 6000;
    let (lines, requests): (Vec<String>, Vec<WarpRequest>) = (0..n).map(corpus_request).unzip();
    let corpus = TempFile::new("generated.jsonl", (lines.join("\n") + "\n").as_bytes());
    let (lines, trace_requests): (Vec<String>, Vec<WarpRequest>) =
        (0..n).map(trace_request).unzip();
    let text = format!("{TRACE_HEADER}{}\n#END_TB\n", lines.join("\n"));
    let traceg = TempFile::new("generated.traceg", text.as_bytes());

    assert_eq!(sums(&json(&[corpus.name()])), expected(&requests));
    assert_eq!(sums(&json(&[traceg.name()])), expected(&trace_requests));

    // Byte for byte the same output on 1 and 3 threads, text and JSON.
    for json_flag in [false, true] {
        let run = |threads: &str| {
            let mut args = vec!["-j", threads, corpus.name(), traceg.name()];
            if json_flag {
                args.push("--json");
            }
            let output = trace(&args);
            assert!(output.status.success(), "{}", stderr(&output));
            stdout(&output)
        };
        assert_eq!(run("1"), run("3"));
    }
}

/// Peak resident memory of `smem trace` on a generated corpus of `n` requests,
/// in kilobytes, read from /proc while it runs (Linux only).
#[cfg(target_os = "linux")]
fn peak_rss_kb(n: u64) -> (u64, Value) {
    let path = std::env::temp_dir().join(format!(
        "smem-cli-trace-{}-rss-{n}.jsonl",
        std::process::id()
    ));
    {
        let mut file = std::io::BufWriter::new(fs::File::create(&path).unwrap());
        for i in 0..n {
            writeln!(file, "{}", corpus_request(i).0).unwrap();
        }
    }
    let file = TempFile { path };
    let mut child = Command::new(env!("CARGO_BIN_EXE_smem"))
        .args(["trace", "--json", file.name()])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let status_path = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    let mut out = Vec::new();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        std::io::Read::read_to_end(&mut stdout, &mut out).unwrap();
        out
    });
    while child.try_wait().unwrap().is_none() {
        if let Ok(status) = fs::read_to_string(&status_path) {
            if let Some(kb) = status
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse::<u64>().ok())
            {
                peak = peak.max(kb);
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let report: Value = serde_json::from_slice(&reader.join().unwrap()).unwrap();
    (peak, report)
}

/// A long stream goes through in bounded memory. The input here is about 10 MB;
/// the documented run of a million requests (200 MB) is the ignored test below.
#[cfg(target_os = "linux")]
#[test]
fn memory_stays_bounded() {
    let (peak, report) = peak_rss_kb(50_000);
    assert_eq!(report["requests"], 50_000);
    assert!(peak < 64 * 1024, "peak RSS {peak} kB");
}

/// `cargo test --release --features cli --test cli_trace -- --ignored --nocapture`
/// prints the peak memory of a million requests (about 200 MB of JSON lines).
#[cfg(target_os = "linux")]
#[test]
#[ignore = "generates 200 MB; run by hand to measure"]
fn a_million_requests_in_bounded_memory() {
    let (peak, report) = peak_rss_kb(1_000_000);
    assert_eq!(report["requests"], 1_000_000);
    println!("a million requests: peak RSS {peak} kB");
    assert!(peak < 64 * 1024, "peak RSS {peak} kB");
}

#[test]
fn bad_lines_are_located_and_reading_goes_on() {
    let (good, _) = corpus_request(2);
    let offsets: Vec<String> = (0..32).map(|lane| (4 * lane + 2).to_string()).collect();
    let misaligned = format!(
        r#"{{"arch":"sm_90","op":"ld","width":4,"offsets":[{}]}}"#,
        offsets.join(",")
    );
    let text = format!("{good}\n{{\"arch\":\"sm_90\",\"op\":\"ld\"\n\n{misaligned}\n{good}\n");
    let file = TempFile::new("bad.jsonl", text.as_bytes());
    let output = trace(&[file.name()]);
    let name = file.name();
    assert_eq!(
        stderr(&output),
        format!(
            "error: {name}:2: EOF while parsing an object at column 25\n\
             error: {name}:4: misaligned address: lane 0 accesses 4 bytes at offset 2 \
             (shared address 0x402), which is not a multiple of 4\n"
        )
    );
    let out = stdout(&output);
    assert!(
        out.starts_with("2 shared-memory requests from 1 corpus file\n"),
        "{out}"
    );
    assert!(
        out.ends_with("\nnot analysed: 2 lines (errors on stderr)\n"),
        "{out}"
    );
    assert_eq!(output.status.code(), Some(1));

    // --strict stops at the first, with no report.
    let output = trace(&["--strict", file.name()]);
    assert_eq!(
        stderr(&output),
        format!("error: {name}:2: EOF while parsing an object at column 25\n")
    );
    assert_eq!(stdout(&output), "");
    assert_eq!(output.status.code(), Some(1));
}

#[test]
fn bad_trace_lines() {
    let text = format!(
        "{TRACE_HEADER}\
         0000 ffffffff 1 R1 LDS 1 R2 4 1 0x7f0000000400 4 0\n\
         0010 00000003 1 R1 LDS 1 R2 4 0 0x7f0000000400\n\
         0020 00000001 1 R1 LDS 1 R2 4 9 0x7f0000000400\n\
         0030 00000001 1 R1 ATOMS.CAS.64 1 R2 8 0 0x7f0000000400\n\
         0040 00000001 1 R1 LDS.64 1 R2 8 0 0x7f0000000404\n\
         0050 00000001 1 R1 LDS 1 R2 4 0 0x7f1000000000\n\
         LDS garbage\n\
         0060 00000001 0 LDGSTS.E 2 R1 R2 4 0 0x7f0000000400 0x7a0000000000\n"
    );
    let file = TempFile::new("bad.traceg", text.as_bytes());
    let output = trace(&[file.name()]);
    let name = file.name();
    assert_eq!(
        stderr(&output),
        format!(
            "error: {name}:9: LDS: expected a hexadecimal address, found the end of the line\n\
             error: {name}:10: LDS: unknown address mode `9`: expected 0 (list), 1 (base and stride) or 2 (base and deltas)\n\
             error: {name}:11: ATOMS.CAS.64: the model has 32-bit shared atomics only, not 64-bit\n\
             error: {name}:12: LDS.64: misaligned address: lane 0 accesses 8 bytes at 0x404, which is not a multiple of 8\n\
             error: {name}:13: LDS: lane 0 has address 0x7f1000000000, which is not a shared address (the header's shmem base_addr is 0x7f0000000000)\n\
             error: {name}:14: not an instruction line: expected [ids] PC MASK DEST_NUM [dests] OPCODE SRC_NUM [srcs] MEM_WIDTH [MODE ADDRESSES]\n"
        )
    );
    let report = trace(&["--json", file.name()]);
    let report: Value = serde_json::from_slice(&report.stdout).unwrap();
    assert_eq!(report["requests"], 1);
    assert_eq!(report["lines_not_analysed"], 6);
    // LDGSTS writes shared memory from global memory: not a shared-memory request.
    assert_eq!(report["other_instructions"], 1);
}

#[test]
fn files_that_cannot_be_read() {
    let unknown = TempFile::new("unknown.txt", b"hello\n");
    let list = TempFile::new(
        "kernelslist.g",
        b"MemcpyHtoD,0x00007f0000000000,2048\nkernel-1.traceg\n",
    );
    let xz = TempFile::new("trace.xz", b"\xfd7zXZ\0\0\0");
    let output = trace(&[
        "tests/data/traces/no-such-file",
        "tests/data/traces",
        unknown.name(),
        list.name(),
        xz.name(),
        &format!("{TRACES}/labelled.jsonl"),
    ]);
    // The kernel list is followed (its kernel file is missing here), and the
    // xz file is read through the decompressor, which finds it truncated.
    let folder = list.path.parent().unwrap().display().to_string();
    assert_eq!(
        stderr(&output),
        format!(
            "error: cannot read tests/data/traces/no-such-file: No such file or directory (os error 2)\n\
             error: cannot read tests/data/traces: is a directory\n\
             error: {}: line 1: neither a corpus record (a JSON object) nor an Accel-Sim trace line\n\
             error: cannot read {folder}/kernel-1.traceg: No such file or directory (os error 2)\n\
             error: {}:1: cannot read: xz-compressed data: premature eof\n",
            unknown.name(),
            xz.name()
        )
    );
    let out = stdout(&output);
    assert!(
        out.starts_with("15 shared-memory requests from 1 corpus file (listed in 1 kernel list)\n"),
        "{out}"
    );
    assert!(
        out.ends_with(
            "\nnot analysed: 1 line (errors on stderr)\nnot read: 4 files (errors on stderr)\n"
        ),
        "{out}"
    );
    assert_eq!(output.status.code(), Some(1));
}

#[test]
fn many_bad_lines_are_counted_not_all_printed() {
    let text = "{\"arch\":\"sm_90\"}\n".repeat(25);
    let file = TempFile::new("many.jsonl", text.as_bytes());
    let output = trace(&[file.name()]);
    let err = stderr(&output);
    assert_eq!(err.lines().count(), 21, "{err}");
    assert!(err.ends_with("error: 5 more errors not shown\n"), "{err}");
    assert!(stdout(&output).ends_with("not analysed: 25 lines (errors on stderr)\n"));
}

#[test]
fn usage_errors() {
    let output = trace(&[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("<FILE>..."));
    let output = trace(&["--arch", "sm_40", "x"]);
    assert_eq!(output.status.code(), Some(2));
    let output = trace(&["-j", "0", &format!("{TRACES}/labelled.jsonl")]);
    assert_eq!(stderr(&output), "error: --threads must be at least 1\n");
    assert_eq!(output.status.code(), Some(1));
}

/// `--timings` reports on standard error and leaves the report alone.
#[test]
fn timings_go_to_stderr() {
    let file = format!("{TRACES}/transpose.traceg");
    let plain = trace(&[&file]);
    let timed = trace(&["--timings", "-j", "2", &file]);
    assert!(timed.status.success(), "{}", stderr(&timed));
    assert_eq!(stdout(&timed), stdout(&plain));
    let report = stderr(&timed);
    let requests = json(&[&file])["requests"].as_u64().unwrap();
    assert!(
        report.starts_with(&format!("timings: {requests} requests in ")),
        "{report}"
    );
    assert!(report.contains(" s on 2 threads\n"), "{report}");
    for phase in ["reading", "parsing", "analysis"] {
        assert!(report.contains(&format!("\n  {phase} ")), "{report}");
    }
    assert!(report.contains("million requests/s a thread\n"), "{report}");
}

/// A kernel's header repeated in one file (two launches of one kernel, their
/// traces concatenated) names one instruction per PC, counted over both, and
/// a second kernel's header changes the name of what follows it mid-file.
#[test]
fn repeated_and_changing_kernel_headers() {
    let header = |name: &str| {
        format!(
            "-kernel name = {name}\n-binary version = 90\n-shmem base_addr = 0x7f0000000000\n\
             -enable lineinfo = 0\n"
        )
    };
    let lds = "0010 ffffffff 1 R5 LDS 1 R6 4 1 0x7f0000000000 128 0\n";
    let text = [
        header("_Z1a"),
        lds.repeat(2),
        header("_Z1a"),
        lds.repeat(3),
        header("_Z1b"),
        lds.to_owned(),
    ]
    .concat();
    let file = TempFile::new("headers.traceg", text.as_bytes());
    let report = json(&[file.name()]);
    assert_eq!(report["requests"], 6);
    let top = report["top"].as_array().unwrap();
    assert_eq!(top.len(), 2, "{top:?}");
    assert_eq!(top[0]["instruction"], "_Z1a 0x0010 LDS");
    assert_eq!(top[0]["requests"], 5);
    assert_eq!(top[0]["first_seen"], format!("{}:5", file.name()));
    assert_eq!(top[1]["instruction"], "_Z1b 0x0010 LDS");
    assert_eq!(top[1]["requests"], 1);
    assert_eq!(top[1]["first_seen"], format!("{}:18", file.name()));
}

/// Lines are cut from 256 KB blocks: a line longer than a block, Windows line
/// ends and a last line without its newline read as any other, with the right
/// line numbers.
#[test]
fn long_lines_crlf_and_a_missing_last_newline() {
    let record = |label: &str| {
        format!(
            r#"{{"arch":"sm_90","op":"ld","width":4,"label":"{label}","offsets":[{}]}}"#,
            (0..32)
                .map(|i| (128 * i).to_string())
                .collect::<Vec<_>>()
                .join(",")
        )
    };
    let long = "x".repeat(600 * 1024);
    let text = format!(
        "{}\r\n{}\r\n\r\n{}",
        record("first"),
        record(&long),
        record("last")
    );
    let file = TempFile::new("long.jsonl", text.as_bytes());
    let output = trace(&["--json", "--top", "3", file.name()]);
    assert!(output.status.success(), "{}", stderr(&output));
    let report: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(report["requests"], 3);
    assert_eq!(report["wavefronts"], 96);
    let seen: Vec<String> = report["top"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            i["first_seen"]
                .as_str()
                .unwrap()
                .rsplit(':')
                .next()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(seen, ["1", "2", "4"]);
}
