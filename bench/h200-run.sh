#!/usr/bin/env bash
# The H200 results run: the CUB anchor and vkprims side by side in one command. Needs the
# device folder (../shared/device copied to .gl) and a release build. Writes under $OUT.
#   usage: bash bench/h200-run.sh
set -uo pipefail
source .gl/setup.sh
B=./target/release/vkprims
OUT=${OUT:-/tmp/vkprims-out}; mkdir -p "$OUT"
exec 2> >(tee "$OUT/run.log" >&2)
{
  echo "# vkprims on the H200, $(date -u +%Y-%m-%dT%H:%MZ)"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
} > "$OUT/tables.md"
nvcc -O3 -arch=sm_90 -o /tmp/cub_anchor .gl/cub_anchor.cu && /tmp/cub_anchor > "$OUT/cub.txt"
$B info --json > "$OUT/info.json"
$B selftest --json "$OUT/selftest.json" > "$OUT/selftest.txt"; echo "selftest exit $?" >> "$OUT/selftest.txt"
{
  echo; echo "## scan and reduce, u32 add (tuned policy per n)"
  $B bench scan --n 2^16,2^18,2^20,2^22,2^24,2^26,2^28 --kind exclusive,inclusive,reduce --json "$OUT/scan-u32.json"
  echo; echo "## other types and operators"
  $B bench scan --n 2^24,2^28 --dtype i32,f32 --op add,max --kind exclusive,reduce --json "$OUT/scan-types.json"
  echo; echo "## reduce policies at 2^28 (tuning)"
  $B bench scan --n 2^28 --kind reduce --policy 256x4x32x1024,256x8x32x1024,256x16x32x1024,256x8x32x2048
  echo; echo "## --no-reset (expected to fail validation: stale tickets make later trials exit at once)"
  $B bench scan --n 2^24 --kind exclusive --no-reset --trials 5
} >> "$OUT/tables.md"
echo; cat "$OUT/cub.txt" | grep -E "primitive|exscan|reduce|memcpy"
grep -E "exclusive add u32|reduce add u32|copy \(shader\)" "$OUT/tables.md" | head -24
tail -1 "$OUT/selftest.txt"
