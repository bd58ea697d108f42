//! The shared-memory arena: layout as measured on an H200
//! (`tests/data/device/`), carving, bounds, initialisation and warp accesses.

use smem_model::{
    BankConfig, BankWidth, ComputeCapability, DynamicLayout, ElementType, Error, Float4, Origin,
    SharedMemConfig, SharedMemory, StoreOrder,
};

const SM90: ComputeCapability = ComputeCapability::Sm90;

#[test]
fn statics_are_laid_out_as_nvcc_did_on_an_h200() {
    // k_mixed: char c[3]; float f[5]; double d[2]; short s[3]; extern int dyn[]; extern char dync[];
    let mut kernel = SharedMemory::builder(SM90);
    let c = kernel.declare::<u8>("c", 3).unwrap();
    let f = kernel.declare::<f32>("f", 5).unwrap();
    let d = kernel.declare::<f64>("d", 2).unwrap();
    let s = kernel.declare::<i16>("s", 3).unwrap();
    assert_eq!(kernel.static_bytes(), 48);
    let mut block = kernel.launch(64).unwrap();
    let dyn_int = block.extern_array::<i32>("dyn").unwrap();
    let dyn_char = block.extern_array::<u8>("dync").unwrap();
    let addresses = [
        c.address(),
        f.address(),
        d.address(),
        s.address(),
        dyn_int.address(),
        dyn_char.address(),
    ];
    assert_eq!(addresses, [0x400, 0x404, 0x418, 0x428, 0x430, 0x430]);
    assert_eq!((dyn_int.len(), dyn_char.len()), (16, 64));

    // k_char_only: char c[5]; extern float4 dyn4[];
    let mut kernel = SharedMemory::builder(SM90);
    kernel.declare::<u8>("c", 5).unwrap();
    assert_eq!(kernel.static_bytes(), 16);
    let mut block = kernel.launch(64).unwrap();
    assert_eq!(
        block.extern_array::<Float4>("dyn4").unwrap().address(),
        0x410
    );

    // k_tile: float tile[32][33]; char flag; extern double dynd[];
    let mut kernel = SharedMemory::builder(SM90);
    let tile = kernel.declare_2d::<f32>("tile", 32, 33).unwrap();
    let flag = kernel.declare::<u8>("flag", 1).unwrap();
    assert_eq!(kernel.static_bytes(), 4240);
    let mut block = kernel.launch(64).unwrap();
    assert_eq!((tile.address(), flag.address()), (0x400, 0x1480));
    assert_eq!(block.extern_array::<f64>("dynd").unwrap().address(), 0x1490);
    assert_eq!(block.dynamic_start(), 0x1490);
}

#[test]
fn before_8_0_nothing_is_reserved() {
    let mut kernel = SharedMemory::builder(ComputeCapability::Sm75);
    assert_eq!(kernel.declare::<f32>("a", 4).unwrap().address(), 0);
}

#[test]
fn the_seed_carve_int_float_char() {
    let (n_i, n_f, n_c) = (3, 5, 7);
    let layout = DynamicLayout::new()
        .array::<i32>("a", n_i)
        .unwrap()
        .array::<f32>("b", n_f)
        .unwrap()
        .array::<u8>("c", n_c)
        .unwrap();
    let mut block = SharedMemory::builder(SM90)
        .launch(layout.launch_bytes())
        .unwrap();
    let a = block.carve::<i32>("a", n_i).unwrap();
    let b = block.carve::<f32>("b", n_f).unwrap();
    let c = block.carve::<u8>("c", n_c).unwrap();
    let offsets: Vec<u32> = [a.address(), b.address(), c.address()]
        .iter()
        .map(|x| x - block.dynamic_start())
        .collect();
    let planned: Vec<u32> = layout.arrays().iter().map(|p| p.offset()).collect();
    assert_eq!(offsets, planned);
    assert_eq!(block.dynamic_bytes_left(), 0);
    let origins: Vec<Origin> = block.arrays().iter().map(|a| a.origin()).collect();
    assert_eq!(origins, [Origin::Carved; 3]);
    // One more byte does not fit.
    let err = block.carve::<u8>("d", 1).unwrap_err();
    assert_eq!(
        err.to_string(),
        "array `d` needs 1 bytes but only 0 bytes of the dynamic shared memory given at launch are left"
    );
}

#[test]
fn the_misordered_carve_names_both_arrays_and_the_fix() {
    let mut block = SharedMemory::builder(SM90).launch(64).unwrap();
    block.carve::<u8>("c", 7).unwrap();
    let err = block.carve::<f32>("b", 5).unwrap_err();
    assert_eq!(
        err,
        Error::MisalignedCarve {
            name: "b".into(),
            element: "float",
            offset: 7,
            align: 4,
            previous: "c".into(),
            previous_element: "unsigned char",
            padded: 8,
        }
    );
    // Doubles after 6 shorts (12 bytes): pad to 16.
    let mut block = SharedMemory::builder(SM90).launch(64).unwrap();
    block.carve::<i16>("s", 6).unwrap();
    let err = block.carve::<f64>("d", 1).unwrap_err();
    assert!(
        err.to_string()
            .ends_with("carve `d` before `s`, or pad `s` to 16 bytes"),
        "{err}"
    );
}

#[test]
fn reads_are_checked_for_bounds_initialisation_and_ownership() {
    let mut block = SharedMemory::builder(SM90).launch(16).unwrap();
    let a = block.carve::<i32>("a", 4).unwrap();
    assert_eq!(
        block.read(a, 1).unwrap_err().to_string(),
        "uninitialized read: `a[1]` at shared address 0x404 was never written"
    );
    block.write(a, 1, -7).unwrap();
    assert_eq!(block.read(a, 1), Ok(-7));
    assert_eq!(
        block.write(a, 4, 0).unwrap_err().to_string(),
        "index 4 is out of bounds for array `a` of 4 elements"
    );
    let other = SharedMemory::builder(SM90).launch(16).unwrap();
    let err = other.read(a, 0).unwrap_err();
    assert!(matches!(err, Error::ForeignArray { .. }), "{err}");
    assert!(err
        .to_string()
        .starts_with("array handle from shared-memory arena "));
    // Writing part of a wider element leaves it uninitialised.
    let bytes = block.extern_array::<u8>("bytes").unwrap();
    let words = block.extern_array::<i32>("words").unwrap();
    block.write(bytes, 8, 1).unwrap();
    assert!(matches!(
        block.read(words, 2),
        Err(Error::Uninitialized { index: 2, .. })
    ));
}

#[test]
fn same_address_stores_follow_the_store_order() {
    let store = |order| {
        let mut block = SharedMemory::builder(SM90).launch(128).unwrap();
        let s = block.extern_array::<i32>("s").unwrap();
        // Every lane stores its number to s[lane / 16]: two elements, 16 writers each.
        let result = block
            .warp_store(
                s,
                |lane| Some((lane.index() / 16, lane.get() as i32)),
                order,
            )
            .unwrap();
        assert_eq!(result.collisions().len(), 2);
        assert_eq!(result.partition().wavefronts(), 1);
        (block.read(s, 0), block.read(s, 1))
    };
    assert_eq!(store(StoreOrder::LowestLane), (Ok(0), Ok(16)));
    assert_eq!(store(StoreOrder::HighestLane), (Ok(15), Ok(31)));
    let (first, _) = store(StoreOrder::Undefined);
    assert_eq!(
        first.unwrap_err().to_string(),
        "indeterminate read: `s[0]` was last written by 16 lanes of one store, and which write landed is undefined"
    );
}

#[test]
fn warp_accesses_are_partitioned_at_their_real_addresses() {
    // A 32x32 float tile, unpadded and padded: the column read is 32-way or free.
    for (pitch, wavefronts) in [(32, 32), (33, 1)] {
        let mut kernel = SharedMemory::builder(SM90);
        let tile = kernel.declare_2d::<f32>("tile", 32, pitch).unwrap();
        let mut block = kernel.launch(0).unwrap();
        for row in 0..32 {
            block
                .warp_store(
                    tile,
                    |lane| Some((tile.index(row, lane.index()).unwrap(), 1.0)),
                    StoreOrder::Undefined,
                )
                .unwrap();
        }
        let column = block
            .warp_load(tile, |lane| Some(tile.index(lane.index(), 0).unwrap()))
            .unwrap();
        assert_eq!(column.partition().wavefronts(), wavefronts, "pitch {pitch}");
        assert_eq!(column.values(), [Some(1.0); 32]);
    }
}

#[test]
fn kepler_bank_mode_applies_to_warp_accesses() {
    let mut block = SharedMemory::builder(ComputeCapability::Sm35)
        .launch(512)
        .unwrap();
    let s = block.extern_array::<f32>("s").unwrap();
    block
        .warp_store(
            s,
            |lane| Some((3 * lane.index(), 0.5)),
            StoreOrder::Undefined,
        )
        .unwrap();
    assert_eq!(
        block
            .warp_load(s, |lane| Some(3 * lane.index()))
            .unwrap()
            .partition()
            .wavefronts(),
        1
    );
    let eight =
        BankConfig::new(ComputeCapability::Sm35).with_shared_mem_config(SharedMemConfig::EightByte);
    block.set_bank_config(eight).unwrap();
    assert_eq!(block.bank_config().bank_width(), BankWidth::EightBytes);
    assert_eq!(
        block
            .warp_load(s, |lane| Some(3 * lane.index()))
            .unwrap()
            .partition()
            .wavefronts(),
        2
    );
    let err = block.set_bank_config(BankConfig::new(SM90)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "bank configuration for compute capability 9.0 used with shared memory of compute capability 3.5"
    );
}

#[test]
fn bad_sizes_are_typed_errors() {
    let mut kernel = SharedMemory::builder(SM90);
    assert_eq!(
        kernel.declare::<f32>("z", 0).unwrap_err().to_string(),
        "array `z` has zero elements"
    );
    assert_eq!(
        kernel
            .declare::<f64>("huge", usize::MAX)
            .unwrap_err()
            .to_string(),
        format!(
            "array `huge` of {} elements of 8 bytes overflows the 32-bit shared address space",
            usize::MAX
        )
    );
    assert!(matches!(
        kernel.declare_2d::<f32>("big", usize::MAX, 2),
        Err(Error::SizeOverflow { .. })
    ));
    // 48 KB of statics is allowed, one more element is not.
    kernel.declare::<f32>("full", 12 * 1024).unwrap();
    assert_eq!(
        kernel.declare::<u8>("one", 1).unwrap_err().to_string(),
        "49168 bytes of static shared memory exceed the 49152-byte static limit of compute capability 9.0; use dynamic shared memory and opt in"
    );
    assert_eq!(
        ElementType::new("float3", 12, 4).unwrap_err().to_string(),
        "element type `float3` has size 12 and alignment 4: both must be powers of two, the alignment at most the size"
    );
    let mut kernel = SharedMemory::builder(SM90);
    kernel.declare::<f32>("s", 1024).unwrap();
    // 4 KB static: the dynamic size may reach 223 KB with the opt-in, no further.
    kernel.opt_in(223 * 1024);
    assert!(kernel.launch(223 * 1024).is_ok());
    assert!(matches!(
        kernel.launch(223 * 1024 + 1),
        Err(Error::LaunchTooLarge { .. })
    ));
    kernel.opt_in(223 * 1024 + 1);
    assert!(matches!(
        kernel.launch(0),
        Err(Error::OptInTooLarge { max: 228352, .. })
    ));
}

/// A user's own element type of 12 bytes, like CUDA's `float3`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Float3([f32; 3]);

impl smem_model::Element for Float3 {
    const SIZE: u32 = 12;
    const ALIGN: u32 = 4;
    const NAME: &'static str = "float3";
    fn store(self, bytes: &mut [u8]) {
        for (v, chunk) in self.0.iter().zip(bytes.chunks_exact_mut(4)) {
            chunk.copy_from_slice(&v.to_le_bytes());
        }
    }
    fn load(bytes: &[u8]) -> Self {
        Float3(core::array::from_fn(|i| {
            f32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap())
        }))
    }
}

#[test]
fn element_types_whose_size_is_not_a_power_of_two_are_refused_everywhere() {
    let expected = Error::ElementSize {
        name: "float3".into(),
        size: 12,
        align: 4,
    };
    let mut kernel = SharedMemory::builder(SM90);
    assert_eq!(kernel.declare::<Float3>("v", 4).unwrap_err(), expected);
    let mut block = kernel.launch(48).unwrap();
    assert_eq!(block.carve::<Float3>("v", 4).unwrap_err(), expected);
    assert_eq!(block.extern_array::<Float3>("v").unwrap_err(), expected);
    assert_eq!(
        DynamicLayout::new().array::<Float3>("v", 4).unwrap_err(),
        expected
    );
}

#[test]
fn handles_from_another_block_of_the_same_kernel_are_refused() {
    let mut kernel = SharedMemory::builder(SM90);
    let tile = kernel.declare::<f32>("tile", 8).unwrap();
    let mut a = kernel.launch(64).unwrap();
    let mut b = kernel.launch(64).unwrap();
    let a_only = a.carve::<i32>("x", 4).unwrap();
    // Static arrays are the same in every block of the kernel.
    a.write(tile, 0, 1.0).unwrap();
    b.write(tile, 0, 2.0).unwrap();
    assert_eq!((a.read(tile, 0), b.read(tile, 0)), (Ok(1.0), Ok(2.0)));
    // A carved array is not: b has no slot for it (this used to panic) ...
    assert!(matches!(b.read(a_only, 0), Err(Error::ForeignArray { .. })));
    // ... nor one of another type at the same slot.
    b.carve::<u8>("y", 4).unwrap();
    assert!(matches!(b.name(a_only), Err(Error::ForeignArray { .. })));
    // A clone shares the handles carved before it, but not different carves after.
    let mut c = a.clone();
    assert_eq!(c.name(a_only), Ok("x"));
    let only_c = c.carve::<u16>("z", 2).unwrap();
    a.carve::<f64>("w", 1).unwrap();
    assert!(matches!(a.name(only_c), Err(Error::ForeignArray { .. })));
}

#[test]
fn subscripts_are_checked_one_by_one() {
    let mut kernel = SharedMemory::builder(SM90);
    let tile = kernel.declare_2d::<f32>("tile", 32, 33).unwrap();
    assert_eq!(
        tile.index(0, 33).unwrap_err().to_string(),
        "subscript [0][33] is out of bounds for an array of 32 x 33 elements"
    );
}

#[test]
fn indeterminate_bytes_are_tracked_through_aliases() {
    let mut block = SharedMemory::builder(SM90).launch(64).unwrap();
    let words = block.extern_array::<i32>("words").unwrap();
    let bytes = block.extern_array::<u8>("bytes").unwrap();
    let doubles = block.extern_array::<f64>("doubles").unwrap();
    // All lanes write byte 5: that byte, and any int or double holding it, is indeterminate.
    block
        .warp_store(
            bytes,
            |lane| Some((5, lane.get() as u8)),
            StoreOrder::Undefined,
        )
        .unwrap();
    block.write(words, 0, 7).unwrap();
    block.write(bytes, 6, 0).unwrap();
    block.write(bytes, 7, 0).unwrap();
    block.write(bytes, 4, 0).unwrap();
    assert_eq!(
        block.read(words, 1).unwrap_err().to_string(),
        "indeterminate read: `words[1]` was last written by 32 lanes of one store, and which write landed is undefined"
    );
    assert!(matches!(
        block.read(bytes, 5),
        Err(Error::IndeterminateValue { lanes: 32, .. })
    ));
    // A whole write through a wider alias settles it.
    block.write(doubles, 0, 1.5).unwrap();
    assert_eq!(block.read(words, 1).map(|_| ()), Ok(()));
    assert_eq!(block.read(bytes, 5).map(|_| ()), Ok(()));
}

/// An element type of `SIZE` bytes aligned to `ALIGN`, whatever those are: the
/// user's own `Element` implementations that `ElementType::of` does not check.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Odd<const SIZE: u32, const ALIGN: u32>;

impl<const SIZE: u32, const ALIGN: u32> smem_model::Element for Odd<SIZE, ALIGN> {
    const SIZE: u32 = SIZE;
    const ALIGN: u32 = ALIGN;
    const NAME: &'static str = "odd";
    fn store(self, _: &mut [u8]) {}
    fn load(_: &[u8]) -> Self {
        Odd
    }
}

#[test]
fn a_zero_size_element_type_is_refused_by_push_not_divided_by() {
    // `push` divided the array's bytes by the element size: a panic.
    let mut layout = DynamicLayout::new();
    assert_eq!(
        layout.push("e", ElementType::of::<Odd<0, 1>>(), 4),
        Err(Error::ElementSize {
            name: "odd".into(),
            size: 0,
            align: 1
        })
    );
    // An alignment of 0 underflowed the rounding.
    let err = layout
        .push("e", ElementType::of::<Odd<4, 0>>(), 4)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "element type `odd` has size 4 and alignment 0: both must be powers of two, the \
         alignment at most the size"
    );
    assert!(layout.arrays().is_empty());
    assert_eq!(layout.launch_bytes(), 0);
}

#[test]
fn sorting_by_alignment_never_grows_a_layout_nor_panics() {
    // Sizes that are not multiples of their alignment: in this order the three
    // arrays took 9 bytes, sorted by alignment they would take 10.
    let mut layout = DynamicLayout::new();
    layout.push("f", ElementType::of::<Odd<2, 2>>(), 1).unwrap();
    layout.push("g", ElementType::of::<u16>(), 1).unwrap();
    assert!(matches!(
        layout.push("e", ElementType::of::<Odd<5, 4>>(), 1),
        Err(Error::ElementSize {
            size: 5,
            align: 4,
            ..
        })
    ));
    assert!(layout.sorted_by_alignment().launch_bytes() <= layout.launch_bytes());
    // Near the top of the address space the re-push overflowed: a panic.
    let mut full = DynamicLayout::new();
    full.push("c", ElementType::of::<u8>(), 1).unwrap();
    full.push(
        "big",
        ElementType::of::<Odd<8, 8>>(),
        (u32::MAX / 8 - 1) as usize,
    )
    .unwrap();
    let sorted = full.sorted_by_alignment();
    assert_eq!(sorted.padding_bytes(), 0);
    assert!(sorted.launch_bytes() <= full.launch_bytes());
    let names: Vec<&str> = sorted.arrays().iter().map(|a| a.name()).collect();
    assert_eq!(names, ["big", "c"]);
}

/// The measured sm_90 store order, through the arena's functional stores:
/// `double` stores by lanes 5 and 20 to one element land lane 20's value (its
/// half-warp is served later); `float` stores, one phase, land lane 5's.
#[test]
fn the_measured_store_order_decides_the_value_read_back() {
    use smem_model::{ComputeCapability, SharedMemory, StoreOrder};
    let store = |width: u32| {
        let mut block = SharedMemory::builder(ComputeCapability::Sm90)
            .launch(1024)
            .unwrap();
        let value = |lane: smem_model::Lane| {
            let slot = if [5, 20].contains(&lane.get()) {
                0
            } else {
                lane.index() + 1
            };
            Some((slot, f64::from(lane.get())))
        };
        if width == 8 {
            let s = block.extern_array::<f64>("s").unwrap();
            block
                .warp_store(s, value, StoreOrder::LowestLaneOfLastPhase)
                .unwrap();
            block.read(s, 0).unwrap()
        } else {
            let s = block.extern_array::<f32>("s").unwrap();
            let value = |lane| value(lane).map(|(slot, v)| (slot, v as f32));
            block
                .warp_store(s, value, StoreOrder::LowestLaneOfLastPhase)
                .unwrap();
            f64::from(block.read(s, 0).unwrap())
        }
    };
    assert_eq!(store(8), 20.0);
    assert_eq!(store(4), 5.0);
}
