"""A typed use of smem_model: `mypy --strict` checks it against the stub (CI).

Run it as a script to see the numbers: python examples/typed.py
"""

from typing import List, Optional

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


if __name__ == "__main__":
    main()
