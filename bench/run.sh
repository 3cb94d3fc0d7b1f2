#!/usr/bin/env bash
# bench/run.sh: id_gen against what users would use instead, in one run.
#
#   bash bench/run.sh          # full run (a few minutes)
#   bash bench/run.sh quick    # smaller sizes, for a smoke test
#
# Builds id_gen into a private copy of the server (as tests do), starts a
# throwaway cluster with jit=off and synchronous_commit=off, and prints:
#  1. per-call cost: SELECT count(f()) FROM generate_series(1, N), median of
#     R interleaved repetitions, minus the same query with count(1);
#  2. ids/s with two concurrent clients (pgbench, 1000 ids per statement);
#  3. snowflake_next() and jsid_next() saturation against their layout limits
#     (4,096,000 and 256,000 ids/s per worker id);
#  4. inserts of 2M rows keyed by bigint/timeuuid/uuid, index size, leaf
#     density, WAL; sorting 5M values.
# Machines are noisy: compare ratios within one run, not times across runs.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh

MODE=${1:-full}
install_deps
prepare_workdir id_gen-bench
[ "$WORK" != "$PWD" ] && trap 'rm -rf "$WORK"' EXIT
as_user make -C "$WORK" -s clean >/dev/null 2>&1 || true
as_user make -C "$WORK" -s temp-install >/dev/null
as_user env MODE="$MODE" bash "$WORK/bench/cluster.sh" "$WORK"
