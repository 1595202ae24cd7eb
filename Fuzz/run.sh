#!/usr/bin/env bash
# Builds the fuzz targets (libFuzzer, AddressSanitizer) and runs each for a bounded time.
#
#   Fuzz/run.sh                         every target, 45 s each (12 targets, 9 minutes)
#   Fuzz/run.sh --seconds 30 --seed 1   what CI runs: 30 s each, the same random choices every run
#   Fuzz/run.sh --seconds 3600 multipart s3-xml
#                                       a longer run of some targets
#   Fuzz/run.sh --list                  the targets
#   Fuzz/run.sh --build-only            only build
#
# Each target starts from its committed seeds (Fuzz/Corpus/<target>) and keeps what it learns in
# Fuzz/.build/corpus/<target>, so later runs go on from there and the committed corpus stays as written.
# A crash, a sanitizer report, a hang (-timeout) or an allocation past the limits (-rss_limit_mb,
# -malloc_limit_mb) stops the run; the input is saved under Fuzz/.build/findings/ and named below.
set -euo pipefail
cd "$(dirname "$0")"

seconds=45
seed=0
build_only=false
wanted=()
all=(office-uri wopi-headers discovery-xml multipart simulator-html-form validator-definitions validator-json
     validator-jsonpath s3-xml oauth-form web-form config-file)
while (($# > 0)); do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --seconds=*) seconds="${1#*=}"; shift ;;
    --seed) seed="$2"; shift 2 ;;
    --build-only) build_only=true; shift ;;
    --list) printf '%s\n' "${all[@]}"; exit 0 ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    *) wanted+=("$1"); shift ;;
  esac
done
((${#wanted[@]} > 0)) || wanted=("${all[@]}")
for target in "${wanted[@]}"; do
  [[ -d "Corpus/$target" ]] || { echo "run.sh: no target '$target' (Fuzz/run.sh --list names them)" >&2; exit 2; }
done

# Every Swift module, the product's included, is instrumented; its own scratch path keeps this build
# apart from the main package's.
flags=(--scratch-path .build -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library)
started=$SECONDS
swift build "${flags[@]}" 2>&1 | grep -v -e '^\[[0-9]*/[0-9]*\]' -e '^Building for' -e '^Compiling' -e '^Write' || true
binary="$(swift build "${flags[@]}" --show-bin-path)/WOPIFuzz"
[[ -x "$binary" ]] || { echo "run.sh: the fuzz build failed" >&2; exit 1; }
echo "fuzz build: $((SECONDS - started)) s"
$build_only && exit 0

mkdir -p .build/findings
# The Swift runtime's own crash handler reads freed memory under AddressSanitizer and hides the real report.
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=no}"
failed=()
for target in "${wanted[@]}"; do
  work=".build/corpus/$target"
  mkdir -p "$work"
  log=".build/findings/$target.log"
  echo "fuzzing $target for $seconds s"
  # -timeout: one input taking over 10 s is a hang. -rss_limit_mb / -malloc_limit_mb: over 2 GiB resident,
  # or one allocation over 512 MiB, is an unbounded allocation (the targets' inputs are at most 64 KiB).
  if WOPI_FUZZ_TARGET="$target" ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}" "$binary" "$work" "Corpus/$target" \
      -max_total_time="$seconds" -seed="$seed" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512 -max_len=65536 \
      -artifact_prefix=".build/findings/$target-" -print_final_stats=1 >"$log" 2>&1; then
    grep -E '^(Done|stat::number_of_executed_units|stat::new_units_added)' "$log" | tr '\n' ' ' || true
    echo
  else
    artifact="$(grep -oE "Test unit written to [^ ]+" "$log" | tail -1 | sed 's/Test unit written to //')"
    echo "FUZZ FINDING in target '$target'; the input: Fuzz/${artifact:-(none saved, see $log)}" >&2
    grep -E -m 8 'ERROR|Fatal error|panic|deadly signal|timeout|out-of-memory|malloc\(' "$log" | sed 's/^/  /' >&2 || true
    echo "  full log: Fuzz/$log" >&2
    echo "  reproduce: cd Fuzz && WOPI_FUZZ_TARGET=$target $binary ${artifact:-<input>}" >&2
    failed+=("$target")
  fi
done

if ((${#failed[@]} > 0)); then
  echo "fuzzing found problems in: ${failed[*]}" >&2
  exit 1
fi
echo "fuzzing: ${#wanted[@]} targets, $seconds s each, nothing found"
