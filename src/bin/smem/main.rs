//! `smem`: the command-line front end of `smem_model`.
//!
//! Each subcommand lives in its own module and returns its own exit status, so
//! that this file stays a thin dispatcher and later subcommands (`report`,
//! `analyze`, `trace`, `occupancy`) are one enum variant and one module each.

mod verify;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// The whole command line: global options (none yet) and one subcommand.
#[derive(Debug, Parser)]
#[command(
    name = "smem",
    version,
    about = "Reference model of CUDA shared-memory bank conflicts and wavefronts"
)]
struct Cli {
    /// What to do; a subcommand is required, as `smem` alone has no useful default.
    #[command(subcommand)]
    command: Command,
}

/// The subcommands; each variant's arguments are defined in its module.
#[derive(Debug, Subcommand)]
enum Command {
    /// Check the model against hardware corpora (JSON lines, one measured warp
    /// access a line) and report how many patterns it predicts exactly.
    Verify(verify::Args),
}

/// Parses the command line and runs the subcommand. Usage errors exit with
/// status 2 (clap's convention), so they are distinguishable from a subcommand's
/// own failure, which is status 1.
fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Verify(args) => verify::run(&args),
    }
}
