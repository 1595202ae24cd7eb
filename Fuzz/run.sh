#!/usr/bin/env bash
# Builds the fuzz targets (libFuzzer, AddressSanitizer) and runs each for a bounded time.
#
#   Fuzz/run.sh                         every target, 45 s each (12 targets, 9 minutes on one core)
#   Fuzz/run.sh --seconds 30 --seed 1   what CI runs: 30 s each, the same random choices every run
#   Fuzz/run.sh --jobs 1                one target at a time (default: as many at once as there are cores)
#   Fuzz/run.sh --seconds 3600 multipart s3-xml
#                                       a longer run of some targets
#   Fuzz/run.sh --list                  the targets
#   Fuzz/run.sh --build-only            only build
#
# Each target starts from its committed seeds (Fuzz/Corpus/<target>) and keeps what it learns in
# Fuzz/.build/corpus/<target>, so later runs go on from there and the committed corpus stays as written.
# A crash, a sanitizer report, a hang (-timeout) or an allocation past the limits (-rss_limit_mb,
# -malloc_limit_mb) stops the run; the input is saved under Fuzz/.build/findings/ and named below.
#
# The targets build in the AddressSanitizer job's folder, .build-asan, with its flags (.ci/asan-build-options):
# after `SANITIZER_JOBS=asan bash .ci/sanitizers` little is left to build (the validator, the simulator, this executable),
# and after this script the job compiles only its tests and what only they need.
set -euo pipefail
self=$(readlink -f "$0")
cd "$(dirname "$self")/.."

seconds=45
seed=0
jobs=$(nproc)
build_only=false
wanted=()
all=(office-uri wopi-headers discovery-xml multipart simulator-html-form validator-definitions validator-json
     validator-jsonpath s3-xml oauth-form web-form config-file)
while (($# > 0)); do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --seconds=*) seconds="${1#*=}"; shift ;;
    --seed) seed="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --build-only) build_only=true; shift ;;
    --list) printf '%s\n' "${all[@]}"; exit 0 ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$self"; exit 0 ;;
    -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    *) wanted+=("$1"); shift ;;
  esac
done
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: --jobs takes a positive whole number, not '$jobs'" >&2; exit 2; }
((${#wanted[@]} > 0)) || wanted=("${all[@]}")
for target in "${wanted[@]}"; do
  [[ -d "Fuzz/Corpus/$target" ]] || { echo "run.sh: no target '$target' (Fuzz/run.sh --list names them)" >&2; exit 2; }
done

# Every Swift module, the product's included, is instrumented for coverage.
source .ci/asan-build-options
started=$SECONDS
mkdir -p Fuzz/.build
if ! swift build --product WOPIFuzz "${asan_build_options[@]}" > Fuzz/.build/build.log 2>&1; then
  grep -E "error:" Fuzz/.build/build.log | head -30 >&2 || tail -30 Fuzz/.build/build.log >&2
  echo "run.sh: the fuzz build failed (whole log: Fuzz/.build/build.log)" >&2
  exit 1
fi
binary=$(readlink -f "$(swift build "${asan_build_options[@]}" --show-bin-path)/WOPIFuzz")
echo "fuzz build: $((SECONDS - started)) s"
$build_only && exit 0
cd Fuzz

mkdir -p .build/findings
# The Swift runtime's own crash handler reads freed memory under AddressSanitizer and hides the real report.
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=no}"
# Undefined behaviour in the C code stops the target like a crash, so libFuzzer saves the input.
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
# One target: its result goes to .build/findings/<target>.result, so that targets can run side by side.
fuzz() {
  local target=$1 work=".build/corpus/$1" log=".build/findings/$1.log" result=".build/findings/$1.result"
  mkdir -p "$work"
  # -timeout: one input taking over 10 s is a hang. -rss_limit_mb / -malloc_limit_mb: over 2 GiB resident,
  # or one allocation over 512 MiB, is an unbounded allocation (the targets' inputs are at most 64 KiB).
  if WOPI_FUZZ_TARGET="$target" ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}" "$binary" "$work" "Corpus/$target" \
      -max_total_time="$seconds" -seed="$seed" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512 -max_len=65536 \
      -artifact_prefix=".build/findings/$target-" -print_final_stats=1 >"$log" 2>&1; then
    echo "$target: $(grep -E '^(Done|stat::number_of_executed_units|stat::new_units_added)' "$log" | tr '\n' ' ')" > "$result"
  else
    local artifact
    artifact="$(grep -oE "Test unit written to [^ ]+" "$log" | tail -1 | sed 's/Test unit written to //')"
    {
      echo "FUZZ FINDING in target '$target'; the input: Fuzz/${artifact:-(none saved, see $log)}"
      grep -E -m 8 'ERROR|Fatal error|panic|deadly signal|timeout|out-of-memory|malloc\(' "$log" | sed 's/^/  /' || true
      echo "  full log: Fuzz/$log"
      echo "  reproduce: cd Fuzz && WOPI_FUZZ_TARGET=$target $binary ${artifact:-<input>}"
    } > "$result.failed"
  fi
}

# libFuzzer runs a target on one core: --jobs targets run at once (the machine's cores by default).
rm -f .build/findings/*.result .build/findings/*.result.failed
running=0
for target in "${wanted[@]}"; do
  if ((running >= jobs)); then wait -n; running=$((running - 1)); fi
  echo "fuzzing $target for $seconds s"
  fuzz "$target" &
  running=$((running + 1))
done
wait
failed=()
for target in "${wanted[@]}"; do
  if [[ -f ".build/findings/$target.result.failed" ]]; then
    cat ".build/findings/$target.result.failed" >&2
    failed+=("$target")
  else
    cat ".build/findings/$target.result"
  fi
done

if ((${#failed[@]} > 0)); then
  echo "fuzzing found problems in: ${failed[*]}" >&2
  exit 1
fi
echo "fuzzing: ${#wanted[@]} targets, $seconds s each, nothing found"
