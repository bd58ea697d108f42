//! `smem`: the command-line front end of `smem_model`.
//!
//! Each subcommand lives in its own module and returns its own exit status, so
//! that this file stays a thin dispatcher: one enum variant and one module per
//! subcommand. Helpers shared by several subcommands (aligned tables, writing
//! to stdout) have modules of their own.

mod advise;
mod analyze;
mod arch;
mod archs;
mod kernel;
mod layout;
mod ncu;
mod occupancy;
mod output;
mod racecheck;
mod report;
mod table;
mod trace;
mod verify;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};

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
    /// A kernel's shared memory from its PTX (nvcc or Triton), no GPU needed:
    /// its blocks interpreted, every request predicted, races and barrier
    /// errors found.
    Kernel(kernel::Args),
    /// Blocks per SM as far as shared memory decides, the carveout chosen and
    /// the limit that binds.
    Occupancy(occupancy::Args),
    /// Shared-memory races and barrier errors in Accel-Sim traces, per thread
    /// block, on a CPU (what compute-sanitizer's racecheck and synccheck find
    /// on a GPU).
    Racecheck(racecheck::Args),
    /// The tile advisor: layouts (padding, TMA and XOR swizzles) ranked for a tile and
    /// its warp accesses on one GPU, and why the layout as given conflicts.
    Advise(advise::Args),
    /// Every compute capability: the names --arch accepts, banks, shared memory per SM
    /// and per block, and whether its bank rules are measured or documented.
    Archs(archs::Args),
    /// Check the model against hardware corpora (JSON lines, one measured warp
    /// access a line) and report how many patterns it predicts exactly.
    Verify(verify::Args),
}

/// Parses the command line and runs the subcommand. Usage errors exit with
/// status 2 (clap's convention), so they are distinguishable from a subcommand's
/// own failure, which is status 1.
fn main() -> ExitCode {
    let cli = Cli::parse_from(hyphen_values_as_positionals(std::env::args_os().collect()));
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
        Command::Kernel(args) => kernel::run(&args),
        Command::Occupancy(args) => occupancy::run(&args),
        Command::Verify(args) => verify::run(&args),
        Command::Racecheck(args) => racecheck::run(&args),
        Command::Archs(args) => archs::run(&args),
        Command::Advise(args) => advise::run(&args),
    }
}

/// The command line with the address arguments of `smem analyze` that start
/// with `-` (`-lane`, `- 4 8 ...`, `-1,0,...`) moved after a `--`, so that clap
/// reads them as addresses rather than as unknown options; every option of the
/// subcommand stays where clap reads it, wherever it was given. Which arguments
/// are options, and which of them take a value, is read from clap's own
/// definition of the command.
fn hyphen_values_as_positionals(args: Vec<OsString>) -> Vec<OsString> {
    let mut command = Cli::command();
    // Fills in what clap derives at parse time: value counts, `--help`.
    command.build();
    let Some(position) = args.iter().position(|a| a == "analyze") else {
        return args;
    };
    let Some(analyze) = command.find_subcommand("analyze") else {
        return args;
    };
    let options: Vec<&clap::Arg> = analyze
        .get_arguments()
        .chain(command.get_arguments())
        .filter(|arg| !arg.is_positional())
        .collect();
    let takes_value = |arg: &clap::Arg| arg.get_num_args().is_some_and(|n| n.takes_values());
    // `--name`, `--name=value`, `-D`, `-Dvalue`: the option, and whether the
    // next argument is its value.
    let option = |text: &str| -> Option<bool> {
        if let Some(long) = text.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((name, _)) => (name, true),
                None => (long, false),
            };
            let arg = options.iter().find(|arg| {
                arg.get_long() == Some(name)
                    || arg.get_all_aliases().is_some_and(|a| a.contains(&name))
            })?;
            return Some(takes_value(arg) && !inline);
        }
        let mut chars = text.strip_prefix('-')?.chars();
        let short = chars.next()?;
        let arg = options.iter().find(|arg| arg.get_short() == Some(short))?;
        Some(takes_value(arg) && chars.as_str().is_empty())
    };
    let (head, tail) = args.split_at(position + 1);
    let mut kept: Vec<OsString> = head.to_vec();
    let mut positionals = Vec::new();
    let mut rest = tail.iter();
    while let Some(arg) = rest.next() {
        let Some(text) = arg.to_str() else {
            positionals.push(arg.clone());
            continue;
        };
        if text == "--" {
            positionals.extend(rest.by_ref().cloned());
            break;
        }
        match option(text) {
            Some(value_follows) if text.starts_with('-') && text != "-" => {
                kept.push(arg.clone());
                if value_follows {
                    kept.extend(rest.next().cloned());
                }
            }
            // `--name` that names no option is a mistyped option, not an
            // address (no expression starts with `--` and a letter): left
            // where clap reads it, a usage error (status 2) as in every
            // other subcommand.
            None if text
                .strip_prefix("--")
                .and_then(|name| name.chars().next())
                .is_some_and(|c| c.is_ascii_alphabetic()) =>
            {
                kept.push(arg.clone());
            }
            _ => positionals.push(arg.clone()),
        }
    }
    if !positionals.is_empty() {
        kept.push(OsString::from("--"));
        kept.extend(positionals);
    }
    kept
}
