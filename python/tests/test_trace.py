"""Traces from Python: the library's reader and tally, summaries that merge
exactly, pickle, and spread over a Dask cluster (examples/dask_traces.py)."""

import os
import pickle
import shutil
import sys
from pathlib import Path

import pytest

import smem_model

TRACES = Path(__file__).resolve().parents[2] / "tests" / "data" / "traces"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """A small corpus: the repository's sample traces, and copies of the
    transpose kernel under other names and with its tile moved, so files
    differ and share kernels and instructions."""
    root = tmp_path_factory.mktemp("corpus")
    paths = [TRACES / "transpose.traceg", TRACES / "cas-loop.traceg", TRACES / "kernels" / "kernelslist.g"]
    text = (TRACES / "transpose.traceg").read_text()
    for i in range(6):
        variant = text.replace("_Z13transposeTilePfPKf", f"_Z9variant{i}v")
        # Row stores 4 bytes further on: a different (still aligned) pattern.
        variant = variant.replace("0x7f4a3c000400 4 0", f"0x7f4a3c000{0x400 + 4 * i:03x} {4 + 4 * (i % 2)} 0")
        path = root / f"variant-{i}.traceg"
        path.write_text(variant)
        paths.append(path)
    return [str(p) for p in paths]


def test_the_sample_trace_totals():
    s = smem_model.read_trace(TRACES / "transpose.traceg")
    assert s.counts["files"] == 1 and s.counts["kernels"] == 1 and s.counts["blocks"] == 1
    # Two warps of 6 shared instructions (tests/data/traces/README.md).
    t = s.totals
    assert (t.requests, t.wavefronts, t.ideal_wavefronts) == (12, 200, 20)
    assert (t.bank_conflicts, t.conflicted_requests, t.worst_ways) == (180, 6, 32)
    assert sum(t.requests for t in s.by_op.values()) == s.totals.requests
    assert sum(t.wavefronts for t in s.by_op.values()) == s.totals.wavefronts
    assert sorted(s.by_op) == ["ATOMS.ADD.32", "LDS.128", "LDS.32", "LDSM.x4", "STS.32"]
    assert s.by_op["STS.32"].requests == 2
    # The same instructions as a raw trace and xz-compressed in a kernel list.
    raw = smem_model.read_trace(str(TRACES / "transpose.trace"), arch="sm_90")
    assert raw.totals == smem_model.read_trace(TRACES / "transpose.traceg", arch=(9, 0)).totals


def test_the_sample_trace_names_its_counters():
    # Each prediction under the Nsight Compute counter it equals (issue 33
    # item 1), as smem trace --json's ncu_metrics: the instruction-level ones
    # equal, the unit-level l1tex__ ones lower bounds.
    s = smem_model.read_trace(TRACES / "transpose.traceg")
    counters = {c["metric"]: c for c in s.counters}
    ld = counters["smsp__sass_inst_executed_op_shared_ld.sum"]
    assert (ld["total"], ld["relation"]) == ("requests", "equal")
    assert ld["predicted"] == s.by_op["LDS.32"].requests + s.by_op["LDS.128"].requests
    st = counters["smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum"]
    assert (st["relation"], st["predicted"]) == ("equal", s.by_op["STS.32"].wavefronts)
    assert counters["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"]["relation"] == "at_least"
    assert counters == {c["metric"]: c for c in smem_model.TraceSummary.from_dict(s.to_dict()).counters}
    # Merged, the predictions add up.
    both = s.merge(s)
    doubled = {c["metric"]: c["predicted"] for c in both.counters}
    assert doubled == {m: 2 * c["predicted"] for m, c in counters.items()}


def test_per_file_summaries_merge_to_one_reading(corpus):
    whole = smem_model.read_trace(corpus)
    parts = [smem_model.read_trace(p) for p in corpus]
    assert smem_model.merge_summaries(parts) == whole
    assert smem_model.merge_summaries(list(reversed(parts))) == whole
    left = smem_model.merge_summaries(parts[:4])
    assert left.merge(smem_model.merge_summaries(parts[4:])) == whole
    assert whole.counts["files"] == len(corpus)
    assert whole.totals.worst_ways == max(p.totals.worst_ways for p in parts)
    assert whole.totals.requests == sum(p.totals.requests for p in parts) > 0
    empty = smem_model.merge_summaries([]).to_dict()
    assert set(empty["totals"].values()) == {0} and set(empty["counts"].values()) == {0}


def test_a_summary_pickles_as_plain_data(corpus):
    whole = smem_model.read_trace(corpus)
    assert pickle.loads(pickle.dumps(whole)) == whole
    data = whole.to_dict()
    assert smem_model.TraceSummary.from_dict(data) == whole
    assert data["totals"]["wavefronts"] == whole.totals.wavefronts
    del data["counts"]["lines"]
    with pytest.raises(ValueError, match=r'^a trace summary\'s counts\["lines"\] is missing or malformed$'):
        smem_model.TraceSummary.from_dict(data)
    data = whole.to_dict()
    data["totals"]["requests"] = -1
    with pytest.raises(ValueError, match=r'^totals\["requests"\]: -1 is not an integer from 0 to 2\^64 - 1$'):
        smem_model.TraceSummary.from_dict(data)


def test_bad_paths_are_errors(tmp_path):
    with pytest.raises(ValueError) as e:
        smem_model.read_trace(str(tmp_path / "missing.traceg"))
    assert "missing.traceg" in str(e.value)
    with pytest.raises(TypeError, match="^paths: expected a sequence, got int$"):
        smem_model.read_trace(7)
    with pytest.raises(TypeError):
        smem_model.merge_summaries([1])


def test_a_dask_cluster_adds_up_the_corpus(corpus):
    distributed = pytest.importorskip("dask.distributed")
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
    try:
        import dask_traces
    finally:
        sys.path.pop(0)
    whole = smem_model.read_trace(corpus)
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    with cluster, distributed.Client(cluster) as client:
        assert dask_traces.corpus_summary(client, corpus) == whole
        assert dask_traces.corpus_summary(client, corpus, arch="sm_80") == smem_model.read_trace(corpus, arch="sm_80")
