"""Spread a trace corpus over a Dask cluster: per-file totals on the workers,
then one merge. The merged summary equals one reading of every file.

    python examples/dask_traces.py TRACE_FILES... [--scheduler tcp://host:8786]

Without --scheduler it starts a local cluster (2 worker processes). Each
worker needs smem_model installed (the same wheel) and the files at the same
paths (a shared file system); what travels back is a small TraceSummary
(it pickles as plain data), never the trace.
"""

import argparse

import smem_model


def corpus_summary(client, paths, arch=None):
    """Every file's summary on the cluster, merged pairwise there (a tree of
    merges), returned to the caller. The tasks are the module's own functions,
    so a worker needs only smem_model installed, not this script."""
    parts = client.map(smem_model.read_trace, paths, arch=arch)
    while len(parts) > 1:
        pairs = [parts[i : i + 2] for i in range(0, len(parts), 2)]
        parts = [client.submit(smem_model.merge_summaries, pair) for pair in pairs]
    return parts[0].result() if parts else smem_model.merge_summaries([])


def main():
    from dask.distributed import Client, LocalCluster

    parser = argparse.ArgumentParser()
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--scheduler", help="a running scheduler's address")
    parser.add_argument("--arch", help="predict every kernel on this arch")
    args = parser.parse_args()
    if args.scheduler:
        client = Client(args.scheduler)
    else:
        client = Client(LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None))
    with client:
        summary = corpus_summary(client, args.paths, args.arch)
    t = summary.totals
    print(f"{summary.counts['files']} files, {summary.counts['kernels']} kernels")
    print(f"{t.requests} requests, {t.wavefronts} wavefronts (ideal {t.ideal_wavefronts}), "
          f"{t.bank_conflicts} bank conflicts, worst {t.worst_ways}-way")
    for op, totals in sorted(summary.by_op.items(), key=lambda kv: -kv[1].bank_conflicts):
        print(f"  {op:<16} {totals.requests:>10} requests {totals.bank_conflicts:>10} conflicts")


if __name__ == "__main__":
    main()
