//! The seed's dynamic carve: `nI` ints, `nF` floats and `nC` chars out of one
//! `extern __shared__` region,
//!
//! ```cuda
//! extern __shared__ int s[];
//! int *integerData = s;                        // nI ints
//! float *floatData = (float *)&integerData[nI]; // nF floats
//! char *charData = (char *)&floatData[nF];      // nC chars
//! ```
//!
//! printing each array's offset and the dynamic size to pass at launch, then the
//! error the classic misordered carve (chars first) gets.
//!
//! Run with `cargo run --example dynamic_carve`.

use std::io::{self, Write};

use smem_model::{ComputeCapability, DynamicLayout, SharedMemory};

fn run(out: &mut impl Write) -> Result<(), Box<dyn std::error::Error>> {
    let (n_i, n_f, n_c) = (4, 3, 5);
    let layout = DynamicLayout::new()
        .array::<i32>("integerData", n_i)?
        .array::<f32>("floatData", n_f)?
        .array::<u8>("charData", n_c)?;
    writeln!(
        out,
        "carve in order int, float, char (nI = {n_i}, nF = {n_f}, nC = {n_c}) on sm_90:"
    )?;
    let mut block = SharedMemory::builder(ComputeCapability::Sm90).launch(layout.launch_bytes())?;
    let ints = block.carve::<i32>("integerData", n_i)?;
    let floats = block.carve::<f32>("floatData", n_f)?;
    let chars = block.carve::<u8>("charData", n_c)?;
    for (info, address) in
        block
            .arrays()
            .iter()
            .zip([ints.address(), floats.address(), chars.address()])
    {
        writeln!(
            out,
            "  {:<12} {:>14}  offset {:>2}  {:>2} bytes  shared address {address:#06x}",
            info.name(),
            info.element(),
            address - block.dynamic_start(),
            info.bytes()
        )?;
    }
    writeln!(
        out,
        "  launch with <<<grid, block, {}>>>",
        layout.launch_bytes()
    )?;

    writeln!(out, "\ncarve chars first, then floats:")?;
    let mut block = SharedMemory::builder(ComputeCapability::Sm90).launch(64)?;
    block.carve::<u8>("charData", n_c)?;
    match block.carve::<f32>("floatData", n_f) {
        Ok(_) => writeln!(out, "  (no error?)")?,
        Err(err) => writeln!(out, "  error: {err}")?,
    }
    let packed = DynamicLayout::new()
        .array::<u8>("charData", n_c)?
        .array::<f32>("floatData", n_f)?
        .array::<i32>("integerData", n_i)?;
    writeln!(
        out,
        "  with padding the layout helper places floatData at offset {} ({} bytes of padding), launch size {}",
        packed.arrays()[1].offset(),
        packed.padding_bytes(),
        packed.launch_bytes()
    )?;
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    run(&mut io::stdout().lock())
}

#[test]
fn prints_offsets_launch_size_and_the_misordered_error() {
    let mut out = Vec::new();
    run(&mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains("integerData             int  offset  0  16 bytes  shared address 0x0400"),
        "{text}"
    );
    assert!(
        text.contains("floatData             float  offset 16  12 bytes"),
        "{text}"
    );
    assert!(
        text.contains("charData      unsigned char  offset 28   5 bytes"),
        "{text}"
    );
    assert!(text.contains("launch with <<<grid, block, 33>>>"), "{text}");
    assert!(text.contains(
        "error: misaligned carve: float array `floatData` would start at offset 5 of the dynamic region, \
         right after unsigned char array `charData`, but float needs 4-byte alignment; \
         carve `floatData` before `charData`, or pad `charData` to 8 bytes"
    ), "{text}");
    assert!(
        text.contains("floatData at offset 8 (3 bytes of padding), launch size 36"),
        "{text}"
    );
}
