"""Tiles and the advisor, occupancy and the race checker from Python, against
the library's worked examples."""

import pytest

import smem_model
from smem_model import Block, Swizzle, TileAccess, TileLayout


def test_the_advisor_fixes_a_transpose():
    # __shared__ float tile[32][32]; transposed in place, row i read, column i written.
    accesses = [TileAccess.transposed_copy(i) for i in range(32)]
    advice = smem_model.advise("sm_90", TileLayout(32, 32, 4), accesses)
    assert advice.original.wavefronts == 1056  # each column write is 32-way
    assert (advice.best.fix, advice.best.wavefronts) == ("Swizzle<5,0,5>", 64)
    assert advice.best.layout.swizzle == Swizzle(5, 0, 5)
    assert advice.best.is_conflict_free and advice.best.extra_bytes == 0
    assert advice.candidates[1].fix == "1 element of padding per row"
    assert advice.candidates[1].extra_bytes == 128
    assert advice.original.bank_conflicts == 1056 - 64
    assert str(advice).startswith("64 accesses on 32x32 of 4-byte elements")


def test_ldmatrix_over_a_half_tile_and_index_formulas():
    # half tile[64][64] read into fragments: the advisor picks TMA's 128-byte mode.
    loads = TileAccess.ldmatrix_tile(64, 64, 2)
    assert len(loads) == 16
    advice = smem_model.advise("sm_90", TileLayout(64, 64, 2), loads)
    assert advice.best.name == "TMA 128B swizzle = Swizzle<3,3,3>"
    assert advice.best.layout.index_formula == "row * 64 + (col ^ ((row % 8) * 8))"
    assert advice.original.name == "as given"
    assert TileLayout(32, 32, 4, padding=1).index_formula == "row * 33 + col"
    with pytest.raises(ValueError):
        TileAccess.ldmatrix_tile(12, 16, 2)


def test_a_layout_checked_before_use():
    column = [TileAccess.column(3)]
    assert TileLayout(32, 32, 4).wavefronts("sm_90", column) == [32]
    padded = TileLayout(32, 32, 4, padding=1)
    assert padded.wavefronts((9, 0), column) == [1]
    assert (padded.pitch, padded.bytes, padded.extra_bytes) == (33, 32 * 33 * 4, 128)
    assert padded.offset(1, 0) == 132 and padded.address(1, 0) == 132
    based = TileLayout(32, 32, 4, base=1024)
    assert based.address(0, 1) == 1028 and based.offset(0, 1) == 4
    swizzled = TileLayout(32, 32, 4, swizzle=Swizzle(5, 0, 5))
    assert swizzled.wavefronts("H100", column) == [1]
    # Elements given lane by lane: lanes 0-15 down column 0, the rest idle.
    half = TileAccess([(lane, 0) if lane < 16 else None for lane in range(32)])
    assert half.elements[15] == (15, 0) and half.elements[16] is None
    assert TileLayout(32, 32, 4).wavefronts("sm_90", [half]) == [16]


def test_swizzles_and_tma_modes():
    # TMA's 128-byte mode on byte addresses: chunk c of row r moves to chunk c ^ (r % 8).
    sw128 = Swizzle(3, 4, 3)
    assert (sw128.bits, sw128.base, sw128.shift) == (3, 4, 3)
    assert sw128.apply(5 * 128 + 2 * 16) == 5 * 128 + (2 ^ 5) * 16
    assert str(sw128) == "Swizzle<3,4,3>" and repr(sw128) == "Swizzle(bits=3, base=4, shift=3)"
    assert len({Swizzle(3, 4, 3), Swizzle(3, 4, 3), Swizzle(2, 4, 3)}) == 2
    for mode in (128, "128B", "CU_TENSOR_MAP_SWIZZLE_128B"):
        # On 4-byte elements the byte swizzle <3,4,3> is <3,2,3>.
        assert TileLayout(8, 32, 4, tma_swizzle=mode).swizzle == Swizzle(3, 2, 3)


def test_triton_shared_encodings():
    # fp16 A operand of a 64-wide K block: #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8}>.
    tile = TileLayout(128, 64, 2, triton_shared=(8, 1, 8))
    assert tile.swizzle == Swizzle(3, 3, 3)
    assert tile.index_formula == "row * 64 + (col ^ ((row % 8) * 8))"
    # NVMMA's 128-byte swizzle on 128-byte rows is the TMA mode's layout.
    nvmma = TileLayout(128, 64, 2, nvmma_swizzle=128)
    assert nvmma.swizzle == TileLayout(128, 64, 2, tma_swizzle=128).swizzle
    loads = TileAccess.ldmatrix_tile(128, 64, 2)
    assert nvmma.wavefronts("sm_90", loads) == TileLayout(128, 64, 2, tma_swizzle="128B").wavefronts("sm_90", loads)
    with pytest.raises(ValueError):
        TileLayout(32, 32, 2, triton_shared=(3, 1, 8))  # vec must be a power of two
    # Rows wider than the swizzle: column tiles of 128 bytes, one after another
    # (Triton's LeadingOffset_8x64_1_8_32b).
    wide = TileLayout(8, 64, 4, nvmma_swizzle=128)
    assert (wide.tile_cols, wide.pitch, wide.bytes) == (32, 32, 8 * 64 * 4)
    assert wide.offset(0, 32) == 8 * 32 * 4
    assert wide.offset(1, 0) == (32 + 4) * 4
    assert wide.index_formula == "(col / 32) * 256 + row * 32 + ((col % 32) ^ ((row % 8) * 4))"
    with pytest.raises(ValueError) as e:
        TileLayout(8, 16, 4, nvmma_swizzle=128)
    assert str(e.value) == (
        "rows of 64 bytes are narrower than the 128-byte NVMMA swizzle, which Triton refuses: "
        "give rows of at least 128 bytes"
    )


def test_occupancy():
    # 48 KB + 1 KB reserved a block: four fit in 228 KB.
    o = smem_model.occupancy("sm_90", 0, 48 * 1024)
    assert (o.blocks_per_sm, o.allocated_per_block, o.limit) == (4, 50176, "shared memory")
    # Measured on an H200: 12 KB static with a MaxL1 preference (0%) gets the 16 KB carveout.
    o = smem_model.occupancy("NVIDIA H200", 12288, carveout=0)
    assert (o.blocks_per_sm, o.allocated_per_block, o.carveout) == (1, 13312, 16384)
    assert smem_model.occupancy("sm_90").limit == "blocks per SM"
    with pytest.raises(ValueError):
        smem_model.occupancy("sm_90", 0, 100 * 1024)  # past 48 KB without opt_in
    assert smem_model.occupancy("sm_90", 0, 100 * 1024, opt_in=100 * 1024).blocks_per_sm == 2
    # 256 threads of 64 registers, 16 KB of shared memory, on an H100: 8 warps
    # of 2048 registers, 4 blocks fill the 64K register file.
    o = smem_model.occupancy("H100", 0, 16384, threads=256, registers=64)
    assert (o.blocks_per_sm, o.limit, o.warps_per_block, o.warps_per_sm, o.percent) == (
        4, "registers", 8, 32, 50.0)
    assert "registers" in o.limits and not o.carveout_overridden
    assert smem_model.occupancy("sm_90").warps_per_sm is None
    assert smem_model.occupancy("sm_90", 12288, carveout=0).carveout_overridden
    with pytest.raises(ValueError):
        smem_model.occupancy("sm_90", threads=2048)


def test_racecheck_finds_a_missing_barrier():
    stores = [4 * lane for lane in range(32)]
    block = Block("sm_90", 64)
    assert block.warps == 2
    block.access(0, "STS", 4, stores, site=1)
    block.access(1, "LDS", 4, stores, site=2)
    report = block.finish()
    assert not report.is_clean
    [hazard] = report.hazards
    assert (hazard.kind, hazard.severity, hazard.address, hazard.bytes) == ("read-write", "error", 0, 128)
    assert (hazard.first.site, hazard.first.warp, hazard.first.access) == (1, 0, "write")
    assert (hazard.second.site, hazard.second.thread, hazard.second.access) == (2, 32, "read")
    assert hazard.text in report.text
    # With __syncthreads() between them, no race.
    block = Block((9, 0), 64)
    block.access(0, "STS", 4, stores, site=1)
    block.syncthreads(site=3)
    block.access(1, "LDS", 4, stores, site=2)
    assert block.finish().is_clean


def test_racecheck_finds_a_divergent_barrier():
    block = Block("sm_90", 64)
    block.barrier(0, lanes=0xFFFF, site=5)
    block.barrier(1, site=5)
    report = block.finish()
    assert report.barrier_errors == [
        "divergent barrier 0 at site 0x5: lanes 0-15 of warp 0 reach it, lanes 16-31 do not"
    ]
    with pytest.raises(ValueError, match="^the block has finished: make a new Block$"):
        block.finish()
    with pytest.raises(ValueError, match="^the block has finished"):
        block.syncthreads()


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: Swizzle(3, 0, 2), ValueError, None),
        (lambda: Swizzle(-1, 0, 2), ValueError, "bits: -1 is not an integer from 0 to 2^32 - 1"),
        (
            lambda: Block("sm_90", 2048),
            ValueError,
            "a block of 2048 threads is not possible on compute capability 9.0: expected 1 to 1024",
        ),
        (lambda: Block("sm_90", 64).access(2, "LDS", 4, [0] * 32), ValueError, None),
        (lambda: Block("sm_90", 64).access(0, "LDS", 4, range(2**62)), ValueError,
         "a warp has 32 lanes, but 4611686018427387904 addresses were given"),
        (lambda: TileAccess([(0, 0)] * 31), ValueError, "elements: a warp has 32 lanes, but 31 items were given"),
        (lambda: TileAccess(range(2**62)), ValueError,
         "elements: a warp has 32 lanes, but 4611686018427387904 items were given"),
        (lambda: TileAccess([(0, -1)] * 32), ValueError,
         "elements[0]: (0, -1) is not None or a (row, col) pair of integers from 0 to 2^32 - 1"),
        (lambda: TileLayout(8, 32, 4, tma_swizzle=48), ValueError,
         'tma_swizzle: 48 is not a TMA swizzle mode: expected 32, 64 or 128 (bytes), or "32B", "64B", "128B"'),
        (lambda: smem_model.advise("sm_90", TileLayout(32, 32, 4), [1]), TypeError,
         "accesses: expected TileAccess objects, got 1"),
        (lambda: smem_model.occupancy("sm_90", -1), ValueError,
         "static_bytes: -1 is not an integer from 0 to 2^32 - 1"),
    ],
)
def test_bad_input_is_an_error_with_its_message(call, error, message):
    with pytest.raises(error) as e:
        call()
    if message is not None:
        assert str(e.value) == message
    else:
        assert str(e.value)


def test_racecheck_arrive_orders_the_producer_only():
    stores = [4 * lane for lane in range(32)]
    # Warp 0 produces and arrives (bar.arrive 1, 64); warp 1 waits and reads.
    block = Block("sm_90", 64)
    block.access(0, "STS", 4, stores, site=1)
    block.arrive(0, 1, 64, site=2)
    block.named_barrier(1, 1, 64, site=3)
    block.access(1, "LDS", 4, stores, site=4)
    assert block.finish().is_clean
    # The producer's store after its arrival races with the consumer's read.
    block = Block("sm_90", 64)
    block.arrive(0, 1, 64, site=2)
    block.access(0, "STS", 4, stores, site=5)
    block.named_barrier(1, 1, 64, site=3)
    block.access(1, "LDS", 4, stores, site=4)
    [hazard] = block.finish().hazards
    assert {hazard.first.site, hazard.second.site} == {4, 5}


def test_racecheck_cp_async_completes_at_its_wait():
    stores = [4 * lane for lane in range(32)]
    op = "cp.async.ca.shared.global"
    # Waited for, then a barrier: the other warp's read is ordered.
    block = Block("sm_90", 64)
    block.access(0, op, 4, stores, site=1)
    block.cp_async_commit(0, site=2)
    block.cp_async_wait(0, 0, site=3)
    block.syncthreads(site=4)
    block.access(1, "LDS", 4, stores, site=5)
    assert block.finish().is_clean
    # No wait: the barrier does not complete the copy, the read races with it.
    block = Block("sm_90", 64)
    block.access(0, op, 4, stores, site=1)
    block.cp_async_commit(0, site=2)
    block.syncthreads(site=4)
    block.access(1, "LDS", 4, stores, site=5)
    report = block.finish()
    assert not report.is_clean
    assert any(h.first.site == 1 and h.second.site == 5 for h in report.hazards)


def test_hazards_past_max_hazards_are_counted_not_listed():
    # Warp 1 stores to a word, then warp 0 from 2,048 sites: 2,048 hazards,
    # one a pair of sites (issue 36: 2,048 calls grew the model to 1 GB).
    def run(**kwargs):
        block = Block("sm_90", 64, **kwargs)
        one = [0] + [None] * 31
        block.access(1, "STS", 4, one, site=1 << 20)
        for site in range(2048):
            block.access(0, "STS", 4, one, site=site)
        return block.finish()

    report = run(max_hazards=10)
    assert (len(report.hazards), report.hazards_not_listed) == (10, 2038)
    assert not report.is_clean
    assert report.text.endswith("2038 more hazards not listed\n")
    report = run()
    assert (len(report.hazards), report.hazards_not_listed) == (2048, 0)
