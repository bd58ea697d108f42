//! A kernel's races and barrier errors as JSON (feature `json`): one shape
//! for `smem kernel --json` and Python's `KernelRun.races` and
//! `KernelRun.barrier_errors`, as `smem racecheck --json` writes a trace's
//! (the sites PTX lines, each with its source line).

use serde_json::{Map, Value};

use super::Kernel;
use crate::KernelRaces;

/// The source line of the instruction at PTX line `ptx_line`, from the PTX's
/// `.loc`: `k.cu:10` (the file's name, not its path), or the line alone when
/// the `.file` is not named; `None` without a `.loc`.
///
/// # Example
///
/// ```
/// use smem_model::kernel::ptx::{self, source_text, site_text, Kernel};
///
/// let module = ptx::parse(
///     ".version 8.0\n.target sm_90\n.address_size 64\n\
///      .file 1 \"/src/k.cu\"\n\
///      .visible .entry k()\n{\n.shared .b32 s[32];\n\
///      .loc 1 12 3\n\
///      st.shared.u32 [s], 1;\n\
///      ret;\n}\n",
/// )?;
/// let kernel = Kernel::new(&module, None)?;
/// assert_eq!(source_text(&kernel, 9).as_deref(), Some("k.cu:12"));
/// assert_eq!(site_text(&kernel, 9), "PTX line 9 (k.cu:12)");
/// assert_eq!(site_text(&kernel, 8), "PTX line 8"); // `.loc` itself: no instruction
/// # Ok::<(), smem_model::Error>(())
/// ```
pub fn source_text(kernel: &Kernel, ptx_line: u64) -> Option<String> {
    kernel.source_line(ptx_line).map(|(file, line)| match file {
        Some(file) => {
            let name = file.rsplit(['/', '\\']).next().unwrap_or(file);
            format!("{name}:{line}")
        }
        None => line.to_string(),
    })
}

/// An instruction as a race or a barrier error names it: `PTX line 43
/// (k.cu:10)`, or `PTX line 43` without a `.loc`.
///
/// # Example
///
/// See [`source_text`].
pub fn site_text(kernel: &Kernel, ptx_line: u64) -> String {
    match source_text(kernel, ptx_line) {
        Some(source) => format!("PTX line {ptx_line} ({source})"),
        None => format!("PTX line {ptx_line}"),
    }
}

/// The hazards and barrier errors of `races` (a run of `kernel` with blocks
/// of `block` threads) as `smem kernel --json` gives them: one object a
/// hazard listed ([`HazardFinding::to_json`](crate::HazardFinding::to_json),
/// each access with `ptx_line`, `source_line` and `thread`, its index in
/// the block as CUDA's `threadIdx`), one a barrier error
/// ([`BarrierFinding::to_json`](crate::BarrierFinding::to_json), its message
/// naming instructions by [`site_text`]).
///
/// # Example
///
/// ```
/// use smem_model::kernel::ptx::{self, races_json, Kernel, KernelLaunch, RunOptions};
/// use smem_model::Racecheck;
///
/// // Every thread stores its index to s[0]: write-write between the warps.
/// let module = ptx::parse(
///     ".version 8.0\n.target sm_90\n.address_size 64\n\
///      .visible .entry k()\n{\n.reg .b32 %r<2>;\n.shared .b32 s[32];\n\
///      mov.u32 %r1, %tid.x;\n\
///      st.shared.u32 [s], %r1;\n\
///      ret;\n}\n",
/// )?;
/// let kernel = Kernel::new(&module, None)?;
/// let launch = KernelLaunch::new([1, 1, 1], [64, 1, 1])?;
/// let mut races = Racecheck::new();
/// kernel.run(&launch, &RunOptions::new(), &mut races)?;
/// let (hazards, barrier_errors) = races_json(&kernel, &races.kernels()[0], launch.block());
/// assert_eq!(hazards.len(), 1);
/// let (first, second) = (&hazards[0]["first"], &hazards[0]["second"]);
/// assert_eq!(hazards[0]["kind"], "write-write");
/// assert_eq!((&first["ptx_line"], &second["ptx_line"]), (&9.into(), &9.into()));
/// assert_eq!(first["source_line"], serde_json::Value::Null); // no `.loc`
/// assert_ne!(first["warp"], second["warp"]);
/// assert_eq!(second["thread"], serde_json::json!([second["warp"].as_u64().unwrap() * 32, 0, 0]));
/// assert!(barrier_errors.is_empty());
/// # Ok::<(), smem_model::Error>(())
/// ```
pub fn races_json(
    kernel: &Kernel,
    races: &KernelRaces,
    block: [u32; 3],
) -> (Vec<Value>, Vec<Value>) {
    let (x, y) = (block[0].max(1), block[1].max(1));
    let side = |a: &crate::HazardAccess| {
        let t = a.thread();
        let mut fields = Map::new();
        fields.insert("ptx_line".into(), a.site().into());
        fields.insert("source_line".into(), source_text(kernel, a.site()).into());
        fields.insert("thread".into(), vec![t % x, t / x % y, t / (x * y)].into());
        fields
    };
    let hazards = races.hazards().map(|f| f.to_json(side)).collect();
    let barrier_errors = races
        .barrier_errors()
        .map(|f| f.to_json(f.error().describe(|s| site_text(kernel, s))))
        .collect();
    (hazards, barrier_errors)
}
