//! `smem archs`: every compute capability the model knows, with the names
//! `--arch` accepts for it, its banks, its shared memory, and where its bank
//! rules come from.

use std::fmt::Write as _;
use std::process::ExitCode;

use serde::Serialize;
use smem_model::{BankConfig, ComputeCapability, SharedMemConfig};

use crate::output::{emit, fail, styled, wrap, HEADING, NOTE};
use crate::table::{Align, Table};

/// The `schema` of `smem archs --json`.
pub const SCHEMA: &str = "smem-archs/1";

/// Arguments of `smem archs`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print the table as JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// Where a capability's bank rules come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rules {
    /// Measured on this capability (the hardware corpus, sm_90).
    Measured,
    /// Measured on sm_90 and applied here: 7.0 and later share the rules as far
    /// as published sources tell.
    MeasuredOnSm90,
    /// The Programming Guide states them (1.x, 2.x).
    Documented,
    /// The Programming Guide states the 4-byte rule; wider accesses are a
    /// modelling choice (3.x, 5.x, 6.x).
    DocumentedAndChosen,
}

impl Rules {
    /// The rules' source for `cc` (the same split as `BankConfig`'s docs).
    pub fn of(cc: ComputeCapability) -> Rules {
        match cc.major() {
            1 | 2 => Rules::Documented,
            3..=6 => Rules::DocumentedAndChosen,
            _ if cc == ComputeCapability::Sm90 => Rules::Measured,
            _ => Rules::MeasuredOnSm90,
        }
    }

    /// Where the rules come from, as a sentence for `smem analyze`.
    pub fn source(self) -> &'static str {
        match self {
            Rules::Measured => {
                "measured on this capability with Nsight Compute (the hardware corpus, \
                 tests/data/hw-corpus; `smem verify` re-checks it)"
            }
            Rules::MeasuredOnSm90 => {
                "those measured on sm_90, applied here: 7.0 and later share them as far as \
                 published sources tell (not measured on this capability)"
            }
            Rules::Documented => {
                "the CUDA C++ Programming Guide's for this capability (not measured)"
            }
            Rules::DocumentedAndChosen => {
                "the CUDA C++ Programming Guide's 4-byte rule; wider accesses are a modelling \
                 choice (not measured)"
            }
        }
    }

    /// The short form in the table.
    fn label(self) -> &'static str {
        match self {
            Rules::Measured => "measured",
            Rules::MeasuredOnSm90 => "sm_90's",
            Rules::Documented => "guide",
            Rules::DocumentedAndChosen => "guide+choice",
        }
    }
}

/// One capability in `--json`.
#[derive(Debug, Serialize)]
struct Capability {
    /// `9.0`.
    version: String,
    /// `sm_90`.
    sm: &'static str,
    /// `Hopper`.
    architecture: String,
    /// Products and chips `--arch` accepts for it.
    names: &'static [&'static str],
    /// Other spellings that mean it: the architecture's name when it is the
    /// architecture's first capability, `sm_101` for 11.0.
    aliases: Vec<String>,
    banks: u32,
    /// Bank widths in bytes: `[4]`, or `[4, 8]` on 3.x (the bank modes).
    bank_widths: Vec<u32>,
    shared_memory_per_sm: u32,
    /// Per block without and with the opt-in, and reserved by the driver.
    shared_memory_per_block: u32,
    max_shared_memory_per_block: u32,
    reserved_shared_memory_per_block: u32,
    rules: Rules,
}

/// What `--json` prints.
#[derive(Debug, Serialize)]
struct Archs {
    schema: &'static str,
    capabilities: Vec<Capability>,
}

fn capability(cc: ComputeCapability) -> Capability {
    let config = BankConfig::new(cc);
    let eight = config.with_shared_mem_config(SharedMemConfig::EightByte);
    let mut bank_widths = vec![config.bank_width().bytes()];
    if eight.bank_width() != config.bank_width() {
        bank_widths.push(eight.bank_width().bytes());
    }
    let mut aliases = Vec::new();
    if cc.architecture().first() == cc {
        aliases.push(cc.architecture().to_string().to_ascii_lowercase());
    }
    if cc == ComputeCapability::Sm110 {
        aliases.extend(["sm_101".to_owned(), "10.1".to_owned()]);
    }
    Capability {
        version: cc.to_string(),
        sm: cc.sm_name(),
        architecture: cc.architecture().to_string(),
        names: cc.names(),
        aliases,
        banks: config.bank_count(),
        bank_widths,
        shared_memory_per_sm: cc.shared_memory_per_sm(),
        shared_memory_per_block: cc.default_shared_memory_per_block(),
        max_shared_memory_per_block: cc.max_shared_memory_per_block(),
        reserved_shared_memory_per_block: cc.reserved_shared_memory_per_block(),
        rules: Rules::of(cc),
    }
}

/// Runs `smem archs`.
pub fn run(args: &Args) -> ExitCode {
    let all: Vec<Capability> = ComputeCapability::ALL.into_iter().map(capability).collect();
    let text = if args.json {
        let archs = Archs {
            schema: SCHEMA,
            capabilities: all,
        };
        match serde_json::to_string_pretty(&archs) {
            Ok(json) => json + "\n",
            Err(err) => return fail(err),
        }
    } else {
        text(&all)
    };
    match emit(&text) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}

fn text(all: &[Capability]) -> String {
    let kb = |bytes: u32| {
        if bytes.is_multiple_of(1024) {
            format!("{} KB", bytes / 1024)
        } else {
            format!("{bytes} B")
        }
    };
    let mut table = Table::new(&[
        ("cc", Align::Right),
        ("sm", Align::Left),
        ("architecture", Align::Left),
        ("banks", Align::Left),
        ("per SM", Align::Right),
        ("per block", Align::Right),
        ("opt-in", Align::Right),
        ("rules", Align::Left),
        ("e.g.", Align::Left),
    ]);
    for c in all {
        let widths: Vec<String> = c.bank_widths.iter().map(u32::to_string).collect();
        table.row([
            c.version.clone(),
            c.sm.to_owned(),
            c.architecture.clone(),
            format!("{} x {} B", c.banks, widths.join("/")),
            kb(c.shared_memory_per_sm),
            kb(c.shared_memory_per_block),
            kb(c.max_shared_memory_per_block),
            c.rules.label().to_owned(),
            c.names.first().copied().unwrap_or("").to_owned(),
        ]);
    }
    let mut out = String::new();
    _ = writeln!(
        out,
        "{}",
        styled(
            HEADING,
            "Compute capabilities (shared memory per SM and per block, in bytes of 1024)"
        )
    );
    out.push_str(&table.render(2));
    out.push_str(&styled(
        NOTE,
        wrap("rules: measured = measured on this capability with Nsight Compute (the hardware corpus); \
         sm_90's = the rules measured on sm_90, applied here; guide = the CUDA Programming Guide; \
         guide+choice = the guide's 4-byte rule, wider accesses a modelling choice. \
         banks 32 x 4/8 B: Kepler's two bank modes. opt-in: the most a block can use after \
         cudaFuncSetAttribute; the driver also reserves 1 KB per block from 8.0 on.", 96, "  "),
    ));
    _ = writeln!(
        out,
        "\n{}",
        styled(
            HEADING,
            "Names --arch accepts (case, spaces, - and _ ignored)"
        )
    );
    for c in all {
        let mut names: Vec<String> = vec![c.sm.to_owned(), c.version.clone()];
        names.extend(c.aliases.iter().cloned());
        names.extend(c.names.iter().map(|n| (*n).to_owned()));
        let line = format!("{:>4}: {}", c.version, names.join(", "));
        out.push_str(&wrap(&line, 96, "  "));
    }
    out.push_str(&styled(
        NOTE,
        wrap("Also: sm90, SM_90, 90, compute_90, sm_90a, sm_100f. An architecture's name means its first \
         capability (ampere: 8.0); sm_101 and 10.1 are CUDA 12's names for 11.0.", 96, "  "),
    ));
    out
}
