//! A PTX fixture of tests/data/ptx as the tests run it: its `kernel.ptx` and
//! the launch its `launch.json` gives (grid, block, dynamic shared bytes,
//! scalar arguments; pointers left to their fake addresses). Apart from
//! `support/mod.rs`, which needs the `smem` binary, so that tests without
//! the `cli` feature share it too (`#[path = "support/fixture.rs"] mod
//! fixture;`).
// Each test file uses its own subset.
#![allow(dead_code)]

use std::path::PathBuf;

use smem_model::kernel::ptx::{self, Kernel, KernelLaunch};

/// The fixture's folder.
pub fn dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/ptx")
        .join(name)
}

/// The fixture's kernel and launch.
pub fn load(name: &str) -> (Kernel, KernelLaunch) {
    let dir = dir(name);
    let text = std::fs::read_to_string(dir.join("kernel.ptx")).unwrap();
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("launch.json")).unwrap()).unwrap();
    let module = ptx::parse(&text).unwrap();
    let kernel = Kernel::new(&module, json["kernel"].as_str()).unwrap();
    let dims = |key: &str| -> [u32; 3] {
        let v: Vec<u32> = json[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap() as u32)
            .collect();
        [v[0], v[1], v[2]]
    };
    let mut launch = KernelLaunch::new(dims("grid"), dims("block"))
        .unwrap()
        .with_dynamic_shared(json["dynamic_shared"].as_u64().unwrap() as u32);
    for arg in json["args"].as_array().unwrap() {
        if arg["pointer"].as_bool() == Some(false) {
            let value = &arg["value"];
            let text = value
                .as_i64()
                .map_or_else(|| value.to_string(), |v| v.to_string());
            launch = launch.with_arg(format!("{}={text}", arg["index"]).parse().unwrap());
        }
    }
    (kernel, launch)
}
