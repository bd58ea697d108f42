//! `include/smem.h` is written by hand: this checks it against the Rust
//! definitions. Each function's C prototype must appear in the header exactly
//! (whitespace aside), and the same line here fixes the Rust signature, so
//! neither side can change alone; the constants and struct fields are compared
//! by value and name, and every `smem_` function the header declares is listed.

use std::ffi::{c_char, c_int};

use smem::*;

fn header() -> String {
    let text = include_str!("../include/smem.h");
    // Comments out, whitespace collapsed.
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("/*") {
        out.push_str(&rest[..start]);
        let end = rest[start..].find("*/").unwrap() + start + 2;
        rest = &rest[end..];
    }
    out.push_str(rest);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn squash(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// (C prototype, Rust function as a typed pointer).
macro_rules! prototypes {
    ($($c:literal => $f:expr;)*) => {
        [$(($c, $f as usize)),*]
    };
}

#[test]
fn functions_match() {
    let header = header();
    let table = prototypes! {
        "smem_config *smem_config_new(const char *arch);" =>
            smem_config_new as unsafe extern "C" fn(*const c_char) -> *mut smem_config;
        "int smem_config_free(smem_config *config);" =>
            smem_config_free as unsafe extern "C" fn(*mut smem_config) -> c_int;
        "int smem_op_parse(const char *name, smem_op *out);" =>
            smem_op_parse as unsafe extern "C" fn(*const c_char, *mut smem_op) -> c_int;
        "uint32_t smem_op_width(smem_op op);" =>
            smem_op_width as extern "C" fn(smem_op) -> u32;
        "int smem_wavefronts_op(const smem_config *config, smem_op op, uint32_t width,
            uint32_t active_mask, const uint32_t addresses[32], uint32_t *wavefronts);" =>
            smem_wavefronts_op as unsafe extern "C" fn(
                *const smem_config, smem_op, u32, u32, *const u32, *mut u32) -> c_int;
        "int smem_wavefronts_generic_op(const smem_config *config, smem_op op,
            uint32_t width, uint32_t active_mask, const uint64_t addresses[32],
            uint64_t window_base, uint32_t *wavefronts);" =>
            smem_wavefronts_generic_op as unsafe extern "C" fn(
                *const smem_config, smem_op, u32, u32, *const u64, u64, *mut u32) -> c_int;
        "int smem_cost_op(const smem_config *config, smem_op op, uint32_t width,
            uint32_t active_mask, const uint32_t addresses[32], smem_cost *cost);" =>
            smem_cost_op as unsafe extern "C" fn(
                *const smem_config, smem_op, u32, u32, *const u32, *mut smem_cost) -> c_int;
        "int smem_partition_op(const smem_config *config, smem_op op, uint32_t width,
            uint32_t active_mask, const uint32_t addresses[32],
            smem_transaction *transactions, uint32_t capacity, uint32_t *count);" =>
            smem_partition_op as unsafe extern "C" fn(
                *const smem_config, smem_op, u32, u32, *const u32,
                *mut smem_transaction, u32, *mut u32) -> c_int;
        "int smem_timing_op(const smem_config *config, smem_op op, uint32_t width,
            uint32_t active_mask, const uint32_t addresses[32],
            uint32_t warps, smem_timing *timing);" =>
            smem_timing_op as unsafe extern "C" fn(
                *const smem_config, smem_op, u32, u32, *const u32, u32,
                *mut smem_timing) -> c_int;
        "int smem_wavefronts_batch(const smem_config *config, smem_op op, uint32_t width,
            size_t n, const uint32_t *masks, const uint32_t *addresses, uint32_t *wavefronts);" =>
            smem_wavefronts_batch as unsafe extern "C" fn(
                *const smem_config, smem_op, u32, usize, *const u32, *const u32, *mut u32) -> c_int;
        "int smem_cost_batch(const smem_config *config, smem_op op, uint32_t width,
            size_t n, const uint32_t *masks, const uint32_t *addresses, smem_cost *costs);" =>
            smem_cost_batch as unsafe extern "C" fn(
                *const smem_config, smem_op, u32, usize, *const u32, *const u32,
                *mut smem_cost) -> c_int;
        "int smem_config_set_bank_bytes(smem_config *config, uint32_t bank_bytes);" =>
            smem_config_set_bank_bytes as unsafe extern "C" fn(*mut smem_config, u32) -> c_int;
        "int smem_wavefronts(const smem_config *config, const char *op, uint32_t width,
            uint32_t active_mask, const uint32_t addresses[32], uint32_t *wavefronts);" =>
            smem_wavefronts as unsafe extern "C" fn(
                *const smem_config, *const c_char, u32, u32, *const u32, *mut u32) -> c_int;
        "int smem_wavefronts_generic(const smem_config *config, const char *op,
            uint32_t width, uint32_t active_mask, const uint64_t addresses[32],
            uint64_t window_base, uint32_t *wavefronts);" =>
            smem_wavefronts_generic as unsafe extern "C" fn(
                *const smem_config, *const c_char, u32, u32, *const u64, u64, *mut u32) -> c_int;
        "int smem_cost_of(const smem_config *config, const char *op, uint32_t width,
            uint32_t active_mask, const uint32_t addresses[32], smem_cost *cost);" =>
            smem_cost_of as unsafe extern "C" fn(
                *const smem_config, *const c_char, u32, u32, *const u32, *mut smem_cost) -> c_int;
        "int smem_partition(const smem_config *config, const char *op, uint32_t width,
            uint32_t active_mask, const uint32_t addresses[32],
            smem_transaction *transactions, uint32_t capacity, uint32_t *count);" =>
            smem_partition as unsafe extern "C" fn(
                *const smem_config, *const c_char, u32, u32, *const u32,
                *mut smem_transaction, u32, *mut u32) -> c_int;
        "int smem_timing_of(const smem_config *config, const char *op, uint32_t width,
            uint32_t active_mask, const uint32_t addresses[32],
            uint32_t warps, smem_timing *timing);" =>
            smem_timing_of as unsafe extern "C" fn(
                *const smem_config, *const c_char, u32, u32, *const u32, u32,
                *mut smem_timing) -> c_int;
        "const char *smem_last_error(void);" =>
            smem_last_error as extern "C" fn() -> *const c_char;
        "const char *smem_version(void);" =>
            smem_version as extern "C" fn() -> *const c_char;
    };
    for (prototype, _) in &table {
        assert!(
            header.contains(&squash(prototype)),
            "not in smem.h: {prototype}"
        );
    }
    // No function in the header that the table does not check: every
    // `smem_...(` in the header is one of the prototypes above.
    let mut declared = 0;
    for (i, _) in header.match_indices("smem_") {
        let name: String = header[i..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if header[i + name.len()..].starts_with('(') {
            declared += 1;
            assert!(
                table
                    .iter()
                    .any(|(p, _)| p.contains(&format!(" {name}("))
                        || p.contains(&format!("*{name}("))),
                "smem.h declares {name}, which this test does not check"
            );
        }
    }
    assert_eq!(declared, table.len());
}

#[test]
fn constants_match() {
    let header = header();
    let defines = [
        ("SMEM_WARP_SIZE", SMEM_WARP_SIZE.to_string()),
        ("SMEM_MAX_TRANSACTIONS", SMEM_MAX_TRANSACTIONS.to_string()),
        ("SMEM_OK", SMEM_OK.to_string()),
        ("SMEM_ERR_NULL", format!("({SMEM_ERR_NULL})")),
        ("SMEM_ERR_UNKNOWN", format!("({SMEM_ERR_UNKNOWN})")),
        ("SMEM_ERR_WIDTH", format!("({SMEM_ERR_WIDTH})")),
        ("SMEM_ERR_MISALIGNED", format!("({SMEM_ERR_MISALIGNED})")),
        (
            "SMEM_ERR_OUTSIDE_WINDOW",
            format!("({SMEM_ERR_OUTSIDE_WINDOW})"),
        ),
        (
            "SMEM_ERR_UNSUPPORTED_OP",
            format!("({SMEM_ERR_UNSUPPORTED_OP})"),
        ),
        ("SMEM_ERR_CAPACITY", format!("({SMEM_ERR_CAPACITY})")),
        ("SMEM_ERR_INTERNAL", format!("({SMEM_ERR_INTERNAL})")),
        (
            "SMEM_ERR_NOT_MEASURED",
            format!("({SMEM_ERR_NOT_MEASURED})"),
        ),
        ("SMEM_ERR_FREED", format!("({SMEM_ERR_FREED})")),
        ("SMEM_ERR_ARGUMENT", format!("({SMEM_ERR_ARGUMENT})")),
    ];
    for (name, value) in &defines {
        assert!(
            header.contains(&format!("#define {name} {value} ")),
            "{name} {value}"
        );
    }
    // Every other #define but the include guard is checked above.
    let guard = usize::from(header.contains("#define SMEM_H "));
    assert_eq!(
        header.matches("#define SMEM_").count(),
        defines.len() + guard,
        "a #define not checked"
    );
}

#[test]
fn structs_match() {
    let header = header();
    // Field order and types; the Rust structs are #[repr(C)] with these fields.
    let cost = smem_cost {
        wavefronts: 1,
        ideal_wavefronts: 2,
        bank_conflicts: 3,
        ways: 4,
    };
    let transaction = smem_transaction {
        lanes: 1,
        banks: 2,
        phase: 3,
        part: 4,
    };
    assert_eq!(std::mem::size_of_val(&cost), 16);
    assert_eq!(std::mem::size_of_val(&transaction), 16);
    assert!(header.contains(
        "typedef struct smem_cost { uint32_t wavefronts; uint32_t ideal_wavefronts; \
         uint32_t bank_conflicts; uint32_t ways; } smem_cost;"
    ));
    assert!(header.contains(
        "typedef struct smem_transaction { uint32_t lanes; uint32_t banks; uint32_t phase; \
         uint32_t part; } smem_transaction;"
    ));
    let timing = smem_timing {
        pipe_cycles: 1,
        latency: 2.0,
        latency_cycles_per_instruction: 3.0,
        throughput_cycles_per_instruction: 4.0,
    };
    assert_eq!(std::mem::size_of_val(&timing), 32);
    assert!(header.contains(
        "typedef struct smem_timing { uint32_t pipe_cycles; double latency; \
         double latency_cycles_per_instruction; double throughput_cycles_per_instruction; \
         } smem_timing;"
    ));
    assert!(header.contains("typedef struct smem_config smem_config;"));
    let op = smem_op { opaque: 1 };
    assert_eq!(std::mem::size_of_val(&op), 4);
    assert!(header.contains("typedef struct smem_op { uint32_t opaque; } smem_op;"));
}
