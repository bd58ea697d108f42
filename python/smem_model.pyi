"""Shared-memory bank conflicts and wavefronts per CUDA compute capability.

Every function takes the arch (`"sm_90"`, `"8.6"`, `"compute_75"`, a GPU as
`torch.cuda.get_device_name()` names it, `"NVIDIA H100 80GB HBM3"`, or the
`(major, minor)` pair `torch.cuda.get_device_capability()` gives), the op
(SASS `"LDS"`, `"STS"`, `"ATOMS.CAS"`, `"RED.ADD"`, `"LDSM.x4"`, `"STSM.x2"`,
`"LDGSTS"` or PTX-like `"load"`, `"store"`, `"atom.add.u64"`, `"red.add.f32"`,
`"ldmatrix.x4"`, `"stmatrix.x2"`, `"cp.async.cg"`, in any case; a bare
`"atomic"` is an atomic add), the access width in bytes (1, 2, 4, 8 or 16),
and 32 addresses: byte offsets into the shared window, `None` for an inactive
lane. With `base=`, the addresses are generic ones, translated into the 4 GiB
shared window that starts there. `bank_bytes=8` selects Kepler's eight-byte
bank mode (no effect elsewhere).

Bad input raises `ValueError` with the model's message (an integer out of
range names its argument), or `TypeError` for a value of the wrong type;
messages quote at most 64 characters of what was given, and a sequence's
length is checked before any of it is read.
"""

from typing import Any, List, Optional, Sequence, Tuple, Union, final

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
    """The cycles of one warp instruction on sm_90 with `warps` warps of one SM
    running it; `ValueError` on other capabilities (not measured)."""

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
