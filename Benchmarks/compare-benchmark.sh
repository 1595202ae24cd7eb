#!/usr/bin/env bash
# Compares the working tree with an earlier revision on every hot path of host-benchmark.sh, so that a
# slide can be told from a slower machine: both are built in release, then measured in alternation,
# ROUNDS times (default 3, at least 3), the order swapped each round, so both see the same machine.
# Prints each path's median ratio new/old with its spread (lowest and highest round) as a Markdown
# table, and names at the end every path more than 10 % slower (or larger, for memory). Asserts nothing.
#
#   Benchmarks/compare-benchmark.sh REV [--json]   # or: Benchmarks/host-benchmark.sh --compare REV
#
# REV is built from a worktree in .build-compare/<commit>/ (kept, so a second comparison reuses the build);
# the working tree, uncommitted changes included, in .build-release. The environment of host-benchmark.sh
# applies to every run (DURATION, SIZE_MIB, SKIP_POSTGRES, SKIP_MILLION, …). With --json the table goes to
# stderr and stdout carries one JSON object: every path's ratios and median, and the runs' own figures.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

REV=${1:?usage: compare-benchmark.sh REV [--json]}
JSON_OUTPUT=""
[ "${2:-}" = --json ] && JSON_OUTPUT=1
ROUNDS=${ROUNDS:-3}
[[ "$ROUNDS" =~ ^[0-9]+$ && "$ROUNDS" -ge 3 ]] || { echo "ROUNDS must be a whole number, at least 3 (it is '$ROUNDS')" >&2; exit 2; }
COMMIT=$(git rev-parse --verify --quiet "$REV^{commit}") || { echo "no such revision: $REV" >&2; exit 2; }
if [ -n "$JSON_OUTPUT" ]; then exec 3>&1 1>&2; fi

# Builds: the earlier revision from its own worktree and scratch folder, the working tree as host-benchmark.sh does.
OLD_DIR=$ROOT/.build-compare/$COMMIT
if [ ! -e "$OLD_DIR/src/Package.swift" ]; then
  mkdir -p "$OLD_DIR"
  git worktree add --detach --force "$OLD_DIR/src" "$COMMIT" >&2
fi
echo "building $REV ($COMMIT) in release" >&2
(cd "$OLD_DIR/src" && swift build -c release --product wopi --scratch-path "$OLD_DIR/build" >&2)
echo "building the working tree in release" >&2
swift build -c release --product wopi --scratch-path .build-release >&2
(cd Benchmarks/Floor && swift build -c release >&2)
OLD_BIN=$OLD_DIR/build/release/wopi
NEW_BIN=$ROOT/.build-release/release/wopi
FLOOR_BIN=$ROOT/Benchmarks/Floor/.build/release/floor

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
for round in $(seq 1 "$ROUNDS"); do
  # Odd rounds measure the earlier revision first, even rounds the working tree.
  if (( round % 2 )); then order=(old new); else order=(new old); fi
  for side in "${order[@]}"; do
    bin=$OLD_BIN; [ "$side" = new ] && bin=$NEW_BIN
    echo "round $round of $ROUNDS: $side ($bin)" >&2
    WOPI_BIN=$bin FLOOR_BIN=$FLOOR_BIN CHART=$WORK/chart-$round-$side.png \
      bash Benchmarks/host-benchmark.sh --json > "$WORK/round-$round-$side.json" 2> "$WORK/round-$round-$side.log" \
      || { tail -30 "$WORK/round-$round-$side.log" >&2; echo "round $round ($side) failed; its log is above" >&2; exit 1; }
  done
done

python3 - "$WORK" "$ROUNDS" "$REV" "$COMMIT" "${JSON_OUTPUT:-}" <<'PY'
import glob, json, os, statistics, sys
work, rounds, rev, commit, as_json = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
runs = {side: [json.load(open(os.path.join(work, f"round-{n}-{side}.json"))) for n in range(1, rounds + 1)] for side in ("old", "new")}
# (label, key, True when more is better)
paths = [("CheckFileInfo, 8 connections (req/s)", "cfi_8_rps", True),
         ("CheckFileInfo, 64 connections (req/s)", "cfi_64_rps", True),
         ("CheckFileInfo p99, 8 connections (ms)", "cfi_8_p99_ms", False),
         ("Lock + Unlock, 8 connections (pairs/s)", "lock_unlock_pairs_per_s", True),
         ("Lock + Unlock p99 (ms)", "lock_unlock_p99_ms", False),
         ("GetFile (MB/s)", "get_mbps", True),
         ("PutFile (MB/s)", "put_mbps", True),
         ("PutFile, curl's defaults (MB/s)", "put_expect_continue_mbps", True),
         ("PutFile peak RSS (MiB)", "put_rss_peak_mib", False),
         ("EnumerateChildren, 50,000 files (ms)", "enumerate_50k_ms", False),
         ("EnumerateChildren peak RSS (MiB)", "enumerate_rss_peak_mib", False),
         ("PostgreSQL CheckFileInfo, 8 connections (req/s)", "cfi_postgres_8_rps", True),
         ("PostgreSQL CheckFileInfo, 64 connections (req/s)", "cfi_postgres_64_rps", True),
         ("PostgreSQL Lock + Unlock (pairs/s)", "pg_lock_unlock_pairs_per_s", True),
         ("CheckFileInfo, 1,000,000 files (req/s)", "cfi_million_rps", True)]
rows, slower, summary = [], [], {}
for label, key, more_is_better in paths:
    if not all(isinstance(run.get(key), (int, float)) for side in runs.values() for run in side):
        continue
    old = [run[key] for run in runs["old"]]
    new = [run[key] for run in runs["new"]]
    # Round n's new against round n's old: the two ran minutes apart on the same machine.
    ratios = [n / o for n, o in zip(new, old) if o]
    if not ratios:
        continue
    median = statistics.median(ratios)
    worse = median < 0.9 if more_is_better else median > 1.1
    if worse:
        slower.append(label)
    summary[key] = {"label": label, "old": old, "new": new, "ratios": [round(r, 3) for r in ratios], "median": round(median, 3),
                    "more_is_better": more_is_better, "worse_by_more_than_10_percent": worse}
    rows.append(f"| {label} | {statistics.median(old):,.2f} | {statistics.median(new):,.2f} | {median:.2f} | "
                f"{min(ratios):.2f}–{max(ratios):.2f} | {'more' if more_is_better else 'less'} |")
print(f"\n{rev} ({commit[:10]}) against the working tree, {rounds} rounds in alternation, the order swapped each round\n")
print("| path | old (median) | new (median) | new/old, median | spread | better is |")
print("|---|---:|---:|---:|---|---|")
print("\n".join(rows))
print()
print("more than 10 % slower: " + ("; ".join(slower) if slower else "none"))
if as_json:
    with os.fdopen(3, "w") as out:
        json.dump({"revision": rev, "commit": commit, "rounds": rounds, "paths": summary, "slower": slower, "runs": runs}, out, indent=2)
        out.write("\n")
PY
