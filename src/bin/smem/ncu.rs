//! Nsight Compute's counters as `smem kernel` and `smem trace` print them:
//! each prediction with how the counter relates to it (`= N`, `at least N`,
//! `about N`) and, once each, the reasons for those that are not equal; and
//! `smem kernel --ncu`'s comparison with a profile.

use std::fmt::Write as _;
use std::path::PathBuf;

use smem_model::kernel::ncu::profile::{self, Comparison};
use smem_model::kernel::ncu::{Relation, Unit, SOURCE_EXCESSIVE};
use smem_model::kernel::tally::Tally;

use crate::output::{styled, HEADING, NOTE};
use crate::table::{Align, Table};

/// The widest line of a note, so that the reasons fit the 120 columns the
/// tables are kept to.
const WIDTH: usize = 110;

/// The reasons of `reasons`, each once, in the order first given: the
/// marks `[1]`, `[2]`, ... of the table.
pub(crate) fn marks<'a>(reasons: impl IntoIterator<Item = Option<&'a str>>) -> Vec<&'a str> {
    let mut marks = Vec::new();
    for reason in reasons.into_iter().flatten() {
        if !marks.contains(&reason) {
            marks.push(reason);
        }
    }
    marks
}

/// A prediction as the tables show it: `= N` where the counter equals it,
/// `at least N [k]` where it is a lower bound, `about N [k]` for an
/// estimate (`about N, L to H [k]` with the counter's range where known),
/// with the requests of unknown address it leaves out.
pub(crate) fn value(
    relation: Option<&str>,
    predicted: u64,
    range: Option<(u64, u64)>,
    reason: Option<&str>,
    marks: &[&str],
    not_costed: u64,
) -> String {
    let mark = reason
        .and_then(|r| marks.iter().position(|k| *k == r))
        .map(|i| format!(" [{}]", i + 1))
        .unwrap_or_default();
    let unknown = if not_costed > 0 {
        format!(" ({not_costed} requests of unknown address)")
    } else {
        String::new()
    };
    match relation {
        Some("equal") => format!("= {predicted}{unknown}"),
        Some("at_least") => format!("at least {predicted}{mark}{unknown}"),
        Some(_) => match range {
            Some((low, high)) => format!("about {predicted}, {low} to {high}{mark}{unknown}"),
            None => format!("about {predicted}{mark}{unknown}"),
        },
        None if not_costed > 0 => format!(">= {predicted}{unknown}"),
        None => predicted.to_string(),
    }
}

/// The counter's name as the tables show it: the Source page's column
/// said to be one.
pub(crate) fn shown(counter: &str) -> String {
    if counter == SOURCE_EXCESSIVE {
        format!("{counter} (Source page)")
    } else {
        counter.to_owned()
    }
}

/// The notes under a table of counters: what `=` means, and each reason
/// with its mark, wrapped.
pub(crate) fn notes(marks: &[&str], sampled: bool) -> String {
    let mut out = String::new();
    let meaning = if sampled {
        "(a sample of the grid: every figure is the blocks run's, not the launch's; =: what the \
         counter gives over those blocks; terms: smem help kernel)"
    } else {
        "(=: the counter's value on this launch, to the unit; at least: a lower bound; terms: \
         smem help kernel)"
    };
    for line in wrap(meaning, WIDTH) {
        let _ = writeln!(out, "{}", styled(NOTE, line));
    }
    for (i, reason) in marks.iter().enumerate() {
        for (j, line) in wrap(reason, WIDTH - 4).into_iter().enumerate() {
            let lead = if j == 0 {
                format!("[{}] ", i + 1)
            } else {
                "    ".to_owned()
            };
            let _ = writeln!(out, "{}", styled(NOTE, format!("{lead}{line}")));
        }
    }
    out
}

/// `text` in lines of at most `width` characters, broken between words (a
/// word longer than `width` has a line of its own).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

fn signed(n: i64) -> String {
    if n > 0 {
        format!("+{n}")
    } else {
        n.to_string()
    }
}

/// `smem kernel --ncu`'s comparison: each counter predicted and measured,
/// each unit's conflicts split into layout and arbitration, the Source
/// page's figures by instruction kind, and the lines responsible.
pub(crate) fn comparison_text(c: &Comparison, files: &str, top: usize) -> String {
    let mut out = String::new();
    let launch = match &c.launch {
        Some((id, name)) => format!("launch ID {id}, {name}"),
        None => "the Source page".to_owned(),
    };
    let _ = writeln!(
        out,
        "{}",
        styled(
            HEADING,
            format!("compared with Nsight Compute ({files}: {launch})")
        )
    );
    let marks = marks(c.counters.iter().map(|r| r.prediction.reason));
    let mut table = Table::new(&[
        ("counter", Align::Left),
        ("predicted", Align::Left),
        ("measured", Align::Right),
        ("", Align::Left),
    ]);
    let mut differs = 0;
    for row in &c.counters {
        let p = &row.prediction;
        let Some(measured) = row.measured else {
            continue;
        };
        let verdict = match (row.holds(), p.relation) {
            (Some(false), _) => {
                differs += 1;
                format!(
                    "differs by {}",
                    signed(measured as i64 - p.predicted as i64)
                )
            }
            (_, Relation::Equal) => "equal".to_owned(),
            _ if measured == p.predicted => "equal".to_owned(),
            // An estimate may be above the measurement.
            _ if measured < p.predicted => format!("{} fewer", p.predicted - measured),
            _ => format!("{} more", measured - p.predicted),
        };
        table.row([
            shown(p.counter),
            value(
                Some(p.relation.name()),
                p.predicted,
                p.range,
                p.reason,
                &marks,
                p.not_costed,
            ),
            measured.to_string(),
            verdict,
        ]);
    }
    out.push_str(&table.render(0));
    out.push_str(&notes(&marks, false));
    if !c.absent.is_empty() {
        let _ = writeln!(
            out,
            "not in the export, not compared: {} (add {} to ncu --metrics)",
            c.absent.join(", "),
            if c.absent.len() == 1 { "it" } else { "them" }
        );
    }
    if differs > 0 {
        let _ = writeln!(
            out,
            "{}",
            styled(
                HEADING,
                format!(
                    "{differs} counter(s) not as predicted: is the profile of this launch (grid, \
                     block, arguments, --arch)? If it is, please report it with the PTX and the \
                     export."
                )
            )
        );
    }
    if !c.units.is_empty() {
        let _ = writeln!(
            out,
            "\n{}",
            styled(
                HEADING,
                "bank conflicts at unit level (l1tex__data_bank_conflicts_...), split:"
            )
        );
        let mut table = Table::new(&[
            ("unit", Align::Left),
            ("measured", Align::Right),
            ("layout (predicted wavefronts - ideal)", Align::Right),
            ("arbitration (unit - instruction wavefronts)", Align::Right),
            ("unexplained", Align::Right),
        ]);
        for u in &c.units {
            table.row([
                format!("op_{}", u.unit.name()),
                u.unit_conflicts.to_string(),
                u.layout.to_string(),
                format!(
                    "{} ({} - {})",
                    u.arbitration, u.unit_wavefronts, u.instruction_wavefronts
                ),
                signed(u.unexplained),
            ]);
        }
        out.push_str(&table.render(0));
        let arbitration: u64 = c.units.iter().map(|u| u.arbitration).sum();
        let layout: u64 = c.units.iter().map(|u| u.layout).sum();
        let note = match (layout, arbitration) {
            (0, 0) => "(no bank conflict: neither the layout nor arbitration)".to_owned(),
            (0, _) => format!(
                "(the layout has no bank conflict: the {arbitration} the unit-level counters \
                 show are arbitration with other traffic through the banks, which varies from \
                 run to run; no layout change removes them)"
            ),
            (_, 0) => {
                "(every conflict is the layout's: see the lines below or the ranking)".to_owned()
            }
            _ => format!(
                "(the layout causes {layout}, arbitration with other traffic adds \
                 {arbitration})"
            ),
        };
        for line in wrap(&note, WIDTH) {
            let _ = writeln!(out, "{}", styled(NOTE, line));
        }
        if c.units
            .iter()
            .any(|u| u.unit == Unit::Ld && u.instruction_wavefronts > 0)
            && c.units.iter().any(|u| u.unexplained != 0)
        {
            let _ = writeln!(
                out,
                "{}",
                styled(
                    NOTE,
                    "(unexplained: measured less layout less arbitration; nonzero when the \
                     instruction-level counters differ from the prediction)"
                )
            );
        }
    }
    if !c.families.is_empty() {
        let _ = writeln!(
            out,
            "\n{}",
            styled(
                HEADING,
                "Source page, by instruction kind (measured / predicted):"
            )
        );
        let mut table = Table::new(&[
            ("kind", Align::Left),
            ("L1 Wavefronts Shared", Align::Right),
            ("Ideal", Align::Right),
            ("Excessive", Align::Right),
        ]);
        for f in &c.families {
            let pair = |m: u64, p: u64| format!("{m} / {p}");
            table.row([
                f.family.sass().to_owned(),
                pair(f.measured.wavefronts, f.wavefronts),
                pair(f.measured.ideal, f.ideal),
                pair(
                    f.measured.excessive,
                    f.wavefronts - f.ideal.min(f.wavefronts),
                ),
            ]);
        }
        out.push_str(&table.render(0));
    }
    if !c.lines.is_empty() {
        let _ = writeln!(
            out,
            "\n{}",
            styled(
                HEADING,
                "CUDA lines with shared-memory wavefronts, most excessive first (measured / \
                 predicted):"
            )
        );
        let mut table = Table::new(&[
            ("line", Align::Left),
            ("L1 Wavefronts Shared", Align::Right),
            ("Ideal", Align::Right),
            ("Excessive", Align::Right),
        ]);
        for l in c.lines.iter().take(top) {
            let pair = |m: u64, p: u64| format!("{m} / {p}");
            table.row([
                format!("{}:{}", l.file, l.line),
                pair(l.measured.wavefronts, l.wavefronts),
                pair(l.measured.ideal, l.ideal),
                pair(l.measured.excessive, l.conflicts),
            ]);
        }
        out.push_str(&table.render(0));
        let _ = writeln!(
            out,
            "{}",
            styled(
                NOTE,
                "(predicted: the PTX instructions whose .loc is the line; a line only one side \
                 has shows 0 on the other)"
            )
        );
    }
    out
}

/// Compares with `--ncu`'s exports, read from `files`
/// (`profile::Exports::compare`). Returns the comparison and the files'
/// names as said.
///
/// # Errors
///
/// The message of no launch or several, or of a counter that is not a
/// number.
pub(crate) fn compare(
    exports: &profile::Exports,
    files: &[PathBuf],
    id: Option<u64>,
    tally: &Tally,
    kernel: &str,
    grid: [u32; 3],
    block: [u32; 3],
) -> Result<(Comparison, String), String> {
    let comparison = exports
        .compare(tally, kernel, grid, block, id)
        .map_err(|e| e.to_string())?;
    let shown: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    Ok((comparison, shown.join(", ")))
}

/// `--ncu`'s comparison as `--json` gives it: the library's, with the files.
pub(crate) fn comparison_json(c: &Comparison, files: &str) -> serde_json::Value {
    let mut value = c.to_json();
    if let serde_json::Value::Object(map) = &mut value {
        map.insert("files".into(), files.into());
    }
    value
}
