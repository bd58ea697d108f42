//! Several requests side by side: one `--arch` and one address set a case,
//! every `--arch` crossed with every set.

use std::fmt::Write as _;

use serde::Serialize;
use smem_model::Partition;

use super::{bank_bandwidth, instruction, report, Case, LayoutReport, Report};
use crate::output::{styled, HEADING, NOTE};
use crate::table::{Align, Table};

/// The `schema` of `smem analyze --json` comparing several requests.
pub const SCHEMA: &str = "smem-analyze-compare/1";

/// What `--json` prints when comparing.
#[derive(Debug, Serialize)]
struct Comparison {
    schema: &'static str,
    /// With `--layout`: the tile and its index formula, as for one request.
    #[serde(skip_serializing_if = "Option::is_none")]
    layout: Option<LayoutReport>,
    /// One report per case, in the order of the table: each `--arch` in turn,
    /// with every address set under it.
    cases: Vec<Report>,
}

/// The comparison as a table: one row a case.
pub fn text(cases: &[Case], partitions: &[Partition]) -> String {
    let mut out = String::new();
    let instructions: Vec<String> = partitions
        .iter()
        .map(|p| instruction(p.request()))
        .collect();
    _ = writeln!(
        out,
        "{}",
        styled(
            HEADING,
            format!(
                "{} compared: {} requests",
                instructions[0],
                partitions.len()
            )
        )
    );
    let mut table = Table::new(&[
        ("arch", Align::Left),
        ("banks", Align::Left),
        ("addresses", Align::Left),
        ("wavefronts", Align::Right),
        ("ideal", Align::Right),
        ("conflicts", Align::Right),
        ("bandwidth used", Align::Right),
        ("verdict", Align::Left),
    ]);
    for (case, partition) in cases.iter().zip(partitions) {
        let config = partition.config();
        let (distinct, capacity) = bank_bandwidth(partition);
        let used = if capacity == 0 {
            "-".to_owned()
        } else {
            format!("{:.1}%", 100.0 * f64::from(distinct) / f64::from(capacity))
        };
        table.row([
            case.arch.sm_name().to_owned(),
            format!(
                "{} x {} B",
                config.bank_count(),
                config.bank_width().bytes()
            ),
            shorten(&case.source),
            partition.wavefronts().to_string(),
            partition.ideal_wavefronts().to_string(),
            partition.bank_conflicts().to_string(),
            used,
            partition.classification().to_string(),
        ]);
    }
    out.push_str(&table.render(2));
    out.push_str(&styled(
        NOTE,
        "  bandwidth used: distinct bytes over what the wavefronts could carry. \
         Give one --arch and one address set to draw the bank diagram.\n",
    ));
    out
}

/// The comparison as JSON.
pub fn json(
    cases: &[Case],
    partitions: &[Partition],
    layout: Option<LayoutReport>,
) -> Result<String, serde_json::Error> {
    let comparison = Comparison {
        schema: SCHEMA,
        layout,
        cases: cases
            .iter()
            .zip(partitions)
            .map(|(case, partition)| report(partition, case))
            .collect(),
    };
    let mut text = serde_json::to_string_pretty(&comparison)?;
    text.push('\n');
    Ok(text)
}

/// At most 40 characters of an address set, for a table cell.
fn shorten(source: &str) -> String {
    if source.chars().count() > 40 {
        format!("{}...", source.chars().take(37).collect::<String>())
    } else {
        source.to_owned()
    }
}
