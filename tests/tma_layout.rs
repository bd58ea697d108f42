//! TMA tile loads (`cp.async.bulk.tensor`) against an H200
//! (tests/data/ptx/tma_layout, README.md there): for every configuration
//! the probe ran, the tensor map's fields are checked as
//! `cuTensorMapEncodeTiled` checked them, and where the model places the
//! box ([`TensorMap::shared_offset`], [`TensorMap::shared_runs`]) is
//! compared byte by byte with the shared memory the copy wrote.
#![cfg(feature = "ptx")]

use std::collections::BTreeMap;
use std::path::PathBuf;

use smem_model::kernel::ptx::TensorMap;

/// One configuration of the probe's output.
struct Config {
    name: String,
    fields: BTreeMap<String, String>,
    encoded: bool,
    dump: Option<Vec<u8>>,
}

fn configs() -> Vec<Config> {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/ptx/tma_layout/tma_results.txt");
    let text = std::fs::read_to_string(path).unwrap();
    let mut out: Vec<Config> = Vec::new();
    // The store and 1-D bulk probes that follow have dumps of their own.
    let mut open = false;
    for line in text.lines() {
        if line.starts_with("STORE ") || line.starts_with("BULK ") {
            open = false;
        }
        if let Some(rest) = line.strip_prefix("CFG ") {
            open = true;
            let mut parts = rest.split_whitespace();
            let name = parts.next().unwrap().to_owned();
            let fields = parts
                .filter_map(|p| p.split_once('='))
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect();
            out.push(Config {
                name,
                fields,
                encoded: false,
                dump: None,
            });
        } else if let Some(rc) = line.strip_prefix("ENC ") {
            out.last_mut().unwrap().encoded = rc == "0";
        } else if let (true, Some(hex)) = (open, line.strip_prefix("DUMP ")) {
            let bytes = (0..hex.len() / 2)
                .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
                .collect();
            out.last_mut().unwrap().dump = Some(bytes);
        }
    }
    out
}

/// `a,b,c` or `axbxc` as numbers (the probe writes CUDA's order, innermost
/// first).
fn list(text: &str) -> Vec<i64> {
    text.split([',', 'x'])
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect()
}

/// The map's fields in `TensorMap`'s spelling (outermost first).
fn spelling(c: &Config) -> String {
    let rev = |key: &str| {
        let mut v = list(&c.fields[key]);
        v.reverse();
        v.iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("x")
    };
    let mut s = format!(
        "dims:{},box:{},elem:{},swizzle:{},estride:{}",
        rev("dims"),
        rev("box"),
        c.fields["elem"],
        c.fields["swizzle"],
        rev("estride")
    );
    if !c.fields["gstrides"].is_empty() {
        s.push_str(&format!(",strides:{}", rev("gstrides")));
    }
    if c.fields["interleave"] != "0" {
        s.push_str(&format!(",interleave:{}", c.fields["interleave"]));
    }
    if c.fields["nanfill"] == "1" {
        s.push_str(",fill:nan");
    }
    s
}

/// The probe's global memory: each 4-byte word holds its own index.
fn global_byte(at: i64) -> u8 {
    ((at / 4) as u32 >> (8 * (at % 4))) as u8
}

#[test]
fn fields_are_refused_where_the_driver_refused_them() {
    let all = configs();
    assert_eq!(all.len(), 64);
    for c in &all {
        let parsed = spelling(c).parse::<TensorMap>();
        assert_eq!(
            parsed.is_ok(),
            c.encoded,
            "{}: {:?} (the driver {})",
            c.name,
            parsed,
            if c.encoded {
                "encoded it"
            } else {
                "refused it"
            }
        );
    }
}

#[test]
fn tile_layouts_match_the_h200_byte_for_byte() {
    let mut compared = 0;
    for c in configs().iter().filter(|c| c.encoded) {
        let map: TensorMap = spelling(c).parse().unwrap();
        let dump = c.dump.as_ref().unwrap();
        if !map.modelled() {
            assert!(
                c.fields["interleave"] != "0" || c.fields["estride"].starts_with('2'),
                "{}",
                c.name
            );
            continue;
        }
        let dst: u32 = c.fields["dst_off"].parse().unwrap();
        let dims = list(&c.fields["dims"]);
        let boxes = list(&c.fields["box"]);
        let coords = list(&c.fields["coords"]);
        let estride = list(&c.fields["estride"]);
        let elem: i64 = c.fields["elem"].parse().unwrap();
        let mut strides = vec![elem];
        strides.extend(list(&c.fields["gstrides"]));
        let nan = c.fields["nanfill"] == "1";
        let rank = dims.len();
        let moved: Vec<i64> = (0..rank)
            .map(|d| (boxes[d] + estride[d] - 1) / estride[d])
            .collect();
        // The image the model predicts: 0xEE (the probe's fill) where the
        // copy writes nothing; a NaN fill's bytes are left unchecked.
        let mut expected: Vec<Option<u8>> = vec![Some(0xee); dump.len()];
        let mut hit = vec![false; dump.len()];
        let count: i64 = moved.iter().product();
        for flat in 0..count {
            // Coordinates moved, innermost first.
            let mut rest = flat;
            let idx: Vec<i64> = (0..rank)
                .map(|d| {
                    let i = rest % moved[d];
                    rest /= moved[d];
                    i
                })
                .collect();
            let outer_first: Vec<u32> = idx.iter().rev().map(|&i| i as u32).collect();
            let at = map.shared_offset(dst, &outer_first);
            let g: Vec<i64> = (0..rank).map(|d| coords[d] + idx[d] * estride[d]).collect();
            let outside = (0..rank).any(|d| g[d] < 0 || g[d] >= dims[d]);
            for k in 0..elem {
                let byte = if outside {
                    (!nan).then_some(0)
                } else {
                    let offset: i64 = (0..rank).map(|d| g[d] * strides[d]).sum::<i64>() + k;
                    Some(global_byte(offset))
                };
                let i = (at - dst) as usize + k as usize;
                expected[i] = byte;
                hit[i] = true;
            }
        }
        // The runs hold exactly the bytes the elements land on.
        let runs = map.shared_runs(dst);
        let in_runs = |a: u32| runs.iter().any(|&(s, l)| a >= s && a < s + l);
        for (i, (&got, want)) in dump.iter().zip(&expected).enumerate() {
            if let Some(want) = want {
                assert_eq!(got, *want, "{}: byte {i} of the dump", c.name);
            }
            assert_eq!(
                in_runs(dst + i as u32),
                hit[i],
                "{}: byte {i} in the runs",
                c.name
            );
        }
        let total: u32 = map.shared_runs(dst).iter().map(|r| r.1).sum();
        assert_eq!(total, map.box_bytes(), "{}", c.name);
        compared += 1;
    }
    // 2-D with every element size and swizzle, inner rows of the span and
    // half of it, destinations off the 1,024-byte pattern, 1-D to 5-D,
    // out-of-bounds boxes (zero and NaN fill), a padded pitch, a traversal
    // stride in an outer dimension.
    assert_eq!(compared, 53);
}
