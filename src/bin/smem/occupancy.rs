//! `smem occupancy`: blocks per SM as far as shared memory decides, with the
//! carveout the driver picks and the limit that binds.
//!
//! The numbers are `smem_model::Launch::occupancy_with`'s: the rule of
//! `cuda_occupancy.h`, checked against the driver on an H200.

use std::fmt::Write as _;
use std::process::ExitCode;

use serde::Serialize;
use smem_model::{Carveout, ComputeCapability, Error, Launch, OccupancyLimit};

use crate::output::{emit, fail, styled, HEADING, NOTE};

/// Arguments of `smem occupancy`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Sizes are bytes, or kilobytes with a K suffix (12K = 12288).

Examples:
  smem occupancy --arch sm_86 --static 12288 --dynamic 4096
  smem occupancy --arch sm_90 --dynamic 100K --opt-in
  smem occupancy --arch sm_90 --static 12K --dynamic 4K --carveout 50")]
pub struct Args {
    /// Compute capability: sm_90, 8.6, ...
    #[arg(long, value_name = "CC", default_value = "sm_90", value_parser = crate::arch::parse)]
    arch: ComputeCapability,

    /// Bytes of static `__shared__` arrays.
    #[arg(long = "static", value_name = "BYTES", default_value = "0", value_parser = bytes)]
    static_bytes: u32,

    /// Bytes of dynamic shared memory (the third launch parameter).
    #[arg(long = "dynamic", value_name = "BYTES", default_value = "0", value_parser = bytes)]
    dynamic_bytes: u32,

    /// Opt in past 48 KB per block (cudaFuncAttributeMaxDynamicSharedMemorySize): alone,
    /// for exactly the dynamic size; with a value, for that many bytes.
    #[arg(long, value_name = "BYTES", num_args = 0..=1, value_parser = bytes)]
    opt_in: Option<Option<u32>>,

    /// Carveout preference in percent of the most shared memory per SM
    /// (cudaFuncAttributePreferredSharedMemoryCarveout); default: no preference.
    #[arg(long, value_name = "PERCENT")]
    carveout: Option<u32>,

    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

/// A byte count: `12288`, `12K`, `12k`, `12KB` or `12KiB` (kilobytes of 1024).
fn bytes(text: &str) -> Result<u32, String> {
    let trimmed = text.trim();
    let (digits, scale) = match trimmed
        .strip_suffix("KiB")
        .or_else(|| trimmed.strip_suffix("KB"))
        .or_else(|| trimmed.strip_suffix('K'))
        .or_else(|| trimmed.strip_suffix('k'))
    {
        Some(digits) => (digits, 1024),
        None => (trimmed, 1),
    };
    digits
        .parse::<u32>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .ok_or_else(|| format!("expected a number of bytes such as 4096 or 4K, found `{text}`"))
}

/// What `--json` prints.
#[derive(Debug, Serialize)]
struct Report {
    /// `smem-occupancy/1`: the shape of this report (see the README's JSON section).
    schema: &'static str,
    arch: String,
    static_bytes: u32,
    dynamic_bytes: u32,
    opt_in: Option<u32>,
    reserved_per_block: u32,
    allocation_unit: u32,
    allocated_per_block: u32,
    carveout_preference_percent: Option<u32>,
    carveout: u32,
    blocks_per_sm: u32,
    limit: &'static str,
}

/// Runs `smem occupancy`: status 0 with the result, 1 when the launch would
/// fail (the reason on stderr).
pub fn run(args: &Args) -> ExitCode {
    let cc = args.arch;
    let mut launch = Launch::new(cc, args.static_bytes, args.dynamic_bytes);
    let opt_in = args.opt_in.map(|bytes| bytes.unwrap_or(args.dynamic_bytes));
    if let Some(max) = opt_in {
        launch = launch.with_opt_in(max);
    }
    let preference = match args.carveout {
        Some(percent) => Carveout::Percent(percent),
        None => Carveout::Default,
    };
    let occupancy = match launch.occupancy_with(preference) {
        Ok(occupancy) => occupancy,
        Err(err @ Error::LaunchTooLarge { .. }) if opt_in.is_none() => {
            return fail(format_args!(
                "{err}; --opt-in allows up to {} bytes per block",
                cc.max_shared_memory_per_block()
            ))
        }
        Err(err) => return fail(err),
    };
    let limit = match occupancy.limit() {
        OccupancyLimit::SharedMemory => "shared memory",
        OccupancyLimit::BlocksPerSm => "blocks per SM",
    };
    let text = if args.json {
        let report = Report {
            schema: "smem-occupancy/1",
            arch: cc.sm_name().to_owned(),
            static_bytes: args.static_bytes,
            dynamic_bytes: args.dynamic_bytes,
            opt_in,
            reserved_per_block: cc.reserved_shared_memory_per_block(),
            allocation_unit: cc.shared_allocation_unit(),
            allocated_per_block: occupancy.allocated_per_block(),
            carveout_preference_percent: args.carveout,
            carveout: occupancy.carveout(),
            blocks_per_sm: occupancy.blocks_per_sm(),
            limit,
        };
        match serde_json::to_string_pretty(&report) {
            Ok(json) => json + "\n",
            Err(err) => return fail(err),
        }
    } else {
        describe(args, cc, launch, &occupancy, opt_in)
    };
    match emit(&text) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}

fn describe(
    args: &Args,
    cc: ComputeCapability,
    launch: Launch,
    occupancy: &smem_model::Occupancy,
    opt_in: Option<u32>,
) -> String {
    let mut out = String::new();
    let kb = |bytes: u32| {
        if bytes.is_multiple_of(1024) {
            format!("{} KB", bytes / 1024)
        } else {
            format!("{bytes} bytes")
        }
    };
    _ = writeln!(
        out,
        "{}",
        styled(
            HEADING,
            format!(
                "compute capability {cc} ({}, {})",
                cc.sm_name(),
                cc.architecture()
            )
        )
    );
    _ = writeln!(
        out,
        "  shared memory: {} per SM, {} per block ({} with the opt-in), allocated in units of {} bytes",
        kb(cc.shared_memory_per_sm()),
        kb(cc.default_shared_memory_per_block()),
        kb(cc.max_shared_memory_per_block()),
        cc.shared_allocation_unit()
    );
    let reserved = cc.reserved_shared_memory_per_block();
    let used = u64::from(args.static_bytes) + u64::from(args.dynamic_bytes) + u64::from(reserved);
    _ = writeln!(
        out,
        "launch: {} static + {} dynamic bytes, limit {} bytes per block{}",
        args.static_bytes,
        args.dynamic_bytes,
        launch.limit(),
        match opt_in {
            Some(max) => format!(" (opt-in to {max} dynamic bytes)"),
            None => String::new(),
        }
    );
    _ = writeln!(
        out,
        "per block: {used} bytes ({} reserved by the driver), rounded up to {} bytes allocated",
        reserved,
        occupancy.allocated_per_block()
    );
    let preference = match args.carveout {
        Some(percent) => format!("preference {percent}%"),
        None => "no preference: the most shared memory".to_owned(),
    };
    _ = writeln!(
        out,
        "carveout: {} of shared memory on the SM ({preference})",
        kb(occupancy.carveout())
    );
    let why = match occupancy.limit() {
        OccupancyLimit::SharedMemory if occupancy.allocated_per_block() > 0 => format!(
            "shared memory: {} / {} bytes = {}",
            occupancy.carveout(),
            occupancy.allocated_per_block(),
            occupancy.carveout() / occupancy.allocated_per_block()
        ),
        OccupancyLimit::SharedMemory => "shared memory".to_owned(),
        OccupancyLimit::BlocksPerSm => format!(
            "the {} blocks an SM of compute capability {cc} holds at most",
            cc.max_blocks_per_sm()
        ),
    };
    _ = writeln!(
        out,
        "{} {}",
        styled(HEADING, "blocks per SM:"),
        occupancy.blocks_per_sm()
    );
    _ = writeln!(out, "limit: {why}");
    _ = writeln!(
        out,
        "{}",
        styled(
            NOTE,
            "(shared memory only: registers and threads per block may allow fewer blocks)"
        )
    );
    out
}
