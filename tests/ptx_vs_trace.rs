//! The two sources of kernel events agree: a kernel written as PTX and run by
//! the interpreter gives, warp by warp, the same shared-memory requests as
//! the same kernel written as an Accel-Sim trace and read by
//! `kernel::accelsim` (the NVBit tracer's view of the SASS).
//!
//! The kernels are generated: each thread stores (or loads) `width` bytes at
//! element `(tid * a + b) % m` of a shared array, with a block of `threads`
//! threads; the trace lists each warp's addresses, as the tracer would,
//! computed here by the obvious arithmetic.

use proptest::prelude::*;
use smem_model::kernel::accelsim::Trace;
use smem_model::kernel::ptx::{self, Kernel, KernelLaunch, RunOptions};
use smem_model::kernel::{Consumer, Event};
use smem_model::{Error, WarpRequest};

/// Every access, in order, per warp.
#[derive(Default, Debug, PartialEq)]
struct Requests(Vec<(u32, WarpRequest)>);

impl Consumer for Requests {
    fn event(&mut self, warp: u32, event: &Event<'_>) -> Result<(), Error> {
        if let Event::Access { request, .. } = event {
            self.0.push((warp, *request));
        }
        Ok(())
    }
}

const BASE: u64 = 0x7f4a_3c00_0000;

fn ptx_text(store: bool, width: u32, a: u32, b: u32, m: u32) -> String {
    let shift = width.trailing_zeros();
    let access = match (store, width) {
        (true, 16) => "st.shared.v4.b32 [%r7], {%r1, %r1, %r1, %r1};",
        (true, 8) => "st.shared.v2.b32 [%r7], {%r1, %r1};",
        (true, _) => "st.shared.b32 [%r7], %r1;",
        (false, 16) => "ld.shared.v4.b32 {%r8, %r9, %r10, %r11}, [%r7];",
        (false, 8) => "ld.shared.v2.b32 {%r8, %r9}, [%r7];",
        (false, _) => "ld.shared.b32 %r8, [%r7];",
    };
    format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n\
         .visible .entry k()\n{{\n\
         .reg .b32 %r<12>;\n\
         .shared .align 16 .b8 s[32768];\n\
         mov.u32 %r1, %tid.x;\n\
         mul.lo.s32 %r2, %r1, {a};\n\
         add.s32 %r3, %r2, {b};\n\
         rem.u32 %r4, %r3, {m};\n\
         shl.b32 %r5, %r4, {shift};\n\
         mov.u32 %r6, s;\n\
         add.s32 %r7, %r6, %r5;\n\
         {access}\n\
         ret;\n}}\n"
    )
}

fn trace_text(store: bool, width: u32, a: u32, b: u32, m: u32, threads: u32) -> String {
    let opcode = match (store, width) {
        (true, 4) => "STS".to_owned(),
        (false, 4) => "LDS".to_owned(),
        (true, w) => format!("STS.{}", 8 * w),
        (false, w) => format!("LDS.{}", 8 * w),
    };
    let mut text = format!(
        "-kernel name = k\n-kernel id = 1\n-grid dim = (1,1,1)\n-block dim = ({threads},1,1)\n\
         -shmem = 65536\n-nregs = 16\n-binary version = 90\n-cuda stream id = 0\n\
         -shmem base_addr = {BASE:#018x}\n-local mem base_addr = 0x00007f4a3a000000\n\
         -nvbit version = 1.7.1\n-accelsim tracer version = 5\n-enable lineinfo = 0\n\n\
         #traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] \
         mem_width [adrrescompress?] [mem_addresses] immediate\n\n#BEGIN_TB\n\n\
         thread block = 0,0,0\n\n"
    );
    for warp in 0..threads.div_ceil(32) {
        let live = (threads - 32 * warp).min(32);
        let mask: u32 = if live == 32 {
            u32::MAX
        } else {
            (1 << live) - 1
        };
        let addresses: Vec<String> = (0..live)
            .map(|lane| {
                let t = 32 * warp + lane;
                let element = u64::from(t.wrapping_mul(a).wrapping_add(b) % m);
                format!("{:#018x}", BASE + element * u64::from(width))
            })
            .collect();
        let (dests, srcs) = if store {
            ("0", "2 R2 R4")
        } else {
            ("1 R4", "1 R2")
        };
        text.push_str(&format!(
            "\nwarp = {warp}\ninsts = 1\n0100 {mask:08x} {dests} {opcode} {srcs} {width} 0 {} 0\n",
            addresses.join(" ")
        ));
    }
    text.push_str("\n#END_TB\n");
    text
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn interpreted_ptx_and_its_trace_give_the_same_requests(
        store in any::<bool>(),
        width in prop::sample::select(vec![4u32, 8, 16]),
        a in 0u32..70,
        b in 0u32..4096,
        m in 1u32..2048,
        threads in 1u32..=256,
    ) {
        let text = ptx_text(store, width, a, b, m);
        let module = ptx::parse(&text).unwrap();
        let kernel = Kernel::new(&module, None).unwrap();
        let launch = KernelLaunch::new([1, 1, 1], [threads, 1, 1]).unwrap();
        let mut from_ptx = Requests::default();
        kernel.run(&launch, &RunOptions::new(), &mut from_ptx).unwrap();

        let trace = trace_text(store, width, a, b, m, threads);
        let mut from_trace = Requests::default();
        Trace::from_reader("generated.traceg", std::io::Cursor::new(trace.into_bytes()))
            .read(&mut from_trace)
            .unwrap();
        prop_assert_eq!(from_ptx.0.len(), threads.div_ceil(32) as usize);
        prop_assert_eq!(from_ptx, from_trace);
    }
}
