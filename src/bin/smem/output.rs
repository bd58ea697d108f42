//! Writing results: stdout through `anstream`, which drops colour codes when
//! colour is off (not a terminal, `NO_COLOR`, `--color never`), and error lines
//! on stderr in the one form every subcommand uses, `error: MESSAGE`.

use std::fmt::Display;
use std::io::{self, Write as _};
use std::process::ExitCode;

use anstyle::{AnsiColor, Style};

/// Section headings and table titles.
pub const HEADING: Style = Style::new().bold();
/// Figures that mean a bank conflict.
pub const BAD: Style = AnsiColor::Red.on_default().bold();
/// Figures that mean the ideal was reached.
pub const GOOD: Style = AnsiColor::Green.on_default();
/// Results that may be wrong on the hardware: write collisions.
pub const WARN: Style = AnsiColor::Yellow.on_default().bold();
/// Side remarks: sources, modelling choices.
pub const NOTE: Style = Style::new().dimmed();

/// `text` in `style`; the codes are removed on the way out when colour is off.
pub fn styled(style: Style, text: impl Display) -> String {
    format!("{style}{text}{style:#}")
}

/// Writes `text` to stdout. A closed pipe (`smem ... | head`) is the reader's
/// choice and ends the command quietly; any other failure is reported.
///
/// # Errors
///
/// The exit status to return when the text could not be written.
pub fn emit(text: &str) -> Result<(), ExitCode> {
    let mut out = anstream::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(err) if err.kind() == io::ErrorKind::BrokenPipe => Err(ExitCode::FAILURE),
        Err(err) => Err(fail(format_args!("cannot write the output: {err}"))),
    }
}

/// Writes `error: MESSAGE` on stderr and returns the failure status.
pub fn fail(message: impl Display) -> ExitCode {
    warn(message);
    ExitCode::FAILURE
}

/// Writes `error: MESSAGE` on stderr and returns the status of a usage
/// error, 2, as clap does for the arguments it checks itself.
pub fn usage(message: impl Display) -> ExitCode {
    warn(message);
    ExitCode::from(2)
}

/// Writes `error: MESSAGE` on stderr, for errors the command carries on after.
pub fn warn(message: impl Display) {
    // Nothing useful is left to do when stderr itself is gone.
    let _ = writeln!(anstream::stderr().lock(), "error: {message}");
}

/// `text` wrapped at word boundaries into lines of at most `width`
/// characters (longer words stay whole), each starting with `indent`.
pub fn wrap(text: &str, width: usize, indent: &str) -> String {
    let mut out = String::new();
    let mut line = String::from(indent);
    for word in text.split_whitespace() {
        if line.len() > indent.len() && line.len() + 1 + word.len() > width {
            out.push_str(&line);
            out.push('\n');
            line = String::from(indent);
        }
        if line.len() > indent.len() {
            line.push(' ');
        }
        line.push_str(word);
    }
    out.push_str(&line);
    out.push('\n');
    out
}

/// `1 line`, `2 lines`: the counts in reports are read by people.
pub fn plural(count: u64, noun: &str) -> String {
    if count == 1 {
        format!("{count} {noun}")
    } else {
        format!("{count} {noun}s")
    }
}
