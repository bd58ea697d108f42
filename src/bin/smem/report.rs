//! `smem report`: a tour of the model on built-in examples, one screen per
//! section, for the capability given with `--arch` (sm_90 by default).
//!
//! Every figure is computed by the library when the report runs; the text
//! around them only claims what the figures show (the stride formula, for
//! instance, is printed only when every row obeys it).

use std::fmt::Write as _;
use std::process::ExitCode;

use clap::ValueEnum;
use smem_model::{
    BankConfig, ComputeCapability, DynamicLayout, Error, Lane, Launch, OccupancyLimit, Op,
    Partition, SharedMemConfig, SharedMemory, WarpRequest,
};

use crate::analyze::diagram;
use crate::output::{emit, styled, wrap, HEADING, NOTE};
use crate::table::{Align, Table};

/// Arguments of `smem report`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Compute capability to tour: sm_90, 8.6, sm_35, ... (the Kepler section is
    /// always on sm_35, the only kind of GPU with two bank modes).
    #[arg(long, value_name = "CC", default_value = "sm_90", value_parser = crate::arch::parse)]
    arch: ComputeCapability,

    /// Print only this section.
    #[arg(long, value_enum, value_name = "SECTION")]
    section: Option<Section>,

    /// Print the sections as JSON: each with its title, its tables (one object a
    /// row, keyed by the column titles) and its text.
    #[arg(long)]
    json: bool,
}

/// The `schema` of `smem report --json`.
pub const SCHEMA: &str = "smem-report/1";

/// The sections, in the order printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Section {
    /// Parallel, serial and broadcast access.
    Access,
    /// The stride table, strides 1 to 33, 4- and 8-byte elements.
    Strides,
    /// A 32x32 transpose tile with and without padding.
    Transpose,
    /// Kepler's four- and eight-byte bank modes.
    Kepler,
    /// The int/float/char carve of the dynamic region.
    Carve,
    /// Blocks per SM for a few shared-memory sizes.
    Occupancy,
}

const SECTIONS: [Section; 6] = [
    Section::Access,
    Section::Strides,
    Section::Transpose,
    Section::Kepler,
    Section::Carve,
    Section::Occupancy,
];

/// Runs `smem report`.
pub fn run(args: &Args) -> ExitCode {
    let cc = args.arch;
    let mut out = String::new();
    if args.section.is_none() {
        out.push_str(&preamble(cc));
    }
    let mut json_sections = Vec::new();
    for (number, section) in (1..).zip(SECTIONS) {
        if args.section.is_some_and(|only| only != section) {
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        let mut tables = Vec::new();
        let body = match section {
            Section::Access => access(cc, &mut tables),
            Section::Strides => strides(cc, &mut tables),
            Section::Transpose => transpose(cc, &mut tables),
            Section::Kepler => kepler(&mut tables),
            Section::Carve => carve(cc, &mut tables),
            Section::Occupancy => occupancy(cc, &mut tables),
        };
        _ = writeln!(
            out,
            "{}",
            styled(HEADING, format!("{number}. {}", title(section, cc)))
        );
        out.push_str(&body);
        json_sections.push(serde_json::json!({
            "name": section.to_possible_value().map(|v| v.get_name().to_owned()),
            "title": title(section, cc),
            "tables": tables,
            "text": anstream::adapter::strip_str(&body).to_string(),
        }));
    }
    if args.json {
        let report = serde_json::json!({
            "schema": SCHEMA,
            "arch": cc.sm_name(),
            "version": cc.to_string(),
            "architecture": cc.architecture().to_string(),
            "banks": BankConfig::new(cc).bank_count(),
            "bank_width": BankConfig::new(cc).bank_width().bytes(),
            "sections": json_sections,
        });
        out = match serde_json::to_string_pretty(&report) {
            Ok(json) => json + "\n",
            Err(err) => return crate::output::fail(err),
        };
    }
    match emit(&out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}

fn title(section: Section, cc: ComputeCapability) -> String {
    match section {
        Section::Access => format!("Parallel, serial and broadcast access ({})", cc.sm_name()),
        Section::Strides => format!("Strided access, s[stride * lane] ({})", cc.sm_name()),
        Section::Transpose => format!("Transposing through a 32x32 tile ({})", cc.sm_name()),
        Section::Kepler => "Kepler's bank modes: four bytes vs eight bytes (sm_35)".to_owned(),
        Section::Carve => format!(
            "Carving int, float and char arrays from extern __shared__ ({})",
            cc.sm_name()
        ),
        Section::Occupancy => format!("Blocks per SM by shared memory ({})", cc.sm_name()),
    }
}

fn preamble(cc: ComputeCapability) -> String {
    let config = BankConfig::new(cc);
    let source = match cc.major() {
        1 | 2 => "the CUDA Programming Guide v4.2, Appendix F (documented)",
        3 => "the Programming Guide v4.2, F.5.3; the phases of 16-byte accesses are a modelling choice",
        5 | 6 => "the Programming Guide's 32-bit rule; wider accesses are a modelling choice",
        9 => "measured on sm_90 (H100, H200) with Nsight Compute",
        _ => "measured on sm_90 (H100, H200) with Nsight Compute, applied to this capability",
    };
    let mut out = String::new();
    _ = writeln!(
        out,
        "{}",
        styled(
            HEADING,
            format!(
                "smem report: the shared-memory model on compute capability {cc} ({}, {})",
                cc.sm_name(),
                cc.architecture()
            )
        )
    );
    _ = writeln!(
        out,
        "{} banks x {} bytes; bank rules: {source}.",
        config.bank_count(),
        config.bank_width().bytes()
    );
    out.push_str(&wrap(
        &format!(
            "{} Bank conflicts = wavefronts - ideal wavefronts, as Nsight Compute counts them.",
            served(cc)
        ),
        96,
        "",
    ));
    let sections = "Sections: access, strides, transpose, kepler, carve, occupancy. \
                    smem report --section NAME prints one; smem analyze draws any access.";
    out.push_str(&styled(NOTE, wrap(sections, 96, "").trim_end()));
    out.push('\n');
    out
}

/// How a wavefront is served under `cc`'s rules, in a sentence (the same split
/// as `BankConfig`'s documentation).
fn served(cc: ComputeCapability) -> &'static str {
    match cc.major() {
        1 => {
            "A half-warp's access is served in wavefronts, each at most one 32-bit word per bank \
             and one broadcast word for any number of lanes; wider accesses are split into \
             32-bit accesses."
        }
        3 => {
            "A warp's access is served in wavefronts, each at most one 64-bit row per bank: in \
             four-byte mode the 32-bit words i and i + 32 of a 256-byte segment share a row and \
             never conflict; any number of lanes may read one word."
        }
        _ => {
            "A warp's access is served in wavefronts, each at most one word per bank; any number \
             of lanes may read one word (multicast)."
        }
    }
}

/// A request built from a closure of the lane number and partitioned.
fn partition(
    config: BankConfig,
    op: Op,
    width: u32,
    f: impl Fn(u32) -> Option<u32>,
) -> Result<Partition, Error> {
    let request = WarpRequest::from_fn(op, width, |lane: Lane| f(lane.get()))?;
    config.partition(&request)
}

/// Table cells for a partition: wavefronts, ideal, conflicts, verdict; or
/// `n/a` and a footnote when the capability cannot run the access.
fn counts(result: &Result<Partition, Error>, notes: &mut Vec<String>) -> [String; 4] {
    match result {
        Ok(p) => [
            p.wavefronts().to_string(),
            p.ideal_wavefronts().to_string(),
            p.bank_conflicts().to_string(),
            p.classification().to_string(),
        ],
        Err(err) => {
            let note = err.to_string();
            if !notes.contains(&note) {
                notes.push(note);
            }
            ["n/a".into(), "".into(), "".into(), "".into()]
        }
    }
}

fn footnotes(out: &mut String, notes: &[String]) {
    for note in notes {
        _ = writeln!(out, "  n/a: {note}");
    }
}

fn access(cc: ComputeCapability, tables: &mut Vec<serde_json::Value>) -> String {
    let config = BankConfig::new(cc);
    type Row = (&'static str, &'static str, Op, fn(u32) -> Option<u32>);
    let rows: [Row; 8] = [
        ("v = s[lane]", "each lane its own bank", Op::Load, |l| {
            Some(4 * l)
        }),
        (
            "v = s[(7 * lane) % 32]",
            "a permutation of the banks",
            Op::Load,
            |l| Some(4 * (7 * l % 32)),
        ),
        ("v = s[0]", "one word for the whole warp", Op::Load, |_| {
            Some(0)
        }),
        ("v = s[lane / 4]", "8 words, 4 lanes each", Op::Load, |l| {
            Some(4 * (l / 4))
        }),
        (
            "v = s[2 * lane]",
            "every other bank, two words each",
            Op::Load,
            |l| Some(8 * l),
        ),
        (
            "v = tile[lane][0]",
            "column of float[32][32]",
            Op::Load,
            |l| Some(128 * l),
        ),
        (
            "atomicAdd(&s[lane], 1)",
            "each lane its own word",
            Op::ATOMIC_ADD,
            |l| Some(4 * l),
        ),
        (
            "atomicAdd(&s[0], 1)",
            "one counter for the warp",
            Op::ATOMIC_ADD,
            |_| Some(0),
        ),
    ];
    let mut table = Table::new(&[
        ("float access", Align::Left),
        ("pattern", Align::Left),
        ("wavefronts", Align::Right),
        ("ideal", Align::Right),
        ("conflicts", Align::Right),
        ("verdict", Align::Left),
    ]);
    let mut notes = Vec::new();
    for (code, pattern, op, f) in rows {
        let [w, i, c, v] = counts(&partition(config, op, 4, f), &mut notes);
        table.row([code, pattern, &w, &i, &c, &v]);
    }
    tables.push(table.to_json());
    let mut out = table.render(2);
    footnotes(&mut out, &notes);
    let different = if cc.major() == 3 {
        "lanes want different 64-bit rows of one bank, one wavefront per row"
    } else {
        "lanes want different words of one bank, one wavefront per word"
    };
    let broadcast = if cc.major() == 1 {
        "one word is read once and delivered to every lane that wants it (one such word per wavefront)"
    } else {
        "one word is read once and delivered to every lane"
    };
    out.push_str(&wrap(
        &format!(
            "parallel: the ideal number of wavefronts (one per phase). broadcast: {broadcast}. \
             conflicted / serial: {different}. Atomics on one address are applied one lane at a time."
        ),
        96,
        "  ",
    ));
    if let Ok(p) = partition(config, Op::Load, 4, |l| Some(8 * l)) {
        out.push_str("\n  v = s[2 * lane], drawn by smem analyze 'lane*8':\n");
        out.push_str(&diagram::text(&diagram::grid(&p)));
    }
    out
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn strides(cc: ComputeCapability, tables: &mut Vec<serde_json::Value>) -> String {
    let config = BankConfig::new(cc);
    let mut table = Table::new(&[
        ("stride", Align::Right),
        ("float: wavefronts", Align::Right),
        ("conflicts", Align::Right),
        ("double: wavefronts", Align::Right),
        ("conflicts", Align::Right),
    ]);
    let mut notes = Vec::new();
    let mut gcd_rule = true;
    let banks = config.bank_count();
    for stride in 1..=33u32 {
        let float = partition(config, Op::Load, 4, |l| Some(4 * stride * l));
        let double = partition(config, Op::Load, 8, |l| Some(8 * stride * l));
        if let Ok(p) = &float {
            gcd_rule &= config.bank_width().bytes() == 4
                && p.ideal_wavefronts() == 1
                && p.wavefronts() == gcd(stride, banks);
        }
        let [fw, _, fc, _] = counts(&float, &mut notes);
        let [dw, _, dc, _] = counts(&double, &mut notes);
        table.row([stride.to_string(), fw, fc, dw, dc]);
    }
    tables.push(table.to_json());
    let mut out = table.render(2);
    footnotes(&mut out, &notes);
    if gcd_rule {
        _ = writeln!(
            out,
            "  floats: wavefronts = gcd(stride, {banks}) for every stride above, so odd strides are conflict-free."
        );
    }
    if let Ok(p) = partition(config, Op::Load, 8, |l| Some(8 * l)) {
        let conflicts = match p.bank_conflicts() {
            0 => "no bank conflict".to_owned(),
            n => crate::output::plural(u64::from(n), "bank conflict"),
        };
        out.push_str(&wrap(
            &format!(
                "doubles: stride 1 takes {} (ideal {}, {conflicts}); wider accesses are served in \
                 more phases, so compare conflicts, not wavefronts.",
                crate::output::plural(u64::from(p.wavefronts()), "wavefront"),
                p.ideal_wavefronts()
            ),
            96,
            "  ",
        ));
    }
    out
}

fn transpose(cc: ComputeCapability, tables: &mut Vec<serde_json::Value>) -> String {
    let config = BankConfig::new(cc);
    // The tile sits at the start of the dynamic window, after any reserved bytes.
    let base = cc.reserved_shared_memory_per_block();
    let column = 3;
    type Layout = (&'static str, u32, fn(u32, u32) -> u32);
    let layouts: [Layout; 3] = [
        ("float tile[32][32]", 32, |_, col| col),
        ("float tile[32][33] (padded)", 33, |_, col| col),
        ("float tile[32][32], column ^ row", 32, |row, col| col ^ row),
    ];
    let mut table = Table::new(&[
        ("tile", Align::Left),
        ("row store", Align::Right),
        ("column load", Align::Right),
        ("conflicts", Align::Right),
        ("bytes", Align::Right),
    ]);
    let mut notes = Vec::new();
    for (name, pitch, swizzle) in layouts {
        let address = move |row: u32, col: u32| base + 4 * (row * pitch + swizzle(row, col));
        // tile[r][lane] = in[...]: lane l writes column l of one row.
        let store = partition(config, Op::Store, 4, |l| Some(address(column, l)));
        // out[...] = tile[lane][c]: lane l reads row l of one column.
        let load = partition(config, Op::Load, 4, |l| Some(address(l, column)));
        let [sw, _, _, _] = counts(&store, &mut notes);
        let [lw, _, lc, _] = counts(&load, &mut notes);
        table.row([name.to_owned(), sw, lw, lc, (4 * 32 * pitch).to_string()]);
    }
    tables.push(table.to_json());
    let mut out = table.render(2);
    footnotes(&mut out, &notes);
    _ = writeln!(
        out,
        "  Row store: tile[{column}][lane] = ...; column load: ... = tile[lane][{column}] (tile at {base:#x})."
    );
    if config.bank_count() == 32 && config.bank_width().bytes() == 4 {
        let load = |pitch: u32, swizzle: fn(u32, u32) -> u32| {
            partition(config, Op::Load, 4, |l| {
                Some(base + 4 * (l * pitch + swizzle(l, column)))
            })
            .map(|p| p.wavefronts())
        };
        if let (Ok(plain), Ok(padded), Ok(xor)) = (
            load(32, |_, c| c),
            load(33, |_, c| c),
            load(32, |r, c| c ^ r),
        ) {
            let mut text = format!(
                "[32][32]: lane l reads word 32l + {column}, in bank {column} for every lane: {}.",
                crate::output::plural(u64::from(plain), "wavefront")
            );
            if cc.major() == 3 {
                text.push_str(
                    " (On 3.x words i and i + 32 share a 64-bit row, so lane pairs meet in one row.)",
                );
            }
            _ = write!(
                text,
                " [32][33]: word 33l + {column} is in bank (l + {column}) % 32, a different bank for each lane: {}.",
                crate::output::plural(u64::from(padded), "wavefront")
            );
            if xor == padded {
                text.push_str(" The XOR swizzle gets the same without the 128 bytes of padding.");
            }
            out.push_str(&wrap(&text, 96, "  "));
        }
    }
    out
}

fn kepler(tables: &mut Vec<serde_json::Value>) -> String {
    let four = BankConfig::new(ComputeCapability::Sm35);
    let eight = four.with_shared_mem_config(SharedMemConfig::EightByte);
    type Row = (&'static str, u32, u32);
    let rows: [Row; 8] = [
        ("float  s[lane]", 4, 1),
        ("float  s[2 * lane]", 4, 2),
        ("float  s[3 * lane]", 4, 3),
        ("float  s[32 * lane]", 4, 32),
        ("double s[lane]", 8, 1),
        ("double s[2 * lane]", 8, 2),
        ("double s[3 * lane]", 8, 3),
        ("float4 s[lane]", 16, 1),
    ];
    let mut table = Table::new(&[
        ("access", Align::Left),
        ("4-byte mode", Align::Right),
        ("8-byte mode", Align::Right),
        ("note", Align::Left),
    ]);
    let mut notes = Vec::new();
    for (code, width, stride) in rows {
        let f = |l: u32| Some(width * stride * l);
        let a = partition(four, Op::Load, width, f);
        let b = partition(eight, Op::Load, width, f);
        let remark = match (&a, &b) {
            (Ok(a), Ok(b)) if b.bank_conflicts() > a.bank_conflicts() => "8-byte mode is worse",
            (Ok(a), Ok(b)) if b.bank_conflicts() < a.bank_conflicts() => "8-byte mode is better",
            _ => "",
        };
        let [aw, _, _, _] = counts(&a, &mut notes);
        let [bw, _, _, _] = counts(&b, &mut notes);
        table.row([code, &aw, &bw, remark]);
    }
    let mut out = String::from(
        "  Always on sm_35, whatever --arch says: wavefronts per warp in each bank mode.\n",
    );
    tables.push(table.to_json());
    out.push_str(&table.render(2));
    footnotes(&mut out, &notes);
    out.push_str(
        "  The guide says eight-byte mode never conflicts more than four-byte mode. That holds for\n  \
         aligned 8- and 16-byte accesses, not for every 4-byte pattern:\n",
    );
    // Find the pair of lanes that conflict in eight-byte mode for stride-3 floats.
    let word8 = |lane: u32| 12 * lane / 8;
    let pair = (0..32u32).find_map(|a| {
        ((a + 1)..32).find_map(|b| {
            (word8(a) % 32 == word8(b) % 32 && word8(a) != word8(b)).then_some((a, b))
        })
    });
    if let Some((a, b)) = pair {
        _ = writeln!(
            out,
            "  stride-3 floats: lanes {a} and {b} read 64-bit words {} and {}, both in bank {}, so eight-byte\n  \
             mode needs two wavefronts; in four-byte mode their 32-bit words {} and {} sit in banks {} and {}.",
            word8(a),
            word8(b),
            word8(a) % 32,
            3 * a,
            3 * b,
            (3 * a) % 32,
            (3 * b) % 32
        );
    }
    out
}

fn carve(cc: ComputeCapability, tables: &mut Vec<serde_json::Value>) -> String {
    let mut out = String::new();
    if let Err(err) = carve_into(cc, &mut out, tables) {
        _ = writeln!(out, "  n/a: {err}");
    }
    out
}

fn carve_into(
    cc: ComputeCapability,
    out: &mut String,
    tables: &mut Vec<serde_json::Value>,
) -> Result<(), Error> {
    let (n_i, n_f, n_c) = (4, 3, 5);
    for (code, comment) in [
        ("extern __shared__ int s[];", ""),
        ("int *integerData = s;", "// nI = 4 ints"),
        (
            "float *floatData = (float *)&integerData[nI];",
            "// nF = 3 floats",
        ),
        (
            "char *charData = (char *)&floatData[nF];",
            "// nC = 5 chars",
        ),
    ] {
        _ = writeln!(out, "  {}", format!("{code:<47}{comment}").trim_end());
    }
    let layout = DynamicLayout::new()
        .array::<i32>("integerData", n_i)?
        .array::<f32>("floatData", n_f)?
        .array::<u8>("charData", n_c)?;
    let mut block = SharedMemory::builder(cc).launch(layout.launch_bytes())?;
    let addresses = [
        block.carve::<i32>("integerData", n_i)?.address(),
        block.carve::<f32>("floatData", n_f)?.address(),
        block.carve::<u8>("charData", n_c)?.address(),
    ];
    let mut table = Table::new(&[
        ("array", Align::Left),
        ("type", Align::Left),
        ("offset", Align::Right),
        ("bytes", Align::Right),
        ("shared address", Align::Right),
    ]);
    for (info, address) in block.arrays().iter().zip(addresses) {
        table.row([
            info.name().to_owned(),
            info.element().to_owned(),
            (address - block.dynamic_start()).to_string(),
            info.bytes().to_string(),
            format!("{address:#x}"),
        ]);
    }
    tables.push(table.to_json());
    out.push_str(&table.render(2));
    _ = writeln!(
        out,
        "  launch with kernel<<<grid, block, {}>>>: {} bytes of dynamic shared memory, {}.",
        layout.launch_bytes(),
        layout.launch_bytes(),
        match layout.padding_bytes() {
            0 => "no padding".to_owned(),
            bytes => format!("{bytes} of them padding"),
        }
    );
    let mut misordered = SharedMemory::builder(cc).launch(64)?;
    misordered.carve::<u8>("charData", n_c)?;
    if let Err(err) = misordered.carve::<f32>("floatData", n_f) {
        out.push_str("  Chars first is the classic bug:\n");
        out.push_str(&wrap(&format!("error: {err}"), 96, "  "));
    }
    Ok(())
}

fn occupancy(cc: ComputeCapability, tables: &mut Vec<serde_json::Value>) -> String {
    let kb = 1024;
    let sizes = [
        0,
        kb,
        2 * kb,
        4 * kb,
        8 * kb,
        12 * kb,
        16 * kb,
        24 * kb,
        32 * kb,
        48 * kb,
        64 * kb,
        100 * kb,
        160 * kb,
        227 * kb,
    ];
    let mut table = Table::new(&[
        ("dynamic bytes", Align::Right),
        ("opt-in", Align::Left),
        ("allocated", Align::Right),
        ("blocks/SM", Align::Right),
        ("carveout", Align::Right),
        ("limit", Align::Left),
    ]);
    for bytes in sizes {
        if bytes > cc.max_shared_memory_per_block() {
            continue;
        }
        let mut launch = Launch::new(cc, 0, bytes);
        let opt_in = bytes > cc.default_shared_memory_per_block();
        if opt_in {
            launch = launch.with_opt_in(bytes);
        }
        match launch.occupancy() {
            Ok(o) => table.row([
                bytes.to_string(),
                if opt_in { "yes" } else { "" }.to_owned(),
                o.allocated_per_block().to_string(),
                o.blocks_per_sm().to_string(),
                format!("{} KB", o.carveout() / kb),
                match o.limit() {
                    OccupancyLimit::BlocksPerSm => {
                        format!("{} blocks per SM at most", cc.max_blocks_per_sm())
                    }
                    // No block given: only shared memory (and, never first,
                    // barriers) can bind besides.
                    other => other.to_string(),
                },
            ]),
            Err(err) => table.row([bytes.to_string(), String::new(), err.to_string()]),
        }
    }
    let mut out = format!(
        "  {} KB per SM; {} KB per block, {} KB with the opt-in; {} bytes reserved per block;\n  \
         allocated in units of {} bytes. No static arrays; carveout: the driver's default.\n",
        cc.shared_memory_per_sm() / kb,
        cc.default_shared_memory_per_block() / kb,
        cc.max_shared_memory_per_block() / kb,
        cc.reserved_shared_memory_per_block(),
        cc.shared_allocation_unit()
    );
    tables.push(table.to_json());
    out.push_str(&table.render(2));
    out.push_str("  smem occupancy --static BYTES --dynamic BYTES [--opt-in] [--carveout PERCENT] for any launch.\n");
    out
}
