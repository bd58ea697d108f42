//! `smem`: the command-line front end of `smem_model`.
//!
//! Each subcommand lives in its own module and returns its own exit status, so
//! that this file stays a thin dispatcher: one enum variant and one module per
//! subcommand. Helpers shared by several subcommands (aligned tables, writing
//! to stdout) have modules of their own.

mod analyze;
mod occupancy;
mod output;
mod racecheck;
mod report;
mod table;
mod trace;
mod verify;

use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

/// The whole command line: global options and one subcommand.
#[derive(Debug, Parser)]
#[command(
    name = "smem",
    version,
    about = "Reference model of CUDA shared-memory bank conflicts and wavefronts"
)]
struct Cli {
    /// When to colour the output: `auto` colours only a terminal, and also
    /// honours the NO_COLOR and CLICOLOR_FORCE environment variables.
    #[arg(long, value_name = "WHEN", default_value = "auto", global = true)]
    color: ColorWhen,

    /// What to do; a subcommand is required, as `smem` alone has no useful default.
    #[command(subcommand)]
    command: Command,
}

/// The values of `--color`.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum ColorWhen {
    // Colour when stdout is a terminal.
    Auto,
    // Always colour, even into a pipe or a file.
    Always,
    // Never colour.
    Never,
}

/// The subcommands; each variant's arguments are defined in its module.
#[derive(Debug, Subcommand)]
enum Command {
    /// A tour of the model on built-in examples: parallel, serial and broadcast
    /// access, strides, a transpose, Kepler's bank modes, a dynamic carve and
    /// occupancy. Needs no arguments.
    Report(report::Args),
    /// Partition one warp request given on the command line and draw its bank
    /// diagram (terminal, JSON or SVG).
    Analyze(analyze::Args),
    /// Analyse a stream of warp requests (corpus JSON lines or Accel-Sim /
    /// NVBit traces): totals and the instructions with the most bank conflicts.
    Trace(trace::Args),
    /// Blocks per SM as far as shared memory decides, the carveout chosen and
    /// the limit that binds.
    Occupancy(occupancy::Args),
    /// Shared-memory races and barrier errors in Accel-Sim traces, per thread
    /// block, on a CPU (what compute-sanitizer's racecheck and synccheck find
    /// on a GPU).
    Racecheck(racecheck::Args),
    /// Check the model against hardware corpora (JSON lines, one measured warp
    /// access a line) and report how many patterns it predicts exactly.
    Verify(verify::Args),
}

/// Parses the command line and runs the subcommand. Usage errors exit with
/// status 2 (clap's convention), so they are distinguishable from a subcommand's
/// own failure, which is status 1.
fn main() -> ExitCode {
    let cli = Cli::parse();
    let choice = match cli.color {
        ColorWhen::Auto => anstream::ColorChoice::Auto,
        ColorWhen::Always => anstream::ColorChoice::Always,
        ColorWhen::Never => anstream::ColorChoice::Never,
    };
    choice.write_global();
    match cli.command {
        Command::Report(args) => report::run(&args),
        Command::Analyze(args) => analyze::run(&args),
        Command::Trace(args) => trace::run(&args),
        Command::Occupancy(args) => occupancy::run(&args),
        Command::Verify(args) => verify::run(&args),
        Command::Racecheck(args) => racecheck::run(&args),
    }
}
