"""Shared-memory bank conflicts and wavefronts per CUDA compute capability.

Every function takes the arch (`"sm_90"`, `"8.6"`, `"compute_75"`, a GPU as
`torch.cuda.get_device_name()` names it, `"NVIDIA H100 80GB HBM3"`, or the
`(major, minor)` pair `torch.cuda.get_device_capability()` gives), the op
(SASS `"LDS"`, `"STS"`, `"ATOMS.CAS"`, `"RED.ADD"`, `"LDSM.x4"`, `"STSM.x2"`,
`"LDGSTS"` or PTX-like `"load"`, `"store"`, `"atom.add.u64"`, `"red.add.f32"`,
`"ldmatrix.x4"`, `"stmatrix.x2"`, `"cp.async.cg"`, in any case; a bare
`"atomic"` is an atomic add; names as traces, SASS and PTX spell them,
`"LDS.U.128"`, `"ATOMS.CAS.64"`, `"LDSM.16.MT88.4"`, `"ld.shared.v4.f32"`,
whose width must agree with the width given), the access width in bytes
(1, 2, 4, 8 or 16), and 32 addresses: byte offsets into the shared window, `None` for an inactive
lane. With `base=`, the addresses are generic ones, translated into the 4 GiB
shared window that starts there. `bank_bytes=8` selects Kepler's eight-byte
bank mode (no effect elsewhere).

Bad input raises `ValueError` with the model's message (an integer out of
range names its argument), or `TypeError` for a value of the wrong type;
messages quote at most 64 characters of what was given, and a sequence's
length is checked before any of it is read.
"""

import os
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union, final

import numpy as np
import numpy.typing as npt

_Arch = Union[str, Tuple[int, int]]

__all__ = [
    "__version__",
    "WARP_SIZE",
    "wavefronts",
    "cost",
    "partition",
    "timing",
    "Timing",
    "Cost",
    "Transaction",
    "Partition",
    "wavefronts_batch",
    "cost_batch",
    "COST_FIELDS",
    "Swizzle",
    "TileAccess",
    "TileLayout",
    "Candidate",
    "Advice",
    "advise",
    "Block",
    "BlockReport",
    "Hazard",
    "HazardAccess",
    "Occupancy",
    "occupancy",
    "TraceTotals",
    "TraceSummary",
    "read_trace",
    "merge_summaries",
    "KernelRun",
    "kernel",
    "triton_kernel",
]

__version__: str
WARP_SIZE: int
COST_FIELDS: Tuple[str, str, str, str]

@final
class Cost:
    """What a request costs: wavefronts, ideal wavefronts, bank conflicts, ways."""

    @property
    def wavefronts(self) -> int:
        """Wavefronts (transactions): Nsight Compute's wavefronts counter."""
    @property
    def ideal_wavefronts(self) -> int:
        """The wavefronts without bank conflicts."""
    @property
    def bank_conflicts(self) -> int:
        """`wavefronts - ideal_wavefronts`: Nsight Compute's bank-conflict counter."""
    @property
    def ways(self) -> int:
        """Steps of the busiest phase: the n of an n-way conflict."""

@final
class Timing:
    """What one instruction costs in cycles on sm_90 (measured; `None` where a
    figure was not measured for the op, never a guess)."""

    @property
    def pipe_cycles(self) -> int:
        """Cycles the SM's shared pipe is busy: one per wavefront."""
    @property
    def latency(self) -> Optional[float]:
        """Cycles from issue to the loaded value for one warp alone (loads only)."""
    @property
    def latency_cycles_per_instruction(self) -> Optional[float]:
        """Cycles per instruction with `warps` warps each in a dependent chain
        (loads only)."""
    @property
    def throughput_cycles_per_instruction(self) -> Optional[float]:
        """Cycles per instruction with `warps` warps issuing it independently: the
        pipe's bound, measured within 2% from 12 warps on; `None` where the model
        claims nothing (fewer than 12 warps, 8-byte loads whose half-warps merge)."""
    @property
    def warps(self) -> int:
        """The warps of one SM the figures are for."""

@final
class Transaction:
    """One wavefront: the lanes it serves, the banks and words it touches.

    On 1.x a lane is in one transaction per 4-byte part of a wide access; on
    2.x a 128-bit access has transactions that serve no lane.
    """

    @property
    def lanes(self) -> List[int]:
        """The lanes served, ascending."""
    @property
    def banks(self) -> List[int]:
        """The banks touched, ascending."""
    @property
    def words(self) -> List[int]:
        """The bank words accessed (byte address // bank width), by bank then word."""
    @property
    def phase(self) -> int:
        """The phase, counting from 0."""
    @property
    def part(self) -> int:
        """The 4-byte part of each lane's access it moves (1.x), else 0."""

@final
class Partition:
    """A request split into its transactions, with its totals."""

    @property
    def transactions(self) -> List[Transaction]:
        """The transactions in the order served."""
    @property
    def wavefronts(self) -> int:
        """Wavefronts (transactions): Nsight Compute's wavefronts counter."""
    @property
    def ideal_wavefronts(self) -> int:
        """The wavefronts without bank conflicts."""
    @property
    def bank_conflicts(self) -> int:
        """`wavefronts - ideal_wavefronts`: Nsight Compute's bank-conflict counter."""
    @property
    def ways(self) -> int:
        """Steps of the busiest phase: the n of an n-way conflict."""
    @property
    def classification(self) -> str:
        """`"empty"`, `"broadcast"`, `"parallel"`, `"conflicted (n-way)"` or
        `"serial (n-way)"`."""
    @property
    def distinct_bytes(self) -> int:
        """The distinct bytes the request moves (a broadcast word counted once)."""
    @property
    def bandwidth_fraction(self) -> Optional[float]:
        """The bank bandwidth used: distinct bytes over what the wavefronts could
        move (1.0 conflict-free and full; `None` for a warp with no lane)."""
    def __len__(self) -> int: ...

def wavefronts(
    arch: _Arch,
    op: str,
    width: int,
    addresses: Sequence[Optional[int]],
    *,
    base: Optional[int] = None,
    bank_bytes: int = 4,
) -> int:
    """The wavefronts (transactions) of one warp instruction: Nsight Compute's
    wavefronts counter for it."""

def cost(
    arch: _Arch,
    op: str,
    width: int,
    addresses: Sequence[Optional[int]],
    *,
    base: Optional[int] = None,
    bank_bytes: int = 4,
) -> Cost:
    """Wavefronts, ideal wavefronts, bank conflicts and ways of one warp instruction."""

def partition(
    arch: _Arch,
    op: str,
    width: int,
    addresses: Sequence[Optional[int]],
    *,
    base: Optional[int] = None,
    bank_bytes: int = 4,
) -> Partition:
    """The transactions of one warp instruction, in the order served."""

def timing(
    arch: _Arch,
    op: str,
    width: int,
    addresses: Sequence[Optional[int]],
    *,
    warps: int = 1,
    base: Optional[int] = None,
    bank_bytes: int = 4,
) -> Timing:
    """The cycles of one warp instruction on sm_90 with `warps` warps (1 to 64)
    of one SM running it; `ValueError` on other capabilities (not measured)."""

def wavefronts_batch(
    arch: _Arch,
    op: str,
    width: int,
    addresses: npt.NDArray[np.integer[Any]],
    masks: Union[None, int, npt.NDArray[np.uint32]] = None,
    *,
    base: Optional[int] = None,
    bank_bytes: int = 4,
) -> npt.NDArray[np.uint32]:
    """The wavefronts of each of N warp instructions of one op and width:
    `addresses` an N x 32 array (uint32 offsets, or int64/uint64/int32), one
    row a request; `masks` None (every lane active), one int for every row,
    or N uint32 masks, bit i for lane i (an inactive lane's address is not
    read). Returns N uint32. A bad row raises `ValueError` naming the row."""

def cost_batch(
    arch: _Arch,
    op: str,
    width: int,
    addresses: npt.NDArray[np.integer[Any]],
    masks: Union[None, int, npt.NDArray[np.uint32]] = None,
    *,
    base: Optional[int] = None,
    bank_bytes: int = 4,
) -> npt.NDArray[np.uint32]:
    """The costs of N warp instructions, as `wavefronts_batch` takes them:
    an N x 4 uint32 array whose columns are `COST_FIELDS` (wavefronts, ideal
    wavefronts, bank conflicts, ways)."""

@final
class Swizzle:
    """An XOR swizzle of byte or element offsets, CuTe's `Swizzle<B, M, S>`:
    `bits` bits (B) from bit `base + shift` (M + S) are XORed into the bits
    from `base` (M) up."""

    def __new__(cls, bits: int, base: int, shift: int) -> Swizzle: ...
    def apply(self, offset: int) -> int:
        """The offset `offset` moves to."""
    @property
    def bits(self) -> int:
        """The number of bits XORed (B)."""
    @property
    def base(self) -> int:
        """The lowest bit changed (M)."""
    @property
    def shift(self) -> int:
        """How far above the changed bits the bits XORed into them are (S)."""
    def __eq__(self, value: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class TileAccess:
    """The elements of a tile one warp instruction touches: lane `l` at
    `elements[l]`, a `(row, col)` pair or `None`, `vector` elements each."""

    def __new__(
        cls,
        elements: Sequence[Optional[Tuple[int, int]]],
        *,
        vector: int = 1,
        op: str = "load",
    ) -> TileAccess: ...
    @staticmethod
    def row(row: int, col: int = 0, *, vector: int = 1, op: str = "load") -> TileAccess:
        """Along a row: lane l at `(row, col + l * vector)`."""
    @staticmethod
    def column(col: int, row: int = 0, *, vector: int = 1, op: str = "load") -> TileAccess:
        """Down a column: lane l at `(row + l, col)`."""
    @staticmethod
    def diagonal(row: int = 0, col: int = 0, *, vector: int = 1, op: str = "load") -> TileAccess:
        """Along the diagonal: lane l at `(row + l, col + l * vector)`."""
    @staticmethod
    def transposed_copy(index: int) -> Tuple[TileAccess, TileAccess]:
        """Step `index` of an in-place transpose of a 32 x 32 tile: row `index`
        read, column `index` written."""
    @staticmethod
    def ldmatrix_tile(rows: int, cols: int, element_bytes: int) -> List[TileAccess]:
        """The `ldmatrix` loads of a whole `rows` x `cols` tile of
        `element_bytes` elements: 16x16 blocks by `ldmatrix.x4`, the rest by
        `.x2` or `.x1`, as a kernel reads a tile into fragments."""
    @property
    def elements(self) -> List[Optional[Tuple[int, int]]]:
        """The `(row, col)` of each lane, `None` where a lane is inactive."""

_Accesses = Sequence[Union[TileAccess, Tuple[TileAccess, ...]]]

@final
class TileLayout:
    """A tile's layout in shared memory: `rows` x `cols` elements of
    `element_bytes`, with padding after each row, an XOR swizzle, a TMA mode,
    Triton's swizzled shared encoding (`triton_shared=(vec, perPhase,
    maxPhase)`) or NVMMA shared encoding (`nvmma_swizzle=` bytes; rows wider
    than the swizzle are stored as column tiles of its width, as Triton
    does), and the tile's base address."""

    def __new__(
        cls,
        rows: int,
        cols: int,
        element_bytes: int,
        *,
        padding: int = 0,
        swizzle: Optional[Swizzle] = None,
        tma_swizzle: Union[None, int, str] = None,
        triton_shared: Optional[Tuple[int, int, int]] = None,
        nvmma_swizzle: Optional[int] = None,
        base: int = 0,
    ) -> TileLayout: ...
    def offset(self, row: int, col: int) -> int:
        """The byte offset of element `(row, col)` from the tile's start."""
    def address(self, row: int, col: int) -> int:
        """The shared address of element `(row, col)`: the base plus its offset."""
    def wavefronts(self, arch: _Arch, accesses: _Accesses) -> List[int]:
        """The wavefronts of each access on `arch`, in order."""
    @property
    def rows(self) -> int:
        """Rows."""
    @property
    def cols(self) -> int:
        """Columns."""
    @property
    def pitch(self) -> int:
        """Elements from one row's start to the next's: the row (a column
        tile's, if any) plus padding."""
    @property
    def tile_cols(self) -> int:
        """Columns one row of storage holds: all of them, or the width of the
        column tiles a wide NVMMA-swizzled tile is stored as."""
    @property
    def padding(self) -> int:
        """Elements of padding after each row."""
    @property
    def element_bytes(self) -> int:
        """Bytes per element."""
    @property
    def swizzle(self) -> Optional[Swizzle]:
        """The XOR swizzle of element offsets, if any (a TMA mode is one too)."""
    @property
    def base(self) -> int:
        """The tile's first byte in shared memory."""
    @property
    def bytes(self) -> int:
        """Bytes the tile occupies, padding included."""
    @property
    def extra_bytes(self) -> int:
        """Bytes beyond the packed tile (the padding)."""
    @property
    def index_formula(self) -> str:
        """The element index of `(row, col)` as a kernel writes it:
        `"row * 33 + col"`, `"row * 64 + (col ^ ((row % 8) * 8))"`."""

@final
class Candidate:
    """One layout the advisor tried, with what the accesses cost under it."""

    @property
    def fix(self) -> str:
        """The fix, as the advisor prints it (`"as given"`, `"1 element of
        padding per row"`, `"Swizzle<5,0,5>"`, `"TMA 128B swizzle"`)."""
    @property
    def name(self) -> str:
        """The fix with a TMA mode's XOR swizzle beside it (`"TMA 128B swizzle
        = Swizzle<3,3,3>"`)."""
    @property
    def layout(self) -> TileLayout:
        """The layout with the fix applied."""
    @property
    def wavefronts(self) -> int:
        """The accesses' wavefronts under it."""
    @property
    def ideal_wavefronts(self) -> int:
        """Their wavefronts without bank conflicts."""
    @property
    def bank_conflicts(self) -> int:
        """`wavefronts - ideal_wavefronts`."""
    @property
    def is_conflict_free(self) -> bool:
        """Whether no access conflicts."""
    @property
    def extra_bytes(self) -> int:
        """Bytes it costs beyond the packed tile."""

@final
class Advice:
    """The advisor's answer: the layout as given, the layouts it tried (best
    first), and why the given one conflicts; `str()` prints it as `smem
    advise` does."""

    @property
    def original(self) -> Candidate:
        """The layout as given."""
    @property
    def best(self) -> Candidate:
        """The best layout tried."""
    @property
    def candidates(self) -> List[Candidate]:
        """Every layout tried, best first."""
    @property
    def conflicts(self) -> List[str]:
        """Why the layout as given conflicts, one line each."""

def advise(arch: _Arch, layout: TileLayout, accesses: _Accesses) -> Advice:
    """Ranks paddings and swizzles of `layout` for `accesses` on `arch`: the
    advisor of `smem advise`."""

@final
class Block:
    """A thread block of `threads` threads (warps of 32) on `arch`, fed its warps'
    shared accesses and barriers in program order per warp; `finish()` says
    which pairs of accesses race and which barriers are misused. At most
    `max_hazards` races are listed (default 4096); past it they are counted
    (`BlockReport.hazards_not_listed`), so memory stays bounded."""

    def __new__(cls, arch: _Arch, threads: int, *, max_hazards: int = 4096) -> Block: ...
    def access(
        self,
        warp: int,
        op: str,
        width: int,
        addresses: Sequence[Optional[int]],
        *,
        site: int = 0,
        base: Optional[int] = None,
    ) -> None:
        """Warp `warp` executes a shared-memory instruction (as `wavefronts` takes
        it) at `site`, a number naming the place in the program."""
    def syncthreads(self, *, site: int = 0) -> None:
        """Every warp executes `__syncthreads()` at `site`, all lanes together."""
    def barrier(self, warp: int, *, lanes: int = 0xFFFFFFFF, site: int = 0) -> None:
        """The lanes `lanes` (a 32-bit mask) of warp `warp` reach `__syncthreads()`
        at `site`: the barrier in divergent code."""
    def named_barrier(
        self, warp: int, id: int, threads: int, *, lanes: int = 0xFFFFFFFF, site: int = 0
    ) -> None:
        """Warp `warp` executes `bar.sync id, threads` at `site`."""
    def arrive(
        self, warp: int, id: int, threads: int, *, lanes: int = 0xFFFFFFFF, site: int = 0
    ) -> None:
        """Warp `warp` executes `bar.arrive id, threads` at `site`: its arrival
        counts toward the barrier but it does not wait (the producer side)."""
    def cp_async_commit(self, warp: int, *, site: int = 0) -> None:
        """Warp `warp` executes `cp.async.commit_group` at `site`."""
    def cp_async_wait(
        self, warp: int, pending: int = 0, *, lanes: int = 0xFFFFFFFF, site: int = 0
    ) -> None:
        """The lanes `lanes` of warp `warp` execute `cp.async.wait_group pending`
        at `site` (`pending` 0: `cp.async.wait_all`)."""
    def syncwarp(self, warp: int, mask: int = 0xFFFFFFFF, *, site: int = 0) -> None:
        """Warp `warp` executes `__syncwarp(mask)` at `site`."""
    def fence(self, warp: int, *, site: int = 0) -> None:
        """Warp `warp` executes `__threadfence_block()` at `site` (orders, never
        synchronises)."""
    def finish(self) -> BlockReport:
        """The races and barrier errors found; the block takes no more events."""
    @property
    def warps(self) -> int:
        """The block's warps."""

@final
class HazardAccess:
    """One side of a race: where, which thread, what kind of access."""

    @property
    def site(self) -> int:
        """The site (as given to `Block.access`)."""
    @property
    def warp(self) -> int:
        """The warp."""
    @property
    def lane(self) -> int:
        """The lane in its warp."""
    @property
    def thread(self) -> int:
        """The thread in the block: `32 * warp + lane`."""
    @property
    def access(self) -> str:
        """`"read"`, `"write"` or `"atomic"`, as the report prints it."""

@final
class Hazard:
    """Two accesses of different threads to the same bytes with no barrier
    between them, at least one a write."""

    @property
    def kind(self) -> str:
        """The kind of race, as the report prints it."""
    @property
    def severity(self) -> str:
        """`"error"` or `"warning"`, as the report prints it."""
    @property
    def first(self) -> HazardAccess:
        """The earlier access."""
    @property
    def second(self) -> HazardAccess:
        """The later access."""
    @property
    def address(self) -> int:
        """The first byte both touch."""
    @property
    def bytes(self) -> int:
        """The bytes both touch."""
    @property
    def text(self) -> str:
        """The line the report prints for it."""

@final
class BlockReport:
    """What `Block.finish()` found."""

    @property
    def hazards(self) -> List[Hazard]:
        """The races listed: at most the block's `max_hazards`."""
    @property
    def hazards_not_listed(self) -> int:
        """The races found past `max_hazards`, one a pair of sites: counted,
        not listed."""
    @property
    def barrier_errors(self) -> List[str]:
        """The barrier errors, one line each, in the order found."""
    @property
    def is_clean(self) -> bool:
        """Whether nothing was found."""
    @property
    def text(self) -> str:
        """The report as `smem racecheck` prints it."""

@final
class Occupancy:
    """Blocks per SM of a launch, as NVIDIA's occupancy calculator counts them."""

    @property
    def blocks_per_sm(self) -> int:
        """Blocks one SM runs at once."""
    @property
    def allocated_per_block(self) -> int:
        """Shared bytes allocated a block: its static and dynamic bytes, the
        reserved 1 KB (8.0 on), rounded up to the allocation unit."""
    @property
    def carveout(self) -> int:
        """The carveout (shared memory per SM) the driver picks, in bytes."""
    @property
    def carveout_overridden(self) -> bool:
        """Whether the driver picked another carveout than the one preferred."""
    @property
    def limit(self) -> str:
        """What bounds the blocks, as `smem occupancy` prints it."""
    @property
    def limits(self) -> List[str]:
        """Every limit that binds (several may allow the same blocks)."""
    @property
    def warps_per_block(self) -> Optional[int]:
        """Warps a block (with `threads`), else `None`."""
    @property
    def warps_per_sm(self) -> Optional[int]:
        """Warps an SM runs at once (with `threads`), else `None`."""
    @property
    def percent(self) -> Optional[float]:
        """Occupancy in percent of the SM's most warps (with `threads`), else `None`."""

def occupancy(
    arch: _Arch,
    static_bytes: int = 0,
    dynamic_bytes: int = 0,
    *,
    threads: Optional[int] = None,
    registers: int = 0,
    opt_in: Optional[int] = None,
    carveout: Optional[int] = None,
) -> Occupancy:
    """The occupancy of a launch with `static_bytes` of `__shared__` arrays and
    `dynamic_bytes` given at launch; with `threads` (and `registers` a thread,
    0 for none known) also the SM's warps and registers; `opt_in` the
    `cudaFuncAttributeMaxDynamicSharedMemorySize` set, `carveout` the
    `cudaFuncAttributePreferredSharedMemoryCarveout` percentage."""

@final
class TraceTotals:
    """Sums over a trace's shared-memory requests."""

    @property
    def requests(self) -> int:
        """Requests (warp instructions with at least one active lane)."""
    @property
    def wavefronts(self) -> int:
        """Wavefronts."""
    @property
    def ideal_wavefronts(self) -> int:
        """Wavefronts without bank conflicts."""
    @property
    def bank_conflicts(self) -> int:
        """Bank conflicts: wavefronts less ideal wavefronts."""
    @property
    def conflicted_requests(self) -> int:
        """Requests with at least one bank conflict."""
    @property
    def worst_ways(self) -> int:
        """The worst request's ways (the busiest phase's steps)."""
    def __eq__(self, value: object, /) -> bool: ...

@final
class TraceSummary:
    """What a reading of trace files adds up to: the totals, the totals per op
    and width, and the counts of what was read. Two summaries `merge` into
    the summary of both readings, exactly; a summary pickles (for Dask)."""

    @property
    def totals(self) -> TraceTotals:
        """The sums over every request."""
    @property
    def by_op(self) -> Dict[str, TraceTotals]:
        """The sums per op and width, keyed `"LDS.128"`-style (op, then the
        access width in bits)."""
    @property
    def counts(self) -> Dict[str, int]:
        """Files, lines, kernels, blocks, instructions, other instructions (no
        shared access, no barrier), predicated-off accesses, constant loads and
        errors (lines or requests that could not be read or modelled) read."""
    @property
    def unmodelled(self) -> Dict[str, int]:
        """Instructions seen but not modelled (TMA, GMMA, mbarrier, LDGSTS),
        counted by name."""
    @property
    def counters(self) -> List[Dict[str, Any]]:
        """Each Nsight Compute counter predicted (compute capability 7.0 and
        later), as `smem trace --json` gives them in `ncu_metrics`, by counter
        name: one dict each, with `metric`, `total` (the model's total it
        holds), `relation` (`equal`: the counter's value; `at_least`: a lower
        bound; `estimate`) and `predicted`; merged summaries add them, keeping
        the weaker relation."""
    def merge(self, other: TraceSummary) -> TraceSummary:
        """The summary of both readings: every sum and count added (the library's
        `Totals::merge`; the worst ways the larger)."""
    def to_dict(self) -> Dict[str, Any]:
        """The summary as plain Python data (what it pickles as)."""
    @staticmethod
    def from_dict(data: Dict[str, Any]) -> TraceSummary:
        """The summary `to_dict` gave; `ValueError` naming the first field that
        is missing or not a count."""
    def __eq__(self, value: object, /) -> bool: ...
    def __reduce__(self) -> Tuple[Any, Tuple[Dict[str, Any]]]: ...

_Path = Union[str, "os.PathLike[str]"]

def read_trace(paths: Union[_Path, Sequence[_Path]], *, arch: Optional[_Arch] = None) -> TraceSummary:
    """Reads the Accel-Sim / NVBit trace files `paths` (one path or several: a
    kernel's `.traceg`, a raw `.trace`, a `kernelslist.g`, any of them
    xz-compressed), predicting each request on `arch` (default: each
    kernel's own, from its header), and returns what they add up to (what
    `smem trace` prints as totals). The GIL is released while reading."""

def merge_summaries(summaries: Sequence[TraceSummary]) -> TraceSummary:
    """The merge of any number of summaries (`TraceSummary.merge` in turn); an
    empty list gives the empty summary."""

@final
class KernelRun:
    """What interpreting a launch found."""

    @property
    def name(self) -> str:
        """The kernel's name in the PTX (mangled)."""
    @property
    def summary(self) -> TraceSummary:
        """What its shared accesses add up to, as `read_trace` gives a trace's."""
    @property
    def blocks_run(self) -> int:
        """Blocks interpreted."""
    @property
    def blocks_total(self) -> int:
        """Blocks in the grid: more than `blocks_run` when sampled."""
    @property
    def sampled(self) -> bool:
        """Whether only a sample of the grid ran (the totals are the sample's)."""
    @property
    def warp_instructions(self) -> int:
        """Warp instructions interpreted."""
    @property
    def notes(self) -> List[str]:
        """What could not be followed exactly, one line an instruction, with
        which way the interpreter went and what that may change
        (`"line 41: ld.shared.u32: data-dependent address (64 warp executions):
        the address comes from memory the model does not hold ..."`)."""
    @property
    def opaque(self) -> Dict[str, int]:
        """The PTX instructions the interpreter does not evaluate (their results
        unknown; none touches shared memory), by opcode, with how often each
        occurs in the kernel and the functions it calls."""
    @property
    def races(self) -> List[Dict[str, Any]]:
        """The races the race checker found (`smem racecheck`'s model), as
        `smem kernel --json` gives them: one dict a hazard, with `kind`,
        `severity`, `first` and `second` (each `ptx_line`, `source_line`,
        `warp`, `lane`, `thread`, `access`), `bytes`, `blocks`,
        `example_block`, `example_address`; at most 4096 (`smem kernel`'s
        default `--max`), the rest counted in `hazards_not_listed`."""
    @property
    def hazards_not_listed(self) -> int:
        """The races found past the 4096 listed, one a pair of instructions:
        counted, not kept (`smem kernel --json`'s `hazards_not_listed`)."""
    @property
    def barrier_errors(self) -> List[Dict[str, Any]]:
        """The barrier errors it found, as `smem kernel --json` gives them: one
        dict each, with `message`, `error` (its fields), `blocks`,
        `example_block`."""
    @property
    def counters(self) -> List[Dict[str, Any]]:
        """Each Nsight Compute counter predicted, as `smem kernel --json` gives
        them in `ncu_metrics`: one dict each, with `metric`, `total`,
        `relation` (`equal`: the counter's value; `at_least`: a lower bound;
        `estimate`), `predicted`, and `reason`, `not_costed` and `range` (an
        estimate's least and most, `[low, high]`) where they apply; empty
        before compute capability 7.0."""
    @property
    def ncu(self) -> Optional[Dict[str, Any]]:
        """The comparison with the profile given as `ncu=` (None without), as
        `smem kernel --ncu --json` gives it in `ncu_comparison`: `launch_id`,
        `launch_kernel`, `counters` (each `metric`, `total`, `relation`,
        `predicted`, `range`, `measured`, `holds`), `units` (each `unit`,
        `unit_conflicts`, `layout`, `arbitration`, `unexplained`, ...),
        `source_by_kind` and `source_lines` (with a Source page), and
        `absent`: the counters the export lacks (not compared, `measured`
        None)."""
    @property
    def arch(self) -> str:
        """The compute capability predicted on (`"sm_90"`): the one given, else
        the GPU the `ncu=` export was measured on, else what Triton compiled
        for, else the PTX's `.target`, else sm_90 (as `smem kernel`)."""
    @property
    def needs_opt_in(self) -> bool:
        """Whether the launch's shared memory is more than a block gets without
        the opt-in: it runs on the GPU only after `cudaFuncSetAttribute(kernel,
        cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)` (as `smem kernel
        --json`'s `needs_opt_in`)."""
    @property
    def estimated_totals(self) -> Optional[Dict[str, Any]]:
        """With `sample`: the totals estimated for the whole grid, as `smem
        kernel --json`'s `estimated_totals` (`scale`, `requests`, `wavefronts`,
        `ideal_wavefronts`, `bank_conflicts`, each the sample's scaled by
        `blocks_total / blocks_run`); None when every block ran."""
    @property
    def by_line(self) -> List[Dict[str, Any]]:
        """The source lines (the PTX's `.loc`), most bank conflicts first, as
        `smem kernel --by-line --json` gives them: one dict a line, with
        `source_line` (`"k.cu:12"`, `None` for instructions without one),
        `instructions` and the line's totals."""

_Dims = Union[int, Tuple[int], Tuple[int, int], Tuple[int, int, int]]
_KernelArgs = Union[None, Dict[Union[str, int], Any], Sequence[Any]]

def kernel(
    ptx: Union[str, _Path],
    grid: _Dims,
    block: Optional[_Dims] = None,
    args: _KernelArgs = None,
    *,
    kernel: Optional[str] = None,
    dynamic_shared: Optional[int] = None,
    arch: Optional[_Arch] = None,
    sample: Optional[int] = None,
    ncu: Union[None, _Path, Sequence[_Path]] = None,
    ncu_id: Optional[int] = None,
    tensor_maps: Optional[Dict[Union[int, str], Any]] = None,
    cluster: Optional[_Dims] = None,
) -> KernelRun:
    """Interprets the kernel `kernel` of `ptx` (PTX text, or a path: a `.ptx`, a
    `.cu` compiled with nvcc, a Triton cache entry or cache root, as `smem
    kernel` reads them) on a launch of `grid` blocks of `block` threads (by
    default the kernel's `.reqntid`, or Triton's `num_warps` warps), with
    `args` and `dynamic_shared` bytes (by default Triton's `shared`, else 0),
    every block or a `sample` of them, predicting on `arch` (by default what
    Triton compiled for, else the PTX's `.target`, else sm_90). `kernel` is
    the mangled name, the C++ name or a unique prefix (the module's only
    kernel when `None`); `args` a dict by parameter index, PTX name or Triton
    Python name, or a sequence by position, each value read as the source's
    type gives (`-1` for an `int`, `1.0` for a `half`; a struct passed by value
    as its `bytes` in memory order, or as one little-endian int). With `ncu` (the path
    of Nsight Compute's CSV export of the launch, raw or details page and/or
    Source page, or a sequence of them), `KernelRun.ncu` compares each
    counter with its measurement (`smem kernel --ncu`); `ncu_id` picks the
    launch where the export holds several. `tensor_maps` gives the tensor
    maps of a TMA kernel by parameter (`smem kernel --tensor-map`'s text, a
    dict of its fields, or a Triton `TensorDescriptor`; a `TensorDescriptor`
    among `args` is taken as its parameter's map), `cluster` its blocks per
    cluster (by default the kernel's `.reqnctapercluster`). The GIL is
    released while it runs; Ctrl-C stops it."""

def triton_kernel(
    compiled: Union[Any, _Path],
    grid: _Dims,
    args: _KernelArgs = None,
    *,
    kernel: Optional[str] = None,
    arch: Optional[_Arch] = None,
    sample: Optional[int] = None,
    ncu: Union[None, _Path, Sequence[_Path]] = None,
    ncu_id: Optional[int] = None,
    tensor_maps: Optional[Dict[Union[int, str], Any]] = None,
    cluster: Optional[_Dims] = None,
) -> KernelRun:
    """A compiled Triton kernel (`triton.compile(...)`, what launching a
    `@triton.jit` function returns, or a path to its cache entry or the cache
    root, as `kernel` takes them) run as `kernel` runs PTX: its PTX
    (`asm["ptx"]`), `num_warps` warps a block, its shared bytes and the arch
    it was compiled for from its metadata; `args` by the Python parameter
    names (from its IR), the PTX names or position (the call's arguments that
    are not `constexpr`, in order; tensors give their `data_ptr()`, `None` a
    fake pointer, a `TensorDescriptor` its tensor map); a `constexpr` given is
    an error naming it. `ncu`, `ncu_id`, `tensor_maps` and `cluster` as
    `kernel` takes them."""
