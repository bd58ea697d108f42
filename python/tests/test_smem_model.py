"""The Python module against the model's worked examples and its errors."""

import pytest

import smem_model

FULL = range(32)


def strided(stride_bytes):
    return [stride_bytes * lane for lane in FULL]


def test_strided_floats():
    # float s[]; v = s[stride * lane] on sm_90.
    expected = {1: 1, 2: 2, 3: 1, 32: 32, 33: 1}
    for stride, wavefronts in expected.items():
        assert smem_model.wavefronts("sm_90", "LDS", 4, strided(4 * stride)) == wavefronts


def test_inactive_lanes_are_none():
    # if (lane < 16) v = s[2 * lane];  -- half a warp, no conflict.
    addresses = [8 * lane if lane < 16 else None for lane in FULL]
    assert smem_model.wavefronts("sm_90", "load", 4, addresses) == 1
    assert smem_model.wavefronts("sm_90", "load", 4, [None] * 32) == 0


def test_partition_lanes_banks_words():
    p = smem_model.partition("sm_90", "LDS", 4, strided(8))
    assert (p.wavefronts, p.ideal_wavefronts, p.bank_conflicts, p.ways) == (2, 1, 1, 2)
    assert p.classification == "conflicted (2-way)"
    assert len(p) == 2
    assert [t.lanes for t in p.transactions] == [list(range(16)), list(range(16, 32))]
    assert p.transactions[0].banks == list(range(0, 32, 2))
    assert p.transactions[1].words == list(range(32, 64, 2))
    assert (p.transactions[1].phase, p.transactions[1].part) == (0, 0)
    assert "lanes=[0, 1," in repr(p.transactions[0])


def test_bandwidth_as_the_library_defines_it():
    assert smem_model.partition("sm_90", "LDS", 4, strided(4)).bandwidth_fraction == 1.0
    assert smem_model.partition("sm_90", "LDS", 4, strided(8)).bandwidth_fraction == 0.5
    one = smem_model.partition("sm_90", "LDS", 4, [0] + [None] * 31)
    assert (one.distinct_bytes, one.bandwidth_fraction) == (4, 4 / 128)
    assert smem_model.partition("sm_90", "LDS", 4, [None] * 32).bandwidth_fraction is None
    # Kepler's 64-bit banks move 8 bytes a bank in both modes: 100%, not 200%.
    assert smem_model.partition("sm_35", "LDS", 8, strided(8)).bandwidth_fraction == 1.0


def test_broadcast_and_wide_accesses():
    # s[lane % 8]: four lanes share each word.
    p = smem_model.partition("sm_90", "LDS", 4, [4 * (lane % 8) for lane in FULL])
    assert p.wavefronts == 1
    assert p.transactions[0].words == list(range(8))
    # float4 s[lane]: four quarter-warp wavefronts, each over all 32 banks.
    p = smem_model.partition("sm_90", "LDS", 16, strided(16))
    assert [t.lanes for t in p.transactions] == [list(range(q * 8, q * 8 + 8)) for q in range(4)]
    assert all(t.banks == list(range(32)) for t in p.transactions)


def test_1x_lanes_in_several_transactions_and_2x_empty_ones():
    p = smem_model.partition("1.3", "LDS", 8, strided(8))
    assert sum(0 in t.lanes for t in p.transactions) == 2
    assert [t.part for t in p.transactions] == [0, 0, 0, 0, 1, 1, 1, 1]
    p = smem_model.partition("sm_20", "LDS", 16, strided(16))
    assert [len(t.lanes) for t in p.transactions] == [8, 0, 8, 0, 8, 0, 8, 0]


def test_cost():
    c = smem_model.cost("sm_90", "LDS", 8, strided(32))
    assert (c.wavefronts, c.ideal_wavefronts, c.bank_conflicts, c.ways) == (8, 2, 6, 4)
    assert repr(c) == "Cost(wavefronts=8, ideal_wavefronts=2, bank_conflicts=6, ways=4)"


def test_ops_and_kepler_mode():
    # atomicAdd(&hist[lane % 4], 1): eight lanes in each of four banks.
    assert smem_model.wavefronts("sm_90", "atomic", 4, [4 * (lane % 4) for lane in FULL]) == 8
    rows = [lane % 8 * 128 + lane // 8 * 16 for lane in FULL]
    assert smem_model.wavefronts("sm_90", "ldmatrix.x4", 16, rows) == 32
    stride3 = strided(12)
    assert smem_model.wavefronts("sm_35", "LDS", 4, stride3) == 1
    assert smem_model.wavefronts("sm_35", "LDS", 4, stride3, bank_bytes=8) == 2


def test_generic_addresses():
    base = 0x7F00_0000_0000
    addresses = [base + 8 * lane for lane in FULL]
    assert smem_model.wavefronts("sm_90", "LDS", 4, addresses, base=base) == 2
    with pytest.raises(ValueError) as e:
        smem_model.wavefronts("sm_90", "LDS", 4, [0x1000] + addresses[1:], base=base)
    assert str(e.value) == (
        "lane 0 accesses generic address 0x1000, outside the 4 GiB shared window "
        "that starts at 0x7f0000000000"
    )


@pytest.mark.parametrize(
    "args, message",
    [
        (("sm_1x", "LDS", 4, strided(4)), 'unknown compute capability "sm_1x"'),
        (("sm_90", "LDG", 4, strided(4)), 'unknown op "LDG": expected LDS, STS, ATOMS'),
        (
            ("sm_90", "LDS", 12, strided(12)),
            "access width of 12 bytes is not supported: expected 1, 2, 4, 8 or 16",
        ),
        (
            ("sm_90", "LDS", 4, [2] * 32),
            "misaligned address: lane 0 accesses 4 bytes at 0x2, which is not a multiple of 4",
        ),
        (("sm_90", "LDS", 4, strided(4)[:16]), "a warp has 32 lanes, but 16 addresses were given"),
        (
            ("sm_90", "LDS", 4, [0x40000] * 32),
            "lane 0 accesses bytes 0x40000 to 0x40004, past the end of the",
        ),
        (
            ("sm_80", "stmatrix.x4", 16, strided(16)),
            "STSM.x4 does not exist on compute capability 8.0: it needs 9.0 or later",
        ),
        (("sm_90", "LDS", 4, [-4] + strided(4)[1:]), "lane 0: address -4 is not an integer"),
        (("sm_90", "LDS", 4, [1 << 32] * 32), "lane 0: address 0x100000000 is past the 32-bit"),
    ],
)
def test_errors_are_value_errors_with_the_models_message(args, message):
    for function in (smem_model.wavefronts, smem_model.cost, smem_model.partition):
        with pytest.raises(ValueError) as e:
            function(*args)
        assert str(e.value).startswith(message), str(e.value)


def test_bank_bytes_must_be_4_or_8():
    with pytest.raises(ValueError, match="bank width of 16 bytes: expected 4 or 8"):
        smem_model.wavefronts("sm_35", "LDS", 4, strided(4), bank_bytes=16)


def test_stubs_and_marker_are_installed():
    import os

    package = os.path.dirname(smem_model.__file__)
    assert os.path.exists(os.path.join(package, "py.typed"))
    assert os.path.exists(os.path.join(package, "__init__.pyi"))
    assert smem_model.__version__ == "0.1.0"
    assert smem_model.WARP_SIZE == 32


@pytest.mark.parametrize("warps", [0, 65, 10**6])
def test_timing_refuses_warps_an_sm_cannot_hold(warps):
    with pytest.raises(ValueError) as e:
        smem_model.timing("sm_90", "LDS", 4, strided(4), warps=warps)
    # The library's message (Timing::check_warps), the argument named first.
    assert str(e.value) == (
        f"warps: {warps} warps on one SM: an SM of compute capability 9.0 holds 1 to 64"
    )
    assert smem_model.timing("sm_90", "LDS", 4, strided(4), warps=64).warps == 64


def test_timing_on_sm_90():
    t = smem_model.timing("sm_90", "LDS", 4, strided(8), warps=16)
    assert t.pipe_cycles == 2 and t.warps == 16
    assert t.latency > 20
    assert t.throughput_cycles_per_instruction == 2
    few = smem_model.timing("sm_90", "LDS", 4, strided(8), warps=4)
    assert few.throughput_cycles_per_instruction is None
    assert t.latency_cycles_per_instruction < t.latency
    store = smem_model.timing("sm_90", "STS", 4, strided(8))
    assert store.latency is None and store.latency_cycles_per_instruction is None
    assert "pipe_cycles=2" in repr(store)
    with pytest.raises(ValueError) as e:
        smem_model.timing("sm_80", "LDS", 4, strided(4))
    assert str(e.value) == (
        "timing was measured on compute capability 9.0 only: 8.0 was not measured"
    )


def _stub_docstrings():
    """(dotted name, docstring) of every documented item of the installed stub."""
    import ast
    import os

    path = os.path.join(os.path.dirname(smem_model.__file__), "__init__.pyi")
    with open(path) as f:
        tree = ast.parse(f.read())
    yield "", ast.get_docstring(tree)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            yield node.name, ast.get_docstring(node)
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and ast.get_docstring(item):
                    yield f"{node.name}.{item.name}", ast.get_docstring(item)


def test_runtime_docstrings_are_the_stubs():
    # help(smem_model.X) shows what the stub (and so an editor) shows.
    import inspect

    names = []
    for name, doc in _stub_docstrings():
        obj = smem_model
        for part in filter(None, name.split(".")):
            obj = getattr(obj, part)
        assert doc, f"{name or 'the module'} has no docstring in the stub"
        assert inspect.getdoc(obj) == doc, name
        names.append(name)
    assert {"wavefronts", "Cost.ways", "Timing.throughput_cycles_per_instruction"} <= set(names)


# Issue 23, item 10: bad input never takes the interpreter down, and says what was wrong.


class HugeLen:
    """A sequence that claims more items than any memory holds."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        raise AssertionError("an item was read before the length was checked")


@pytest.mark.parametrize("n", [2**28, 2**40, 2**62, 2**63 - 1])
def test_a_huge_sequence_is_refused_by_its_length(n):
    for addresses in (range(n), HugeLen(n)):
        with pytest.raises(ValueError) as e:
            smem_model.wavefronts("sm_90", "LDS", 4, addresses)
        assert str(e.value) == f"a warp has 32 lanes, but {n} addresses were given"


def test_a_length_past_ssize_t_is_a_value_error():
    with pytest.raises(ValueError) as e:
        smem_model.cost("sm_90", "LDS", 4, range(2**64))
    assert str(e.value) == "a warp has 32 lanes, but more than 2^63 - 1 addresses were given"


def test_a_large_array_is_refused_before_it_is_copied():
    np = pytest.importorskip("numpy")
    # 2^28 lanes of uint32 is 1 GiB; a view of one element broadcast costs nothing.
    huge = np.broadcast_to(np.zeros(1, dtype=np.uint32), (2**28,))
    with pytest.raises(ValueError, match="^a warp has 32 lanes, but 268435456 addresses were given$"):
        smem_model.wavefronts("sm_90", "LDS", 4, huge)


def test_addresses_that_are_not_a_sequence_are_a_type_error():
    for bad, name in [(iter(range(32)), "range_iterator"), (7, "int"), ("x" * 32, "str")]:
        with pytest.raises(TypeError) as e:
            smem_model.wavefronts("sm_90", "LDS", 4, bad)
        assert str(e.value) == f"addresses: expected a sequence of 32 integers or None, got {name}"


def test_numpy_scalars_and_tuples_are_addresses():
    np = pytest.importorskip("numpy")
    assert smem_model.wavefronts("sm_90", "LDS", 4, np.arange(32, dtype=np.int64) * 8) == 2
    assert smem_model.wavefronts("sm_90", "LDS", 4, tuple(strided(8))) == 2


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"width": -1}, "width: -1 is not an integer from 0 to 2^32 - 1"),
        ({"width": 2**32}, "width: 4294967296 is not an integer from 0 to 2^32 - 1"),
        ({"bank_bytes": -8}, "bank_bytes: -8 is not an integer from 0 to 2^32 - 1"),
        ({"base": -1}, "base: -1 is not an integer from 0 to 2^64 - 1"),
        ({"base": 2**64}, "base: 18446744073709551616 is not an integer from 0 to 2^64 - 1"),
        ({"arch": (9, -1)}, "arch[1]: -1 is not an integer from 0 to 2^32 - 1"),
        (
            {"width": 10**100},
            "width: 1000000000000000000000000000000000000000000000000000000000000000… "
            "is not an integer from 0 to 2^32 - 1",
        ),
        ({"width": 10**5000}, "width: an integer of 16610 bits is not an integer from 0 to 2^32 - 1"),
    ],
)
def test_out_of_range_integers_are_value_errors_naming_the_argument(kwargs, message):
    args = {"arch": "sm_90", "op": "LDS", "width": 4, "addresses": strided(4)}
    args.update(kwargs)
    arch, op, width, addresses = (args.pop(k) for k in ("arch", "op", "width", "addresses"))
    with pytest.raises(ValueError) as e:
        smem_model.wavefronts(arch, op, width, addresses, **args)
    assert str(e.value) == message
    if "base" not in kwargs and "bank_bytes" not in kwargs:
        with pytest.raises(ValueError) as e:
            smem_model.timing(arch, op, width, addresses, warps=width if "width" in kwargs else 16)
        assert str(e.value) == message
    with pytest.raises(ValueError) as e:
        smem_model.timing("sm_90", "LDS", 4, strided(4), warps=-1)
    assert str(e.value) == "warps: -1 is not an integer from 0 to 2^32 - 1"


def test_non_integers_are_type_errors_naming_the_argument():
    with pytest.raises(TypeError) as e:
        smem_model.wavefronts("sm_90", "LDS", 4.0, strided(4))
    assert str(e.value) == "width: expected an integer, got float"
    with pytest.raises(TypeError) as e:
        smem_model.wavefronts("sm_90", "LDS", 4, strided(4), base="0")
    assert str(e.value) == "base: expected an integer, got str"
    with pytest.raises(TypeError) as e:
        smem_model.wavefronts(9.0, "LDS", 4, strided(4))
    assert str(e.value).startswith('arch: expected a name such as "sm_90" or "NVIDIA H100')
    assert str(e.value).endswith("(major, minor) pair such as (9, 0); got 9.0")


def test_error_texts_quote_a_bounded_prefix():
    for arch, op in [("sm_" + "9" * 10_000_000, "LDS"), ("sm_90", "L" * 10_000_000)]:
        with pytest.raises(ValueError) as e:
            smem_model.wavefronts(arch, op, 4, strided(4))
        assert len(str(e.value)) < 1000, len(str(e.value))
        assert ("9" * 61 + '…"') in str(e.value) or ("L" * 64 + '…"') in str(e.value)
    with pytest.raises(ValueError) as e:
        smem_model.wavefronts("sm_90", "atom." + "x" * 10_000, 4, strided(4))
    assert len(str(e.value)) < 1000
    big = "a" * 1_000_000
    with pytest.raises(ValueError) as e:
        smem_model.wavefronts("sm_90", "LDS", 4, [big] + strided(4)[1:])
    assert str(e.value) == "lane 0: address '" + "a" * 63 + "… is not an integer from 0 to 2^64 - 1"


def test_arch_as_torch_gives_it():
    # torch.cuda.get_device_capability() -> (9, 0)
    assert smem_model.wavefronts((9, 0), "LDS", 4, strided(8)) == 2
    assert smem_model.wavefronts((8, 6), "LDS", 4, strided(8)) == 2
    with pytest.raises(ValueError, match=r'^unknown compute capability "\(9, 1\)"'):
        smem_model.wavefronts((9, 1), "LDS", 4, strided(8))
    # torch.cuda.get_device_name() -> "NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB"
    assert smem_model.cost("NVIDIA H100 80GB HBM3", "LDS", 4, strided(8)).ways == 2
    assert smem_model.wavefronts("NVIDIA A100-SXM4-80GB", "STS", 4, strided(8)) == 2
    with pytest.raises(ValueError, match='^unknown compute capability "NVIDIA H1000 80GB"'):
        smem_model.wavefronts("NVIDIA H1000 80GB", "LDS", 4, strided(8))


def test_op_names_as_traces_sass_and_ptx_spell_them():
    float4 = strided(16)
    for op in ("LDS.U.128", "LDS.128", "ld.shared.v4.f32", "LDS"):
        assert smem_model.wavefronts("sm_90", op, 16, float4) == 4
    cas = smem_model.wavefronts("sm_90", "ATOMS.CAS", 8, strided(8))
    assert smem_model.wavefronts("sm_90", "ATOMS.CAS.64", 8, strided(8)) == cas
    assert smem_model.wavefronts("sm_90", "atom.shared.cas.b64", 8, strided(8)) == cas
    rows = [lane % 8 * 128 + lane // 8 * 16 for lane in FULL]
    assert smem_model.wavefronts("sm_90", "LDSM.16.MT88.4", 16, rows) == 32
    # A width that contradicts the name is an error, as atom.add.u64 given 4 bytes.
    for function in (smem_model.wavefronts, smem_model.cost, smem_model.partition):
        with pytest.raises(ValueError) as e:
            function("sm_90", "atom.add.u64", 4, strided(4))
        assert str(e.value) == (
            "the op's name gives ATOMS.ADD 8 bytes per lane, but an access width of 4 bytes was given"
        )
    np = pytest.importorskip("numpy")
    with pytest.raises(ValueError, match="^the op's name gives LDS 16 bytes per lane, but an access width of 4"):
        smem_model.wavefronts_batch("sm_90", "LDS.128", 4, np.zeros((2, 32), dtype=np.uint32))
