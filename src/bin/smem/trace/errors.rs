//! What `smem trace` keeps besides the tally: the first errors, in input
//! order, and where the workers' time went.

use std::time::Duration;

use smem_model::kernel::accelsim::input::Location;

/// Errors printed in full; the rest are counted.
pub(super) const SHOWN_ERRORS: usize = 20;

/// A line that could not be analysed, or a file that could not be read.
#[derive(Debug, Clone)]
pub(super) struct LineError {
    pub(super) at: Location,
    pub(super) reason: String,
    pub(super) file_level: bool,
}

/// The errors of some lines: the first [`SHOWN_ERRORS`] and how many.
#[derive(Debug, Default)]
pub(super) struct Errors {
    pub(super) shown: Vec<LineError>,
    pub(super) lines: u64,
    pub(super) files: u64,
}

impl Errors {
    pub(super) fn push(&mut self, at: Location, reason: String, file_level: bool) {
        if file_level {
            self.files += 1;
        } else {
            self.lines += 1;
        }
        if self.shown.len() < SHOWN_ERRORS {
            self.shown.push(LineError {
                at,
                reason,
                file_level,
            });
        }
    }
}

/// Where the workers' time went (`--timings`).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Timings {
    /// Reading lines into events (everything but the analysis).
    pub(super) parse: Duration,
    /// Predicting the requests and counting them: what a simulator would do.
    pub(super) analysis: Duration,
}
