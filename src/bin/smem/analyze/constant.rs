//! `smem analyze --op ldc`: a warp's constant-memory load (`LDC`,
//! `ld.const`), served one distinct address at a time by the constant cache
//! (`smem_model::ConstantLoad`; per half-warp on 1.x).

use std::fmt::Write as _;

use serde::Serialize;
use smem_model::{ComputeCapability, ConstantLoad, LaneSet};

/// What `--json` prints for `--op ldc`.
#[derive(Debug, Serialize)]
struct Report {
    schema: &'static str,
    arch: &'static str,
    op: &'static str,
    width: u32,
    addresses: Vec<Option<u32>>,
    /// The serialised constant-cache requests.
    wavefronts: u32,
    /// The distinct addresses, in order of first appearance.
    distinct_addresses: Vec<u32>,
}

/// The text (or JSON) report of a constant load of `width` bytes a lane.
pub fn describe(
    arch: ComputeCapability,
    width: u32,
    addresses: &[Option<u32>],
    json: bool,
) -> Result<String, String> {
    let load = ConstantLoad::from_fn(width, |lane| addresses.get(lane.index()).copied().flatten())
        .map_err(|e| e.to_string())?;
    let requests = load.requests(arch);
    let distinct = load.distinct_addresses(LaneSet::FULL);
    if json {
        let report = Report {
            schema: "smem-analyze-ldc/1",
            arch: arch.sm_name(),
            op: "LDC",
            width,
            addresses: addresses.to_vec(),
            wavefronts: requests,
            distinct_addresses: distinct,
        };
        let mut text = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
        text.push('\n');
        return Ok(text);
    }
    let mut out = format!(
        "LDC.{} on {}: {} serialised constant-cache {} ({} distinct {})\n",
        8 * width,
        arch.sm_name(),
        requests,
        if requests == 1 { "request" } else { "requests" },
        distinct.len(),
        if distinct.len() == 1 {
            "address"
        } else {
            "addresses"
        },
    );
    for address in distinct.iter().take(32) {
        let lanes: LaneSet = (0..32)
            .filter(|&l| addresses.get(l as usize).copied().flatten() == Some(*address))
            .filter_map(|l| smem_model::Lane::new(l).ok())
            .collect();
        let _ = writeln!(out, "  {address:#06x}: lanes {lanes}");
    }
    out.push_str(
        "the constant cache serves one address at a time: a uniform address is one request \
         (CUDA C++ Programming Guide, constant memory; per half-warp on 1.x)\n",
    );
    Ok(out)
}
