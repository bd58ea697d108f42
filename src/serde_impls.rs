//! `Serialize` and `Deserialize` for the public types whose values keep an
//! invariant (feature `serde`).
//!
//! Deserialisation goes through the same public constructors a program would
//! call, so it refuses exactly what they refuse, with the same [`Error`] as the
//! message: a lane of 32, a `Cost` whose ideal wavefronts exceed its
//! wavefronts, eight-byte banks on sm_90, a misaligned request, a swizzle whose
//! ranges overlap. What a value derives from the others (a partition's
//! transactions, a layout's offsets) is computed again, and when the input
//! gives it too it must agree. A partition's steps (`Transaction`) and the
//! results only ever computed by the model (`Advice`, `Candidate`,
//! `BankConflict`, `PlacedArray`, `Timing`) serialise only.
//!
//! The types without an invariant (`Op`, `Matrices`, `BankWidth`, `Launch`, ...)
//! derive both traits where they are defined.

use serde::de::{Deserializer, Error as _, IgnoredAny};
use serde::ser::{SerializeSeq, SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};

use crate::occupancy::OccupancyExtra;

use crate::{
    Advice, Bank, BankConfig, BankConflict, BankSet, BankWidth, Candidate, ComputeCapability,
    ConstantLoad, Cost, DynamicLayout, ElementType, Error, Lane, LaneSet, Occupancy,
    OccupancyLimit, Op, Partition, PlacedArray, SharedMemConfig, Swizzle, TileAccess, TileLayout,
    Timing, Transaction, WarpRequest, WriteCollision, WARP_SIZE,
};

/// The constructor's error as the deserialiser's, with the constructor's message.
fn invalid<E: serde::de::Error>(err: Error) -> E {
    E::custom(err)
}

/// A derived quantity the input gives, checked against the one computed.
fn agree(quantity: &'static str, given: Option<u64>, computed: u64) -> Result<(), Error> {
    match given {
        Some(given) if given != computed => Err(Error::Inconsistent {
            quantity,
            given,
            computed,
        }),
        _ => Ok(()),
    }
}

// ---------------------------------------------------------------- lanes, banks

impl<'de> Deserialize<'de> for Lane {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Lane::new(u32::deserialize(deserializer)?).map_err(invalid)
    }
}

impl Serialize for Lane {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u32(self.get())
    }
}

impl<'de> Deserialize<'de> for Bank {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Bank::checked(u32::deserialize(deserializer)?).map_err(invalid)
    }
}

impl Serialize for Bank {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u32(self.index() as u32)
    }
}

/// A bank set is the list of its banks, as a lane set is the list of its lanes.
impl Serialize for BankSet {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.len()))?;
        for bank in self.iter() {
            seq.serialize_element(&bank)?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for BankSet {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Banks;
        impl<'de> serde::de::Visitor<'de> for Banks {
            type Value = BankSet;
            fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str("a list of bank numbers from 0 to 31")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<BankSet, A::Error> {
                let mut set = BankSet::EMPTY;
                while let Some(bank) = seq.next_element::<Bank>()? {
                    set.insert(bank);
                }
                Ok(set)
            }
        }
        deserializer.deserialize_seq(Banks)
    }
}

// ---------------------------------------------------------------- BankConfig

#[derive(Serialize, Deserialize)]
#[serde(rename = "BankConfig")]
struct RawBankConfig {
    capability: ComputeCapability,
    bank_width: BankWidth,
}

impl Serialize for BankConfig {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        RawBankConfig {
            capability: self.capability(),
            bank_width: self.bank_width(),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for BankConfig {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = RawBankConfig::deserialize(deserializer)?;
        let mode = match raw.bank_width {
            BankWidth::FourBytes => SharedMemConfig::FourByte,
            BankWidth::EightBytes => SharedMemConfig::EightByte,
        };
        let config = BankConfig::new(raw.capability).with_shared_mem_config(mode);
        if config.bank_width() != raw.bank_width {
            return Err(invalid(Error::BankWidthUnsupported {
                width: raw.bank_width.bytes(),
                capability: raw.capability,
            }));
        }
        Ok(config)
    }
}

// ---------------------------------------------------------------- requests

#[derive(Serialize)]
#[serde(rename = "WarpRequest")]
struct RequestOut {
    op: Op,
    width: u32,
    addresses: [Option<u32>; WARP_SIZE],
}

#[derive(Deserialize)]
#[serde(rename = "WarpRequest", deny_unknown_fields)]
struct RequestIn {
    op: Op,
    width: u32,
    addresses: Vec<Option<u32>>,
}

/// A request is its op, its width in bytes and its 32 addresses, `null` for
/// an inactive lane: the arguments of [`WarpRequest::new`].
impl Serialize for WarpRequest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        RequestOut {
            op: self.op(),
            width: self.width().bytes(),
            addresses: self.to_array(),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for WarpRequest {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = RequestIn::deserialize(deserializer)?;
        WarpRequest::from_slice(raw.op, raw.width, &raw.addresses).map_err(invalid)
    }
}

#[derive(Serialize, Deserialize)]
#[serde(rename = "WriteCollision", deny_unknown_fields)]
struct RawCollision {
    address: u32,
    lanes: LaneSet,
    #[serde(default = "warp")]
    phase_lanes: u32,
}

fn warp() -> u32 {
    32
}

impl Serialize for WriteCollision {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        RawCollision {
            address: self.address(),
            lanes: self.lanes(),
            phase_lanes: self.phase_lanes(),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for WriteCollision {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = RawCollision::deserialize(deserializer)?;
        WriteCollision::checked(raw.address, raw.lanes, raw.phase_lanes).map_err(invalid)
    }
}

#[derive(Serialize)]
#[serde(rename = "ConstantLoad")]
struct ConstantOut {
    width: u32,
    addresses: [Option<u32>; WARP_SIZE],
}

#[derive(Deserialize)]
#[serde(rename = "ConstantLoad", deny_unknown_fields)]
struct ConstantIn {
    width: u32,
    addresses: Vec<Option<u32>>,
}

/// A constant load is its width and its 32 offsets in the constant bank,
/// `null` for an inactive lane: the arguments of [`ConstantLoad::from_fn`].
impl Serialize for ConstantLoad {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let addresses = core::array::from_fn(|lane| {
            let lane = LaneSet::from_bits(1 << lane);
            self.distinct_addresses(lane).first().copied()
        });
        ConstantOut {
            width: self.width().bytes(),
            addresses,
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ConstantLoad {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = ConstantIn::deserialize(deserializer)?;
        if raw.addresses.len() != WARP_SIZE {
            return Err(invalid(Error::LaneCount {
                given: raw.addresses.len(),
            }));
        }
        ConstantLoad::from_fn(raw.width, |lane| raw.addresses[lane.index()]).map_err(invalid)
    }
}

// ---------------------------------------------------------------- partitions

#[derive(Serialize, Deserialize)]
#[serde(rename = "Cost", deny_unknown_fields)]
struct RawCost {
    wavefronts: u32,
    ideal_wavefronts: u32,
    ways: u32,
    #[serde(default)]
    load_wavefronts: u32,
    #[serde(default = "one")]
    instructions: u32,
    #[serde(default = "yes")]
    visible_to_nsight: bool,
}

fn one() -> u32 {
    1
}

fn yes() -> bool {
    true
}

impl Serialize for Cost {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        RawCost {
            wavefronts: self.wavefronts(),
            ideal_wavefronts: self.ideal_wavefronts(),
            ways: self.ways(),
            load_wavefronts: self.load_wavefronts(),
            instructions: self.instructions(),
            visible_to_nsight: self.visible_to_nsight(),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Cost {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = RawCost::deserialize(deserializer)?;
        Cost::checked(
            raw.wavefronts,
            raw.ideal_wavefronts,
            raw.ways,
            raw.load_wavefronts,
            raw.instructions,
            raw.visible_to_nsight,
        )
        .map_err(invalid)
    }
}

/// One transaction: its lanes, phase, part and words (serialised only: a
/// transaction is one step of a partition, and is read back as part of it).
impl Serialize for Transaction {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = serializer.serialize_struct("Transaction", 4)?;
        out.serialize_field("lanes", &self.lanes())?;
        out.serialize_field("phase", &self.phase())?;
        out.serialize_field("part", &self.part())?;
        out.serialize_field("words", &self.words()[..])?;
        out.end()
    }
}

/// A partition is its configuration and request, with what the model computes
/// from them; reading one partitions the request again.
impl Serialize for Partition {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct All<'a>(&'a Partition);
        impl Serialize for All<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_seq(self.0.transactions())
            }
        }
        let mut out = serializer.serialize_struct("Partition", 7)?;
        out.serialize_field("config", &self.config())?;
        out.serialize_field("request", self.request())?;
        out.serialize_field("wavefronts", &self.wavefronts())?;
        out.serialize_field("ideal_wavefronts", &self.ideal_wavefronts())?;
        out.serialize_field("ways", &self.ways())?;
        out.serialize_field("classification", &self.classification())?;
        out.serialize_field("transactions", &All(self))?;
        out.end()
    }
}

#[derive(Deserialize)]
#[serde(rename = "Partition", deny_unknown_fields)]
struct PartitionIn {
    config: BankConfig,
    request: WarpRequest,
    #[serde(default)]
    wavefronts: Option<u32>,
    #[serde(default)]
    ideal_wavefronts: Option<u32>,
    #[serde(default)]
    ways: Option<u32>,
    #[serde(default)]
    classification: Option<crate::Classification>,
    // Recomputed from the request; their form is the serialised one, but it
    // is not read.
    #[serde(default)]
    transactions: Option<IgnoredAny>,
}

impl<'de> Deserialize<'de> for Partition {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = PartitionIn::deserialize(deserializer)?;
        let _ = raw.transactions;
        let partition = raw.config.partition(&raw.request).map_err(invalid)?;
        let check = || -> Result<(), Error> {
            let given = |count: Option<u32>| count.map(u64::from);
            agree(
                "wavefronts",
                given(raw.wavefronts),
                partition.wavefronts().into(),
            )?;
            agree(
                "ideal wavefronts",
                given(raw.ideal_wavefronts),
                partition.ideal_wavefronts().into(),
            )?;
            agree("ways", given(raw.ways), partition.ways().into())
        };
        check().map_err(invalid)?;
        if let Some(classification) = raw.classification {
            if classification != partition.classification() {
                return Err(D::Error::custom(format_args!(
                    "the classification given, {classification}, differs from the one computed \
                     from the request, {}",
                    partition.classification()
                )));
            }
        }
        Ok(partition)
    }
}

// ---------------------------------------------------------------- occupancy

#[derive(Serialize, Deserialize)]
#[serde(rename = "Occupancy", deny_unknown_fields)]
struct RawOccupancy {
    blocks_per_sm: u32,
    allocated_per_block: u32,
    carveout: u32,
    limit: OccupancyLimit,
    /// Absent in data written before the thread limits were modelled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    preferred_carveout: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    warps_per_block: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    max_warps_per_sm: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    allocated_registers_per_block: Option<u32>,
    /// Blocks each limit allows, in `OccupancyLimit::ALL`'s order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    allowed: Option<[Option<u32>; 5]>,
}

impl Serialize for Occupancy {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let extra = self.extra();
        RawOccupancy {
            blocks_per_sm: self.blocks_per_sm(),
            allocated_per_block: self.allocated_per_block(),
            carveout: self.carveout(),
            limit: self.limit(),
            preferred_carveout: Some(extra.preferred),
            warps_per_block: extra.warps.map(|w| w.0),
            max_warps_per_sm: extra.warps.map(|w| w.1),
            allocated_registers_per_block: extra.registers,
            allowed: Some(extra.allowed),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Occupancy {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = RawOccupancy::deserialize(deserializer)?;
        let warps = match (raw.warps_per_block, raw.max_warps_per_sm) {
            (Some(per_block), Some(max)) => Some((per_block, max)),
            (None, None) => None,
            _ => {
                return Err(invalid(Error::InvalidOccupancy {
                    blocks: raw.blocks_per_sm,
                    allocated: raw.allocated_per_block,
                    carveout: raw.carveout,
                }))
            }
        };
        let extra = raw.allowed.map(|allowed| OccupancyExtra {
            preferred: raw.preferred_carveout.unwrap_or(raw.carveout),
            warps,
            registers: raw.allocated_registers_per_block,
            allowed,
        });
        Occupancy::checked(
            raw.blocks_per_sm,
            raw.allocated_per_block,
            raw.carveout,
            raw.limit,
            extra,
        )
        .map_err(invalid)
    }
}

// ---------------------------------------------------------------- tiles

#[derive(Serialize, Deserialize)]
#[serde(rename = "Swizzle", deny_unknown_fields)]
struct RawSwizzle {
    bits: u32,
    base: u32,
    shift: u32,
}

impl Serialize for Swizzle {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        RawSwizzle {
            bits: self.bits(),
            base: self.base(),
            shift: self.shift(),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Swizzle {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = RawSwizzle::deserialize(deserializer)?;
        Swizzle::new(raw.bits, raw.base, raw.shift).map_err(invalid)
    }
}

#[derive(Serialize, Deserialize)]
#[serde(rename = "TileLayout", deny_unknown_fields)]
struct RawTile {
    rows: u32,
    cols: u32,
    element_bytes: u32,
    pitch: u32,
    #[serde(default)]
    swizzle: Option<Swizzle>,
    #[serde(default)]
    base: u32,
    /// `with_column_tiles`'s width; absent for a tile of one column tile.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tile_cols: Option<u32>,
}

/// A tile is the arguments of its builder calls: `new(rows, cols,
/// element_bytes)`, `with_column_tiles`, `with_pitch`, `with_swizzle`,
/// `with_base`.
impl Serialize for TileLayout {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        RawTile {
            rows: self.rows(),
            cols: self.cols(),
            element_bytes: self.element_bytes(),
            pitch: self.pitch(),
            swizzle: self.swizzle(),
            base: self.base(),
            tile_cols: (self.tile_cols() != self.cols()).then_some(self.tile_cols()),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for TileLayout {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = RawTile::deserialize(deserializer)?;
        let build = || -> Result<TileLayout, Error> {
            let mut tile = TileLayout::new(raw.rows, raw.cols, raw.element_bytes)?;
            if let Some(tile_cols) = raw.tile_cols {
                tile = tile.with_column_tiles(tile_cols)?;
            }
            tile = tile.with_pitch(raw.pitch)?;
            if let Some(swizzle) = raw.swizzle {
                tile = tile.with_swizzle(swizzle)?;
            }
            tile.with_base(raw.base)
        };
        build().map_err(invalid)
    }
}

#[derive(Serialize)]
#[serde(rename = "TileAccess")]
struct AccessOut {
    op: Op,
    #[serde(skip_serializing_if = "Option::is_none")]
    vector: Option<u32>,
    elements: [Option<(u32, u32)>; WARP_SIZE],
}

#[derive(Deserialize)]
#[serde(rename = "TileAccess", deny_unknown_fields)]
struct AccessIn {
    op: Op,
    #[serde(default)]
    vector: Option<u32>,
    elements: Vec<Option<(u32, u32)>>,
}

/// An access is its op, its vector (for loads and stores) and each lane's
/// `[row, column]`, `null` for an inactive lane: the arguments of
/// [`TileAccess::from_fn`].
impl Serialize for TileAccess {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        AccessOut {
            op: self.op(),
            vector: self.vector(),
            elements: core::array::from_fn(|lane| self.element(Lane::from_index(lane))),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for TileAccess {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = AccessIn::deserialize(deserializer)?;
        if raw.elements.len() != WARP_SIZE {
            return Err(invalid(Error::LaneCount {
                given: raw.elements.len(),
            }));
        }
        let vector = match (raw.op.fixed_width(), raw.vector) {
            (None, None) => return Err(D::Error::missing_field("vector")),
            (_, vector) => vector.unwrap_or(0),
        };
        Ok(TileAccess::from_fn(raw.op, vector, |lane| {
            raw.elements[lane.index()]
        }))
    }
}

impl Serialize for Timing {
    /// The pipe cycles, the one-warp latency (`null` for ops other than
    /// loads), and the cycles per instruction of 1, 4 and 16 warps as
    /// `{"warps": n, "latency": .., "throughput": ..}`, the figures the
    /// methods give.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct PerWarps {
            warps: u32,
            latency: Option<f64>,
            throughput: Option<f64>,
        }
        let per_warps: Vec<PerWarps> = [1, 4, 16]
            .into_iter()
            .map(|warps| PerWarps {
                warps,
                latency: self.latency_cycles_per_instruction(warps),
                throughput: self.throughput_cycles_per_instruction(warps),
            })
            .collect();
        let mut out = serializer.serialize_struct("Timing", 3)?;
        out.serialize_field("pipe_cycles", &self.pipe_cycles())?;
        out.serialize_field("latency", &self.latency())?;
        out.serialize_field("cycles_per_instruction", &per_warps)?;
        out.end()
    }
}

impl Serialize for Candidate {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = serializer.serialize_struct("Candidate", 5)?;
        out.serialize_field("fix", &self.fix())?;
        out.serialize_field("layout", &self.layout())?;
        out.serialize_field("wavefronts", &self.wavefronts())?;
        out.serialize_field("ideal_wavefronts", &self.ideal_wavefronts())?;
        out.serialize_field("extra_bytes", &self.extra_bytes())?;
        out.end()
    }
}

impl Serialize for BankConflict {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = serializer.serialize_struct("BankConflict", 7)?;
        out.serialize_field("access", &self.access())?;
        out.serialize_field("op", &self.op())?;
        out.serialize_field("phase", &self.phase())?;
        out.serialize_field("bank", &self.bank())?;
        out.serialize_field("lanes", &self.lanes())?;
        out.serialize_field("words", &self.words())?;
        out.serialize_field("ways", &self.ways())?;
        out.end()
    }
}

impl Serialize for Advice {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = serializer.serialize_struct("Advice", 4)?;
        out.serialize_field("config", &self.config())?;
        out.serialize_field("original", self.original())?;
        out.serialize_field("candidates", self.candidates())?;
        out.serialize_field("conflicts", self.conflicts())?;
        out.end()
    }
}

// ---------------------------------------------------------------- arena

#[derive(Serialize, Deserialize)]
#[serde(rename = "ElementType", deny_unknown_fields)]
struct RawElement {
    name: String,
    size: u32,
    align: u32,
}

impl Serialize for ElementType {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        RawElement {
            name: self.name().to_owned(),
            size: self.size(),
            align: self.align(),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ElementType {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = RawElement::deserialize(deserializer)?;
        ElementType::new(raw.name, raw.size, raw.align).map_err(invalid)
    }
}

/// One array of a layout: its name, element type and length, with the offset
/// and padding the layout gave it.
impl Serialize for PlacedArray {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = serializer.serialize_struct("PlacedArray", 5)?;
        out.serialize_field("name", self.name())?;
        out.serialize_field("element", self.element())?;
        out.serialize_field("len", &self.len())?;
        out.serialize_field("offset", &self.offset())?;
        out.serialize_field("padding_before", &self.padding_before())?;
        out.end()
    }
}

#[derive(Deserialize)]
#[serde(rename = "PlacedArray", deny_unknown_fields)]
struct ArrayIn {
    name: String,
    element: ElementType,
    len: u32,
    #[serde(default)]
    offset: Option<u32>,
    #[serde(default)]
    padding_before: Option<u32>,
}

/// A layout is its arrays in order; reading one pushes them again.
impl Serialize for DynamicLayout {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = serializer.serialize_struct("DynamicLayout", 2)?;
        out.serialize_field("arrays", self.arrays())?;
        out.serialize_field("launch_bytes", &self.launch_bytes())?;
        out.end()
    }
}

#[derive(Deserialize)]
#[serde(rename = "DynamicLayout", deny_unknown_fields)]
struct LayoutIn {
    arrays: Vec<ArrayIn>,
    #[serde(default)]
    launch_bytes: Option<u32>,
}

impl<'de> Deserialize<'de> for DynamicLayout {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = LayoutIn::deserialize(deserializer)?;
        let build = || -> Result<DynamicLayout, Error> {
            let mut layout = DynamicLayout::new();
            for array in raw.arrays {
                let placed = layout.push(&array.name, array.element, array.len as usize)?;
                let given = |value: Option<u32>| value.map(u64::from);
                agree("offset", given(array.offset), placed.offset().into())?;
                agree(
                    "padding",
                    given(array.padding_before),
                    placed.padding_before().into(),
                )?;
            }
            let given = raw.launch_bytes.map(u64::from);
            agree("launch bytes", given, layout.launch_bytes().into())?;
            Ok(layout)
        };
        build().map_err(invalid)
    }
}
