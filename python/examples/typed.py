"""A typed use of smem_model: `mypy --strict` checks it against the stub (CI).

Run it as a script to see the numbers: python examples/typed.py
"""

from pathlib import Path
from typing import Dict, List, Optional

import numpy as np
import numpy.typing as npt

import smem_model


def strided(stride_bytes: int, active: int = 32) -> List[Optional[int]]:
    """float s[]; v = s[stride * lane] for the first `active` lanes."""
    return [stride_bytes * lane if lane < active else None for lane in range(smem_model.WARP_SIZE)]


def main() -> None:
    waves: int = smem_model.wavefronts("sm_90", "LDS", 4, strided(8))
    cost: smem_model.Cost = smem_model.cost("sm_90", "LDS", 8, strided(32))
    conflicts: int = cost.bank_conflicts
    partition: smem_model.Partition = smem_model.partition("sm_90", "LDS", 4, strided(8, 16))
    lanes: List[List[int]] = [t.lanes for t in partition.transactions]
    classification: str = partition.classification
    timing = smem_model.timing("sm_90", "LDS", 4, strided(8), warps=16)
    throughput: Optional[float] = timing.throughput_cycles_per_instruction
    generic = smem_model.wavefronts(
        "sm_90", "STS", 4, [0x7F00_0000_0000 + a for a in range(0, 128, 4)], base=0x7F00_0000_0000
    )
    print(waves, conflicts, len(partition), lanes[0][:4], classification, throughput, generic)

    # A batch: 64 requests of s[2 * lane], half of the lanes active in each.
    rows = np.tile(np.arange(32, dtype=np.uint32) * 8, (64, 1))
    batch: npt.NDArray[np.uint32] = smem_model.wavefronts_batch((9, 0), "LDS", 4, rows, 0xFFFF)
    costs = smem_model.cost_batch("NVIDIA H100 80GB HBM3", "LDS", 4, rows)
    print(int(batch.sum()), dict(zip(smem_model.COST_FIELDS, costs[0].tolist())))

    # A tile, its advisor, occupancy and a race.
    accesses = [smem_model.TileAccess.transposed_copy(i) for i in range(32)]
    advice: smem_model.Advice = smem_model.advise("sm_90", smem_model.TileLayout(32, 32, 4), accesses)
    fix: str = advice.best.fix
    swizzle: Optional[smem_model.Swizzle] = advice.best.layout.swizzle
    blocks: int = smem_model.occupancy("sm_90", 0, 48 * 1024).blocks_per_sm
    block = smem_model.Block("sm_90", 64)
    block.access(0, "STS", 4, strided(4), site=1)
    block.access(1, "LDS", 4, strided(4), site=2)
    report: smem_model.BlockReport = block.finish()
    print(fix, swizzle, blocks, [h.kind for h in report.hazards])

    # A trace's totals, and two readings merged.
    trace = Path(__file__).resolve().parents[2] / "tests" / "data" / "traces" / "transpose.traceg"
    summary: smem_model.TraceSummary = smem_model.read_trace(trace)
    both = smem_model.merge_summaries([summary, smem_model.read_trace([str(trace)], arch="sm_80")])
    conflicts_by_op: Dict[str, int] = {op: t.bank_conflicts for op, t in both.by_op.items()}
    print(summary.totals.wavefronts, both.counts["files"], conflicts_by_op)


if __name__ == "__main__":
    main()
