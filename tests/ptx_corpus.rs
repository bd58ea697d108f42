//! Every file of the public PTX corpus (`../shared/ptx-corpus`, see its
//! README: nvcc 10.2-13.1, Triton via LLVM NVPTX, CUTLASS) reads without
//! error, with the functions and instructions counted below.
//!
//! The files are not the project's and are not copied into it; the test reads
//! them where the workspace keeps them (or from `SMEM_PTX_CORPUS`). The
//! counts were checked outside the reader: instructions by counting the lines
//! that end in `;` and are neither declarations, directives nor inside
//! `.section`s, functions by counting `.entry`/`.func` headers with a body.
//!
//! The device fixtures of `tests/data/ptx/` are read here too.
//!
//! Run with `--nocapture` to see each file's opcodes.
#![cfg(feature = "ptx")]

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::PathBuf;

use smem_model::kernel::ptx::{self, Address, AddressBase, Operand};

fn corpus_dir() -> PathBuf {
    match std::env::var_os("SMEM_PTX_CORPUS") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/ptx-corpus"),
    }
}

/// The corpus files, or `None` (with a note on stdout) where there is no
/// corpus: a fresh clone has no `../shared`, and the README's test command
/// must pass there. CI has it, and sets `SMEM_REQUIRE_SHARED=1` so that a
/// corpus gone missing fails instead of skipping.
fn corpus() -> Option<Vec<(String, String)>> {
    let dir = corpus_dir();
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(err) if std::env::var_os("SMEM_REQUIRE_SHARED").is_none() => {
            // Straight to stderr: libtest hides a passing test's println!.
            let _ = writeln!(
                std::io::stderr(),
                "note: skipped, no PTX corpus at {} ({err}): it is the workspace's \
                 ../shared/ptx-corpus, not the repository's; set SMEM_PTX_CORPUS to run",
                dir.display()
            );
            return None;
        }
        Err(err) => panic!(
            "cannot read the PTX corpus at {} ({err}); set SMEM_PTX_CORPUS",
            dir.display()
        ),
    };
    let mut files: Vec<(String, String)> = entries
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "ptx"))
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&path).unwrap())
        })
        .collect();
    files.sort();
    Some(files)
}

/// (file, functions with a body, instructions).
const EXPECTED: &[(&str, usize, usize)] = &[
    ("99change__Triton_insrt__Exist_matmul.ptx", 1, 2578),
    ("99change__Triton_insrt__Exist_matmul_origin.ptx", 1, 895),
    ("99change__Triton_insrt__output_instrumented.ptx", 1, 2578),
    ("99change__Triton_insrt__output_original.ptx", 1, 1634),
    ("Malfurionzz__cuda_code__softmax.ptx", 5, 1824),
    ("anneouyang__kernel-data-exploration__add_kernel.ptx", 1, 75),
    ("anneouyang__kernel-data-exploration__matmul.ptx", 1, 106),
    (
        "anneouyang__kernel-data-exploration__matmul_cutlass.ptx",
        1,
        32379,
    ),
    (
        "anneouyang__kernel-data-exploration__matmul_cutlass_2.ptx",
        1,
        4558,
    ),
    (
        "anneouyang__kernel-data-exploration__matmul_kernel.ptx",
        1,
        236,
    ),
    (
        "navdeepkk__gpu-gemms__smem_gemm-shmem-arbitrary-tile-v2.ptx",
        1,
        894,
    ),
    ("navdeepkk__gpu-gemms__warp_cudaTensorCoreGemm.ptx", 22, 953),
    ("navdeepkk__gpu-gemms__warp_gemm-warp-wmma.ptx", 1, 244),
    ("navdeepkk__gpu-gemms__warp_wmma-sample.ptx", 1, 54),
    ("philsippl__gpu-bench__matmul_kernel.ptx", 1, 1113),
    ("triton-3.6__tutorial-matmul_sm80.ptx", 1, 1312),
    ("wawahejun__Tiny-LLM__fp16_to_fp32_kernel.ptx", 1, 19),
    ("wawahejun__Tiny-LLM__fp32_to_fp16_kernel.ptx", 1, 19),
    ("wawahejun__Tiny-LLM__matmul_fp16_kernel.ptx", 1, 160),
    ("wawahejun__Tiny-LLM__matmul_kernel.ptx", 1, 123),
    ("wawahejun__Tiny-LLM__rms_norm_kernel.ptx", 1, 58),
    ("wawahejun__Tiny-LLM__rope_fp16_kernel.ptx", 1, 322),
    ("wawahejun__Tiny-LLM__rope_kernel.ptx", 1, 329),
    ("wawahejun__Tiny-LLM__softmax_fp16_kernel.ptx", 1, 101),
];

/// The device fixtures (`tests/data/ptx/*/*.ptx`, nvcc 13 and Triton 3.6),
/// as (folder/file, text).
fn fixtures() -> Vec<(String, String)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/ptx");
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let folder = entry.unwrap().path();
        let Ok(inner) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in inner {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|ext| ext == "ptx") {
                let name = path.strip_prefix(&dir).unwrap().display().to_string();
                files.push((name, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    files.sort();
    files
}

/// Every device fixture reads, and has a kernel.
#[test]
fn every_fixture_reads() {
    let files = fixtures();
    assert!(files.len() >= 30, "{} fixtures", files.len());
    for (name, text) in &files {
        let module = ptx::parse(text).unwrap_or_else(|err| panic!("{name}: {err}"));
        assert!(module.entries().count() >= 1, "{name}");
    }
}

#[test]
fn every_corpus_file_reads() {
    let Some(files) = corpus() else {
        return;
    };
    assert_eq!(files.len(), 24, "the corpus README lists 24 files");
    let mut failures = Vec::new();
    let mut counts = Vec::new();
    let mut all_opcodes: BTreeMap<String, usize> = BTreeMap::new();
    for (name, text) in &files {
        match ptx::parse(text) {
            Ok(module) => {
                let functions = module.functions.iter().filter(|f| f.has_body).count();
                let instructions = module.instructions().count();
                let mut opcodes: BTreeMap<&str, usize> = BTreeMap::new();
                for instruction in module.instructions() {
                    *opcodes.entry(instruction.opcode()).or_default() += 1;
                    *all_opcodes
                        .entry(instruction.opcode().to_owned())
                        .or_default() += 1;
                }
                let mnemonics = module.mnemonic_counts();
                assert_eq!(mnemonics.values().sum::<usize>(), instructions, "{name}");
                println!(
                    "{name}: {functions} functions, {instructions} instructions, opcodes {:?}, \
                     {} mnemonics {:?}",
                    opcodes.keys().collect::<Vec<_>>(),
                    mnemonics.len(),
                    mnemonics.keys().collect::<Vec<_>>()
                );
                counts.push((name.clone(), functions, instructions));
            }
            Err(err) => failures.push(format!("{name}: {err}")),
        }
    }
    println!("all opcodes: {all_opcodes:?}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for (name, functions, instructions) in EXPECTED {
        let found = counts.iter().find(|(n, ..)| n == name);
        assert_eq!(
            found.map(|(_, f, i)| (*f, *i)),
            Some((*functions, *instructions)),
            "{name}"
        );
    }
}

/// Every branch target is resolved to a label of its function, and every
/// other name an instruction uses is a variable, parameter or function the
/// module declares: the reader's scoping finds what the compilers meant.
#[test]
fn every_name_resolves() {
    let mut unresolved = Vec::new();
    // Without the corpus, the fixtures alone.
    for (name, text) in corpus().unwrap_or_default().into_iter().chain(fixtures()) {
        let module = ptx::parse(&text).unwrap();
        for function in &module.functions {
            for instruction in &function.instructions {
                let targets = match instruction.opcode() {
                    "bra" => &instruction.operands[..],
                    _ => &[][..],
                };
                for target in targets {
                    if !matches!(target, Operand::Label(_)) {
                        unresolved.push(format!(
                            "{name}:{}: branch target {target:?}",
                            instruction.line
                        ));
                    }
                }
                let mut symbols = Vec::new();
                for operand in &instruction.operands {
                    collect_symbols(operand, &mut symbols);
                }
                for symbol in symbols {
                    let known = module.variable(symbol).is_some()
                        || module.function(symbol).is_some()
                        || function.variable(symbol).is_some();
                    if !known {
                        unresolved.push(format!("{name}:{}: {symbol}", instruction.line));
                    }
                }
            }
        }
    }
    assert!(unresolved.is_empty(), "{}", unresolved.join("\n"));
}

fn collect_symbols<'a>(operand: &Operand<'a>, out: &mut Vec<&'a str>) {
    match operand {
        Operand::Symbol { name, .. } => out.push(name),
        Operand::Address(Address {
            base: AddressBase::Symbol(name),
            ..
        }) => out.push(name),
        Operand::Vector(items) | Operand::List(items) => {
            for item in items {
                collect_symbols(item, out);
            }
        }
        _ => {}
    }
}
