//! `smem occupancy`: blocks per SM as the CUDA occupancy calculator counts
//! them: shared memory (with the carveout the driver picks), and with
//! `--threads`/`--registers` the SM's warps and registers; the limits that
//! bind, warps and percent.
//!
//! The numbers are `smem_model::Launch::occupancy_with`'s: the rules of
//! `cuda_occupancy.h`, checked against the header for every capability it
//! knows and against the runtime on an H100 and an H200.

use std::fmt::Write as _;
use std::io::Write as _;
use std::process::ExitCode;

use serde::Serialize;
use smem_model::{Carveout, ComputeCapability, Error, Launch, OccupancyLimit};

use crate::output::{emit, fail, styled, HEADING, NOTE};

/// Arguments of `smem occupancy`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Sizes are bytes, or kilobytes with a K suffix (12K = 12288).

Without --threads only shared memory and the SM's most blocks count (as if a block had one
warp and no registers); with it, the SM's warps, and with --registers its registers too, as
NVIDIA's occupancy calculator (cuda_occupancy.h) counts them.

Examples:
  smem occupancy --arch sm_86 --static 12288 --dynamic 4096
  smem occupancy --arch sm_90 --threads 256 --registers 64 --dynamic 16K
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

    /// Threads per block (blockDim.x * blockDim.y * blockDim.z).
    #[arg(long, value_name = "N")]
    threads: Option<u32>,

    /// Registers per thread, as `ptxas -v` or `ncu` report them (needs --threads).
    #[arg(long, value_name = "N", requires = "threads")]
    registers: Option<u32>,

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
    /// Whether the driver overrides the preference (a block does not fit in it).
    carveout_overridden: bool,
    blocks_per_sm: u32,
    limit: &'static str,
    /// Every limit that binds, in the calculator's order.
    limits: Vec<&'static str>,
    /// Blocks per SM each limit allows alone (`null`: no limit from it).
    allowed: Allowed,
    threads: Option<u32>,
    registers: Option<u32>,
    warps_per_block: Option<u32>,
    warps_per_sm: Option<u32>,
    max_warps_per_sm: u32,
    /// Resident warps in percent of the SM's most.
    occupancy_percent: Option<f64>,
    allocated_registers_per_block: Option<u32>,
}

/// Blocks per SM each limit allows, in `--json`.
#[derive(Debug, Serialize)]
struct Allowed {
    warps: Option<u32>,
    registers: Option<u32>,
    shared_memory: Option<u32>,
    blocks: Option<u32>,
    barriers: Option<u32>,
}

/// The `--json` name of a limit.
fn limit_name(limit: OccupancyLimit) -> &'static str {
    match limit {
        OccupancyLimit::Warps => "warps",
        OccupancyLimit::Registers => "registers",
        OccupancyLimit::SharedMemory => "shared memory",
        OccupancyLimit::BlocksPerSm => "blocks per SM",
        OccupancyLimit::Barriers => "barriers",
    }
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
    if let Some(threads) = args.threads {
        launch = launch.with_block(threads, args.registers.unwrap_or(0));
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
    let limit = limit_name(occupancy.limit());
    if occupancy.carveout_overridden() {
        if let Some(percent) = args.carveout {
            // Nothing useful is left to do when stderr itself is gone.
            let _ = writeln!(
                anstream::stderr().lock(),
                "warning: the {percent}% carveout preference ({} bytes) is overridden: a \
                 block's {} bytes do not fit in it, so the driver uses {} bytes",
                occupancy.preferred_carveout(),
                occupancy.allocated_per_block(),
                occupancy.carveout()
            );
        }
    }
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
            carveout_overridden: occupancy.carveout_overridden(),
            blocks_per_sm: occupancy.blocks_per_sm(),
            limit,
            limits: occupancy.limits().map(limit_name).collect(),
            allowed: Allowed {
                warps: occupancy.allowed_by(OccupancyLimit::Warps),
                registers: occupancy.allowed_by(OccupancyLimit::Registers),
                shared_memory: occupancy.allowed_by(OccupancyLimit::SharedMemory),
                blocks: occupancy.allowed_by(OccupancyLimit::BlocksPerSm),
                barriers: occupancy.allowed_by(OccupancyLimit::Barriers),
            },
            threads: args.threads,
            registers: args.registers,
            warps_per_block: occupancy.warps_per_block(),
            warps_per_sm: occupancy.warps_per_sm(),
            max_warps_per_sm: cc.max_warps_per_sm(),
            occupancy_percent: occupancy.percent(),
            allocated_registers_per_block: occupancy.allocated_registers_per_block(),
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
    if let Some(threads) = args.threads {
        let warps = occupancy.warps_per_block().unwrap_or(0);
        let registers = match (args.registers, occupancy.allocated_registers_per_block()) {
            (Some(r), Some(allocated)) if r > 0 => format!(
                ", {r} registers a thread: {allocated} registers allocated (each warp's {} \
                 rounded up to {})",
                r * 32,
                cc.register_allocation_unit()
            ),
            _ => ", registers not given".to_owned(),
        };
        _ = writeln!(
            out,
            "block: {threads} threads = {warps} warp{}{registers}",
            if warps == 1 { "" } else { "s" }
        );
    }
    _ = writeln!(
        out,
        "{}",
        styled(HEADING, "blocks per SM each limit allows:")
    );
    let binding: Vec<OccupancyLimit> = occupancy.limits().collect();
    for limit in OccupancyLimit::ALL {
        let Some(allowed) = occupancy.allowed_by(limit) else {
            continue;
        };
        let how = match limit {
            OccupancyLimit::Warps => format!(
                "{} warps per SM / {} a block",
                cc.max_warps_per_sm(),
                occupancy.warps_per_block().unwrap_or(0)
            ),
            OccupancyLimit::Registers => format!(
                "{} registers per SM in {} partitions of whole warps, {} a block",
                cc.registers_per_sm(),
                cc.register_partitions(),
                occupancy.allocated_registers_per_block().unwrap_or(0)
            ),
            OccupancyLimit::SharedMemory => format!(
                "{} / {} bytes",
                occupancy.carveout(),
                occupancy.allocated_per_block()
            ),
            OccupancyLimit::BlocksPerSm => {
                format!("the most an SM of compute capability {cc} holds")
            }
            OccupancyLimit::Barriers => "block barriers per SM, one a block".to_owned(),
        };
        let mark = if binding.contains(&limit) {
            "  <- binds"
        } else {
            ""
        };
        _ = writeln!(
            out,
            "  {:<14} {allowed:>4}  ({how}){mark}",
            format!("{limit}:")
        );
    }
    let warps = match (occupancy.warps_per_sm(), occupancy.percent()) {
        (Some(warps), Some(percent)) => format!(
            ": {warps} of {} warps, {percent:.1}% occupancy",
            cc.max_warps_per_sm()
        ),
        _ => String::new(),
    };
    _ = writeln!(
        out,
        "{} {}{warps}",
        styled(HEADING, "blocks per SM:"),
        occupancy.blocks_per_sm()
    );
    let names: Vec<String> = binding.iter().map(ToString::to_string).collect();
    _ = writeln!(out, "limited by: {}", names.join(", "));
    if args.threads.is_none() {
        _ = writeln!(
            out,
            "{}",
            styled(
                NOTE,
                "(shared memory and blocks only: give --threads and --registers for the warp and register limits)"
            )
        );
    }
    out
}
