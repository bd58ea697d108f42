//! The classic strided-access table: `s[stride * tid]` on 4-byte words, for
//! strides 1 to 33, on a Fermi (2.0), a Kepler in both bank modes (3.5) and a
//! Hopper (9.0).
//!
//! Run with `cargo run --example strided`.

use smem_model::{BankConfig, ComputeCapability, Op, SharedMemConfig, WarpRequest};

fn main() -> Result<(), smem_model::Error> {
    let configs = [
        ("2.0", BankConfig::new(ComputeCapability::Sm20)),
        ("3.5 (4 B)", BankConfig::new(ComputeCapability::Sm35)),
        (
            "3.5 (8 B)",
            BankConfig::new(ComputeCapability::Sm35)
                .with_shared_mem_config(SharedMemConfig::EightByte),
        ),
        ("9.0", BankConfig::new(ComputeCapability::Sm90)),
    ];
    print!("{:>6}", "stride");
    for (name, _) in &configs {
        print!("{name:>20}");
    }
    println!();
    for stride in 1..=33u32 {
        let request = WarpRequest::from_fn(Op::Load, 4, |lane| Some(4 * stride * lane.get()))?;
        print!("{stride:>6}");
        for (_, config) in &configs {
            let partition = config.partition(&request)?;
            print!("{:>20}", partition.classification().to_string());
        }
        println!();
    }
    Ok(())
}
