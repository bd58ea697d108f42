"""Batch calls on numpy arrays against the one-request calls, and their errors."""

import pytest

import smem_model

np = pytest.importorskip("numpy")


def random_rows(n, width, seed=1):
    rng = np.random.default_rng(seed)
    # Small offsets so that rows conflict, broadcast and collide.
    return rng.integers(0, 512, size=(n, 32)).astype(np.uint32) * width


def test_wavefronts_and_costs_equal_the_single_calls():
    for arch, op, width in [("sm_90", "LDS", 4), ("sm_35", "STS", 8), ("1.3", "LDS", 16), ("sm_80", "atomic", 4)]:
        rows = random_rows(200, width)
        masks = np.random.default_rng(2).integers(0, 2**32, size=200, dtype=np.uint64).astype(np.uint32)
        masks[:3] = [0, 1, 0xFFFFFFFF]
        waves = smem_model.wavefronts_batch(arch, op, width, rows, masks)
        costs = smem_model.cost_batch(arch, op, width, rows, masks)
        assert waves.dtype == np.uint32 and waves.shape == (200,)
        assert costs.dtype == np.uint32 and costs.shape == (200, 4)
        for i in range(200):
            lanes = [int(a) if masks[i] >> lane & 1 else None for lane, a in enumerate(rows[i])]
            c = smem_model.cost(arch, op, width, lanes)
            assert waves[i] == c.wavefronts
            assert list(costs[i]) == [c.wavefronts, c.ideal_wavefronts, c.bank_conflicts, c.ways]
    assert smem_model.COST_FIELDS == ("wavefronts", "ideal_wavefronts", "bank_conflicts", "ways")


def test_dtypes_layouts_and_masks_agree():
    rows = random_rows(64, 4)
    expected = smem_model.wavefronts_batch("sm_90", "LDS", 4, rows)
    for dtype in (np.int64, np.uint64, np.int32):
        assert (smem_model.wavefronts_batch("sm_90", "LDS", 4, rows.astype(dtype)) == expected).all()
    fortran = np.asfortranarray(rows)
    assert (smem_model.wavefronts_batch("sm_90", "LDS", 4, fortran) == expected).all()
    every_other = np.repeat(rows, 2, axis=0)[::2]
    assert (smem_model.wavefronts_batch("sm_90", "LDS", 4, every_other) == expected).all()
    assert (smem_model.wavefronts_batch("sm_90", "LDS", 4, rows, 0xFFFFFFFF) == expected).all()
    assert (smem_model.wavefronts_batch("sm_90", "LDS", 4, rows, 0) == 0).all()
    half = smem_model.wavefronts_batch((9, 0), "LDS", 4, rows, np.full(64, 0xFFFF, dtype=np.uint32))
    singles = [smem_model.wavefronts("sm_90", "LDS", 4, [int(a) for a in r[:16]] + [None] * 16) for r in rows]
    assert list(half) == singles
    empty = smem_model.wavefronts_batch("sm_90", "LDS", 4, np.zeros((0, 32), dtype=np.uint32))
    assert empty.shape == (0,)
    assert smem_model.cost_batch("sm_90", "LDS", 4, np.zeros((0, 32), dtype=np.uint32)).shape == (0, 4)


def test_generic_addresses_with_base():
    base = 0x7F00_0000_0000
    rows = random_rows(32, 4).astype(np.uint64) + base
    expected = smem_model.wavefronts_batch("sm_90", "LDS", 4, (rows - base).astype(np.uint32))
    assert (smem_model.wavefronts_batch("sm_90", "LDS", 4, rows, base=base) == expected).all()
    assert (smem_model.wavefronts_batch("sm_90", "LDS", 4, rows.astype(np.int64), base=base) == expected).all()


def test_inactive_lanes_are_not_read():
    rows = np.full((2, 32), -1, dtype=np.int64)
    rows[:, 0] = [0, 4]
    assert list(smem_model.wavefronts_batch("sm_90", "LDS", 4, rows, 1)) == [1, 1]


@pytest.mark.parametrize(
    "rows, masks, kwargs, error, message",
    [
        (
            np.array([[4 * l for l in range(32)], [2] * 32], dtype=np.uint32),
            None,
            {},
            ValueError,
            "row 1: misaligned address: lane 0 accesses 4 bytes at 0x2, which is not a multiple of 4",
        ),
        (
            np.array([[0] * 31 + [-4]], dtype=np.int64),
            None,
            {},
            ValueError,
            "row 0: lane 31: address -4 is not an integer from 0 to 2^64 - 1",
        ),
        (
            np.array([[1 << 32] * 32], dtype=np.int64),
            None,
            {},
            ValueError,
            "row 0: lane 0: address 0x100000000 is past the 32-bit shared address space "
            "(give base= for generic addresses)",
        ),
        (np.zeros((4, 16), dtype=np.uint32), None, {}, ValueError,
         "addresses: expected shape (N, 32), one row of 32 lanes per request, got [4, 16]"),
        (np.zeros(32, dtype=np.uint32), None, {}, ValueError,
         "addresses: expected shape (N, 32), one row of 32 lanes per request, got [32]"),
        (np.zeros((4, 32), dtype=np.float64), None, {}, TypeError,
         "addresses: expected a numpy array of uint32, int32, int64 or uint64, got a 2-D array of float64"),
        ([[0] * 32], None, {}, TypeError,
         "addresses: expected a numpy array of shape (N, 32), got list (numpy.asarray makes one)"),
        (np.zeros((4, 32), dtype=np.uint32), np.zeros(3, dtype=np.uint32), {}, ValueError,
         "masks: 3 masks for 4 rows of addresses"),
        (np.zeros((4, 32), dtype=np.uint32), np.zeros(4, dtype=np.int64), {}, TypeError,
         "masks: expected a 1-D numpy array of uint32 (bit i for lane i), got a 1-D array of int64"),
        (np.zeros((4, 32), dtype=np.uint32), -1, {}, ValueError,
         "masks: -1 is not an integer from 0 to 2^32 - 1"),
        (np.zeros((4, 32), dtype=np.uint32), None, {"base": -1}, ValueError,
         "base: -1 is not an integer from 0 to 2^64 - 1"),
    ],
)
def test_errors_name_the_row_or_the_argument(rows, masks, kwargs, error, message):
    for function in (smem_model.wavefronts_batch, smem_model.cost_batch):
        with pytest.raises(error) as e:
            function("sm_90", "LDS", 4, rows, masks, **kwargs)
        assert str(e.value) == message


def test_a_huge_array_view_is_refused_by_its_shape():
    # A broadcast view of 2^40 rows costs no memory; it is refused before it is read.
    rows = np.broadcast_to(np.zeros((1, 16), dtype=np.uint32), (2**40, 16))
    with pytest.raises(ValueError, match=r"got \[1099511627776, 16\]$"):
        smem_model.wavefronts_batch("sm_90", "LDS", 4, rows)


def test_a_broadcast_view_is_read_row_by_row():
    # A view whose rows share memory (strides of 0) is read through one row's
    # buffer, never copied whole (a view of 2^30 rows would need 128 GiB).
    one = np.arange(32, dtype=np.uint32).reshape(1, 32) * 8
    rows = np.broadcast_to(one, (2**16, 32))
    out = smem_model.wavefronts_batch("sm_90", "LDS", 4, rows)
    assert out.shape == (2**16,) and (out == 2).all()


def test_a_batch_too_large_for_memory_is_memory_error():
    # A broadcast view of 2^42 rows costs nothing to make; its answers would
    # take 16 TiB (issue 36: the interpreter aborted).
    rows = np.broadcast_to(np.zeros(32, dtype=np.uint32), (1 << 42, 32))
    with pytest.raises(MemoryError, match=r"^4398046511104 rows: their answers"):
        smem_model.wavefronts_batch("sm_90", "LDS", 4, rows)
    with pytest.raises(MemoryError):
        smem_model.cost_batch("sm_90", "LDS", 4, rows)
