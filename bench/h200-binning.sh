#!/usr/bin/env bash
# On the H200 (see ../shared/device/README.md): the CUB and torch.randperm anchors, the
# binning-pass primitives (sort, multisplit, permutation) side by side with a per-kernel
# profile, the load-pattern lab and selftest, each step under a timeout so one slow step
# cannot lose the others' results; all files are packed into OUTDIR.tgz at the end.
#   usage: [STEPS="anchors selftest sort ..."] bench/h200-binning.sh OUTDIR
# All steps together can take longer than one 600 s device call: split them with STEPS
# (the anchors step runs CUB and torch.randperm; keep it in every call, for side-by-side ratios).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${1:?outdir}; mkdir -p "$OUT"
B=./target/release/vkprims
STEPS=${STEPS:-"anchors selftest sort multisplit perm policies loads"}  # chase: the chase cases only; *-lean, sort-u64, tiles6, sort-small6, hist7, tiles7, u64-tiles7, u64-2e27, windows7, hg7, pairs8, pairs8-stats, perm8, perm8-VARIANT and model-VARIANT (target/exp/vkprims-VARIANT), perm8-stats, early9-28, early9-ms, clocks9, multisplit-4096, multisplit-pairs, windows, spans52, spans52b, spans52v2, spans52v3, shape53, chase53, tiles54, keep55, keep56, keep57, il60, packed60, unpack61, hold62, diag63, warm63, align68, align69, robust70, reads70, order72: fewer rows
want() { [[ " $STEPS " == *" $1 "* ]]; }
step() { local name=$1 t=$2; shift 2; want "$name" || return 0; echo "== $name" >&2; timeout "$t" "$@" > "$OUT/$name.md" 2> "$OUT/$name.log"; echo "rc=$? $name" >&2; }
# The driver's SASS of the largest pipeline a command compiles (from a fresh disk cache, read
# by target/exp/sass.py): sass_of NAME MDFILE COMMAND..., into $OUT/NAME.sass and a line of MDFILE.
sass_of() { local name=$1 md=$2; shift 2; rm -rf ~/.cache/nvidia/GLCache; timeout 60 "$@" > /dev/null 2>&1; timeout 150 python3 target/exp/sass.py "$name" >> "$OUT/$md" 2>&1; }
# stats_of BIN REGEX FILE [POLICIES]: binary BIN's pipeline statistics lines matching REGEX
# (under binning policies POLICIES, comma-separated; none: the default), into $OUT/FILE.
stats_of() { timeout 90 $1 pipelines --stats ${4:+--binning-policy $4} | grep -E "$2" | sed -E 's/ \| Binary Size: [0-9]+ \| Stack Size: [0-9]+//' | cut -c1-300 > "$OUT/$3" 2>&1; }
# Builds alternated: alt NAME ROUNDS "LABEL=BIN ..." BENCH-ARGS... runs
# `BIN bench BENCH-ARGS --json $OUT/NAME-LABEL-R.json` for each round R, each build in turn, into
# $OUT/NAME.md; ab NAME ROUNDS LABEL_A BIN_A LABEL_B BIN_B BENCH-ARGS... for two.
alt() {
  local name=$1 rounds=$2 builds=$3 r lb; shift 3
  for r in $(seq "$rounds"); do
    for lb in $builds; do
      echo "== ${lb%%=*} $r" >> "$OUT/$name.md"
      timeout 120 ${lb#*=} bench "$@" --json "$OUT/$name-${lb%%=*}-$r.json" >> "$OUT/$name.md" 2>&1
    done
  done
}
ab() { local name=$1 rounds=$2 builds="$3=$4 $5=$6"; shift 6; alt "$name" "$rounds" "$builds" "$@"; }
# The u32 pair passes' pipeline statistics (sort and multisplit: registers, shared memory) of
# binary BIN under binning policies P (comma-separated; empty: the default), into $OUT/FILE.
pair_regs() { stats_of $1 '^(sort_onesweep_k32_v1(_clock)?(_timeline)? \(sort u32 values 4B|multisplit_k32_v1)' $3 $2; }
# A patched build against the build before: base_new_regs NAME SELFTEST writes the digit
# passes' registers of `vkprims-base` and `vkprims` into NAME-regs-base.md and
# NAME-regs-new.md, and the new build's selftest (width 32) into SELFTEST.
RE_PASSES='^(sort_onesweep_k(32|64)_v[01] \(sort (u32|u64) values [04]B|multisplit_k32_v1)'
base_new_regs() {
  stats_of ./target/release/vkprims-base "$RE_PASSES" $1-regs-base.md
  stats_of $B "$RE_PASSES" $1-regs-new.md
  timeout 120 $B selftest > "$OUT/$2" 2>&1
}
# base_new_clocks NAME POLICIES: phase clocks of u32 keys and pairs at 2^26 under POLICIES,
# `vkprims-base` then `vkprims`, into NAME-clocks.md (and a JSON file each).
base_new_clocks() {
  local x
  for x in base=./target/release/vkprims-base new=$B; do
    timeout 100 ${x#*=} bench sort --n 2^26 --key u32 --values 0,4 --binning-policy $2 --trials 5 --json "$OUT/$1-clocks-${x%%=*}.json" >> "$OUT/$1-clocks.md" 2>&1
  done
}
# The CUB anchor, built once a machine (/tmp/cub_anchor).
cub_build() { [ -x /tmp/cub_anchor ] || nvcc -O3 -arch=sm_90 -o /tmp/cub_anchor .gl/cub_anchor.cu; }
if want anchors; then
  cub_build && timeout 120 /tmp/cub_anchor > "$OUT/cub.txt" 2>&1
  timeout 60 python3 .gl/randperm_anchor.py > "$OUT/randperm.txt" 2>&1
fi
step selftest 120 $B selftest
# The fixed checks (on a fresh machine the driver first compiles every pipeline: about 100 s),
# then random cases at width 32 for 90 s (src/soak.rs; a failure replays with --soak-seed 4747
# --soak-case K and the same build).
step soak 300 $B selftest --soak 90 --soak-seed 4747
step sort 240 $B bench sort --n 2^20,2^24,2^28 --key u32,u64 --values 0,4 --trials 10 --profile --json "$OUT/sort.json"
step multisplit 200 $B bench multisplit --n 2^24,2^28 --key u32 --buckets 2,16,256,1000,4096 --values 0,4 --ranking stable,atomic --trials 10 --profile --json "$OUT/multisplit.json"
step perm 100 $B bench perm --n 2^24,2^28 --values 4,8 --ranking atomic,stable --trials 10 --profile --json "$OUT/perm.json"
# Where a digit pass's time goes: phase clocks, and passes with parts skipped (skip bits: 1
# look-back, 2 stores, 8 peer matching, 16 step counters; only the first pass's time is
# meaningful, as a skip's wrong output feeds the later passes).
step policies 150 $B bench sort --n 2^26 --key u32 --values 0 --binning-policy 384x15,384x15xballots,384x15xpart,256x15,512x15,384x15xclocks,384x15xskip1,384x15xskip2,384x15xskip8,384x15xskip16,384x15xskip27 --trials 10 --profile --json "$OUT/policies.json"
# Lean steps for one device call with the anchors and selftest (session 4's final run).
step perm-lean 90 $B bench perm --n 2^28 --values 4,8 --ranking atomic,stable --trials 10 --profile --json "$OUT/perm.json"
step sort-lean 120 $B bench sort --n 2^20,2^28 --key u32 --values 0,4 --trials 10 --json "$OUT/sort.json"
# Tiles for small sorts (launch- and latency-bound): one wave of tiles, or more, smaller ones.
step sort-small 90 $B bench sort --n 2^20,2^22 --key u32 --values 0 --binning-policy 384x15,256x15,384x8,256x8,256x4,128x15,128x8,512x4 --trials 10 --profile --json "$OUT/sort-small.json"
# u32 keys and pairs over sizes with a per-kernel profile (the histogram's share).
step sort-sizes 150 $B bench sort --n 2^20,2^22,2^24,2^26,2^28 --key u32 --values 0,4 --trials 10 --profile --json "$OUT/sort-sizes.json"
# Phase clocks of the default pass (shared-memory peer match) at 2^26.
step clocks 60 $B bench sort --n 2^26 --key u32 --values 0 --binning-policy 256x20xclocks,256x15xclocks --trials 10 --profile --json "$OUT/clocks.json"
# Few buckets: shared-memory peer matching serialises lanes that share a bucket's mask word.
step multisplit-small-b 120 $B bench multisplit --n 2^26 --key u32 --buckets 2,4,16 --values 0 --ranking stable --binning-policy 384x15,384x15xballots --trials 10 --json "$OUT/multisplit-small-b.json"
step multisplit-2e28 200 $B bench multisplit --n 2^28 --key u32 --buckets 256 --values 0,4 --ranking stable,atomic --trials 10 --json "$OUT/multisplit-2e28.json"
# Session 6: tiles around the new defaults (keys and values read again while staging),
# against the old defaults (384x15 and 256x15 with keys kept in registers), at 2^26.
step tiles6 150 $B bench sort --n 2^26 --key u32 --values 0,4 --binning-policy auto,256x16,256x18,384x15xkeep,256x15xkeep --trials 10 --json "$OUT/tiles6.json"
# Small sorts with the reads while staging: shorter tiles (less latency each, more of them).
step sort-small6 90 $B bench sort --n 2^20,2^22 --key u32 --values 0 --binning-policy auto,256x15,256x12,256x10,256x8,256x6,128x20,128x15,128x10 --trials 10 --profile --json "$OUT/sort-small6.json"
# Compiler statistics (registers, spills) of the binning passes and the permutation's shuffle.
step stats 60 $B pipelines --stats
step sort-u64 40 $B bench sort --n 2^24 --key u64 --values 0 --trials 10 --json "$OUT/sort-u64.json"
# (2, 16, 256 and 4096 buckets with both rankings passed 90 s in session 4: 2^26 inputs and
# their CPU checks, eight rows.)
step multisplit-lean 180 $B bench multisplit --n 2^26 --key u32 --buckets 2,16,256 --values 0 --ranking stable,atomic --trials 10 --json "$OUT/multisplit.json"
step multisplit-4096 90 $B bench multisplit --n 2^26 --key u32 --buckets 4096 --values 0 --ranking stable,atomic --trials 10 --json "$OUT/multisplit-4096.json"
step multisplit-pairs 40 $B bench multisplit --n 2^26 --key u32 --buckets 256 --values 4 --ranking stable,atomic --trials 10 --json "$OUT/multisplit-pairs.json"
step windows 60 $B bench sort --n 2^26 --key u32 --values 0,4 --binning-policy auto,autoxautoxlb4,autoxautoxlb16 --trials 10 --profile --json "$OUT/windows.json"
# Session 7: the upfront histogram with 16-byte loads (the default) against one load per key
# (xhscalar), with per-kernel profiles, u32 over sizes and u64.
step hist7 200 $B bench sort --n 2^20,2^22,2^26,2^28 --key u32 --values 0 --binning-policy auto,autoxautoxhscalar --trials 10 --profile --json "$OUT/hist7.json"
step hist7-u64 60 $B bench sort --n 2^24 --key u64 --values 0 --binning-policy auto,autoxautoxhscalar --trials 10 --profile --json "$OUT/hist7-u64.json"
# Session 7: longer tiles (fewer look-backs per key) now that keys are not held in registers.
step tiles7 150 $B bench sort --n 2^26 --key u32 --values 0 --binning-policy auto,256x24,256x28,256x32,512x10,512x12 --trials 10 --json "$OUT/tiles7.json"
step tiles7-pairs 100 $B bench sort --n 2^26 --key u32 --values 4 --binning-policy auto,256x12,256x18,512x8 --trials 10 --json "$OUT/tiles7-pairs.json"
step tiles7-stats 60 $B pipelines --stats --binning-policy 256x24,256x28,256x32,512x10,512x12,256x12,512x8
# Session 7: 64-bit keys at CUB's anchor sizes (2^23, 2^25, 2^27), tiles around the default.
step u64-tiles7 200 $B bench sort --n 2^23,2^25 --key u64 --values 0 --binning-policy auto,256x12,256x18,256x20,512x8,512x10 --trials 10 --json "$OUT/u64-tiles7.json"
step u64-2e27 60 $B bench sort --n 2^27 --key u64 --values 0 --trials 10 --profile --json "$OUT/u64-2e27.json"
# Session 7: wider look-back windows for small sorts: all tiles run at once there, and a
# tile's walk back to an inclusive prefix advances one window per round.
step windows7 150 $B bench sort --n 2^20,2^22,2^24,2^26 --key u32 --values 0,4 --binning-policy auto,autoxautoxlb16,autoxautoxlb32,autoxautoxlb64 --trials 10 --json "$OUT/windows7.json"
# Session 7: fewer upfront-histogram workgroups for small sorts (fewer global atomics into the
# counter copies; the default is min(2048, n / 2048)).
step hg7 60 $B bench sort --n 2^20,2^22 --key u32 --values 0 --binning-policy auto,autoxautoxhg64,autoxautoxhg128,autoxautoxhg256 --trials 10 --profile --json "$OUT/hg7.json"
# Queued for the next run: with the fallback rolled, pairs took 74 registers at 256x15; larger
# pair tiles may now keep three workgroups per SM (at most 80 registers).
step pairs8 150 $B bench sort --n 2^26,2^28 --key u32 --values 4 --binning-policy auto,256x16,256x17,256x18 --trials 10 --json "$OUT/pairs8.json"
step pairs8-stats 60 $B pipelines --stats --binning-policy 256x16,256x17,256x18
# Session 8: the shuffle (two elements per Philox call, per-element state in shared memory,
# out of place); its workgroup (512) against 256 and 1024, and 4-byte elements staged in
# shared memory instead of gathered (experiment binaries, built with only that changed,
# carried in target/exp/ when present), with the shuffle's registers.
step perm8 120 $B bench perm --n 2^26,2^28 --values 4,8 --ranking atomic,stable --trials 10 --profile --json "$OUT/perm8.json"
for X in target/exp/vkprims-*; do
  # The reproducible output against the CPU model (the benchmark checks it up to 2^22).
  [ -x "$X" ] && step "model-${X##*-}" 60 $X bench perm --n 2^22 --values 4,8 --ranking stable --trials 3 --json "$OUT/model-${X##*-}.json"
  [ -x "$X" ] && step "perm8-${X##*-}" 90 $X bench perm --n 2^26,2^28 --values 4,8 --ranking atomic --trials 10 --profile --json "$OUT/perm8-${X##*-}.json"
done
if want perm8-stats; then
  for X in $B target/exp/vkprims-*; do [ -x "$X" ] && { echo "$X"; timeout 60 $X pipelines --stats | grep perm_; }; done > "$OUT/perm8-stats.md" 2> "$OUT/perm8-stats.log"
fi
# Session 9: stable ranking with early counts (the default) against ranking first (`xlate`),
# at 2^28 and in the 256-way multisplit. (The session's other experiments, `xrot` and debug
# bits 6-9, were removed after their runs: bench/results/h200/binning/RUNS.md.)
step early9-28 150 $B bench sort --n 2^28 --key u32 --values 0,4 --binning-policy auto,autoxautoxlate --trials 10 --json "$OUT/early9-28.json"
step early9-ms 120 $B bench multisplit --n 2^26 --key u32 --buckets 2,256 --values 0,4 --ranking stable --binning-policy auto,autoxautoxlate --trials 10 --json "$OUT/early9-ms.json"
# Where the final pass's time goes (phase clocks) and whether the look-back window matters now.
step clocks9 90 $B bench sort --n 2^26 --key u32 --values 0,4 --binning-policy autoxautoxclocks,autoxautoxlb4xclocks,autoxautoxlb16xclocks --trials 10 --json "$OUT/clocks9.json"
# Session 10: CUB's sm90 onesweep tile is 384x23 (two blocks an SM); our tiles at 384, 320, 448
# and 512 invocations with their registers, keys and pairs at 2^26, the best at 2^28.
T10K=auto,384x16,384x18,384x20,384x22,384x24,320x20,320x24,448x18,512x16,512x18
T10P=auto,256x20,384x12,384x14,320x16,320x18,448x12,512x10,512x11
step tiles10-stats 90 $B pipelines --stats --binning-policy $T10K,$T10P
step tiles10 200 $B bench sort --n 2^26 --key u32 --values 0 --binning-policy $T10K --trials 10 --json "$OUT/tiles10.json"
step tiles10-pairs 200 $B bench sort --n 2^26 --key u32 --values 4 --binning-policy $T10P --trials 10 --json "$OUT/tiles10-pairs.json"
step tiles10-28 200 $B bench sort --n 2^28 --key u32 --values 0,4 --binning-policy ${T10_28:-auto} --trials 10 --profile --json "$OUT/tiles10-28.json"
T10B=auto,512x16,512x15,512x17,448x15,448x16,448x17,384x19
T10U=auto,512x10,512x8,448x12,448x10,384x12,320x16
step tiles10b-stats 90 $B pipelines --stats --binning-policy $T10B,$T10U
step tiles10b 200 $B bench sort --n 2^26 --key u32 --values 0 --binning-policy $T10B --trials 10 --json "$OUT/tiles10b.json"
step tiles10-u64 200 $B bench sort --n 2^26 --key u64 --values 0 --binning-policy $T10U --trials 10 --json "$OUT/tiles10-u64.json"
step tiles10-small 120 $B bench sort --n 2^20,2^22,2^24 --key u32 --values 0,4 --binning-policy auto,512x16,512x10,512x8,448x12 --trials 10 --json "$OUT/tiles10-small.json"
# (Session 10's `xvafter`, `xhsN` and `xsrN` experiments ran as the vafter10, hist10 and sr10
# steps of commits a2da6ef, 7f348e8 and c3d6f9f, and were removed:
# bench/results/h200/binning/RUNS.md.)
# Session 10: look-back window and histogram workgroups around the 512x16 default at 2^28.
step lb10 280 $B bench sort --n 2^28 --key u32 --values 0 --binning-policy auto,autoxautoxlb4,autoxautoxlb16,autoxautoxhg1024,autoxautoxhg4096 --trials 10 --json "$OUT/lb10.json"
step lb10-ms 150 $B bench multisplit --n 2^28 --key u32 --buckets 256 --values 0 --ranking stable --binning-policy auto,autoxautoxlb4,autoxautoxlb16 --trials 10 --json "$OUT/lb10-ms.json"
# (Session 11's `xvdirect`, values written straight from their input positions, ran as the
# vdirect11 steps of commit dffbc71 and was removed: bench/results/h200/binning/RUNS.md.)
# Session 11: phase clocks of the 512-invocation defaults, the look-back split
# into invocation 0's walks and the wait at its barrier (for every walk and every subgroup's
# staging), ranking and staging apart.
step clocks11 90 $B bench sort --n 2^26 --key u32 --values 0,4 --binning-policy autoxautoxclocks --trials 10 --json "$OUT/clocks11.json"
# Session 11: the permutation of indices (`--values 0`: no id array, indices moved alone,
# group ids drawn again in the passes) against the 4-byte array's, at 2^26 and 2^28, with the
# pass and shuffle registers.
step perm11 150 $B bench perm --n 2^26,2^28 --values 0,4 --ranking atomic,stable --trials 10 --profile --json "$OUT/perm11.json"
# Tiles for the indices' first pass (atomic ranking, 43 registers at 512x10: three workgroups
# of 384 fit an SM where two of 512 do); the policy applies to every pass.
step perm11-tiles 120 $B bench perm --n 2^28 --values 0 --ranking atomic --binning-policy auto,384x13,384x14,448x11 --trials 10 --profile --json "$OUT/perm11-tiles.json"
if want perm11-tiles-stats; then timeout 60 $B pipelines --stats --binning-policy 384x13,384x14,448x11 | grep -E '^perm_pass' > "$OUT/perm11-tiles-stats.md" 2> "$OUT/perm11-tiles-stats.log"; fi
if want perm11-stats; then timeout 60 $B pipelines --stats | grep -E '^perm_' > "$OUT/perm11-stats.md" 2> "$OUT/perm11-stats.log"; fi
# Session 12: the permutation of indices at 2^28 with experiment binaries (target/exp/), one
# part changed or skipped each, for where its kernels' time goes.
step perm12 60 $B bench perm --n 2^28 --values 0 --ranking atomic --trials 10 --profile --json "$OUT/perm12.json"
for X in target/exp/vkprims-*; do
  [ -x "$X" ] && step "perm12-${X##*-}" 60 $X bench perm --n 2^28 --values 0 --ranking atomic --trials 10 --profile --json "$OUT/perm12-${X##*-}.json"
done
# Session 13: the permutation's passes staging one word an element, at several tiles.
step perm13-tiles 150 $B bench perm --n 2^28 --values 0 --ranking atomic --binning-policy auto,512x12,512x14,512x18,384x20 --trials 10 --profile --json "$OUT/perm13-tiles.json"
step perm13-repro 150 $B bench perm --n 2^28 --values 0 --ranking stable --binning-policy auto,512x12,512x16 --trials 10 --profile --json "$OUT/perm13-repro.json"
# Session 13: short tiles for small sorts (2^20: 128 tiles of 512x16 fill half the H200's
# 264 workgroup slots; a tile's latency sets each pass's time).
step sort-small13 120 $B bench sort --n 2^20,2^22 --key u32 --values 0,4 --binning-policy auto,512x8,512x4,256x8,1024x8,1024x4 --trials 10 --profile --json "$OUT/sort-small13.json"
if want perm13-stats; then timeout 60 $B pipelines --stats --binning-policy auto,512x12,512x14,512x18,384x20 | grep -E '^perm_pass' > "$OUT/perm13-stats.md" 2> "$OUT/perm13-stats.log"; fi
# Session 14: 4-byte pairs with the key and value planes staged in sequence (`xseq`, CUB's
# order: one plane of shared memory, so longer tiles), registers and times at 2^26 and 2^28.
S14=${S14:-auto,512x16xseq,512x14xseq,512x12xseq,384x20xseq}
if want seq14-stats; then
  for X in $B target/exp/vkprims-*; do [ -x "$X" ] && { echo "$X"; timeout 60 $X pipelines --stats --binning-policy $S14 | grep -E '^sort_onesweep_k32_v1 .sort u32 '; }; done > "$OUT/seq14-stats.md" 2> "$OUT/seq14-stats.log"
fi
for X in target/exp/vkprims-*; do
  [ -x "$X" ] && step "seq14-ms-${X##*-}" 120 $X bench multisplit --n 2^26 --key u32 --buckets 256 --values 4 --ranking stable --binning-policy $S14 --trials 10 --json "$OUT/seq14-ms-${X##*-}.json"
done
step seq14-ms 220 $B bench multisplit --n 2^26 --key u32 --buckets 256 --values 4 --ranking stable --binning-policy $S14 --trials 10 --json "$OUT/seq14-ms.json"
step seq14-ms-atomic 120 $B bench multisplit --n 2^26 --key u32 --buckets 256 --values 4 --ranking atomic --binning-policy ${S14A:-auto,512x16xseq} --trials 10 --json "$OUT/seq14-ms-atomic.json"
step seq14-sort 200 $B bench sort --n 2^26 --key u32 --values 4 --binning-policy $S14 --trials 10 --profile --json "$OUT/seq14-sort.json"
step seq14-28 250 $B bench multisplit --n 2^28 --key u32 --buckets 256 --values 4 --ranking stable,atomic --binning-policy ${S14B:-auto,512x16xseq} --trials 10 --json "$OUT/seq14-28.json"
# Session 14's final run: the 256-way multisplit of 2^28 pairs and the permutation at 2^28
# (the 4-byte array's passes now stage their planes in sequence) with the defaults.
step ms14-28 150 $B bench multisplit --n 2^28 --key u32 --buckets 256 --values 4 --ranking stable,atomic --trials 10 --json "$OUT/ms14-28.json"
step perm14 120 $B bench perm --n 2^28 --values 0,4 --ranking atomic,stable --trials 10 --profile --json "$OUT/perm14.json"
# Session 14: atomic ranking's registers may allow longer 4-byte pair tiles than stable's.
step atomic14 120 $B bench multisplit --n 2^26 --key u32 --buckets 256 --values 4 --ranking atomic --binning-policy auto,512x16,512x18,512x20,512x14 --trials 10 --json "$OUT/atomic14.json"
step atomic14-28 150 $B bench multisplit --n 2^28 --key u32 --buckets 256 --values 4 --ranking atomic --binning-policy auto,512x16,512x18 --trials 10 --json "$OUT/atomic14-28.json"
# Session 15: 64-bit keys alone with their low and high words staged in sequence (the
# default now) against both at once (`xnoseq`: 512x10), tiles around 448x16, with registers.
S15U=${S15U:-auto,autoxautoxnoseq,512x16,384x18,448x14,512x12}
if want u64-15-stats; then timeout 60 $B pipelines --stats --binning-policy $S15U | grep -E '^sort_onesweep_k64_v0 .sort u64 ' > "$OUT/u64-15-stats.md" 2> "$OUT/u64-15-stats.log"; fi
step u64-15 240 $B bench sort --n 2^26 --key u64 --values 0 --binning-policy $S15U --trials 10 --json "$OUT/u64-15.json"
step u64-15-27 150 $B bench sort --n 2^27 --key u64 --values 0 --binning-policy ${S15U27:-auto,autoxautoxnoseq} --trials 10 --profile --json "$OUT/u64-15-27.json"
# Session 15: the 256-way multisplit of 2^26 pairs with experiment binaries (target/exp/)
# against the defaults, both rankings.
step ms15 120 $B bench multisplit --n 2^26 --key u32 --buckets 256 --values 4 --ranking stable,atomic --trials 10 --json "$OUT/ms15.json"
if want ms15-stats; then
  for X in $B target/exp/vkprims-*; do [ -x "$X" ] && { echo "$X"; timeout 60 $X pipelines --stats | grep -E '^sort_onesweep_k32_v1 .sort u32 |^sort_onesweep_k64_v0 .sort u64 '; }; done > "$OUT/ms15-stats.md" 2> "$OUT/ms15-stats.log"
fi
for X in target/exp/vkprims-*; do
  [ -x "$X" ] && step "ms15-${X##*-}" 120 $X bench multisplit --n 2^26 --key u32 --buckets 256 --values 4 --ranking stable,atomic --trials 10 --json "$OUT/ms15-${X##*-}.json"
done
# Session 15: workgroups of 1024 (32 subgroups: experiment binary sg32, the kernel's counter
# rows allowed 32 subgroups) for small sorts, where a tile's latency sets each pass's time, and
# at 2^26, with registers.
P15=${P15:-auto,1024x8,1024x8xpart,1024x10,1024x10xpart,1024x6}
for X in target/exp/vkprims-*; do
  if want "sg15-stats"; then timeout 60 $X pipelines --stats --binning-policy $P15 | grep -E '^sort_onesweep_k32_v[01]_?[a-z]* .sort u32 ' > "$OUT/sg15-stats-${X##*-}.md" 2> "$OUT/sg15-stats-${X##*-}.log"; fi
  [ -x "$X" ] && step "sg15-small-${X##*-}" 200 $X bench sort --n 2^20,2^22 --key u32 --values 0,4 --binning-policy $P15 --trials 10 --profile --json "$OUT/sg15-small-${X##*-}.json"
  [ -x "$X" ] && step "sg15-26-${X##*-}" 200 $X bench sort --n 2^26 --key u32 --values 0 --binning-policy $P15 --trials 10 --json "$OUT/sg15-26-${X##*-}.json"
done
# Session 15: the kernels' guarded loads (`i < n ? load : 0`) against clamped ones
# (experiment binaries), the defaults side by side, with per-kernel profiles.
for X in $B target/exp/vkprims-*; do
  [ "$X" = "$B" ] && V=main || V=${X##*-}
  [ -x "$X" ] && step "cl15-sort-$V" 200 $X bench sort --n 2^20,2^26 --key u32 --values 0,4 --trials 10 --profile --json "$OUT/cl15-sort-$V.json"
  [ -x "$X" ] && step "cl15-u64-$V" 100 $X bench sort --n 2^26 --key u64 --values 0 --trials 10 --profile --json "$OUT/cl15-u64-$V.json"
  [ -x "$X" ] && step "cl15-ms-$V" 200 $X bench multisplit --n 2^26 --key u32 --buckets 256 --values 0,4 --ranking stable,atomic --trials 10 --profile --json "$OUT/cl15-ms-$V.json"
done
# Session 15: the digit offsets scanned by the counting kernel's last workgroup (no offsets
# dispatch) against the build before it (experiment binary `head`), small sizes side by side.
for X in $B target/exp/vkprims-*; do
  [ "$X" = "$B" ] && V=main || V=${X##*-}
  [ -x "$X" ] && step "fo15-sort-$V" 150 $X bench sort --n 2^20,2^22,2^24 --key u32 --values 0,4 --trials 10 --profile --json "$OUT/fo15-sort-$V.json"
  [ -x "$X" ] && step "fo15-ms-$V" 100 $X bench multisplit --n 2^20,2^24 --key u32 --buckets 256 --values 0,4 --ranking stable --trials 10 --json "$OUT/fo15-ms-$V.json"
  [ -x "$X" ] && step "fo15-perm-$V" 100 $X bench perm --n 2^20,2^24 --values 0 --ranking atomic,stable --trials 10 --json "$OUT/fo15-perm-$V.json"
done
# Session 16: keys-only sorts of every key bit rank their first digit pass with atomics (no
# order among equal keys can show) by default; `xstablefirst` keeps it stable: side by side,
# u32 keys over sizes and u64 keys at CUB's 2^27.
step rk16 240 $B bench sort --n 2^20,2^24,2^26,2^28 --key u32 --values 0 --binning-policy auto,autoxautoxstablefirst --trials 10 --profile --json "$OUT/rk16.json"
step rk16-u64 150 $B bench sort --n 2^27 --key u64 --values 0 --binning-policy auto,autoxautoxstablefirst --trials 10 --profile --json "$OUT/rk16-u64.json"
# Session 16: the permutation with the last pass of the permutation of indices stable after a
# first pass (the atomic one mixed neighbouring groups on GPUs), both modes, with profiles.
step perm16 200 $B bench perm --n 2^24,2^28 --values 0,4 --ranking atomic,stable --trials 10 --profile --json "$OUT/perm16.json"
# Session 17: session 16's perm16 ran the permutation of indices 80x slower than before (37.7
# ms at 2^24, past 60 s at 2^28): its first and last passes had 384-wide tiles, the middle pass
# 448, and the middle pass sized every pass's look-back state. Now sized for the most tiles,
# with the passes pinned to 512 and the default mode's last pass atomic in class rounds:
# both modes over sizes, and tiles at 2^24 (`autox16` has the old mismatch), with registers.
step perm17 200 $B bench perm --n 2^24,2^28 --values 0,4 --ranking atomic,stable --trials 10 --profile --json "$OUT/perm17.json"
step perm17-wg 150 $B bench perm --n 2^24 --values 0 --ranking atomic,stable --binning-policy auto,autox16,384x16,448x16,256x16 --trials 3 --profile --json "$OUT/perm17-wg.json"
if want perm17-stats; then timeout 60 $B pipelines --stats --binning-policy auto,autox16,384x16,448x16,256x16 | grep -E '^perm_pass' > "$OUT/perm17-stats.md" 2> "$OUT/perm17-stats.log"; fi
# Session 17: keys alone also rank the second digit pass with atomics, in class rounds (the
# first pass's buckets in order); `xstablefirst` keeps every pass stable: u32 keys over sizes
# and u64 keys at CUB's 2^27, with profiles; u32 pairs at 2^20 and 2^28 for the README table.
step rk17 240 $B bench sort --n 2^20,2^24,2^26,2^28 --key u32 --values 0 --binning-policy auto,autoxautoxstablefirst --trials 10 --profile --json "$OUT/rk17.json"
step rk17-u64 150 $B bench sort --n 2^27 --key u64 --values 0 --binning-policy auto,autoxautoxstablefirst --trials 10 --profile --json "$OUT/rk17-u64.json"
step pairs17 150 $B bench sort --n 2^20,2^28 --key u32 --values 4 --trials 10 --profile --json "$OUT/pairs17.json"
# Session 17: experiment binaries (target/exp/) on small u32 key sorts, where the second
# pass's class rounds may cost more than they save (classes shorter than tiles).
for X in target/exp/vkprims-*; do
  [ -x "$X" ] && step "rk17-${X##*-}" 120 $X bench sort --n 2^20,2^22,2^24 --key u32 --values 0 --trials 10 --profile --json "$OUT/rk17-${X##*-}.json"
done
step rk17-small 120 $B bench sort --n 2^20,2^22,2^24 --key u32 --values 0 --trials 10 --profile --json "$OUT/rk17-small.json"
# Session 17's final binary: u32 keys and pairs at 2^20 and 2^28 with profiles.
step final17 150 $B bench sort --n 2^20,2^28 --key u32 --values 0,4 --trials 10 --profile --json "$OUT/final17.json"
# Queued in session 17: the registers of the keys-only sort's first (atomic), second (class
# rounds) and middle passes, for why the class-round pass takes 1.40 ms at 2^28 against the
# first pass's 1.27.
if want cr17-stats; then timeout 60 $B pipelines --stats | grep -E '^sort_onesweep_k(32|64)_v0 ' > "$OUT/cr17-stats.md" 2> "$OUT/cr17-stats.log"; fi
# Session 18: CUB's onesweep kernels take 80 registers for u32 pairs (384x23: 8,832 a tile,
# two workgroups an SM), 74 for u32 keys, 70 for u64 keys (384x15), from cuobjdump. (The
# `xspd` experiment, the scattered positions' buckets of 4-byte pairs kept in shared memory,
# ran as the pairs18 and pairs18b steps of commit 5fc30cf and was removed: RUNS.md.) u64 keys
# fit 384x15 now that the fallback's histogram shares the look-back's words.
step u64-18 150 $B bench sort --n 2^26,2^27 --key u64 --values 0 --binning-policy auto,384x15 --trials 10 --profile --json "$OUT/u64-18.json"
# Session 18: wide digits (experiment binary target/exp/vkprims-wide11, patch in
# bench/results/h200/binning/session18/): 11-bit digits, 2,048 buckets, three passes for u32
# keys. The stable ranking's counter rows do not fit 48 KiB at 2,048 buckets, so its passes
# after the second rank with atomics (results fail validation: timing only); each 11-bit pass
# is a lower bound on a stable one. Against the 8-bit sort's passes, with profiles.
[ -x target/exp/vkprims-wide11 ] && step wide18 200 target/exp/vkprims-wide11 bench sort --n 2^20,2^24,2^28 --key u32 --values 0 --trials 10 --profile --json "$OUT/wide18.json"
step keys18 200 $B bench sort --n 2^20,2^24,2^28 --key u32 --values 0 --trials 10 --profile --json "$OUT/keys18.json"
# Session 18: where the pair pass's registers peak: the registers of 4-byte pairs and keys
# alone with phases skipped (skip 1 look-back, 2 stores, 3 both; with ballots, 4 the
# ranking), at 448x16 and 384x22 (the slope an item); and u64 keys at 448x13 (5,824 a tile,
# 71 registers, which 48 KiB now holds) against the 384x15 default.
R18="448x16,448x16xskip1,448x16xskip2,448x16xskip3,448x16xballots,448x16xballotsxskip4,384x22,384x22xskip1,384x22xskip2,384x22xskip3,384x22xballots,384x22xballotsxskip4"
if want regs18; then timeout 90 $B pipelines --stats --binning-policy "$R18" | grep -E '^sort_onesweep_k32_v[01] \(sort u32 values [04]B middle' > "$OUT/regs18.md" 2> "$OUT/regs18.log"; fi
step u64-18b 150 $B bench sort --n 2^26,2^27 --key u64 --values 0 --binning-policy auto,448x13 --trials 10 --json "$OUT/u64-18b.json"
# Session 18: the pair pass's registers peak in its scatter (skip 2: 70 -> 63 at 448x16).
# Experiment binaries target/exp/vkprims-chunkN: the key and value scatters of 4-byte pairs
# rolled, N rounds a loop trip, the buckets in the lane's shared words; registers and 2^26
# pairs at tiles that need at most 64 (512 wide) or 72 (448) for two workgroups an SM.
C18="auto,512x16,512x15,448x17,384x20"
for X in $B target/exp/vkprims-chunk*; do
  N=$(basename "$X")
  if want chunk18 && [ -x "$X" ]; then timeout 60 $X pipelines --stats --binning-policy "$C18" | grep -E '^sort_onesweep_k32_v1 \(sort u32' > "$OUT/chunk18-stats-$N.md" 2>&1; fi
  [ -x "$X" ] && step "chunk18-$N" 150 $X bench sort --n 2^26 --key u32 --values 4 --binning-policy "$C18" --trials 10 --json "$OUT/chunk18-$N.json"
done
# Session 18's final binary: u32 keys and pairs at 2^20 and 2^28, u64 keys at CUB's 2^27
# (448x13 now), with profiles; then phase clocks of 4-byte keys and pairs at 2^26.
step final18 170 $B bench sort --n 2^20,2^28 --key u32 --values 0,4 --trials 10 --profile --json "$OUT/final18.json"
step final18-u64 90 $B bench sort --n 2^27 --key u64 --values 0 --trials 10 --profile --json "$OUT/final18-u64.json"
step clocks18 60 $B bench sort --n 2^26 --key u32 --values 0,4 --binning-policy autoxautoxclocks --trials 5 --json "$OUT/clocks18.json"
# Session 19's experiment flags (xfenceN, xhsN, xwarm, xlbpre) exist only with
# bench/results/h200/binning/session19/experiments.patch (on 5393528): all four were measured
# and removed (FINDINGS.md, session 19).
# Session 19: a subgroup barrier after each scatter round (xfenceN, CUB's WARP_SYNC: the
# driver then cannot hoist every round's shared reads and hold them in registers), registers
# and 2^26 sorts at tiles that fit two workgroups an SM only with fewer registers; and the
# upfront histogram's counter copies (xhsN, 16-bit counts), with profiles.
P19="auto,autoxautoxfence1,autoxautoxfence2,384x22xfence1,384x23xfence1,448x18xfence1,512x16xfence1,448x14xfence1,512x12xfence1"
if want regs19; then timeout 90 $B pipelines --stats --binning-policy "$P19" | grep -E '^sort_onesweep_k(32|64)_v[01] \(sort (u32|u64) values [04]B middle' > "$OUT/regs19.md" 2> "$OUT/regs19.log"; fi
step fence19-pairs 200 $B bench sort --n 2^26 --key u32 --values 4 --binning-policy auto,autoxautoxfence1,autoxautoxfence2,384x22xfence1,384x23xfence1,448x18xfence1,512x16xfence1 --trials 5 --json "$OUT/fence19-pairs.json"
step fence19-u64 150 $B bench sort --n 2^26 --key u64 --values 0 --binning-policy auto,autoxautoxfence1,448x14xfence1,512x12xfence1,autoxautoxhs8 --trials 5 --profile --json "$OUT/fence19-u64.json"
step hist19 120 $B bench sort --n 2^26 --key u32 --values 0 --binning-policy auto,autoxautoxhs8,autoxautoxhs16,autoxautoxfence1 --trials 5 --profile --json "$OUT/hist19.json"
# Session 19: the pairs' values read behind the look-back to warm the cache for the value
# round (xwarm), with registers, phase clocks, and the 256-way multisplit of pairs; u64
# keys' phase clocks (CUB's u64 pass is 7% faster per tile of the same size).
W19="auto,autoxautoxwarm,autoxautoxwarmxfence1,384x18xwarm,448x17xwarm"
if want regs19b; then timeout 90 $B pipelines --stats --binning-policy "$W19" | grep -E '^sort_onesweep_k32_v1 \(sort u32 values 4B middle' > "$OUT/regs19b.md" 2> "$OUT/regs19b.log"; fi
step warm19 200 $B bench sort --n 2^26 --key u32 --values 4 --binning-policy auto,autoxautoxwarm,autoxautoxwarmxfence1,autoxautoxclocks,autoxautoxwarmxclocks --trials 5 --json "$OUT/warm19.json"
step warm19-ms 150 $B bench multisplit --n 2^26 --key u32 --buckets 256 --values 4 --ranking stable,atomic --binning-policy auto,autoxautoxwarm --trials 5 --json "$OUT/warm19-ms.json"
step clocks19-u64 60 $B bench sort --n 2^26 --key u64 --values 0 --binning-policy autoxautoxclocks --trials 5 --json "$OUT/clocks19-u64.json"
# Session 19: the first look-back round read as soon as the tile's counts are posted
# (xlbpre), behind the ranking and staging; registers, 2^26 sorts and phase clocks.
L19="auto,autoxautoxlbpre"
if want regs19c; then timeout 90 $B pipelines --stats --binning-policy "$L19" | grep -E '^sort_onesweep_k(32|64)_v[01] \(sort (u32|u64) values [04]B middle' > "$OUT/regs19c.md" 2> "$OUT/regs19c.log"; fi
step lbpre19 150 $B bench sort --n 2^26 --key u32 --values 0,4 --binning-policy auto,autoxautoxlbpre,autoxautoxlbprexclocks --trials 5 --json "$OUT/lbpre19.json"
step lbpre19-u64 120 $B bench sort --n 2^26 --key u64 --values 0 --binning-policy auto,autoxautoxlbpre,autoxautoxlbprexclocks --trials 5 --json "$OUT/lbpre19-u64.json"
# Session 19's final binary (the experiments removed; class_end and bucket_at share a search;
# the offsets kernel scanning in doubling steps, reverted after): u32 keys and pairs at 2^20 and 2^28, u64 keys
# at 2^27, with profiles; then the 256-way multisplit of 2^28 keys and pairs, both rankings.
step final19 170 $B bench sort --n 2^20,2^28 --key u32 --values 0,4 --trials 10 --profile --json "$OUT/final19.json"
step final19-u64 90 $B bench sort --n 2^27 --key u64 --values 0 --trials 10 --profile --json "$OUT/final19-u64.json"
step ms19 200 $B bench multisplit --n 2^28 --key u32 --buckets 256 --values 0,4 --ranking stable,atomic --trials 10 --json "$OUT/ms19.json"
# Session 19's chain19 step (run 7: `xchainN` at 448-384 wide tiles, the fitting ones
# benched) is in e81d1b4's copy of this script; chain19b below ran 1c037fc's `xckL` and `xcvL`.
# Both flags were removed after (bench/results/h200/binning/session19/chain.patch).
# Session 19: the chain split by scatter and given a lag (xckL, xcvL: round r's read waits
# for round r - L's), at 512x16 and 480x16 (64 registers for two workgroups an SM) and
# 448x16; 2^26 pairs at the fitting ones that serialise least, beside the default.
if want chain19b; then
  CP=""
  for T in 512x16 480x16; do for K in 0 1 2 4 8; do for V in 0 1 2 4 8; do
    [ "$K$V" = 00 ] && continue
    P=$T; [ $K != 0 ] && P="${P}xck$K"; [ $V != 0 ] && P="${P}xcv$V"; CP="$CP,$P"
  done; done; done
  timeout 150 $B pipelines --stats --binning-policy "auto${CP}" | grep -E '^sort_onesweep_k32_v1 \(sort u32 values 4B middle' > "$OUT/chain19b-stats.md" 2> "$OUT/chain19b-stats.log"
  FIT=$(python3 - "$OUT/chain19b-stats.md" <<'PY'
import re, sys
fit = []
for line in open(sys.argv[1]):
    m = re.search(r'\((\d+)x(\d+), .*scatter chain (\d+)/(\d+)\)\) \| Register Count: (\d+)', line)
    if m:
        wg, items, k, v, regs = map(int, m.groups())
        if regs <= {512: 64, 480: 64, 448: 72, 384: 80}.get(wg, 0):
            name = f"{wg}x{items}" + (f"xck{k}" if k else "") + (f"xcv{v}" if v else "")
            cost = (items / k if k else 0) + (items / v if v else 0)
            if name not in [f for _, f in fit]:
                fit.append((cost, name))
fit.sort()
print(",".join(["auto"] + [f for _, f in fit[:7]]))
PY
)
  echo "$FIT" > "$OUT/chain19b-fit.txt"
  step chain19b 240 $B bench sort --n 2^26 --key u32 --values 4 --binning-policy "$FIT" --trials 5 --json "$OUT/chain19b-pairs.json"
fi
# Queued by session 19 (not yet run): `xgather` (sorts and the multisplit), the tile staged as one word an element
# (bucket, index in the tile) whatever the key and value sizes, each key and value read back
# by index in the scatter (no key reload while staging, no value round, one plane of shared
# memory for 8-byte keys). Registers, then 2^26 sorts at tiles that one plane allows, with
# phase clocks of the default gather tile.
G20="auto,autoxautoxgather,448x16xgather,512x12xgather,512x20xgather,384x20xgather,448x13xgather"
if want regs-gather20; then timeout 120 $B pipelines --stats --binning-policy "$G20" | grep -E '^sort_onesweep_k(32|64)_v[01] \(sort (u32|u64) values [04]B middle' > "$OUT/regs-gather20.md" 2> "$OUT/regs-gather20.log"; fi
step gather20-pairs 240 $B bench sort --n 2^26 --key u32 --values 4 --binning-policy "$G20,autoxautoxgatherxclocks" --trials 5 --json "$OUT/gather20-pairs.json"
step gather20-u64 200 $B bench sort --n 2^26 --key u64 --values 0 --binning-policy "$G20,autoxautoxgatherxclocks" --trials 5 --json "$OUT/gather20-u64.json"
step gather20-ms 150 $B bench multisplit --n 2^26 --key u32 --buckets 256 --values 4 --ranking stable,atomic --binning-policy "auto,autoxautoxgather,448x16xgather" --trials 5 --json "$OUT/gather20-ms.json"
step gather20-keys 150 $B bench sort --n 2^26 --key u32 --values 0 --binning-policy "auto,autoxautoxgather,448x16xgather,512x20xgather" --trials 5 --json "$OUT/gather20-keys.json"
# Session 20 (experiment binary from session20/robustness.patch on 569f71f): the driver's default bounds checks
# (robust buffer access: a compare and a
# predicate or branch on every load and store in the H200's SASS) against none
# (VK_EXT_pipeline_robustness, storage and uniform buffers DISABLED; VKPRIMS_BOUNDS_CHECKS=1 kept them).
if want regs-rob20; then
  for M in 0 1; do VKPRIMS_BOUNDS_CHECKS=$M timeout 90 $B pipelines --stats | grep -E '^(sort_onesweep_k(32|64)_v[01]|sort_histogram|multisplit)' > "$OUT/regs-rob20-checks$M.md" 2>&1; done
fi
for M in 0 1; do
  VKPRIMS_BOUNDS_CHECKS=$M step rob20-keys-$M 150 $B bench sort --n 2^26 --key u32 --values 0 --trials 5 --json "$OUT/rob20-keys-$M.json"
  VKPRIMS_BOUNDS_CHECKS=$M step rob20-pairs-$M 150 $B bench sort --n 2^26 --key u32 --values 4 --trials 5 --json "$OUT/rob20-pairs-$M.json"
  VKPRIMS_BOUNDS_CHECKS=$M step rob20-u64-$M 150 $B bench sort --n 2^26 --key u64 --values 0 --trials 5 --json "$OUT/rob20-u64-$M.json"
  VKPRIMS_BOUNDS_CHECKS=$M step rob20-ms-$M 150 $B bench multisplit --n 2^26 --key u32 --buckets 256 --values 4 --ranking stable,atomic --trials 5 --json "$OUT/rob20-ms-$M.json"
done
# Session 20: the sort's digit passes under the Vulkan memory model (experiment binary
# target/exp/vkprims-vmm from session20/vmm.patch on 2ad9d36: `#pragma use_vulkan_memory_model`
# in onesweep.comp, the device feature enabled), against the default GLSL450 model; then
# both pair passes' SASS from the driver's disk cache (target/exp/sass.py, zstd and its
# libraries beside it), and CUB's onesweep kernels' SASS.
V20=target/exp/vkprims-vmm
if want vmm20; then
  for N in glsl450 vmm; do X=$B; [ $N = vmm ] && X=$V20
    timeout 150 $X bench sort --n 2^26 --key u32 --values 0,4 --trials 5 --json "$OUT/vmm20-$N.json" > "$OUT/vmm20-$N.md" 2> "$OUT/vmm20-$N.log"
    timeout 150 $X bench sort --n 2^26 --key u64 --values 0 --trials 5 --json "$OUT/vmm20-u64-$N.json" > "$OUT/vmm20-u64-$N.md" 2>> "$OUT/vmm20-$N.log"
    timeout 90 $X pipelines --stats | grep -E '^sort_onesweep_k(32|64)_v[01] \(sort (u32|u64) values [04]B middle' > "$OUT/vmm20-regs-$N.md" 2>&1
  done
fi
if want sass20; then
  for N in glsl450 vmm; do X=$B; [ $N = vmm ] && X=$V20
    sass_of "pairs-$N" sass20.md $X bench sort --n 2^20 --key u32 --values 4 --trials 1
  done
fi
if want cub-sass20; then
  cub_build && cuobjdump -sass /tmp/cub_anchor > /tmp/cub.sass 2>&1
  python3 - "$OUT" <<'PY'
import sys, re
out = sys.argv[1]
text = open('/tmp/cub.sass').read()
parts = re.split(r'(?=\n\s*Function : )', text)
keep = [p for p in parts if 'Onesweep' in p.lstrip().split('\n', 1)[0]]
open(out + '/cub-onesweep.sass', 'w').write(''.join(keep))
for p in keep:
    name = p.lstrip().split('\n', 1)[0].strip()
    n = len(re.findall(r'/\*[0-9a-f]{4}\*/', p))
    regs = [int(x) for x in re.findall(r'\bR(\d+)\b', p)]
    stg = sorted(set(re.findall(r'\b(STG[A-Z0-9_.]*|LDG[A-Z0-9_.]*)', p)))
    print(name[:160], 'instrs', n, 'max R', max(regs) if regs else -1, ' '.join(stg))
PY
fi
# Session 20: the scatter's rounds without a test per round where the tile is full (CUB's
# full-tile scatter; target/exp/vkprims-full), against target/exp/vkprims-vmm (whose SASS equals
# 2ad9d36's: vmm20), then the new pair pass's SASS.
if want full20; then
  for N in base full; do X=$V20; [ $N = full ] && X=target/exp/vkprims-full
    timeout 150 $X bench sort --n 2^26 --key u32 --values 0,4 --trials 5 --json "$OUT/full20-$N.json" > "$OUT/full20-$N.md" 2> "$OUT/full20-$N.log"
    timeout 150 $X bench sort --n 2^26 --key u64 --values 0 --trials 5 --json "$OUT/full20-u64-$N.json" > "$OUT/full20-u64-$N.md" 2>> "$OUT/full20-$N.log"
    timeout 150 $X bench multisplit --n 2^26 --key u32 --buckets 256 --values 4 --ranking stable,atomic --trials 5 --json "$OUT/full20-ms-$N.json" > "$OUT/full20-ms-$N.md" 2>> "$OUT/full20-$N.log"
    timeout 90 $X pipelines --stats | grep -E '^(sort_onesweep_k(32|64)_v[01]|perm_pass_narrow) \(' | cut -c1-400 > "$OUT/full20-regs-$N.md" 2>&1
  done
  sass_of "pairs-full" sass20.md target/exp/vkprims-full bench sort --n 2^20 --key u32 --values 4 --trials 1
fi
# Session 20: the stable ranking's peer matching on the final code (CUB's pass matches with one
# ballot per digit bit: session20/4-vmm-cub-sass): shared memory (default), ballots, subgroupPartitionNV.
step rank20-keys 150 $B bench sort --n 2^26 --key u32 --values 0 --binning-policy auto,autoxautoxballots,autoxautoxpart --trials 5 --json "$OUT/rank20-keys.json"
step rank20-pairs 150 $B bench sort --n 2^26 --key u32 --values 4 --binning-policy auto,autoxautoxballots,autoxautoxpart --trials 5 --json "$OUT/rank20-pairs.json"
step rank20-u64 150 $B bench sort --n 2^26 --key u64 --values 0 --binning-policy auto,autoxautoxballots,autoxautoxpart --trials 5 --json "$OUT/rank20-u64.json"
if want rank20-regs; then timeout 90 $B pipelines --stats --binning-policy auto,autoxautoxballots,autoxautoxpart | grep -E '^sort_onesweep_k(32|64)_v[01] \(sort (u32|u64) values [04]B middle' > "$OUT/rank20-regs.md" 2>&1; fi
# Session 21: the look-back's per-bucket state (look, sum, hist) sized by the buckets an
# invocation owns (BPT, a spec constant: 1 at workgroups of 256 or more) in unrolled loops,
# against [4] in rolled loops (target/exp/vkprims-base, 295260e): registers, 2^26 times, and
# the pair pass's SASS (local memory: STL/LDL).
X21=target/exp/vkprims-base
if want lb21; then
  for N in base bpt base2 bpt2; do X=$B; [[ $N == base* ]] && X=$X21
    timeout 100 $X bench sort --n 2^26 --key u32 --values 0,4 --trials 5 --json "$OUT/lb21-$N.json" > "$OUT/lb21-$N.md" 2> "$OUT/lb21-$N.log"
    timeout 100 $X bench sort --n 2^26 --key u64 --values 0 --trials 5 --json "$OUT/lb21-u64-$N.json" > "$OUT/lb21-u64-$N.md" 2>> "$OUT/lb21-$N.log"
    timeout 100 $X bench multisplit --n 2^26 --key u32 --buckets 256 --values 4 --ranking stable,atomic --trials 5 --json "$OUT/lb21-ms-$N.json" > "$OUT/lb21-ms-$N.md" 2>> "$OUT/lb21-$N.log"
  done
fi
if want lb21-regs; then
  for N in base bpt; do X=$B; [ $N = base ] && X=$X21
    timeout 90 $X pipelines --stats | grep -E '^(sort_onesweep_k(32|64)_v[01]|multisplit[a-z0-9_]*|perm_pass[a-z0-9_]*) \(' | cut -c1-400 > "$OUT/lb21-regs-$N.md" 2>&1
  done
fi
if want sass21; then
  for N in base bpt; do X=$B; [ $N = base ] && X=$X21
    sass_of "pairs-$N" sass21.md $X bench sort --n 2^20 --key u32 --values 4 --trials 1
  done
fi
# Session 21: the 256-way multisplit of pairs with atomic ranking ran 0.578 -> 0.711 ms with
# BPT (lb21): registers of every multisplit pipeline, the atomic pair pass's SASS, and times
# for base (295260e), bpt (this build) and vkprims-bpt4a (BPT = 4 where ATOMIC_RANK: the old
# rolled [4] for atomic passes only), with per-kernel profiles.
if want ms21; then
  for N in base bpt bpt4a; do X=$B; [ $N = base ] && X=$X21; [ $N = bpt4a ] && X=target/exp/vkprims-bpt4a
    timeout 90 $X pipelines --stats | grep -E '^(multisplit_k|sort_onesweep_k32_v0 \(sort u32)' | cut -c1-400 > "$OUT/ms21-regs-$N.md" 2>&1
    timeout 100 $X bench multisplit --n 2^26 --key u32 --buckets 256 --values 0,4 --ranking stable,atomic --trials 5 --profile --json "$OUT/ms21-$N.json" > "$OUT/ms21-$N.md" 2> "$OUT/ms21-$N.log"
    timeout 100 $X bench sort --n 2^26 --key u32 --values 0 --trials 5 --profile --json "$OUT/ms21-sort-$N.json" > "$OUT/ms21-sort-$N.md" 2>> "$OUT/ms21-$N.log"
  done
fi
if want sass21-ms; then
  for N in base bpt; do X=$B; [ $N = base ] && X=$X21
    sass_of "ms-atomic-pairs-$N" sass21.md $X bench multisplit --n 2^20 --key u32 --buckets 256 --values 4 --ranking atomic --trials 1
  done
fi
# Session 20: the value round's loads in groups (`xvcN`), so the pair pass's register peak
# falls and 512x16 pair tiles (8,192) fit two workgroups an SM; this build's default is
# 512x16 with groups of 8, the old default is 448x16xvc16 (all 16 at once: the same code).
VC20="auto,448x16xvc16,448x16,512x16xvc4,512x16xvc16,480x16,512x17"
if want vc20-regs; then timeout 90 $B pipelines --stats --binning-policy "$VC20" | grep -E '^sort_onesweep_k32_v1 \(sort u32 values 4B middle' > "$OUT/vc20-regs.md" 2>&1; fi
step vc20-pairs 150 $B bench sort --n 2^26 --key u32 --values 4 --binning-policy "$VC20" --trials 5 --json "$OUT/vc20-pairs.json"
step vc20-28 150 $B bench sort --n 2^20,2^28 --key u32 --values 4 --binning-policy auto,448x16xvc16 --trials 10 --json "$OUT/vc20-28.json"
step vc20-ms 150 $B bench multisplit --n 2^28 --key u32 --buckets 256 --values 4 --ranking stable,atomic --binning-policy auto,448x16xvc16 --trials 10 --json "$OUT/vc20-ms.json"
# Session 20's final run: selftest, then the final rows (with the anchors in the same command).
step final20 170 $B bench sort --n 2^20,2^28 --key u32 --values 0,4 --trials 10 --profile --json "$OUT/final20.json"
step final20-u64 90 $B bench sort --n 2^27 --key u64 --values 0 --trials 10 --profile --json "$OUT/final20-u64.json"
# Session 21's final runs (BPT kept; the anchors in the same command).
step final21 170 $B bench sort --n 2^20,2^28 --key u32 --values 0,4 --trials 10 --profile --json "$OUT/final21.json"
step final21-u64 90 $B bench sort --n 2^27 --key u64 --values 0 --trials 10 --profile --json "$OUT/final21-u64.json"
step ms21-28 170 $B bench multisplit --n 2^28 --key u32 --buckets 256 --values 0,4 --ranking stable,atomic --trials 10 --profile --json "$OUT/ms21-28.json"
step perm21 120 $B bench perm --n 2^28 --values 4,8 --ranking atomic,stable --trials 10 --profile --json "$OUT/perm21.json"
step perm21-ids 120 $B bench perm --n 2^24,2^28 --values 0 --ranking atomic,stable --trials 10 --profile --json "$OUT/perm21-ids.json"
step sizes21 150 $B bench sort --n 2^22,2^24 --key u32 --values 0,4 --trials 10 --json "$OUT/sizes21.json"
# Where a tile's time goes now (phase clocks; the clocks cost a little themselves).
step clocks21 120 $B bench sort --n 2^26 --key u32,u64 --values 0,4 --binning-policy autoxautoxclocks --trials 5 --json "$OUT/clocks21.json"
if want stats21; then timeout 90 $B pipelines --stats | grep -E '^(sort_onesweep|multisplit_k|perm_pass)' | sed -E 's/ \| Binary Size: [0-9]+ \| Stack Size: [0-9]+//' | cut -c1-400 > "$OUT/stats21.md" 2>&1; fi
# Session 21: with the look-back in registers the passes hold fewer (keys middle 60, u64 64):
# larger tiles around the defaults, and their registers.
step tiles21-keys 150 $B bench sort --n 2^26 --key u32 --values 0 --binning-policy auto,512x17,512x18,512x20 --trials 5 --json "$OUT/tiles21-keys.json"
step tiles21-pairs 150 $B bench sort --n 2^26 --key u32 --values 4 --binning-policy auto,512x17,512x18,512x16xvc4 --trials 5 --json "$OUT/tiles21-pairs.json"
step tiles21-u64 150 $B bench sort --n 2^26 --key u64 --values 0 --binning-policy auto,512x11,384x15 --trials 5 --json "$OUT/tiles21-u64.json"
if want tiles21-regs; then timeout 90 $B pipelines --stats --binning-policy auto,512x17,512x18,512x20,512x16xvc4,512x11,384x15 | grep -E '^sort_onesweep_k(32|64)_v[01] \(sort (u32|u64) values [04]B' | sed -E 's/ \| Binary Size: [0-9]+ \| Stack Size: [0-9]+//' | cut -c1-300 > "$OUT/tiles21-regs.md" 2>&1; fi
# Session 22: where a tile's time goes at 2^20 (one tile an SM) and 2^26, and the look-back
# window at 2^20 with the current passes.
step clocks22 150 $B bench sort --n 2^20,2^26 --key u32 --values 0,4 --binning-policy autoxautoxclocks --trials 5 --json "$OUT/clocks22.json"
step lb22 120 $B bench sort --n 2^20 --key u32 --values 0,4 --binning-policy auto,autoxautoxlb4,autoxautoxlb16,autoxautoxlb32 --trials 10 --profile --json "$OUT/lb22.json"
# Session 22: the digit bases scanned in each tile (no offsets dispatch) against the offsets
# dispatch (xfo0), from 2^20 to 2^24, with the look-back window 4 beside them.
step fold22 200 $B bench sort --n 2^20,2^22,2^24 --key u32 --values 0,4 --binning-policy auto,autoxautoxfo0,autoxautoxlb4,autoxautoxfo0xlb4 --trials 10 --profile --json "$OUT/fold22.json"
step fold22-u64 100 $B bench sort --n 2^20,2^23 --key u64 --values 0 --binning-policy auto,autoxautoxfo0 --trials 10 --json "$OUT/fold22-u64.json"
if want stats22; then timeout 90 $B pipelines --stats | grep -E '^(sort_onesweep|multisplit_k|perm_pass)' | sed -E 's/ \| Binary Size: [0-9]+ \| Stack Size: [0-9]+//' | cut -c1-400 > "$OUT/stats22.md" 2>&1; fi
# Session 22: why wider look-back windows lose at 2^20 (phase clocks by window), half tiles
# there (two workgroups an SM), and the window 4 at 2^28.
step lbclocks22 150 $B bench sort --n 2^20 --key u32 --values 0,4 --binning-policy autoxautoxclocks,autoxautoxclocksxlb4,autoxautoxclocksxlb16,autoxautoxclocksxlb32,512x8xclocks,512x8xclocksxlb16 --trials 5 --json "$OUT/lbclocks22.json"
step small22 120 $B bench sort --n 2^20 --key u32 --values 0,4 --binning-policy auto,512x8,512x8xlb16,256x16,256x16xlb16,512x12 --trials 10 --json "$OUT/small22.json"
step lb22-28 150 $B bench sort --n 2^28 --key u32 --values 0,4 --binning-policy auto,autoxautoxlb4,autoxautoxlb6 --trials 5 --json "$OUT/lb22-28.json"
# Session 22: narrower pair tiles, more workgroups an SM, with the look-back in registers.
step ptiles22 200 $B bench sort --n 2^26 --key u32 --values 4 --binning-policy auto,256x16,256x20,256x24,384x16,384x20,320x24 --trials 5 --json "$OUT/ptiles22.json"
if want ptiles22-regs; then timeout 90 $B pipelines --stats --binning-policy auto,256x16,256x20,256x24,384x16,384x20,320x24 | grep -E '^sort_onesweep_k32_v1 \(sort u32 values 4B' | sed -E 's/ \| Binary Size: [0-9]+ \| Stack Size: [0-9]+//' | cut -c1-300 > "$OUT/ptiles22-regs.md" 2>&1; fi
# Session 22: the first group of values loaded before the key scatter (target/exp/vkprims-vearly,
# vearly.patch in session22/5-vearly), against the default, alternated; and with the second
# group issued at once (xvc16).
if want vearly22; then
  V=target/exp/vkprims-vearly
  for r in 1 2; do
    timeout 100 $B bench sort --n 2^26 --key u32 --values 4 --trials 5 --json "$OUT/vearly22-base$r.json" > "$OUT/vearly22-base$r.md" 2>&1
    timeout 100 $V bench sort --n 2^26 --key u32 --values 4 --binning-policy auto,autoxautoxvc16 --trials 5 --json "$OUT/vearly22-v$r.json" > "$OUT/vearly22-v$r.md" 2>&1
  done
  timeout 100 $B bench multisplit --n 2^26 --key u32 --buckets 256 --values 4 --ranking stable,atomic --trials 5 --json "$OUT/vearly22-ms-base.json" > "$OUT/vearly22-ms-base.md" 2>&1
  timeout 100 $V bench multisplit --n 2^26 --key u32 --buckets 256 --values 4 --ranking stable,atomic --trials 5 --json "$OUT/vearly22-ms-v.json" > "$OUT/vearly22-ms-v.md" 2>&1
  timeout 90 $V pipelines --stats --binning-policy auto,autoxautoxvc16 | grep -E '^(sort_onesweep_k32_v1 \(sort u32 values 4B|multisplit_k32_v1)' | sed -E 's/ \| Binary Size: [0-9]+ \| Stack Size: [0-9]+//' | cut -c1-300 > "$OUT/vearly22-regs.md" 2>&1
fi
# Session 22: the first group of values loaded before the look-back instead
# (target/exp/vkprims-vlb, vlb.patch in session22/6-vlb), alternated with vearly and the default.
if want vlb22; then
  V=target/exp/vkprims-vearly; L=target/exp/vkprims-vlb
  for b in $L $V $B $L $V; do
    timeout 100 $b bench sort --n 2^26 --key u32 --values 4 --trials 5 --json "$OUT/vlb22-$(basename $b)-$SECONDS.json" >> "$OUT/vlb22.md" 2>&1
  done
  timeout 100 $L bench multisplit --n 2^26 --key u32 --buckets 256 --values 4 --ranking stable,atomic --trials 5 --json "$OUT/vlb22-ms.json" > "$OUT/vlb22-ms.md" 2>&1
  timeout 90 $L pipelines --stats | grep -E '^(sort_onesweep_k32_v1 \(sort u32 values 4B|multisplit_k32_v1)' | sed -E 's/ \| Binary Size: [0-9]+ \| Stack Size: [0-9]+//' | cut -c1-300 > "$OUT/vlb22-regs.md" 2>&1
fi
# Session 22's final run: the values' first group read before the key scatter (kept).
step final22-pairs 120 $B bench sort --n 2^20,2^28 --key u32 --values 4 --trials 5 --profile --json "$OUT/final22-pairs.json"
step final22-ms 120 $B bench multisplit --n 2^28 --key u32 --buckets 256 --values 4 --ranking stable,atomic --trials 5 --json "$OUT/final22-ms.json"
# Session 23: the rest of the values read in the key scatter (xvmid: the first group parked in
# the lane's words the key rounds have read), against the default, alternated; groups of 6 and 10.
# Lost (68-71 registers): the flag needs vmid.patch from session23/2-vmid-modes.
if want vmid23; then
  pair_regs $B auto,autoxautoxvmid,autoxautoxvc6xvmid,autoxautoxvc10xvmid vmid23-regs.md
  for r in 1 2; do
    timeout 100 $B bench sort --n 2^26 --key u32 --values 4 --trials 5 --json "$OUT/vmid23-base$r.json" > "$OUT/vmid23-base$r.md" 2>&1
    timeout 100 $B bench sort --n 2^26 --key u32 --values 4 --binning-policy autoxautoxvmid,autoxautoxvc6xvmid,autoxautoxvc10xvmid --trials 5 --json "$OUT/vmid23-v$r.json" > "$OUT/vmid23-v$r.md" 2>&1
  done
  timeout 100 $B bench multisplit --n 2^26 --key u32 --buckets 256 --values 4 --ranking stable,atomic --binning-policy auto,autoxautoxvmid,auto,autoxautoxvmid --trials 5 --json "$OUT/vmid23-ms.json" > "$OUT/vmid23-ms.md" 2>&1
fi
step vmid23-28 150 $B bench sort --n 2^28 --key u32 --values 4 --binning-policy auto,autoxautoxvmid --trials 5 --json "$OUT/vmid23-28.json"
# Session 23: xvmid's parked first group read back through atomics (xvmid2) or after a
# workgroup barrier at the midpoint and one more before the staging (xvmid3); timed where the
# pair pass stays at 64 registers or fewer (two workgroups of 512 an SM).
if want vmid23b; then
  P="auto autoxautoxvmid2 autoxautoxvmid3 autoxautoxvc6xvmid3 autoxautoxvc10xvmid3"
  pair_regs $B "${P// /,}" vmid23b-regs.md
  for r in 1 2; do for p in $P; do
    timeout 60 $B bench sort --n 2^26 --key u32 --values 4 --binning-policy $p --trials 5 >> "$OUT/vmid23b.md" 2>&1
  done; done
  timeout 100 $B bench multisplit --n 2^26 --key u32 --buckets 256 --values 4 --ranking stable,atomic --binning-policy auto,autoxautoxvmid2,autoxautoxvmid3,auto --trials 5 >> "$OUT/vmid23b.md" 2>&1
fi
# Session 23: two lanes a bucket in the look-back (xwalk2): the walk's phase clocks at 2^20,
# times at 2^20 and 2^26 alternated with the default, registers. Lost (the walk 5% longer at
# 2^20, keys 4% slower at 2^26): the flag needs walk2.patch from session23/3-walk2.
if want walk23; then
  timeout 90 $B pipelines --stats --binning-policy auto,autoxautoxwalk2 | grep -E '^(sort_onesweep_k32_v[01] \(sort u32( values 4B)? middle|multisplit_k32_v1)' | sed -E 's/ \| Binary Size: [0-9]+ \| Stack Size: [0-9]+//' | cut -c1-300 > "$OUT/walk23-regs.md" 2>&1
  timeout 120 $B bench sort --n 2^20 --key u32 --values 0,4 --binning-policy autoxautoxclocks,autoxautoxclocksxwalk2,autoxautoxclocksxwalk2xlb4 --trials 5 --json "$OUT/walk23-clocks.json" > "$OUT/walk23-clocks.md" 2>&1
  timeout 120 $B bench sort --n 2^20 --key u32 --values 0,4 --binning-policy auto,autoxautoxwalk2,autoxautoxwalk2xlb4,auto,autoxautoxwalk2 --trials 10 --profile --json "$OUT/walk23-20.json" > "$OUT/walk23-20.md" 2>&1
  timeout 200 $B bench sort --n 2^26 --key u32 --values 0,4 --binning-policy auto,autoxautoxwalk2,auto,autoxautoxwalk2 --trials 5 --json "$OUT/walk23-26.json" > "$OUT/walk23-26.md" 2>&1
  timeout 100 $B bench multisplit --n 2^26 --key u32 --buckets 256 --values 4 --ranking stable,atomic --binning-policy auto,autoxautoxwalk2,auto,autoxautoxwalk2 --trials 5 --json "$OUT/walk23-ms.json" > "$OUT/walk23-ms.md" 2>&1
fi
# Session 23: the values' second group read at the key scatter's end, before its barrier
# (xvtail), against the default, alternated; timed only where it keeps 64 registers or fewer.
# Neither did (78-80 and 65-66 registers): the flags need vtail.patch from session23/4-vtail.
if want vtail23; then
  pair_regs $B auto,autoxautoxvtail,autoxautoxvtail2 vtail23-regs.md
  # The variants that keep two workgroups of 512 an SM (64 registers or fewer).
  V=""; for v in vtail vtail2; do
    R=$(grep "sort u32 values 4B" "$OUT/vtail23-regs.md" | grep "key scatter's end$([ $v = vtail2 ] && echo ' (2)')))" | grep -o 'Register Count: [0-9]*' | grep -o '[0-9]*$')
    echo "$v registers: ${R:-?}" >&2
    if [ -n "$R" ] && [ "$R" -le 64 ]; then V="$V autoxautox$v"; fi
  done
  if [ -n "$V" ]; then
    VS=$(echo $V | tr ' ' ',')
    for r in 1 2; do for p in auto $V; do
      timeout 60 $B bench sort --n 2^26 --key u32 --values 4 --binning-policy $p --trials 5 --json "$OUT/vtail23-$p-$r.json" >> "$OUT/vtail23.md" 2>&1
    done; done
    timeout 100 $B bench multisplit --n 2^26 --key u32 --buckets 256 --values 4 --ranking stable,atomic --binning-policy auto,$VS,auto,$VS --trials 5 --json "$OUT/vtail23-ms.json" >> "$OUT/vtail23.md" 2>&1
    timeout 150 $B bench sort --n 2^20,2^28 --key u32 --values 4 --binning-policy auto,$VS --trials 5 --json "$OUT/vtail23-28.json" >> "$OUT/vtail23.md" 2>&1
  fi
fi
# Session 23: the value scatter's positions from a fresh lane index (xvfresh; the SASS kept the
# key scatter's 15 positions live across the value round), alone and with what it frees
# registers for (every value read before the key scatter, larger tiles); each policy's pair
# pass registers, then the ones at 64 or fewer timed at 2^26, alternated with the default.
# Tied at best (all values before the key scatter: 63 registers, 0.2% faster; the atomic
# multisplit 2.8% slower): the flag needs vfresh.patch from session23/5-fresh.
if want fresh23; then
  T=""
  for p in auto ${FRESH:-autoxautoxvfresh autoxautoxvfreshxvc16 autoxautoxvfreshxvc12 512x17xvfresh 512x18xvfresh 512x18xvfreshxvc9}; do
    R=$(timeout 60 $B pipelines --stats --binning-policy $p | grep -E '^sort_onesweep_k32_v1 \(sort u32 values 4B middle' | grep -o 'Register Count: [0-9]*' | grep -o '[0-9]*$' | sort -n | tail -1)
    M=$(timeout 60 $B pipelines --stats --binning-policy $p | grep -E '^multisplit_k32_v1 \(multisplit u32 values 4B 256' | grep -o 'Register Count: [0-9]*' | grep -o '[0-9]*$' | tr '\n' ' ')
    echo "$p: sort pairs ${R:-?} registers, multisplit pairs (stable atomic) $M" | tee -a "$OUT/fresh23-regs.md" >&2
    if [ "$p" != auto ] && [ -n "$R" ] && [ "$R" -le 64 ]; then T="$T $p"; fi
  done
  for r in 1 2; do for p in auto $T; do
    timeout 60 $B bench sort --n 2^26 --key u32 --values 4 --binning-policy $p --trials 5 --json "$OUT/fresh23-$p-$r.json" >> "$OUT/fresh23.md" 2>&1
  done; done
  if [ -n "$T" ]; then
    timeout 100 $B bench multisplit --n 2^26 --key u32 --buckets 256 --values 4 --ranking stable,atomic --binning-policy auto,$(echo $T | tr ' ' ','),auto --trials 5 --json "$OUT/fresh23-ms.json" >> "$OUT/fresh23.md" 2>&1
  fi
fi
# Queued in session 23 (its device time was spent): the value scatter reads each value before
# forming its destination, so a round waits on one shared read, not two in turn
# (session23/queued/vfirst.patch; build target/exp/vkprims-vfirst from it), alternated with
# the default at 2^26, with the multisplit of pairs and the registers.
if want vfirst24; then
  V=target/exp/vkprims-vfirst
  pair_regs $V "" vfirst24-regs.md
  for r in 1 2; do for b in $B $V; do
    timeout 60 $b bench sort --n 2^26 --key u32 --values 4 --trials 5 --json "$OUT/vfirst24-$(basename $b)-$r.json" >> "$OUT/vfirst24.md" 2>&1
    timeout 60 $b bench multisplit --n 2^26 --key u32 --buckets 256 --values 4 --ranking stable,atomic --trials 5 --json "$OUT/vfirst24-ms-$(basename $b)-$r.json" >> "$OUT/vfirst24.md" 2>&1
  done; done
fi
# Session 24: the digit offsets scanned by each pass's tile 0 (no offsets dispatch; trivial
# passes from the histogram's digit span; $B built from 2823cb5 + session24/fold.patch, since
# reverted) against the build before (target/exp/vkprims-vf, 2823cb5). Steps fold24b and
# fold24c are its final alternation and its 2^28 rows.
if want fold24; then
  V=target/exp/vkprims-vf
  timeout 60 $B pipelines --stats | grep -E '^(sort_onesweep_k32_v[01] |multisplit_k32_v1|sort_onesweep_k64_v0 )' | sed -E 's/ \| Binary Size: [0-9]+ \| Stack Size: [0-9]+//' | cut -c1-300 > "$OUT/fold24-regs.md" 2>&1
  for r in 1 2; do for b in $V $B; do
    timeout 90 $b bench sort --n 2^20,2^22 --key u32 --values 0,4 --trials 20 --json "$OUT/fold24-small-$(basename $b)-$r.json" >> "$OUT/fold24.md" 2>&1
    timeout 90 $b bench sort --n 2^26 --key u32 --values 0,4 --trials 5 --json "$OUT/fold24-2e26-$(basename $b)-$r.json" >> "$OUT/fold24.md" 2>&1
    timeout 90 $b bench multisplit --n 2^20,2^26 --key u32 --buckets 256 --values 0,4 --ranking stable,atomic --trials 10 --json "$OUT/fold24-ms-$(basename $b)-$r.json" >> "$OUT/fold24.md" 2>&1
  done; done
  for b in $V $B; do timeout 90 $b bench sort --n 2^20,2^26 --key u32 --values 0 --trials 10 --profile --json "$OUT/fold24-profile-$(basename $b).json" > "$OUT/fold24-profile-$(basename $b).md" 2>&1; done
fi
# One alternation of step fold24's rows (target/exp/vkprims-vf, then $B).
if want fold24b; then
  V=target/exp/vkprims-vf
  pair_regs $B "" fold24b-regs.md
  for b in $V $B; do
    timeout 90 $b bench sort --n 2^20,2^22 --key u32 --values 0,4 --trials 20 --json "$OUT/fold24b-small-$(basename $b).json" >> "$OUT/fold24b.md" 2>&1
    timeout 90 $b bench sort --n 2^26 --key u32 --values 0,4 --trials 5 --json "$OUT/fold24b-2e26-$(basename $b).json" >> "$OUT/fold24b.md" 2>&1
    timeout 90 $b bench multisplit --n 2^20,2^26 --key u32 --buckets 256 --values 0,4 --ranking stable,atomic --trials 10 --json "$OUT/fold24b-ms-$(basename $b).json" >> "$OUT/fold24b.md" 2>&1
  done
fi
# The fold's cost at 2^28 (target/exp/vkprims-vf, then $B).
if want fold24c; then
  for b in target/exp/vkprims-vf $B; do
    timeout 150 $b bench sort --n 2^28 --key u32 --values 0,4 --trials 5 --json "$OUT/fold24c-$(basename $b).json" >> "$OUT/fold24c.md" 2>&1
  done
fi
# Queued for session 25: the offsets fold gated by tile count (session24/queued/gated-fold.patch,
# binary target/exp/vkprims-gated built from main plus it: passes of at most 512 tiles fold,
# larger ones keep the offsets dispatch). Its registers (large passes should match the
# default's), then both builds alternated over sizes, then 2^28 and its selftest.
if want gated25; then
  G=target/exp/vkprims-gated
  for b in $B $G; do p=; [ $b = $G ] && p="--binning-policy autoxautoxfold0,autoxautoxfold100000"; timeout 60 $b pipelines --stats $p | grep -E '^(sort_onesweep_k32_v[01] \(sort u32|multisplit_k32_v1|sort_onesweep_k64_v0 \(sort u64)' | sed -E 's/.*\((sort [a-z0-9]+ values [0-9]B [a-z]+ pass|multisplit u32 values 4B 256 buckets), (tile [^|]*)\| Register Count: ([0-9]+).*/\3 \1 \2/' > "$OUT/gated25-regs-$(basename $b).md" 2>&1; done
  for r in 1 2; do for b in $B $G; do
    timeout 120 $b bench sort --n 2^20,2^22,2^24,2^26 --key u32 --values 0,4 --trials 10 --json "$OUT/gated25-sort-$(basename $b)-$r.json" >> "$OUT/gated25.md" 2>&1
    timeout 90 $b bench multisplit --n 2^20,2^24,2^26 --key u32 --buckets 256 --values 0,4 --ranking stable,atomic --trials 10 --json "$OUT/gated25-ms-$(basename $b)-$r.json" >> "$OUT/gated25.md" 2>&1
  done; done
  for b in $B $G; do timeout 150 $b bench sort --n 2^28 --key u32 --values 0,4 --trials 5 --json "$OUT/gated25-2e28-$(basename $b).json" >> "$OUT/gated25.md" 2>&1; done
  timeout 120 $G selftest > "$OUT/gated25-selftest.md" 2>&1
fi
# Session 25: the offsets fold as `_fold` shader variants (passes of at most 512 tiles), this
# build ($B) against main before it (target/exp/vkprims-vf), alternated; selftest on $B.
if want fold25; then
  M=target/exp/vkprims-vf
  timeout 60 $B pipelines --stats --binning-policy autoxautoxfold0,autoxautoxfold100000 | grep -E '^(sort_onesweep_k32_v[01]|multisplit_k32_v1|sort_onesweep_k64_v0)' | sed -E 's/.*\((sort [a-z0-9]+ values [0-9]B [a-z]+ pass|multisplit u32 values 4B 256 buckets), (tile [^|]*)\| Register Count: ([0-9]+).*/\3 \1 \2/' > "$OUT/fold25-regs.md" 2>&1
  for r in 1 2; do for b in $B $M; do
    timeout 90 $b bench sort --n 2^20,2^22,2^24 --key u32 --values 0,4 --trials 10 --json "$OUT/fold25-sort-$(basename $b)-$r.json" >> "$OUT/fold25.md" 2>&1
    timeout 60 $b bench sort --n 2^20,2^22 --key u64 --values 0 --trials 10 --json "$OUT/fold25-u64-$(basename $b)-$r.json" >> "$OUT/fold25.md" 2>&1
    timeout 90 $b bench multisplit --n 2^20,2^22 --key u32 --buckets 256 --values 0,4 --ranking stable,atomic --trials 10 --json "$OUT/fold25-ms-$(basename $b)-$r.json" >> "$OUT/fold25.md" 2>&1
    timeout 60 $b bench perm --n 2^20 --values 4 --trials 10 --json "$OUT/fold25-perm-$(basename $b)-$r.json" >> "$OUT/fold25.md" 2>&1
  done; done
  for b in $B $M; do timeout 150 $b bench sort --n 2^26,2^28 --key u32 --values 0,4 --trials 5 --json "$OUT/fold25-large-$(basename $b).json" >> "$OUT/fold25.md" 2>&1; done
  timeout 120 $B selftest > "$OUT/fold25-selftest.md" 2>&1
fi
# Session 25's final run: the fold variants with the digit spans raised only where a pass
# folds ($B) against main before them (target/exp/vkprims-vf), alternated; selftest on $B.
if want final25; then
  M=target/exp/vkprims-vf
  for r in 1 2; do for b in $B $M; do
    timeout 60 $b bench sort --n 2^20,2^22,2^24 --key u32 --values 0,4 --trials 10 --json "$OUT/final25-sort-$(basename $b)-$r.json" >> "$OUT/final25.md" 2>&1
    timeout 60 $b bench sort --n 2^20,2^22 --key u64 --values 0 --trials 10 --json "$OUT/final25-u64-$(basename $b)-$r.json" >> "$OUT/final25.md" 2>&1
    timeout 60 $b bench multisplit --n 2^20,2^22,2^24 --key u32 --buckets 256 --values 0,4 --ranking stable,atomic --trials 10 --json "$OUT/final25-ms-$(basename $b)-$r.json" >> "$OUT/final25.md" 2>&1
  done; done
  for b in $B $M; do timeout 100 $b bench sort --n 2^28 --key u32 --values 0,4 --trials 5 --json "$OUT/final25-2e28-$(basename $b).json" >> "$OUT/final25.md" 2>&1; done
  timeout 120 $B selftest > "$OUT/final25-selftest.md" 2>&1
fi
# Session 26: where a small sort's digit pass spends its time (phase clocks; the look-back
# skipped, timing only; windows 4 and 16; shorter tiles), and longer tiles at 2^20-2^22.
# (Session 25's `fuse26` step timed the upfront histogram in the first pass's dispatch, which
# lost and was removed: session26/1-fuse26/hfuse.patch keeps it.)
step diag26 150 $B bench sort --n 2^20,2^21 --key u32 --values 0 --binning-policy auto,autoxautoxclocks,autoxautoxskip1,autoxautoxlb4,autoxautoxlb16,512x8,256x16,autoxautoxskip2 --trials 10 --profile --json "$OUT/diag26.json"
step tiles26 200 $B bench sort --n 2^20,2^21,2^22 --key u32 --values 0,4 --binning-policy auto,512x18,512x20,512x22,512x24 --trials 10 --json "$OUT/tiles26.json"
# Queued by session 26: invocation 0's look-back counts with the phase clocks (rounds that
# advanced, rounds not ready, tiles taken, the longest look-back) at 2^20-2^26, keys and pairs:
# do the small sorts' walks wait for predecessors still ranking, or walk aggregates?
# The first look-back round read ahead: before the staging (xskip128) or the ranking (xskip256), two alternations; and their registers.
step prefetch27-stats 90 $B pipelines --stats --binning-policy auto,autoxautoxskip128,autoxautoxskip256,autoxautoxfold100000,autoxautoxfold100000xskip128,autoxautoxfold100000xskip256
for R in a b; do step prefetch27-$R 200 $B bench sort --n 2^20,2^22,2^24,2^26 --key u32 --values 0,4 --binning-policy auto,autoxautoxskip128,autoxautoxskip256 --trials 10 --json "$OUT/prefetch27-$R.json"; done
# No upfront histogram where every pass has a tile per SM (_fold_tot, the default there) against the histogram (xtot0), with and without the read-ahead look-back round (xskip128).
for R in a b; do step tot27-$R 150 $B bench sort --n 2^19,2^20 --key u32 --values 0,4 --binning-policy auto,autoxautoxtot0,autoxautoxskip128,autoxautoxtot0xskip128 --trials 10 --profile --json "$OUT/tot27-$R.json"; done
# u64 keys at 2^20 (181 tiles of 448x13, more than the H200's 132 SMs): the tiles' totals forced (xtot255) against the histogram.
step tot27-u64 60 $B bench sort --n 2^20 --key u64 --values 0,4 --binning-policy auto,autoxautoxtot255 --trials 10 --json "$OUT/tot27-u64.json"
step lookback27 150 $B bench sort --n 2^20,2^22,2^26 --key u32 --values 0,4 --binning-policy autoxautoxclocks,autoxautoxclocksxlb4,autoxautoxclocksxlb16 --trials 10 --json "$OUT/lookback27.json"
# Upfront-histogram workgroups of 256, 512 and 1024 invocations against 128 (`xhwN`).
step hw26 200 $B bench sort --n 2^20,2^22,2^24 --key u32 --values 0,4 --binning-policy auto,autoxautoxhw256,autoxautoxhw512,autoxautoxhw1024 --trials 10 --profile --json "$OUT/hw26.json"
# (Ran on session 28's experiment builds; those bits are gone from the code, kept in
# bench/results/h200/binning/session28/experiments.patch.)
# Session 28: the shared-memory peer match's step without the driver's uniform-address path
# for its atomicOr (xskip512: the OR's result is used) and without the leader's atomicAdd and
# shuffle (xskip1024: each lane reads its row's word beside the mask word, the leader writes
# it back); both (xskip1536). Registers, the pair pass's SASS, and two alternations at 2^26.
R28="auto,autoxautoxskip512,autoxautoxskip1024,autoxautoxskip1536"
if want rank28; then
  timeout 90 $B pipelines --stats --binning-policy $R28 | grep -E '^(sort_onesweep_k32_v[01] \(sort u32|multisplit_k32_v1)' | sed -E 's/.*\((sort [a-z0-9]+ values [0-9]B [a-z]+ pass|multisplit u32 values 4B 256 buckets), (tile [^|]*)\| Register Count: ([0-9]+).*/\3 \1 \2/' > "$OUT/rank28-regs.md" 2>&1
  sass_of pairs-default rank28-sass.md $B bench sort --n 2^24 --key u32 --values 4 --trials 1
  sass_of pairs-1536 rank28-sass.md $B bench sort --n 2^24 --key u32 --values 4 --trials 1 --binning-policy autoxautoxskip1536
  for R in a b; do
    timeout 150 $B bench sort --n 2^26 --key u32 --values 0,4 --binning-policy $R28 --trials 10 --json "$OUT/rank28-sort-$R.json" >> "$OUT/rank28.md" 2>&1
    timeout 90 $B bench multisplit --n 2^26 --key u32 --buckets 256 --values 4 --ranking stable --binning-policy $R28 --trials 10 --json "$OUT/rank28-ms-$R.json" >> "$OUT/rank28.md" 2>&1
  done
fi
# (Ran on session 28's experiment builds; those bits are gone from the code, kept in
# bench/results/h200/binning/session28/experiments.patch.)
# Session 28: full-tile variants with fewer instructions a round (experiment bits): 2048 the key
# scatter without a test a round, each read chained to the last key; 4096 the value scatter
# likewise; 8192 the digit masked with 0xFF (8-bit passes only); 16384 the stable ranking
# without validity tests; 32768 the loads and the staging without bounds tests.
F28="auto,autoxautoxskip6144,autoxautoxskip14336,autoxautoxskip16384,autoxautoxskip32768,autoxautoxskip63488"
if want full28; then
  timeout 90 $B pipelines --stats --binning-policy $F28 | grep -E '^(sort_onesweep_k32_v[01] \(sort u32|multisplit_k32_v1)' | sed -E 's/.*\((sort [a-z0-9]+ values [0-9]B [a-z]+ pass|multisplit u32 values 4B 256 buckets), (tile [^|]*)\| Register Count: ([0-9]+).*/\3 \1 \2/' > "$OUT/full28-regs.md" 2>&1
  sass_of pairs-63488 full28-sass.md $B bench sort --n 2^24 --key u32 --values 4 --trials 1 --binning-policy autoxautoxskip63488
  for R in a b; do
    timeout 150 $B bench sort --n 2^26 --key u32 --values 4 --binning-policy $F28 --trials 10 --json "$OUT/full28-sort-$R.json" >> "$OUT/full28.md" 2>&1
    timeout 60 $B bench sort --n 2^26 --key u32 --values 0 --binning-policy auto,autoxautoxskip49152 --trials 10 --json "$OUT/full28-keys-$R.json" >> "$OUT/full28.md" 2>&1
    timeout 60 $B bench multisplit --n 2^26 --key u32 --buckets 256 --values 4 --ranking stable --binning-policy auto,autoxautoxskip63488 --trials 10 --json "$OUT/full28-ms-$R.json" >> "$OUT/full28.md" 2>&1
  done
fi
# (Ran on session 28's experiment builds; those bits are gone from the code, kept in
# bench/results/h200/binning/session28/experiments.patch.)
# Session 28: each workgroup's own index as its tile, no ticket (xskip65536; experiment bit),
# alone and with the full-tile loads and staging (xskip98304), alternated, and at 2^28.
T28="auto,autoxautoxskip65536,autoxautoxskip98304"
if want tick28; then
  timeout 60 $B pipelines --stats --binning-policy $T28 | grep -E '^(sort_onesweep_k32_v[01] \(sort u32|multisplit_k32_v1)' | sed -E 's/.*\((sort [a-z0-9]+ values [0-9]B [a-z]+ pass|multisplit u32 values 4B 256 buckets), (tile [^|]*)\| Register Count: ([0-9]+).*/\3 \1 \2/' > "$OUT/tick28-regs.md" 2>&1
  for R in a b; do
    timeout 120 $B bench sort --n 2^26 --key u32 --values 0,4 --binning-policy $T28 --trials 10 --json "$OUT/tick28-sort-$R.json" >> "$OUT/tick28.md" 2>&1
    timeout 60 $B bench multisplit --n 2^26 --key u32 --buckets 256 --values 4 --ranking stable --binning-policy $T28 --trials 10 --json "$OUT/tick28-ms-$R.json" >> "$OUT/tick28.md" 2>&1
  done
  timeout 150 $B bench sort --n 2^28 --key u32 --values 4 --binning-policy auto,autoxautoxskip65536 --trials 5 --json "$OUT/tick28-2e28.json" >> "$OUT/tick28.md" 2>&1
fi
# Session 28's final run: tiles by workgroup index and full-tile loads as the default, beside
# CUB (anchors step) and tickets (xticket), with selftest and the registers.
if want final28; then
  timeout 60 $B pipelines --stats --binning-policy auto,autoxautoxticket | grep -E '^(sort_onesweep_k(32|64)_v[01][a-z_]* \(sort|multisplit_k32_v1|perm)' | cut -c1-260 > "$OUT/final28-regs.md" 2>&1
  timeout 120 $B selftest > "$OUT/final28-selftest.md" 2>&1
  timeout 150 $B bench sort --n 2^20,2^28 --key u32 --values 0,4 --trials 10 --json "$OUT/final28-sort.json" >> "$OUT/final28.md" 2>&1
  timeout 120 $B bench multisplit --n 2^28 --key u32 --buckets 256 --values 0,4 --ranking stable,atomic --trials 10 --json "$OUT/final28-ms.json" >> "$OUT/final28.md" 2>&1
  timeout 60 $B bench perm --n 2^28 --values 0 --ranking atomic,stable --trials 10 --json "$OUT/final28-perm.json" >> "$OUT/final28.md" 2>&1
  timeout 60 $B bench sort --n 2^28 --key u32 --values 4 --binning-policy autoxautoxticket --trials 10 --json "$OUT/final28-ticket.json" >> "$OUT/final28.md" 2>&1
  timeout 60 $B bench sort --n 2^27 --key u64 --values 0 --trials 10 --json "$OUT/final28-u64.json" >> "$OUT/final28.md" 2>&1
fi
# (Ran on session 29's experiment builds; the code is gone, kept in
# bench/results/h200/binning/session29/inpass.patch.)
# Session 29: the next pass's digits counted in each digit pass (xinpass), so the upfront
# histogram counts the first pass's alone; registers, and 2^28 sorts with per-kernel profiles,
# alternated; pair tiles of 384 (three workgroups an SM at 56 registers or fewer).
I29="auto,autoxautoxinpass"
if want inpass29; then
  timeout 60 $B pipelines --stats --binning-policy $I29,384x14,384x15 | grep -E '^(sort_onesweep_k(32|64)_v[01] \(sort [ui](32|64) values|multisplit_k32_v1)' | sed -E 's/ \| Binary Size: [0-9]+ \| Stack Size: [0-9]+//' | cut -c1-260 > "$OUT/inpass29-regs.md" 2>&1
  for R in a b; do
    timeout 120 $B bench sort --n 2^28 --key u32 --values 0,4 --binning-policy $I29 --trials 10 --profile --json "$OUT/inpass29-sort-$R.json" >> "$OUT/inpass29.md" 2>&1
  done
  timeout 60 $B bench sort --n 2^27 --key u64 --values 0 --binning-policy $I29 --trials 10 --profile --json "$OUT/inpass29-u64.json" >> "$OUT/inpass29.md" 2>&1
  timeout 60 $B bench sort --n 2^26 --key u32 --values 4 --binning-policy auto,384x14,384x15 --trials 10 --json "$OUT/inpass29-tiles.json" >> "$OUT/inpass29.md" 2>&1
fi
# Session 29: the same, counted as each pass scatters its keys (after the look-back) and added
# to the counters at the end of the tile; 2^26 alternated, then 2^28 with profiles.
if want inpass29b; then
  timeout 60 $B pipelines --stats --binning-policy $I29 | grep -E '^(sort_onesweep_k32_v[01] \(sort u32 values)' | sed -E 's/ \| Binary Size: [0-9]+ \| Stack Size: [0-9]+//' | cut -c1-260 > "$OUT/inpass29b-regs.md" 2>&1
  for R in a b; do
    timeout 90 $B bench sort --n 2^26 --key u32 --values 0,4 --binning-policy $I29 --trials 10 --profile --json "$OUT/inpass29b-26-$R.json" >> "$OUT/inpass29b.md" 2>&1
  done
  timeout 240 $B bench sort --n 2^28 --key u32 --values 0,4 --binning-policy $I29 --trials 10 --profile --json "$OUT/inpass29b-28.json" >> "$OUT/inpass29b.md" 2>&1
fi
# (Ran on session 29's experiment build 18c6b0d: bit 512 is gone; the permutation now takes
# both changes in its reproducible mode.)
# Session 29: the permutation of indices with each of session 28's two changes alone: index
# tiles (xnoticket) and full-tile loops (experiment bit 512), both, or neither (its default).
P29="auto,autoxautoxnoticket,autoxautoxskip512,autoxautoxnoticketxskip512"
if want perm29; then
  timeout 60 python3 .gl/randperm_anchor.py > "$OUT/randperm.txt" 2>&1
  timeout 60 $B pipelines --stats --binning-policy $P29 | grep -E '^perm' | sed -E 's/ \| Binary Size: [0-9]+ \| Stack Size: [0-9]+//' | cut -c1-260 > "$OUT/perm29-regs.md" 2>&1
  for R in a b; do
    timeout 200 $B bench perm --n 2^28 --values 0 --ranking atomic,stable --binning-policy $P29 --trials 10 --profile --json "$OUT/perm29-$R.json" >> "$OUT/perm29.md" 2>&1
  done
fi
# Session 29's final run: the permutation of indices with full-tile loops and index tiles in
# its reproducible mode only (beside torch.randperm), selftest; and pair tiles of 17 and 18
# items (64 registers or fewer keep two workgroups of 512 an SM).
if want final29; then
  timeout 60 python3 .gl/randperm_anchor.py > "$OUT/randperm.txt" 2>&1
  timeout 120 $B selftest > "$OUT/final29-selftest.md" 2>&1
  timeout 100 $B bench perm --n 2^24,2^28 --values 0 --ranking atomic,stable --trials 10 --json "$OUT/final29-perm.json" >> "$OUT/final29.md" 2>&1
  timeout 60 $B pipelines --stats --binning-policy auto,512x17,512x18 | grep -E '^(sort_onesweep_k32_v1 \(sort u32 values|multisplit_k32_v1)' | sed -E 's/ \| Binary Size: [0-9]+ \| Stack Size: [0-9]+//' | cut -c1-200 > "$OUT/final29-regs.md" 2>&1
  timeout 60 $B bench sort --n 2^26 --key u32 --values 4 --binning-policy auto,512x17,512x18,auto --trials 10 --json "$OUT/final29-tiles.json" >> "$OUT/final29.md" 2>&1
  timeout 60 $B bench multisplit --n 2^26 --key u32 --buckets 256 --values 4 --ranking stable --binning-policy auto,512x17,512x18,auto --trials 10 --json "$OUT/final29-ms.json" >> "$OUT/final29.md" 2>&1
fi
# Session 30's first run (step bar30 in cbd3bb2's copy of this script; its bits: 512 per-subgroup
# row zeroing, 1024 the offsets' columns in registers, 2048 the value scatter's lanes read
# fresh, 4096 a constant digit mask): 1024 and 4096 gained and are the defaults now (below,
# those bits take the old paths); 512 tied and 2048 lost, both removed.
# Session 30's kept changes (the tile offsets' columns in registers; a sort's whole-byte
# digits masked by a constant) against the code before them (in 49b9f39's build debug bits
# 1024 and 4096 took the old paths; 1024 alone for the multisplit; the bits are gone since),
# alternated; pair tiles of fewer, longer lanes where they fit two workgroups an SM.
if want ab30; then
  OLD=autoxautoxskip5120
  timeout 60 $B pipelines --stats --binning-policy auto,$OLD | grep -E '^(sort_onesweep_k(32|64)_v[01] \(sort|multisplit_k32_v1)' | sed -E 's/ \| Binary Size: [0-9]+ \| Stack Size: [0-9]+//' | cut -c1-200 > "$OUT/ab30-regs.md" 2>&1
  for R in 1 2; do
    timeout 100 $B bench sort --n 2^26 --key u32 --values 0,4 --binning-policy auto,$OLD --trials 10 --json "$OUT/ab30-26-$R.json" >> "$OUT/ab30.md" 2>&1
  done
  timeout 90 $B bench multisplit --n 2^26 --key u32 --buckets 256 --values 4 --ranking stable --binning-policy auto,autoxautoxskip1024,auto,autoxautoxskip1024 --trials 10 --json "$OUT/ab30-ms.json" >> "$OUT/ab30.md" 2>&1
  timeout 260 $B bench sort --n 2^28 --key u32 --values 4 --binning-policy auto,$OLD,auto,$OLD --trials 10 --profile --json "$OUT/ab30-28.json" >> "$OUT/ab30.md" 2>&1
  T30B=448x17,448x18,448x19,448x20,416x20,416x21,384x22,384x23
  timeout 60 $B pipelines --stats --binning-policy $T30B | grep -E '^sort_onesweep_k32_v1 \(sort u32 values 4B middle pass' | sed -E 's/ \| Binary Size: [0-9]+ \| Stack Size: [0-9]+//' | cut -c1-200 > "$OUT/ab30-tiles-regs.md" 2>&1
  FIT=""
  for P in ${T30B//,/ }; do
    W=${P%%x*}; I=${P#*x}
    G=$(grep -F "(${P}, shared match, planes in sequence, values 8 at a time, index tiles))" "$OUT/ab30-tiles-regs.md" | sed -nE 's/.*Register Count: ([0-9]+).*/\1/p' | head -1)
    LIM=$(( (65536 / (2 * W) ) / 8 * 8 ))
    echo "$P ${G:-?} (limit $LIM)" >> "$OUT/ab30.md"
    [ -n "$G" ] && [ "$G" -le "$LIM" ] && FIT="$FIT,$P"
  done
  echo "fitting: ${FIT#,}" >> "$OUT/ab30.md"
  [ -n "$FIT" ] && timeout 100 $B bench sort --n 2^26 --key u32 --values 4 --binning-policy auto$FIT --trials 10 --json "$OUT/ab30-tiles.json" >> "$OUT/ab30.md" 2>&1
fi
# Session 30's final rows, with the anchors in the same command.
if want final30; then
  timeout 150 $B bench sort --n 2^20,2^28 --key u32 --values 0,4 --trials 10 --json "$OUT/final30-sort.json" >> "$OUT/final30.md" 2>&1
  timeout 100 $B bench multisplit --n 2^28 --key u32 --buckets 256 --values 4 --ranking stable,atomic --trials 10 --json "$OUT/final30-ms.json" >> "$OUT/final30.md" 2>&1
  timeout 100 $B selftest > "$OUT/final30-selftest.md" 2>&1
  timeout 60 $B bench sort --n 2^27 --key u64 --values 0 --trials 10 --json "$OUT/final30-u64.json" >> "$OUT/final30.md" 2>&1
fi
# Session 30's ms30 step (in 78f7c9e's copy of this script) timed the 256-way multisplit's
# byte-wide bit field masked by a constant: a tie, removed (FINDINGS.md).
# Session 31 (its runs used 4290f1e's copy of this script: the same commands, file names
# slightly different). The workgroup exclusive scan as one helper (common/workgroup.glsl) against the
# code before it (target/release/vkprims-old, b3aa409): every pipeline's statistics, and the
# u32 passes alternated; then the pairs' value groups (xvcN) and look-back windows at 512x16.
if want d31; then
  OLDB=./target/release/vkprims-old
  stats_of $B . d31-stats-new.md
  stats_of $OLDB . d31-stats-old.md
  echo "pipelines whose statistics differ: $(diff "$OUT/d31-stats-new.md" "$OUT/d31-stats-old.md" | grep -c '^<') of $(wc -l < "$OUT/d31-stats-new.md")" >> "$OUT/d31.md"
  ab d31-26 2 new $B old $OLDB sort --n 2^26 --key u32 --values 0,4 --trials 10
  ab d31-ms 2 new $B old $OLDB multisplit --n 2^26 --key u32 --buckets 256 --values 4 --ranking stable --trials 10
  timeout 100 $B selftest > "$OUT/d31-selftest.md" 2>&1
  VC=autoxautoxvc4,autoxautoxvc5,autoxautoxvc6,autoxautoxvc7,autoxautoxvc9,autoxautoxvc10,autoxautoxvc11,autoxautoxvc12
  pair_regs $B auto,$VC d31-vc-regs.md
  FIT=""
  for P in ${VC//,/ }; do
    C=${P##*xvc}
    G=$(grep -F "values ${C} at a time, index tiles))" "$OUT/d31-vc-regs.md" | grep '^sort_onesweep' | sed -nE 's/.*Register Count: ([0-9]+).*/\1/p' | head -1)
    echo "$P ${G:-?}" >> "$OUT/d31.md"
    [ -n "$G" ] && [ "$G" -le 64 ] && FIT="$FIT,$P"
  done
  echo "fitting: ${FIT#,}" >> "$OUT/d31.md"
  timeout 200 $B bench sort --n 2^26 --key u32 --values 4 --binning-policy auto$FIT,autoxautoxlb4,autoxautoxlb16,auto --trials 10 --json "$OUT/d31-vc.json" >> "$OUT/d31.md" 2>&1
fi
# Session 31: 8-byte keys (no values) with the constant byte mask (target/release/vkprims-u64mask)
# against without (this build), alternated; pair tiles with both planes staged at once.
if want u64m31; then
  MB=./target/release/vkprims-u64mask
  stats_of $MB '^sort_onesweep_k64_v0 \(sort' u64m31-regs-mask.md
  stats_of $B '^sort_onesweep_k64_v0 \(sort' u64m31-regs-plain.md
  ab u64m31-u64 2 mask $MB plain $B sort --n 2^27 --key u64 --values 0 --trials 10
  ab u64m31-if 1 mask $MB plain $B sort --n 2^26 --key i64,f64 --values 0 --trials 10
  pair_regs $B auto,512x10xnoseq,512x11xnoseq u64m31-noseq-regs.md
  timeout 90 $B bench sort --n 2^26 --key u32 --values 4 --binning-policy auto,512x10xnoseq,512x11xnoseq,auto --trials 10 --json "$OUT/u64m31-noseq.json" >> "$OUT/u64m31.md" 2>&1
fi
# Session 31: i64 keys' class-round second pass took 74 registers (one workgroup of 448 an SM;
# u64 63, f64 68): the sort with a stable second pass instead (xcr: no class rounds below that
# many tiles) and with 448x12 tiles, against the default; then the final rows with the anchors.
if want i64c31; then
  NOCR=autoxautoxcr1000000000
  timeout 90 $B pipelines --stats --binning-policy auto,448x12 | grep -E '^sort_onesweep_k64_v0 \(sort i64' | sed -E 's/ \| Binary Size: [0-9]+ \| Stack Size: [0-9]+//' | cut -c1-300 > "$OUT/i64c31-regs.md" 2>&1
  timeout 150 $B bench sort --n 2^26 --key i64 --values 0 --binning-policy auto,$NOCR,448x12,auto,$NOCR --trials 10 --profile --json "$OUT/i64c31-i64.json" >> "$OUT/i64c31.md" 2>&1
  timeout 60 $B bench sort --n 2^26 --key u64 --values 0 --binning-policy auto,$NOCR --trials 10 --profile --json "$OUT/i64c31-u64.json" >> "$OUT/i64c31.md" 2>&1
fi
if want final31; then
  timeout 100 $B selftest > "$OUT/final31-selftest.md" 2>&1
  timeout 60 $B bench sort --n 2^27 --key u64 --values 0 --trials 10 --json "$OUT/final31-u64.json" >> "$OUT/final31.md" 2>&1
  timeout 150 $B bench sort --n 2^28 --key u32 --values 4 --trials 10 --json "$OUT/final31-pairs.json" >> "$OUT/final31.md" 2>&1
fi
# Session 31: the digit of unsigned and signed 8-byte keys as a 32-bit XOR by a uniform
# (target/release/vkprims-i64x) against the 64-bit order key (this build), alternated.
if want i64x31; then
  XB=./target/release/vkprims-i64x
  stats_of $XB '^(sort_onesweep_k64|sort_histogram_k64|multisplit_k64)' i64x31-regs-x.md
  stats_of $B '^(sort_onesweep_k64|sort_histogram_k64|multisplit_k64)' i64x31-regs-plain.md
  ab i64x31 2 x $XB plain $B sort --n 2^26 --key i64,u64 --values 0 --trials 10
  ab i64x31-pairs 1 x $XB plain $B sort --n 2^25 --key i64 --values 4,8 --trials 10
fi
# Session 31's final build (4290f1e): selftest and 8-byte keys at 2^27, with the anchors.
if want final31b; then
  timeout 100 $B selftest > "$OUT/final31b-selftest.md" 2>&1
  timeout 120 $B bench sort --n 2^27 --key u64,i64,f64 --values 0 --trials 10 --json "$OUT/final31b-k64.json" >> "$OUT/final31b.md" 2>&1
fi
# Session 31: the keys' atomic passes took 41 and 42 registers (40 fits three workgroups of 512
# an SM): one bucket an invocation in the keys-only atomic passes (target/release/vkprims-bpt1)
# and look-back windows of 4 (the policy), against the default.
if want bpt31; then
  XB=./target/release/vkprims-bpt1
  RE='^(sort_onesweep_k(32|64)_v0 \(sort (u32|u64)|multisplit_k32_v0)'
  stats_of $XB "$RE" bpt31-regs-bpt1.md
  stats_of $B "$RE" bpt31-regs-base.md
  stats_of $B "$RE" bpt31-regs-lb4.md autoxautoxlb4
  ab bpt31 2 bpt1 $XB base $B sort --n 2^26 --key u32 --values 0 --trials 10
  ab bpt31-u64 1 bpt1 $XB base $B sort --n 2^26 --key u64 --values 0 --trials 10
  timeout 60 $B bench sort --n 2^26 --key u32 --values 0 --binning-policy autoxautoxlb4,auto,autoxautoxlb4 --trials 10 --json "$OUT/bpt31-lb4.json" >> "$OUT/bpt31.md" 2>&1
fi
# Session 32: session 31's two keys-only gains, measured at 2^26 only (one bucket an invocation
# in the keys-only atomic passes, target/release/vkprims-bpt1 from session31/6-bpt31/bpt1.patch;
# look-back windows of 4, the policy), at 2^20 and 2^28, u64 keys at 2^27, the multisplit of
# keys and the permutation of indices; pairs with windows of 4.
if want bpt32; then
  XB=./target/release/vkprims-bpt1
  RE='^(sort_onesweep_k(32|64)_v0|multisplit_k32_v0|perm)'
  stats_of $XB "$RE" bpt32-regs-bpt1.md
  stats_of $B "$RE" bpt32-regs-base.md
  L4=auto,autoxautoxlb4
  ab bpt32-20 2 bpt1 $XB base $B sort --n 2^20 --key u32 --values 0 --binning-policy $L4 --trials 10
  ab bpt32-28 1 bpt1 $XB base $B sort --n 2^28 --key u32 --values 0 --binning-policy $L4 --trials 10
  ab bpt32-u64 1 bpt1 $XB base $B sort --n 2^27 --key u64 --values 0 --binning-policy $L4 --trials 10
  ab bpt32-ms 1 bpt1 $XB base $B multisplit --n 2^28 --key u32 --buckets 256 --values 0 --ranking atomic,stable --binning-policy $L4 --trials 10
  ab bpt32-perm 1 bpt1 $XB base $B perm --n 2^28 --values 0 --ranking atomic,stable --binning-policy $L4 --trials 10
  timeout 150 $B bench sort --n 2^20,2^28 --key u32 --values 4 --binning-policy $L4,$L4 --trials 10 --json "$OUT/bpt32-lb4-pairs.json" > "$OUT/bpt32-lb4-pairs.md" 2>&1
fi
# Session 32: the keys-only atomic passes keep their elements' tile positions two to a
# register from the positions on (vkprims-pk; vkprims-pkf also stages full tiles without a
# test an element), where their 41-42 registers were one or two over three workgroups of 512
# an SM; registers, u32 keys at 2^26 and 2^28, u64 keys and the atomic multisplit of keys.
if want pk32; then
  RE='^(sort_onesweep_k(32|64)_v0|multisplit_k32_v0)'
  PK="base=$B pk=./target/release/vkprims-pk pkf=./target/release/vkprims-pkf"
  for lb in $PK; do stats_of ${lb#*=} "$RE" pk32-regs-${lb%%=*}.md; done
  alt pk32-26 2 "$PK" sort --n 2^26 --key u32 --values 0 --trials 10
  alt pk32-28 1 "$PK" sort --n 2^28 --key u32 --values 0 --trials 10
  alt pk32-u64 1 "$PK" sort --n 2^26 --key u64 --values 0 --trials 10
  alt pk32-ms 1 "$PK" multisplit --n 2^26 --key u32 --buckets 256 --values 0 --ranking atomic --trials 10
fi
# Session 33: class steps (a keys-only sort's later stable passes rank a step whose elements
# share every earlier digit with atomics) against the same build with `xnocs`, with the
# second pass in class steps instead of class rounds (`xcr1000000000`), and against the
# build before (target/release/vkprims-base); registers, u32 keys over sizes, u64 keys.
if want cs33; then
  XB=./target/release/vkprims-base
  RE='^sort_onesweep_k(32|64)_v0'
  stats_of $B "$RE" cs33-regs-new.md auto,autoxautoxnocs
  stats_of $XB "$RE" cs33-regs-base.md
  # Two workgroups of 512 an SM need at most 64 registers: past that, no timing is worth it.
  REGS=$(grep 'sort u32 values 0B middle pass, tile 8192 (512x16, shared match in class steps' "$OUT/cs33-regs-new.md" | grep -o 'Register Count: [0-9]*' | grep -o '[0-9]*$')
  echo "u32 middle pass in class steps: ${REGS:-?} registers" >&2
  CS=auto,autoxautoxnocs,autoxautoxcr1000000000
  if [ "${REGS:-99}" -le 64 ]; then
    for r in 1 2; do
      timeout 150 $B bench sort --n 2^28 --key u32 --values 0 --binning-policy $CS --trials 10 --profile --json "$OUT/cs33-28-new-$r.json" >> "$OUT/cs33-28.md" 2>&1
      timeout 60 $XB bench sort --n 2^28 --key u32 --values 0 --trials 10 --profile --json "$OUT/cs33-28-base-$r.json" >> "$OUT/cs33-28.md" 2>&1
    done
    timeout 120 $B bench sort --n 2^20,2^24,2^26 --key u32 --values 0 --binning-policy $CS --trials 10 --profile --json "$OUT/cs33-small-new.json" >> "$OUT/cs33-small.md" 2>&1
    timeout 60 $XB bench sort --n 2^20,2^24,2^26 --key u32 --values 0 --trials 10 --profile --json "$OUT/cs33-small-base.json" >> "$OUT/cs33-small.md" 2>&1
    timeout 90 $B bench sort --n 2^27 --key u64 --values 0 --binning-policy auto,autoxautoxnocs --trials 10 --profile --json "$OUT/cs33-u64-new.json" >> "$OUT/cs33-u64.md" 2>&1
    timeout 60 $XB bench sort --n 2^27 --key u64 --values 0 --trials 10 --profile --json "$OUT/cs33-u64-base.json" >> "$OUT/cs33-u64.md" 2>&1
  fi
fi
# Queued by session 33 (its device time ran out): the kept class-step default as a whole
# (passes 1 to p where classes average two runs) against `xnocs` (session 32's passes), u32
# keys over sizes and u64 keys (whose second pass in class steps was never timed); with
# the anchors and selftest for a final row.
if want final33; then
  for r in 1 2; do
    timeout 150 $B bench sort --n 2^28 --key u32 --values 0 --binning-policy auto,autoxautoxnocs --trials 10 --profile --json "$OUT/final33-28-$r.json" >> "$OUT/final33-28.md" 2>&1
  done
  timeout 120 $B bench sort --n 2^20,2^24,2^26 --key u32 --values 0 --binning-policy auto,autoxautoxnocs --trials 10 --profile --json "$OUT/final33-small.json" >> "$OUT/final33-small.md" 2>&1
  timeout 90 $B bench sort --n 2^27 --key u64 --values 0 --binning-policy auto,autoxautoxnocs --trials 10 --profile --json "$OUT/final33-u64.json" >> "$OUT/final33-u64.md" 2>&1
fi
# Class steps at small sizes (2^20: the second pass's classes of 4,096 keys qualify, but the
# tiles are few and latency-bound): the default against xnocs, alternated.
if want small34; then
  for r in 1 2 3 4; do
    for p in auto autoxautoxnocs; do
      echo "== $p $r" >> "$OUT/small34.md"
      timeout 60 $B bench sort --n 2^20,2^21,2^22 --key u32 --values 0 --binning-policy $p --trials 20 --profile --json "$OUT/small34-$p-$r.json" >> "$OUT/small34.md" 2>&1
    done
  done
fi
# Session 35: the u32 pair pass's key and value stores through device addresses (pushed,
# GL_EXT_buffer_reference) instead of the bindings (target/release/vkprims-bda, patch in
# session35/1-bda35): the driver's SASS of both (are the stores still STG.E.STRONG.SM?) and
# the times, alternated.
if want bda35; then
  XB=./target/release/vkprims-bda
  sass_of pairs-base bda35-sass.md $B bench sort --n 2^20 --key u32 --values 4 --trials 1
  sass_of pairs-bda bda35-sass.md $XB bench sort --n 2^20 --key u32 --values 4 --trials 1
  ab bda35-26 2 base $B bda $XB sort --n 2^26 --key u32 --values 4 --trials 10 --profile
  ab bda35-28 ${BDA_ROUNDS:-1} base $B bda $XB sort --n 2^28 --key u32 --values 4 --trials 10 --profile
  ab bda35-k28 1 base $B bda $XB sort --n 2^28 --key u32 --values 0 --trials 10
fi
# The pair-pass policies (value groups and stash, as their labels name them) whose pipeline
# statistics in $OUT/FILE (stats_of) count at most 64 registers, comma-separated; the list is
# also appended to FILE.
fitting_pair_policies() {
  local fit
  fit=$(grep -o 'values [0-9]* at a time[^)]*)) | Register Count: [0-9]*' "$OUT/$1" | awk '$NF <= 64' \
    | sed -E 's/values ([0-9]+) at a time, ([0-9]+) stashed before.*/autoxautoxvc\1xstashlb\2/; s/values ([0-9]+) at a time, ([0-9]+) stashed.*/autoxautoxvc\1xstash\2/; s/values ([0-9]+) at a time.*/autoxautoxvc\1/' \
    | sort -u | paste -sd,)
  echo "fit: ${fit:-none}" >> "$OUT/$1"
  echo "$fit"
}
# pair_policy_race NAME POLICIES: the u32 pair pass's middle-pass registers under each of
# POLICIES (comma-separated), then u32 pairs at 2^26, two rounds, under the default and
# those of POLICIES that fit 64 registers (two workgroups of 512 an SM).
pair_policy_race() {
  local name=$1 fit r
  stats_of $B '^sort_onesweep_k32_v1 \(sort u32 values 4B middle' $name-regs.md $2
  fit=$(fitting_pair_policies $name-regs.md)
  for r in 1 2; do
    timeout 150 $B bench sort --n 2^26 --key u32 --values 4 --binning-policy auto${fit:+,$fit} --trials 10 --json "$OUT/$name-26-$r.json" >> "$OUT/$name-26.md" 2>&1
  done
}
# Session 35 (a build with session35/4-stashlb35/stash35.patch; reverted, it lost): the value
# stash (each lane's last N values read with the keys at the tile's start into shared
# memory, `xstashN`), with the first group's size (`xvcN`): registers,
# then u32 pairs at 2^26 and 2^28 and the 256-way multisplit of pairs at 2^28.
if want stash35; then
  P=${STASH_POLICIES:-auto,autoxautoxstash6,autoxautoxvc10xstash6,autoxautoxvc6xstash6,autoxautoxvc4xstash6}
  pair_regs $B $P stash35-regs.md
  for r in 1 2; do
    timeout 120 $B bench sort --n 2^26 --key u32 --values 4 --binning-policy $P --trials 10 --profile --json "$OUT/stash35-26-$r.json" >> "$OUT/stash35-26.md" 2>&1
  done
  P28=${STASH28:-auto,autoxautoxstash6,autoxautoxvc10xstash6}
  timeout 200 $B bench sort --n 2^28 --key u32 --values 4 --binning-policy $P28 --trials 10 --json "$OUT/stash35-28.json" >> "$OUT/stash35-28.md" 2>&1
  timeout 120 $B bench multisplit --n 2^28 --key u32 --buckets 256 --values 4 --binning-policy $P28 --trials 10 --json "$OUT/stash35-ms.json" >> "$OUT/stash35-ms.md" 2>&1
fi
# Session 35 (stash35.patch in both builds): the stash with the device-address stores
# (target/release/vkprims-bda, session35/1-bda35/bda35.patch: fewer registers in its SASS):
# each policy's registers, and the u32 pairs at 2^26 under those of at most 64 (two
# workgroups of 512 an SM), beside this build's default.
if want bdastash35; then
  XB=./target/release/vkprims-bda
  P=${STASH_POLICIES:-auto,autoxautoxstash6,autoxautoxvc10xstash6,autoxautoxstash4,autoxautoxvc10xstash4,autoxautoxvc12xstash4,autoxautoxstash2}
  stats_of $XB '^sort_onesweep_k32_v1 \(sort u32 values 4B middle' bdastash35-regs.md $P
  FIT=$(fitting_pair_policies bdastash35-regs.md)
  for r in 1 2; do
    timeout 60 $B bench sort --n 2^26 --key u32 --values 4 --trials 10 --json "$OUT/bdastash35-26-base-$r.json" >> "$OUT/bdastash35-26.md" 2>&1
    [ -n "$FIT" ] && timeout 150 $XB bench sort --n 2^26 --key u32 --values 4 --binning-policy $FIT --trials 10 --json "$OUT/bdastash35-26-bda-$r.json" >> "$OUT/bdastash35-26.md" 2>&1
  done
fi
# Session 35 (stash35.patch): the stash read at the tile's start (`xstashN`) or after the
# keys are staged, before the look-back (`xstashlbN`), its values staged one at a time:
# registers of each policy, and u32 pairs at 2^26 under those of at most 64 beside the default.
want stashlb35 && pair_policy_race stashlb35 ${STASH_POLICIES:-auto,autoxautoxstash6,autoxautoxvc10xstash6,autoxautoxstash4,autoxautoxstashlb6,autoxautoxvc10xstashlb6,autoxautoxstashlb4}
# Session 35: the values' group size again with today's pair pass (session 20 tuned 8 on
# older code): registers of each, and u32 pairs at 2^26 under those of at most 64.
want vc35 && pair_policy_race vc35 auto,autoxautoxvc6,autoxautoxvc7,autoxautoxvc9,autoxautoxvc10,autoxautoxvc11,autoxautoxvc12,autoxautoxvc16
# Queued by session 35 (no device time left): the look-back before the staging (`xlbfirst`,
# in target/release/vkprims-lbf, built with session36/1-lbfirst36/lbfirst.patch, whose tests
# passed on lavapipe at widths 4, 8 and 16). Session 35's stash before the look-back lost
# 2-5%, so the time to a tile's inclusive prefixes may count. Registers of both builds (the
# patch's spec constant must leave the default's code as it was: session 25 saw dead
# spec-constant code cost registers), then u32 keys and pairs and u64 keys at 2^26 and u32
# pairs at 2^28: this build's default against the patched build's default and `xlbfirst`.
if want lbfirst36; then
  XB=./target/release/vkprims-lbf
  RE='^sort_onesweep_k(32|64)_v[01] \(sort (u32|u64) values [04]B'
  stats_of $B "$RE" lbfirst36-regs-base.md
  stats_of $XB "$RE" lbfirst36-regs-lbf.md auto,autoxautoxlbfirst
  for r in 1 2; do
    for args in "u32 --values 0" "u32 --values 4" "u64 --values 0"; do
      tag="${args%% *}-${args##* }-$r"
      timeout 60 $B bench sort --n 2^26 --key $args --trials 10 --json "$OUT/lbfirst36-26-base-$tag.json" >> "$OUT/lbfirst36-26.md" 2>&1
      timeout 120 $XB bench sort --n 2^26 --key $args --binning-policy auto,autoxautoxlbfirst --trials 10 --profile --json "$OUT/lbfirst36-26-lbf-$tag.json" >> "$OUT/lbfirst36-26.md" 2>&1
    done
  done
  timeout 200 $XB bench sort --n 2^28 --key u32 --values 4 --binning-policy auto,autoxautoxlbfirst --trials 10 --profile --json "$OUT/lbfirst36-28.json" >> "$OUT/lbfirst36-28.md" 2>&1
fi
# Queued by session 35: where today's pair pass spends a tile, beside keys alone (phase
# clocks, whose own registers slow the passes, so the phases' shares count, not the times),
# with `xlbfirst` in the patched build when it is there.
if want clocks36; then
  timeout 120 $B bench sort --n 2^26 --key u32 --values 0,4 --binning-policy autoxautoxclocks --trials 10 --json "$OUT/clocks36.json" >> "$OUT/clocks36.md" 2>&1
  # At 2^28 the look-back's walks (rounds, tiles taken) are those of the targets' size.
  timeout 150 $B bench sort --n 2^28 --key u32 --values 4 --binning-policy autoxautoxclocks --trials 5 --json "$OUT/clocks36-28.json" >> "$OUT/clocks36.md" 2>&1
  [ -x ./target/release/vkprims-lbf ] && timeout 120 ./target/release/vkprims-lbf bench sort --n 2^26 --key u32 --values 0,4 --binning-policy autoxautoxclocksxlbfirst --trials 10 --json "$OUT/clocks36-lbf.json" >> "$OUT/clocks36.md" 2>&1
fi
# Session 36: the look-back's prefixes inclusive of the bucket starts (tile 0 posts them), so
# no tile reads the bucket offsets after its walks, right before the barrier everyone waits
# at (session 28's SASS: that load issued after the walk). `vkprims-base` is the build before
# (session 35's kernels). Registers of both, selftest (width 32) of the new, then base and new
# alternated: u32 keys, pairs and u64 keys at 2^26, u32 keys and pairs at 2^28, the 256-way
# multisplit of pairs at 2^28.
if want bases36; then
  XB=./target/release/vkprims-base
  base_new_regs bases36 bases36-selftest.md
  for args in "u32 --values 0" "u32 --values 4" "u64 --values 0"; do
    ab bases36-26-${args%% *}-${args##* } 2 base $XB new $B sort --n 2^26 --key $args --trials 10
  done
  for v in 0 4; do ab bases36-28-u32-$v 1 base $XB new $B sort --n 2^28 --key u32 --values $v --trials 10; done
  ab bases36-ms28 1 base $XB new $B multisplit --n 2^28 --key u32 --buckets 256 --values 4 --ranking stable --trials 10
fi
# Session 36, after `bases36` (the u32 keys' middle pass rose from 62 to 83 registers):
# `vkprims-a` has tile 0 write its destinations where it posts (post_counts), so the
# look-back reads no offsets at all; `vkprims-b` is a with forced fallbacks not forcing tile 0
# without FOLD (as before). Registers of the three, `selftest` of a, then the base (this
# binary), a and b alternated: u32 keys at 2^26 (two rounds) and 2^28, pairs at 2^26.
if want bases36b; then
  RE='^(sort_onesweep_k(32|64)_v[01] \(sort (u32|u64) values [04]B|multisplit_k32_v1)'
  for x in base=$B a=./target/release/vkprims-a b=./target/release/vkprims-b; do stats_of ${x#*=} "$RE" bases36b-regs-${x%%=*}.md; done
  timeout 120 ./target/release/vkprims-a selftest > "$OUT/bases36b-selftest-a.md" 2>&1
  BUILDS="base=$B a=./target/release/vkprims-a b=./target/release/vkprims-b"
  alt bases36b-26-u32-0 2 "$BUILDS" sort --n 2^26 --key u32 --values 0 --trials 10
  alt bases36b-26-u32-4 1 "$BUILDS" sort --n 2^26 --key u32 --values 4 --trials 10
  alt bases36b-28-u32-0 1 "$BUILDS" sort --n 2^28 --key u32 --values 0 --trials 10
fi
# Session 37: the shared match's paired steps (two elements a step, so the ranking's chain of
# shared round trips is half as long; counter rows two subgroups a word so the doubled mask
# rows fit). `vkprims-base` is the build before. Registers of both, selftest (width 32) of the
# new, phase clocks of both at 2^26, then base and new alternated: u32 keys and pairs at 2^26,
# u32 pairs and keys at 2^28, the 256-way multisplit of pairs at 2^28, u64 keys at 2^26.
if want pairs37; then
  XB=./target/release/vkprims-base
  base_new_regs pairs37 pairs37-selftest-new.md
  base_new_clocks pairs37 autoxautoxclocks
  BUILDS="base=$XB new=$B"
  alt pairs37-26-u32-0 2 "$BUILDS" sort --n 2^26 --key u32 --values 0 --trials 10
  alt pairs37-26-u32-4 2 "$BUILDS" sort --n 2^26 --key u32 --values 4 --trials 10
  alt pairs37-28-u32-4 1 "$BUILDS" sort --n 2^28 --key u32 --values 4 --trials 10
  alt pairs37-28-u32-0 1 "$BUILDS" sort --n 2^28 --key u32 --values 0 --trials 10
  alt pairs37-28-ms-4 1 "$BUILDS" multisplit --n 2^28 --key u32 --buckets 256 --values 4 --ranking stable --trials 10
  alt pairs37-26-u64-0 1 "$BUILDS" sort --n 2^26 --key u64 --values 0 --trials 10
fi
# Session 37, run 2: the paired steps without the packed counters (each subgroup its own
# counter row, as before), at tiles where the doubled mask rows fit (256x16, 384x16), against
# the base at the same tiles: is the ranking's loss the pairing or the packing?
if want pairs37b; then
  XB=./target/release/vkprims-base
  RE='^(sort_onesweep_k32_v[01] \(sort u32 values [04]B middle)'
  for t in 256x16 384x16; do
    stats_of $XB "$RE" pairs37b-regs-base-$t.md $t
    stats_of $B "$RE" pairs37b-regs-new-$t.md $t
  done
  timeout 100 $B bench sort --n 100003,2^22 --key u32 --values 0,4 --binning-policy 256x16,384x16 --trials 2 > "$OUT/pairs37b-check.md" 2>&1
  base_new_clocks pairs37b 256x16xclocks,384x16xclocks
  BUILDS="base=$XB new=$B"
  alt pairs37b-26-u32-0 2 "$BUILDS" sort --n 2^26 --key u32 --values 0 --binning-policy 256x16,384x16 --trials 10
  alt pairs37b-26-u32-4 2 "$BUILDS" sort --n 2^26 --key u32 --values 4 --binning-policy 256x16,384x16 --trials 10
fi
# Session 37, run 3: u32 keys' tiles again (384x16 ran the default's time at 54 registers in
# pairs37b: three workgroups an SM): registers of each pass, then the default and tiles of
# 384 and 448 alternated at 2^26, and the two best guesses at 2^28.
if want keys37; then
  for t in 384x15 384x16 384x17 384x18 448x14 448x15; do stats_of $B '^sort_onesweep_k32_v0' keys37-regs-$t.md $t; done
  TILES=auto,384x15,384x16,384x17,384x18,448x14,448x15
  for r in 1 2; do
    timeout 100 $B bench sort --n 2^26 --key u32 --values 0 --binning-policy $TILES --trials 10 --json "$OUT/keys37-26-$r.json" >> "$OUT/keys37-26.md" 2>&1
  done
  timeout 120 $B bench sort --n 2^28 --key u32 --values 0 --binning-policy auto,384x16,384x17,auto --trials 10 --json "$OUT/keys37-28.json" >> "$OUT/keys37-28.md" 2>&1
fi
# Session 37, run 4 (the last 240 s of device time): 4-byte pairs' planes in halves (the
# tile's first half of positions staged before the look-back, key and value side by side;
# the second half after the first is scattered), against the build before: the pair pass's
# registers, then u32 pairs at 2^26 and 2^28 alternated, CUB last.
if want halves37; then
  XB=./target/release/vkprims-base
  pair_regs $XB "" halves37-regs-base.md
  pair_regs $B "" halves37-regs-new.md
  BUILDS="base=$XB new=$B"
  alt halves37-26-u32-4 1 "$BUILDS" sort --n 2^26 --key u32 --values 4 --trials 5
  alt halves37-28-u32-4 1 "$BUILDS" sort --n 2^28 --key u32 --values 4 --trials 5
  alt halves37-28-ms-4 1 "$BUILDS" multisplit --n 2^28 --key u32 --buckets 256 --values 4 --ranking stable --trials 5
  cub_build && timeout 60 /tmp/cub_anchor > "$OUT/cub.txt" 2>&1
fi
# Queued by session 37 (no device time left): late counts (`xlate`, the ranking before the
# counting, last timed in session 9 with other tiles) against the default, one build. Session
# 37 found the ranking paced by its shared-memory operations; late counts drop the counting's
# shared atomic an element for a shared read an element when forming positions. Registers
# of both, phase clocks at 2^26, then alternated: u32 keys and pairs at 2^26 and 2^28.
if want late38; then
  for pol in auto autoxautoxlate; do pair_regs $B $pol late38-regs-pairs-$pol.md; stats_of $B '^sort_onesweep_k32_v0 \(sort u32' late38-regs-keys-$pol.md $pol; done
  timeout 100 $B bench sort --n 2^26 --key u32 --values 0,4 --binning-policy autoxautoxclocks,autoxautoxclocksxlate --trials 5 --json "$OUT/late38-clocks.json" > "$OUT/late38-clocks.md" 2>&1
  for r in 1 2; do
    timeout 100 $B bench sort --n 2^26 --key u32 --values 0,4 --binning-policy auto,autoxautoxlate --trials 10 --json "$OUT/late38-26-$r.json" >> "$OUT/late38-26.md" 2>&1
  done
  timeout 150 $B bench sort --n 2^28 --key u32 --values 0,4 --binning-policy auto,autoxautoxlate --trials 10 --json "$OUT/late38-28.json" >> "$OUT/late38-28.md" 2>&1
fi
# Session 38, run 2: late counts won for u32 keys alone (5.3975 against 5.4438 ms at 2^28)
# and lost for pairs (late38). Where else do they win: u32 keys at 2^20 and 2^24, with
# 384x16 tiles (the class-step pass fell to 53 registers), u64 keys at 2^27, the stable
# 256- and 16-way multisplit of keys at 2^28 and the reproducible permutation at 2^28.
if want late38b; then
  for pol in 384x16 384x16xlate; do stats_of $B '^sort_onesweep_k32_v0 \(sort u32' late38b-regs-keys-$pol.md $pol; done
  stats_of $B '^sort_onesweep_k64_v0 \(sort u64' late38b-regs-u64-auto.md auto
  stats_of $B '^sort_onesweep_k64_v0 \(sort u64' late38b-regs-u64-late.md autoxautoxlate
  L=auto,autoxautoxlate
  timeout 100 $B bench sort --n 2^20,2^24 --key u32 --values 0 --binning-policy $L,$L --trials 20 --json "$OUT/late38b-small.json" > "$OUT/late38b-small.md" 2>&1
  timeout 150 $B bench sort --n 2^28 --key u32 --values 0 --binning-policy $L,384x16xlate,$L --trials 10 --json "$OUT/late38b-28.json" > "$OUT/late38b-28.md" 2>&1
  timeout 150 $B bench sort --n 2^27 --key u64 --values 0 --binning-policy $L,$L --trials 10 --json "$OUT/late38b-u64.json" > "$OUT/late38b-u64.md" 2>&1
  timeout 150 $B bench multisplit --n 2^28 --key u32 --buckets 16,256 --values 0 --ranking stable --binning-policy $L,$L --trials 10 --json "$OUT/late38b-ms.json" > "$OUT/late38b-ms.md" 2>&1
  timeout 150 $B bench perm --n 2^28 --values 4 --ranking stable --binning-policy $L,$L --trials 10 --json "$OUT/late38b-perm.json" > "$OUT/late38b-perm.md" 2>&1
fi
# Session 38, run 3: the new default (late counts only in class-step passes) against early
# (`xearly`, the old default) and late everywhere (`xlate`), u32 keys from 2^20 to 2^28, and
# selftest at width 32.
if want late38c; then
  timeout 150 $B selftest > "$OUT/late38c-selftest.txt" 2>&1
  stats_of $B '^sort_onesweep_k32_v0 \(sort u32' late38c-regs-keys.md auto
  L=auto,autoxautoxearly,autoxautoxlate
  timeout 120 $B bench sort --n 2^20,2^24,2^26 --key u32 --values 0 --binning-policy $L,$L --trials 20 --json "$OUT/late38c-small.json" > "$OUT/late38c-small.md" 2>&1
  timeout 150 $B bench sort --n 2^28 --key u32 --values 0 --binning-policy $L,$L --trials 10 --json "$OUT/late38c-28.json" > "$OUT/late38c-28.md" 2>&1
fi
# Session 38, run 4: late counts in class-step passes from BinningPass::LATE_MIN_TILES =
# 4,096 tiles: 2^25 u32 keys (4,096 tiles, late by default) and 2^24 (early), each against
# the other way.
if want late38d; then
  timeout 150 $B bench sort --n 2^24,2^25 --key u32 --values 0 --binning-policy auto,autoxautoxearly,autoxautoxlate,auto,autoxautoxearly,autoxautoxlate --trials 20 --json "$OUT/late38d.json" > "$OUT/late38d.md" 2>&1
fi
# Queued by session 38 (its last 180 s of device time could not start a machine; run it with
# the anchors step): with late counts the class-step pass takes 53 registers
# at 512x16; do larger tiles keep two workgroups an SM there? Registers at 512x17, 512x18
# and 512x20, then each pass's time at 2^26 (its first two digit passes take class steps).
if want items38; then
  for t in 512x17xlate 512x18xlate 512x20xlate; do stats_of $B '^sort_onesweep_k32_v0 \(sort u32' items38-regs-$t.md $t; done
  timeout 80 $B bench sort --n 2^26 --key u32 --values 0 --binning-policy auto,512x17xlate,512x18xlate,512x20xlate --trials 10 --profile --json "$OUT/items38.json" > "$OUT/items38.md" 2>&1
fi
# Session 39: with late counts the u32 passes fit two workgroups of 512 at 17 items (60-64
# registers, items38: 1.3683 ms against 1.4022 at 2^26). Tiles around it, registers and times
# of keys over sizes, and of pairs.
if want items39; then
  P39=auto,512x17,512x17xlate,512x17xearly,448x18,448x19,448x20,448x20xlate,480x17,480x18,512x18xlate
  stats_of $B '^sort_onesweep_k32_v0 \(sort u32' items39-regs.md $P39
  pair_regs $B auto,512x17,512x17xlate,448x18,448x19,480x17 items39-pair-regs.md
  timeout 150 $B bench sort --n 2^26 --key u32 --values 0 --binning-policy $P39 --trials 10 --json "$OUT/items39-26.json" > "$OUT/items39-26.md" 2>&1
  timeout 150 $B bench sort --n 2^28 --key u32 --values 0 --binning-policy auto,512x17,512x17xlate,448x19,448x20,480x17 --trials 10 --json "$OUT/items39-28.json" > "$OUT/items39-28.md" 2>&1
  timeout 100 $B bench sort --n 2^20,2^22,2^24,2^25 --key u32 --values 0 --binning-policy auto,512x17,512x17xlate,448x19,480x17 --trials 10 --json "$OUT/items39-small.json" > "$OUT/items39-small.md" 2>&1
  timeout 100 $B bench sort --n 2^26 --key u32 --values 4 --binning-policy auto,512x17,512x17xlate,448x18,448x19,480x17 --trials 10 --json "$OUT/items39-pairs.json" > "$OUT/items39-pairs.md" 2>&1
fi
# Session 39: the new defaults (u32 keys at 512x17; late counts in every stable pass of a sort
# of keys alone from 1,024 tiles) against early and late everywhere over sizes, u64 keys, the
# tiles at 2^22 (480x17 took 0.1285 ms there against 0.1421 at 512x17 in items39), selftest.
if want items39b; then
  timeout 120 $B selftest > "$OUT/items39b-selftest.md" 2>&1
  stats_of $B '^sort_onesweep_k(32|64)_v0 \(sort u(32|64) values 0B' items39b-regs.md
  timeout 150 $B bench sort --n 2^20,2^24,2^25,2^26,2^28 --key u32 --values 0 --binning-policy auto,autoxautoxearly,autoxautoxlate --trials 10 --json "$OUT/items39b-u32.json" > "$OUT/items39b-u32.md" 2>&1
  timeout 100 $B bench sort --n 2^22 --key u32 --values 0 --binning-policy auto,480x17,448x19,480x16,448x18,512x16 --trials 10 --profile --json "$OUT/items39b-22.json" > "$OUT/items39b-22.md" 2>&1
  timeout 120 $B bench sort --n 2^24,2^25 --key u64 --values 0 --binning-policy auto,autoxautoxearly --trials 10 --json "$OUT/items39b-u64.json" > "$OUT/items39b-u64.md" 2>&1
fi
# Session 39: passes of at most 512 tiles fold the offsets into tile 0 by default; at 2^22
# (482 tiles of 512x17) that lost to 480x17 (514 tiles, no fold): 0.1457 ms against 0.1321
# (items39b). The fold limit over sizes: sorts and the 256-way multisplit.
if want fold39; then
  F39=auto,autoxautoxfold0,autoxautoxfold128,autoxautoxfold256
  timeout 100 $B bench sort --n 2^20,2^21,3145728,2^22 --key u32 --values 0,4 --binning-policy $F39 --trials 10 --json "$OUT/fold39-sort.json" > "$OUT/fold39-sort.md" 2>&1
  timeout 100 $B bench multisplit --n 2^21,2^22 --key u32 --buckets 256 --values 0,4 --ranking stable --binning-policy auto,autoxautoxfold0 --trials 10 --json "$OUT/fold39-ms.json" > "$OUT/fold39-ms.md" 2>&1
fi
# Session 39's final defaults (512x17 keys, late counts from 1,024 tiles, sorts fold only
# with totals, the multisplit of pairs up to 256 tiles): selftest, the README's rows.
if want final39; then
  timeout 100 $B selftest > "$OUT/final39-selftest.md" 2>&1
  timeout 150 $B bench sort --n 2^20,2^22,2^24,2^26,2^28 --key u32 --values 0,4 --trials 10 --json "$OUT/final39-sort.json" > "$OUT/final39-sort.md" 2>&1
  timeout 60 $B bench multisplit --n 2^21,2^22 --key u32 --buckets 256 --values 4 --ranking stable --trials 10 --json "$OUT/final39-ms.json" > "$OUT/final39-ms.md" 2>&1
  timeout 60 $B bench sort --n 2^27 --key u64 --values 0 --trials 10 --json "$OUT/final39-u64.json" > "$OUT/final39-u64.md" 2>&1
fi
# Queued in session 39 (no device time left): the register sweep again where session 39 did
# not look. The multisplit's keys alone at 512x17 (early counts: registers unknown; sorts
# gained 3% there), and u64 keys now that their middle passes count late (69 registers at
# 448x13; two workgroups of 448 allow 72).
if want next40; then
  stats_of $B '^(multisplit_k32_v0|sort_onesweep_k64_v0 \(sort u64 values 0B)' next40-regs.md auto,512x17,512x17xlate,448x14,448x15,384x16,384x17
  timeout 150 $B bench multisplit --n 2^26,2^28 --key u32 --buckets 16,256 --values 0 --ranking stable,atomic --binning-policy auto,512x17 --trials 10 --json "$OUT/next40-ms.json" > "$OUT/next40-ms.md" 2>&1
  timeout 150 $B bench sort --n 2^25,2^27 --key u64 --values 0 --binning-policy auto,448x14,448x15,384x16,384x17 --trials 10 --json "$OUT/next40-u64.json" > "$OUT/next40-u64.md" 2>&1
fi
# Session 40: peers matched by ballots (CUB's way) or subgroupPartitionNV lost 1.3-1.6x in
# session 20, when every element also took a counting atomic. With late counts a step takes
# no shared memory but its leader's atomicAdd: measure both again, with and without late
# counts, for pairs (the unmet target), keys and the multisplit of pairs; and u64 keys at
# 512x11 (59 registers in the middle pass, next40) against 448x13.
if want ballots40; then
  BL40=auto,512x16xballots,512x16xballotsxlate,512x16xpart,512x16xpartxlate
  pair_regs $B $BL40 ballots40-pair-regs.md
  stats_of $B '^sort_onesweep_k32_v0 \(sort u32 values 0B' ballots40-key-regs.md auto,autoxautoxballots,autoxautoxpart
  timeout 150 $B bench sort --n 2^26,2^28 --key u32 --values 4 --binning-policy $BL40 --trials 10 --json "$OUT/ballots40-pairs.json" > "$OUT/ballots40-pairs.md" 2>&1
  timeout 100 $B bench sort --n 2^26,2^28 --key u32 --values 0 --binning-policy auto,autoxautoxballots,autoxautoxpart --trials 10 --json "$OUT/ballots40-keys.json" > "$OUT/ballots40-keys.md" 2>&1
  timeout 60 $B bench multisplit --n 2^28 --key u32 --buckets 256 --values 4 --ranking stable --binning-policy auto,512x16xballotsxlate,512x16xpartxlate --trials 10 --json "$OUT/ballots40-ms.json" > "$OUT/ballots40-ms.md" 2>&1
  timeout 80 $B bench sort --n 2^25,2^27 --key u64 --values 0 --binning-policy auto,512x11,auto,512x11 --trials 10 --json "$OUT/ballots40-u64.json" > "$OUT/ballots40-u64.md" 2>&1
  # The look-back fallback's FOLD branch merged (the passes that fold: 2^20 sorts, 2^22
  # multisplit of keys; session 39's final rows 0.0486 / 0.0577 and 0.0374 ms).
  timeout 60 $B bench sort --n 2^20 --key u32 --values 0,4 --trials 10 --json "$OUT/ballots40-fold.json" > "$OUT/ballots40-fold.md" 2>&1
  timeout 60 $B bench multisplit --n 2^22 --key u32 --buckets 256 --values 0 --ranking stable --trials 10 --json "$OUT/ballots40-fold-ms.json" >> "$OUT/ballots40-fold.md" 2>&1
fi
# Session 40: ballots40's 256-way multisplit of 2^22 keys (folding) ran 0.0472 ms at 512x16
# against session 39's 0.0374 at 512x17: the fallback's FOLD branch merge (vkprims) against
# the build before it (vkprims-base), at both tiles, alternated.
if want fold40; then
  ab fold40 3 base ./target/release/vkprims-base new $B multisplit --n 2^21,2^22 --key u32 --buckets 256 --values 0 --ranking stable --binning-policy auto,512x17 --trials 10
fi
# Session 40: fold40 put the 256-way multisplit of keys at 512x17 (69 registers, one
# workgroup an SM) 17-21% ahead of 512x16 at 2^21-2^22, where next40 had it 1.36x behind at
# 2^26: where the crossover lies, with and without the fold, and for pairs (66 registers).
if want small40; then
  timeout 120 $B bench multisplit --n 2^22,2^23,2^24,2^25 --key u32 --buckets 16,256 --values 0,4 --ranking stable,atomic --binning-policy auto,512x17 --trials 10 --json "$OUT/small40-ms.json" > "$OUT/small40-ms.md" 2>&1
  timeout 60 $B bench multisplit --n 2^22 --key u32 --buckets 256 --values 0 --ranking stable --binning-policy autoxautoxfold0,512x17xfold0 --trials 10 --json "$OUT/small40-nofold.json" > "$OUT/small40-nofold.md" 2>&1
  timeout 90 $B bench sort --n 2^20,2^21,2^22,2^23,2^24 --key u32 --values 4 --binning-policy auto,512x17 --trials 10 --json "$OUT/small40-pairs.json" > "$OUT/small40-pairs.md" 2>&1
fi
# Session 40: small40 had the stable 256-way multisplit of 2^22 keys (512 tiles of 512x16)
# at 0.0453 ms folding and 0.0428 not, and 0.0374 at 512x17 folding (482 tiles): the fold
# limit and the tile for the multisplit's keys where it folds, twice.
if want msfold40; then
  for r in 1 2; do
    timeout 120 $B bench multisplit --n 2^20,2^21,3145728,2^22 --key u32 --buckets 16,256 --values 0 --ranking stable,atomic --binning-policy auto,autoxautoxfold0,autoxautoxfold256,512x17,512x17xfold0 --trials 10 --json "$OUT/msfold40-$r.json" > "$OUT/msfold40-$r.md" 2>&1
  done
fi
# Session 40's final build (the stable multisplit of keys at 512x17 where it folds there):
# selftest at width 32 and the multisplit's default at the sizes the rule changed.
if want final40; then
  timeout 100 $B selftest > "$OUT/final40-selftest.md" 2>&1
  timeout 40 $B bench multisplit --n 2^21,2^22,2^23 --key u32 --buckets 16,256 --values 0 --ranking stable,atomic --trials 10 --json "$OUT/final40-ms.json" > "$OUT/final40-ms.md" 2>&1
fi
# Queued in session 40 (no device time left): does the pairs' value traffic overlap the keys'
# work when other workgroups move it (FINDINGS, session 40's open idea)? Debug bit 7
# (`xskip128`, timing only: values land unpermuted, so validation fails) dispatches twice the
# tiles, odd workgroups copying a tile of values, even ones the key tiles without a value
# round. Against the default pairs and a keys sort whose passes rank as the pairs' do
# (stable, early counts, 512x16, no class steps). Near the keys' time: worth building the
# value tiles; near the pairs': not.
if want vtiles41; then
  pair_regs $B auto,autoxautoxskip128 vtiles41-regs.md
  for r in 1 2; do
    timeout 150 $B bench sort --n 2^26 --key u32 --values 4 --binning-policy auto,autoxautoxskip128 --trials 10 --profile --json "$OUT/vtiles41-26-$r.json" > "$OUT/vtiles41-26-$r.md" 2>&1
  done
  timeout 100 $B bench sort --n 2^26 --key u32 --values 0 --binning-policy 512x16xstablefirstxnocsxearly,auto --trials 10 --profile --json "$OUT/vtiles41-keys26.json" > "$OUT/vtiles41-keys26.md" 2>&1
  timeout 200 $B bench sort --n 2^28 --key u32 --values 4 --binning-policy auto,autoxautoxskip128 --trials 10 --profile --json "$OUT/vtiles41-28.json" > "$OUT/vtiles41-28.md" 2>&1
  timeout 150 $B bench sort --n 2^28 --key u32 --values 0 --binning-policy 512x16xstablefirstxnocsxearly --trials 10 --profile --json "$OUT/vtiles41-keys28.json" > "$OUT/vtiles41-keys28.md" 2>&1
fi
# Session 41: every README row from one build, in two commands (final41a, final41b), each
# with the anchors, so the table's rows and their CUB and torch rows come from the same runs.
if want final41a; then
  timeout 150 $B bench sort --n 2^20,2^22,2^24,2^26,2^28 --key u32 --values 0,4 --trials 10 --json "$OUT/final41-sort.json" > "$OUT/final41-sort.md" 2>&1
  timeout 60 $B bench sort --n 2^27 --key u64 --values 0 --trials 10 --json "$OUT/final41-u64.json" > "$OUT/final41-u64.md" 2>&1
  timeout 200 $B bench multisplit --n 2^28 --key u32 --buckets 256 --values 0,4 --ranking stable,atomic --trials 10 --json "$OUT/final41-ms28.json" > "$OUT/final41-ms28.md" 2>&1
fi
if want final41b; then
  timeout 100 $B bench multisplit --n 2^26 --key u32 --buckets 2,16,256 --values 0 --ranking stable,atomic --trials 10 --json "$OUT/final41-ms26.json" > "$OUT/final41-ms26.md" 2>&1
  timeout 90 $B bench multisplit --n 2^26 --key u32 --buckets 4096 --values 0 --ranking stable,atomic --trials 10 --json "$OUT/final41-ms4096.json" > "$OUT/final41-ms4096.md" 2>&1
  timeout 120 $B bench perm --n 2^24,2^28 --values 0 --ranking atomic,stable --trials 10 --json "$OUT/final41-perm.json" > "$OUT/final41-perm.md" 2>&1
  timeout 150 $B bench perm --n 2^28 --values 4,8 --ranking atomic,stable --trials 10 --json "$OUT/final41-permv.json" > "$OUT/final41-permv.md" 2>&1
fi
# Queued in session 41 (no device time left): the composed multisplit with session 41's last
# default (a 12-bit sort of keys alone at 512x16, 7b6ddd8) as a whole, at 2^26 and 2^28, keys
# and pairs, both rankings; expected about 0.76 ms for 4,096-way keys at 2^26 (1.05 before).
if want composed42; then
  timeout 150 $B bench multisplit --n 2^26 --key u32 --buckets 1000,4096,65536 --values 0,4 --ranking stable,atomic --trials 10 --profile --json "$OUT/composed42-26.json" > "$OUT/composed42-26.md" 2>&1
  timeout 200 $B bench multisplit --n 2^28 --key u32 --buckets 4096,65536 --values 0,4 --ranking stable --trials 10 --json "$OUT/composed42-28.json" > "$OUT/composed42-28.md" 2>&1
fi
# Session 42: composed splits of 4-byte pairs by ids sort packed (id, (key, value)) pairs, no
# gather; against the build before (target/exp/vkprims-base). No CUB: it has no such split.
if want packed42; then
  for X in target/exp/vkprims-base $B; do
    L=$(basename $X)
    timeout 150 $X bench multisplit --n 2^26 --key u32 --buckets 1000,4099 --values 4 --ranking stable,atomic --trials 10 --profile --json "$OUT/packed42-$L-26.json" >> "$OUT/packed42.md" 2>&1
    timeout 100 $X bench multisplit --n 2^28 --key u32 --buckets 1000 --values 4 --ranking stable --trials 5 --json "$OUT/packed42-$L-28.json" >> "$OUT/packed42.md" 2>&1
  done
fi
# Queued for session 43: selftest at width 32 with the composed multisplit checks, and a
# sweep of tiles for elements of three words (4-byte keys with 8-byte payloads: the sort of
# u32 keys with 8-byte values, and the packed split's sort), whose default 256x15 lost to
# 384x10 in session42/4-tiles42.
if want next43; then
  timeout 200 $B selftest > "$OUT/next43-selftest.md" 2>&1
  T3=auto,384x10,512x7,320x12
  timeout 150 $B bench sort --n 2^24,2^26,2^28 --key u32 --values 8 --trials 10 --binning-policy $T3 --json "$OUT/next43-sort.json" > "$OUT/next43-sort.md" 2>&1
  timeout 150 $B bench multisplit --n 2^24,2^26 --key u32 --buckets 1000 --values 4 --ranking stable --trials 10 --binning-policy $T3 --json "$OUT/next43-ms.json" > "$OUT/next43-ms.md" 2>&1
fi
# Session 43: the composed split of 4-byte pairs by a split sort (its first pass reads the
# keys and values, its last writes them; no pack or split kernels) against the build before,
# both at 384x10 (the new 3-word default), alternated; its tiles; the new default's other
# 3-word elements (u64 keys with 4-byte values, u32 keys with 8-byte values in a multisplit)
# against 256x15; selftest at width 32.
if want split43; then
  ab split43 2 base target/exp/vkprims-base new $B multisplit --n 2^24,2^26 --key u32 --buckets 1000 --values 4 --ranking stable --binning-policy 384x10 --trials 10
  for X in target/exp/vkprims-base $B; do
    timeout 80 $X bench multisplit --n 2^28 --key u32 --buckets 1000 --values 4 --binning-policy 384x10 --trials 5 --json "$OUT/split43-28-$(basename $X).json" >> "$OUT/split43-28.md" 2>&1
  done
  timeout 100 $B bench multisplit --n 2^26 --key u32,f32 --buckets 1000,4099 --values 4 --ranking stable,atomic --trials 10 --profile --json "$OUT/split43-profile.json" > "$OUT/split43-profile.md" 2>&1
  timeout 60 $B bench multisplit --n 2^26 --key u32 --buckets 1000 --values 4 --binning-policy 512x7,320x12,448x8 --trials 10 --json "$OUT/split43-tiles.json" > "$OUT/split43-tiles.md" 2>&1
  timeout 80 $B bench sort --n 2^26 --key u64 --values 4 --binning-policy auto,256x15 --trials 10 --json "$OUT/split43-u64v4.json" > "$OUT/split43-3words.md" 2>&1
  timeout 60 $B bench multisplit --n 2^26 --key u32 --buckets 256 --values 8 --binning-policy auto,256x15 --trials 10 --json "$OUT/split43-ms-u32v8.json" >> "$OUT/split43-3words.md" 2>&1
  timeout 60 $B bench multisplit --n 2^26 --key u64 --buckets 256 --values 4 --binning-policy auto,256x15 --trials 10 --json "$OUT/split43-ms-u64v4.json" >> "$OUT/split43-3words.md" 2>&1
  timeout 150 $B selftest > "$OUT/split43-selftest.md" 2>&1
fi
# The split sort's tile: its first pass reads three arrays; 512x7 ran 1.5519 ms against
# 1.6351 for 384x10 at 2^26 (2-split43). Registers of its passes and of the u32 sort with
# 8-byte values; each pass's time by tile, 2^24-2^28.
if want tiles43; then
  stats_of $B '^sort_onesweep_k32_v2(_split)? \((multisplit u32 values 4B 1000|sort u32 values 8B)' tiles43-regs.md auto,512x7
  timeout 150 $B bench multisplit --n 2^24,2^26 --key u32 --buckets 1000 --values 4 --binning-policy 384x10,512x7,512x6,448x7,256x14 --trials 10 --profile --json "$OUT/tiles43.json" > "$OUT/tiles43.md" 2>&1
  timeout 150 $B bench multisplit --n 2^28 --key u32 --buckets 1000 --values 4 --binning-policy 384x10,512x7 --trials 5 --profile --json "$OUT/tiles43-28.json" > "$OUT/tiles43-28.md" 2>&1
fi
# Session 43's rows from one build: the composed splits of u32 pairs by ids at their default
# tiles (the split sort at 512x7), the 3-word sorts at theirs (384x10), selftest at width 32.
if want final43; then
  timeout 150 $B bench multisplit --n 2^26 --key u32 --buckets 1000,4099 --values 4 --ranking stable,atomic --trials 10 --profile --json "$OUT/final43-ms26.json" > "$OUT/final43-ms.md" 2>&1
  timeout 100 $B bench multisplit --n 2^28 --key u32 --buckets 1000 --values 4 --ranking stable,atomic --trials 5 --json "$OUT/final43-ms28.json" >> "$OUT/final43-ms.md" 2>&1
  timeout 100 $B bench sort --n 2^26 --key u32,u64 --values 8,4 --trials 10 --json "$OUT/final43-sort.json" > "$OUT/final43-sort.md" 2>&1
  timeout 150 $B selftest > "$OUT/final43-selftest.md" 2>&1
fi
# 4-word elements (u64 keys with 8-byte values) keep 256x15, fitted to 256x11 by shared
# memory; other tiles of about 2,700 elements.
if want w4t43; then
  W4=auto,384x7,512x5,320x9,448x6
  timeout 120 $B bench sort --n 2^24,2^26 --key u64 --values 8 --binning-policy $W4 --trials 10 --json "$OUT/w4t43-sort.json" > "$OUT/w4t43.md" 2>&1
  timeout 80 $B bench multisplit --n 2^26 --key u64 --buckets 256 --values 8 --binning-policy $W4 --trials 10 --json "$OUT/w4t43-ms.json" >> "$OUT/w4t43.md" 2>&1
  stats_of $B '^(sort_onesweep_k64_v2 \(sort u64 values 8B|multisplit_k64_v2)' w4t43-regs.md $W4
fi
# Session 44: digits as even as they can be (10 bits as 5 + 5, 12 as 6 + 6, 13 as 7 + 6)
# against the build before (8-bit digits, the last shorter), alternated, with each pass's
# time; the composed splits at 2^28; plan creation from a cold pipeline cache (the new build
# compiles only the passes it dispatches); selftest at width 32.
if want even44; then
  ab even44 2 base target/exp/vkprims-base new $B multisplit --n 2^24,2^26 --key u32 --buckets 1000,1024,4096,4099 --values 0,4 --ranking stable --trials 10 --profile
  for X in target/exp/vkprims-base $B; do
    timeout 100 $X bench multisplit --n 2^28 --key u32 --buckets 1000,4096 --values 0,4 --trials 5 --profile --json "$OUT/even44-28-$(basename $X).json" >> "$OUT/even44-28.md" 2>&1
  done
  for X in target/exp/vkprims-base $B; do
    for c in "perm --n 1048576 --seed 1 --out /tmp/p.npy" "perm --n 1048576 --seed 1 --reproducible --out /tmp/p.npy"; do
      rm -rf ~/.cache/nvidia/GLCache
      echo "== $X $c" >> "$OUT/even44-cold.md"
      { TIMEFORMAT='%R s'; time timeout 60 $X $c > /dev/null 2>&1; } >> "$OUT/even44-cold.md" 2>&1
    done
  done
  timeout 150 $B selftest > "$OUT/even44-selftest.md" 2>&1
fi
# The split sort's tile with 5 + 5-bit digits (512x7 won with 8 + 2: session43/3-tiles43),
# and selftest at width 32 (even44's was cut by the call's time limit).
if want tiles44; then
  timeout 200 $B selftest > "$OUT/tiles44-selftest.md" 2>&1
  timeout 150 $B bench multisplit --n 2^24,2^26 --key u32 --buckets 1000 --values 4 --binning-policy 512x7,384x10,448x8,512x6,320x12 --trials 10 --profile --json "$OUT/tiles44.json" > "$OUT/tiles44.md" 2>&1
fi
# The sorts' own rows against the build before even digits (their digits are whole bytes; the
# pass kernels gained a push word, the histogram a spec constant for the width): u32 keys and
# pairs and u64 keys at 2^26 alternated twice, u32 keys and pairs at 2^28 once each.
if want same44; then
  ab same44 2 base target/exp/vkprims-base new $B sort --n 2^26 --key u32,u64 --values 0,4 --trials 10 --profile
  for X in target/exp/vkprims-base $B; do
    timeout 150 $X bench sort --n 2^28 --key u32 --values 0,4 --trials 5 --profile --json "$OUT/same44-28-$(basename $X).json" >> "$OUT/same44-28.md" 2>&1
  done
fi
# Session 45: what the look-back costs where its prefixes could be known before the pass
# (the multisplit's one pass, a sort's first): debug bit 0 skips it (timing only, the output
# is wrong), the 256-way multisplit and the sorts of u32 keys and pairs.
if want lb45; then
  timeout 200 $B bench multisplit --n 2^26,2^28 --key u32 --buckets 256 --values 0,4 --ranking stable,atomic --binning-policy auto,autoxautoxskip1 --trials 10 --profile --json "$OUT/lb45-ms.json" > "$OUT/lb45-ms.md" 2>&1
  timeout 200 $B bench sort --n 2^26,2^28 --key u32 --values 0,4 --binning-policy auto,autoxautoxskip1 --trials 5 --profile --json "$OUT/lb45-sort.json" > "$OUT/lb45-sort.md" 2>&1
fi
# Session 45: the pair sort's knobs at 2^28 with today's kernels (look-back window, value
# groups, histogram workgroups), against the default.
if want knobs45; then
  timeout 420 $B bench sort --n 2^28 --key u32 --values 4 --binning-policy auto,autoxautoxlb4,autoxautoxlb16,autoxautoxvc6,autoxautoxvc4,autoxautoxhg4096,autoxautoxhw256 --trials 5 --profile --json "$OUT/knobs45.json" > "$OUT/knobs45.md" 2>&1
fi
# Session 45: ballot matching with the digit's bit count a constant for byte digits (it was
# the push constant, a test a bit in the unrolled loop), against the shared-memory match;
# registers of each.
if want ballots45; then
  stats_of $B "$RE_PASSES" ballots45-regs.md auto,autoxautoxballots,autoxautoxballotsxlate,autoxautoxballotsxearly
  timeout 200 $B bench sort --n 2^26 --key u32 --values 4,0 --binning-policy auto,autoxautoxballots,autoxautoxballotsxlate,autoxautoxballotsxearly --trials 10 --profile --json "$OUT/ballots45.json" > "$OUT/ballots45.md" 2>&1
fi
# The same against the build before (bc5f5ff): the default's rows unchanged, the ballots'.
if want ballots45b; then
  ab ballots45b 2 base target/exp/vkprims-base new $B sort --n 2^26 --key u32 --values 0,4 --binning-policy auto,autoxautoxballots --trials 10 --profile
fi
# Session 46: ballot steps one at a time, each step's bucket chained to the step before's
# positions (no validity test in the bit rounds), against the build before.
if want chain46; then
  stats_of target/exp/vkprims-base "$RE_PASSES" chain46-regs-base.md auto,autoxautoxballots
  stats_of $B "$RE_PASSES" chain46-regs-new.md auto,autoxautoxballots
  ab chain46 2 base target/exp/vkprims-base new $B sort --n 2^26 --key u32 --values 0,4 --binning-policy auto,autoxautoxballots --trials 10 --profile
fi
# The same with the highest peer leading (one bitCount), and debug bit 9: full tiles rank
# without the per-step validity ballot, against `vkprims-base` built from d234325 (chain46's
# build); the SASS of the 2^20 pair passes with bit 9.
if want chain46b; then
  P=auto,autoxautoxballots,autoxautoxballotsxskip512
  stats_of $B "$RE_PASSES" chain46b-regs.md $P
  ab chain46b 2 base target/exp/vkprims-base new $B sort --n 2^26 --key u32 --values 0,4 --binning-policy $P --trials 10 --profile
  rm -rf ~/.cache/nvidia/GLCache
  timeout 60 $B bench sort --n 2^20 --key u32 --values 4 --binning-policy autoxautoxballotsxskip512 --trials 1 > /dev/null 2>&1
  (cd target/exp && OUT="$OUT" timeout 150 python3 sass_all.py v4-ballots512 >> "$OUT/chain46b-sass.md" 2>&1)
fi
# Ballot steps mixed into the shared match (debug bits 10 and 11: every second step, every
# fourth, three in four), to split the ranking between the shared-memory pipe and the ALU;
# one build, twice, with the registers.
if want hyb46; then
  P=auto,autoxautoxskip1024,autoxautoxskip2048,autoxautoxskip3072
  stats_of $B "$RE_PASSES" hyb46-regs.md $P
  alt hyb46 2 "new=$B" sort --n 2^26 --key u32 --values 0,4 --binning-policy $P --trials 10
fi
# Session 48: the early- and late-count branches' publish sequence as one function
# (publish_counts), and the ballot steps' full tiles without the validity ballot (debug bit 9
# made the default; the hybrid's bits 10 and 11 removed), against the build before (3886723
# as `vkprims-base`), default and ballots; the registers of both.
if want pc48; then
  P=auto,autoxautoxballots
  stats_of target/exp/vkprims-base "$RE_PASSES" pc48-regs-base.md $P
  stats_of $B "$RE_PASSES" pc48-regs-new.md $P
  ab pc48 2 base target/exp/vkprims-base new $B sort --n 2^26 --key u32 --values 0,4 --binning-policy $P --trials 10
fi
# Session 49. Do co-resident tiles move their values at the same time? `xtimeline` records
# every tile's SM and device- and SM-clock phase ends (one middle pass, in the JSON rows); debug bit 8
# holds first-wave tiles back once their counts are posted (session 45's delay came before
# they posted, so their successors' look-backs waited on them): D = bits 16..23 (x 256 spin
# rounds), with bit 13 each SM's second workgroup (timeline variants only; with bit 14 it waits
# until the SM's first has looked back), else tiles S..2S-1 (S = bits 24..31, the device's SM
# count: 132 on the H200 and the H100 SXM, 114 on the H100 PCIe) or with bit 12 the odd tiles
# below 2S. u32 pairs and keys at 2^26. (Session 51 ran it on an H100: the timeline then came
# with the phase clocks and ran one workgroup an SM, session51/1-sync49; `xtimeline` now
# leaves the clocks out, and pair_regs reads the `_timeline` pass's registers.)
if want sync49; then
  SMS=$($B info --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["compute_units"] or 132)')
  echo "SMs: $SMS" > "$OUT/sync49-sms.txt"
  T=autoxautoxtimeline; S=$((SMS << 24))
  # (A pair tile took about 21,000 SM cycles in session 36's phase clocks; a spin round about
  # 5-6, so D = 7 holds a tile back about half of one.)
  P=auto,$T,${T}xskip$((256 + (4 << 16) + 8192)),${T}xskip$((256 + (7 << 16) + 8192)),${T}xskip$((256 + 8192 + 16384)),autoxautoxskip$((256 + (7 << 16) + S)),autoxautoxskip$((256 + (7 << 16) + S + 4096))
  timeout 240 $B bench sort --n 2^26 --key u32 --values 4 --binning-policy $P --trials 10 --profile --json "$OUT/sync49-pairs.json" > "$OUT/sync49-pairs.md" 2>&1
  timeout 150 $B bench sort --n 2^26 --key u32 --values 0 --binning-policy auto,$T,${T}xskip$((256 + (7 << 16) + 8192)),${T}xskip$((256 + 8192 + 16384)) --trials 10 --profile --json "$OUT/sync49-keys.json" > "$OUT/sync49-keys.md" 2>&1
  # (Bit 15, a full tile's value round without a test an element, was timed here: it lost
  # 2.2% on the H100, session51/1-sync49, and is removed.)
  # One wave alone: a pair tile (512x16) an SM and two an SM, no fold or totals (their
  # variants have no timeline): how long each phase takes with the SM to itself, with a
  # partner, and (above) in the steady state of 2^26.
  timeout 120 $B bench sort --n $((SMS * 8192)),$((2 * SMS * 8192)) --key u32 --values 4 --binning-policy ${T}xfold0xtot0 --trials 10 --json "$OUT/sync49-wave.json" > "$OUT/sync49-wave.md" 2>&1
  pair_regs $B auto,$T sync49-regs.md
fi
# Session 51: sync49's held-back second wave (bit 8, tiles S..2S-1, D x 256 spin rounds once
# the counts are posted) ran 1.1% faster than the default for pairs at 2^26 on an H100 (one
# row, D = 7). Swept here against the default, alternated: pairs at 2^26 (D = 2..14) and
# 2^28, keys and the stable 256-way multisplit of pairs at 2^26; registers. (Ran on an H100,
# bench/results/h100/binning/session51/3-held51: about 1% at 2^26, under 0.1% at 2^28, a
# start-up gain; keys and the multisplit lose.)
if want held51; then
  SMS=$($B info --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["compute_units"] or 132)')
  echo "SMs: $SMS" > "$OUT/held51-sms.txt"
  h() { echo "autoxautoxskip$((256 + ($1 << 16) + (SMS << 24)))"; }
  timeout 150 $B bench sort --n 2^26 --key u32 --values 4 --binning-policy auto,$(h 2),$(h 4),$(h 7),$(h 10),$(h 14),auto,$(h 7),$(h 4),auto --trials 10 --json "$OUT/held51-pairs.json" > "$OUT/held51-pairs.md" 2>&1
  timeout 100 $B bench sort --n 2^26 --key u32 --values 0 --binning-policy auto,$(h 4),$(h 7),auto,$(h 7) --trials 10 --json "$OUT/held51-keys.json" > "$OUT/held51-keys.md" 2>&1
  timeout 100 $B bench multisplit --n 2^26 --key u32 --buckets 256 --values 4 --ranking stable --binning-policy auto,$(h 4),$(h 7),auto,$(h 7) --trials 10 --json "$OUT/held51-split.json" > "$OUT/held51-split.md" 2>&1
  timeout 150 $B bench sort --n 2^28 --key u32 --values 4 --binning-policy auto,$(h 7),auto,$(h 7) --trials 10 --json "$OUT/held51-pairs28.json" > "$OUT/held51-pairs28.md" 2>&1
  pair_regs $B auto,$(h 7) held51-regs.md
fi
# Session 52: the look-back's spans, not kept: steps spans52, spans52b, spans52v2 and spans52v3
# need bench/results/h100/binning/session52/spans.patch applied (its `xnospan`, its debug bits
# 9 and 10), and the v2/v3 steps the builds they name in target/exp (session52/RUNS.md).
# Spans (default in the patch) against none (`xnospan`), alternated, with the
# registers of both: u32 pairs at 2^26 and 2^28, keys and the stable 256-way multisplit of
# pairs at 2^26, and the lean timeline of pairs at 2^26 with and without (how long the
# look-back phase takes). spans52b: keys and the multisplit of pairs at 2^28, then selftest
# (its checks of debug bits 9 and 10 and `xnospan` at width 32).
if want spans52; then
  N=autoxautoxnospan
  timeout 100 $B bench sort --n 2^26 --key u32 --values 4 --binning-policy auto,$N,auto,$N --trials 10 --json "$OUT/spans52-pairs.json" > "$OUT/spans52-pairs.md" 2>&1
  timeout 80 $B bench sort --n 2^26 --key u32 --values 0 --binning-policy auto,$N,auto,$N --trials 10 --json "$OUT/spans52-keys.json" > "$OUT/spans52-keys.md" 2>&1
  timeout 80 $B bench multisplit --n 2^26 --key u32 --buckets 256 --values 4 --ranking stable --binning-policy auto,$N,auto,$N --trials 10 --json "$OUT/spans52-split.json" > "$OUT/spans52-split.md" 2>&1
  timeout 60 $B bench sort --n 2^26 --key u32 --values 4 --binning-policy autoxautoxtimeline,autoxautoxtimelinexnospan --trials 5 --json "$OUT/spans52-timeline.json" > "$OUT/spans52-timeline.md" 2>&1
  timeout 150 $B bench sort --n 2^28 --key u32 --values 4 --binning-policy auto,$N,auto --trials 10 --json "$OUT/spans52-pairs28.json" > "$OUT/spans52-pairs28.md" 2>&1
  pair_regs $B auto,$N spans52-regs.md
  stats_of $B "$RE_PASSES" spans52-regs-all.md auto,$N
fi
if want spans52b; then
  N=autoxautoxnospan
  timeout 130 $B bench sort --n 2^28 --key u32 --values 0 --binning-policy auto,$N,auto --trials 10 --json "$OUT/spans52-keys28.json" > "$OUT/spans52-keys28.md" 2>&1
  timeout 130 $B bench multisplit --n 2^28 --key u32 --buckets 256 --values 4 --ranking stable --binning-policy auto,$N,auto --trials 10 --json "$OUT/spans52-split28.json" > "$OUT/spans52-split28.md" 2>&1
  timeout 200 $B selftest > "$OUT/spans52-selftest.md" 2>&1
fi
# Session 52's second form of the spans (any walk's contiguous round of aggregates posts its
# first tile's span; the first form, where a tile posted its own after its first round, lost
# 3-4% on an H100: spans52): the build before spans (target/exp/vkprims-base, 9bba035) against
# this one with and without spans, alternated: u32 pairs at 2^26 (twice) and 2^28, keys and
# the stable 256-way multisplit of pairs at 2^26; the lean timelines; registers.
if want spans52v2; then
  N=autoxautoxnospan; BASE=./target/exp/vkprims-base
  bb() { local name=$1 t=$2; shift 2; echo "== base" >> "$OUT/$name.md"; timeout $t $BASE bench "$@" --binning-policy auto --json "$OUT/$name-base.json" >> "$OUT/$name.md" 2>&1; echo "== new" >> "$OUT/$name.md"; timeout $((2 * t)) $B bench "$@" --binning-policy auto,$N --json "$OUT/$name-new.json" >> "$OUT/$name.md" 2>&1; }
  bb v2-pairs-1 40 sort --n 2^26 --key u32 --values 4 --trials 10
  bb v2-pairs-2 40 sort --n 2^26 --key u32 --values 4 --trials 10
  bb v2-keys 40 sort --n 2^26 --key u32 --values 0 --trials 10
  bb v2-split 40 multisplit --n 2^26 --key u32 --buckets 256 --values 4 --ranking stable --trials 10
  bb v2-pairs28 60 sort --n 2^28 --key u32 --values 4 --trials 10
  timeout 60 $B bench sort --n 2^26 --key u32 --values 4 --binning-policy autoxautoxtimeline,autoxautoxtimelinexnospan --trials 5 --json "$OUT/v2-timeline.json" > "$OUT/v2-timeline.md" 2>&1
  pair_regs $B auto,$N v2-regs.md
fi
# Session 52, third call: spans52v2 found the new build without spans (2.352 ms) faster than
# the build before (2.412) for pairs at 2^26, but keys 11-13% slower with or without spans.
# This build keeps every span instruction out of the pipeline where they are off (spans_on()
# guards); target/exp/vkprims-f965219 is the second form as it ran there. Rows alternate the
# builds: pairs at 2^26 twice, keys and the stable 256-way multisplit of pairs at 2^26,
# registers of every digit pass (whole lines), then pairs at 2^28 as time allows.
if want spans52v3; then
  N=autoxautoxnospan; BASE=./target/exp/vkprims-base; F=./target/exp/vkprims-f965219
  row() { local name=$1 bin=$2 pol=$3; shift 3; echo "== $bin $pol" >> "$OUT/$name.md"; timeout 60 $bin bench "$@" --binning-policy $pol --json "$OUT/$name-$(basename $bin)-$pol.json" >> "$OUT/$name.md" 2>&1; }
  for r in 1 2; do
    for x in "$BASE auto" "$F auto" "$B auto" "$B $N"; do row v3-pairs-$r $x sort --n 2^26 --key u32 --values 4 --trials 10; done
  done
  for x in "$BASE auto" "$B auto" "$B $N" "$BASE auto"; do row v3-keys $x sort --n 2^26 --key u32 --values 0 --trials 10; done
  for x in "$BASE auto" "$B auto" "$B $N"; do row v3-split $x multisplit --n 2^26 --key u32 --buckets 256 --values 4 --ranking stable --trials 10; done
  for x in "$BASE auto" "$B auto,$N"; do
    timeout 90 ${x% *} pipelines --stats --binning-policy ${x#* } | grep -E "$RE_PASSES" | sed -E 's/ \| (Binary Size|Stack Size|Local Memory Size): [0-9]+//g' >> "$OUT/v3-regs.md" 2>&1
  done
  for x in "$BASE auto" "$B auto" "$B $N"; do row v3-pairs28 $x sort --n 2^28 --key u32 --values 4 --trials 10; done
fi
# Queued by session 52: the walk's code shape, taken apart. Its spans build without spans ran
# pairs 1.0-2.5% faster than the build before and keys 5-11% slower, at the same registers
# (FINDINGS). Builds (bench/build-variants.sh), each 373a12f's code or later (9bba035's kernels
# but for the timeline's last word) with bench/results/h100/binning/session52/shape-*.patch
# applied, in target/exp: vkprims-base
# (none), vkprims-states (shape-states: INCLUSIVE renumbered 2 -> 3), vkprims-look
# (shape-look: the walk's tile index moved back word by word inside take_window, forced()
# at it), vkprims-both. Rows alternate them: u32 pairs and keys at 2^26 twice, the stable
# 256-way multisplit of pairs at 2^26, registers, the lean timelines of pairs and keys at
# 2^26 (their look-back phase split at the last walk's end: the walks against the barrier's
# wait), pairs at 2^28 as time allows.
if want shape53; then
  X=./target/exp/vkprims; V="base=$X-base states=$X-states look=$X-look both=$X-both"
  alt shape53-pairs 2 "$V" sort --n 2^26 --key u32 --values 4 --trials 10
  alt shape53-keys 2 "$V" sort --n 2^26 --key u32 --values 0 --trials 10
  alt shape53-split 1 "$V" multisplit --n 2^26 --key u32 --buckets 256 --values 4 --ranking stable --trials 10
  alt shape53-pairs28 2 "base=$X-base both=$X-both" sort --n 2^28 --key u32 --values 4 --trials 10
  timeout 60 $X-base bench sort --n 2^26 --key u32 --values 4,0 --binning-policy autoxautoxtimeline --trials 5 --json "$OUT/shape53-timeline.json" > "$OUT/shape53-timeline.md" 2>&1
  for v in base both; do
    timeout 90 $X-$v pipelines --stats | grep -E "$RE_PASSES" | sed -E 's/ \| (Binary Size|Stack Size|Local Memory Size): [0-9]+//g' | sed "s/^/$v: /" >> "$OUT/shape53-regs.md" 2>&1
  done
fi
# Session 54: the pair tile traded against occupancy. On an H100 384x20..384x23 (69-77
# registers, two workgroups of 384 an SM) ran faster the larger the tile, 384x23 0.5% ahead of
# 512x16 (bench/results/h100/binning/session54/3-tiles54). Larger 384- and 320-lane tiles at
# 2^26, then the best of them against the default at 2^26 (twice), 2^28, 2^24 and 2^20 and in
# the stable 256-way multisplit of pairs, with registers.
if want tiles54; then
  P54=auto,384x23,384x24,384x25,384x26,384x27,352x26,320x28,320x30
  timeout 150 $B bench sort --n 2^26 --key u32 --values 4 --binning-policy $P54 --trials 10 --json "$OUT/tiles54-sweep.json" > "$OUT/tiles54-sweep.md" 2>&1
  best=$(grep '^| sort' "$OUT/tiles54-sweep.md" | awk -F'|' '{gsub(/ /,"",$5); print $5, $3}' | sort -n | head -1 | grep -oE '\(([0-9]+x[0-9]+)' | tr -d '(')
  echo "best: ${best:-none}" >> "$OUT/tiles54-sweep.md"
  if [ -n "$best" ] && [ "$best" != 512x16 ]; then
    for r in 1 2; do timeout 60 $B bench sort --n 2^26 --key u32 --values 4 --binning-policy auto,$best --trials 10 --json "$OUT/tiles54-26-$r.json" >> "$OUT/tiles54-best.md" 2>&1; done
    timeout 60 $B bench multisplit --n 2^26 --key u32 --buckets 256 --values 4 --ranking stable --binning-policy auto,$best --trials 10 --json "$OUT/tiles54-split.json" >> "$OUT/tiles54-best.md" 2>&1
    timeout 60 $B bench sort --n 2^20,2^24 --key u32 --values 4 --binning-policy auto,$best --trials 10 --json "$OUT/tiles54-small.json" >> "$OUT/tiles54-best.md" 2>&1
    timeout 150 $B bench sort --n 2^28 --key u32 --values 4 --binning-policy auto,$best --trials 10 --json "$OUT/tiles54-28.json" >> "$OUT/tiles54-best.md" 2>&1
  fi
  pair_regs $B $P54 tiles54-regs.md
fi
# Session 55: 4-byte pairs with the keys kept in registers from their load to their staging
# (`xkeep`, CUB's dataflow; planes still in sequence) instead of read again from cache while
# staging. It costs up to ITEMS registers through the ranking, which is not where the pair
# pass peaks at 512x16 (the key scatter, 2.7 registers an item: session 54), and saves a
# tile's key reload. Registers, then u32 pairs at 2^26 twice (512x16, and 384- and 448-lane
# tiles, which two workgroups an SM allow up to 85 and 72 registers), keys alone and the
# stable 256-way multisplit of pairs with and without, then the best kept tile against the
# default at 2^28.
if want keep55; then
  P55=auto,autoxautoxkeep,384x16xkeep,384x18xkeep,384x20xkeep,384x22xkeep,448x16xkeep,384x23
  pair_regs $B $P55 keep55-regs.md
  for r in 1 2; do timeout 150 $B bench sort --n 2^26 --key u32 --values 4 --binning-policy $P55 --trials 10 --json "$OUT/keep55-sweep-$r.json" >> "$OUT/keep55-sweep.md" 2>&1; done
  timeout 60 $B bench sort --n 2^26 --key u32 --values 0 --binning-policy auto,autoxautoxkeep --trials 10 --json "$OUT/keep55-keys.json" > "$OUT/keep55-keys.md" 2>&1
  timeout 60 $B bench multisplit --n 2^26 --key u32 --buckets 256 --values 4 --ranking stable --binning-policy auto,autoxautoxkeep --trials 10 --json "$OUT/keep55-split.json" > "$OUT/keep55-split.md" 2>&1
  best=$(grep '^| sort' "$OUT/keep55-sweep.md" | grep kept | awk -F'|' '{gsub(/ /,"",$5); print $5, $3}' | sort -n | head -1 | grep -oE '\(([0-9]+x[0-9]+)' | tr -d '(')
  echo "best kept: ${best:-none}" >> "$OUT/keep55-sweep.md"
  [ -n "$best" ] && timeout 200 $B bench sort --n 2^28 --key u32 --values 4 --binning-policy auto,${best}xkeep --trials 10 --json "$OUT/keep55-28.json" > "$OUT/keep55-28.md" 2>&1
fi
# Session 56: kept keys against keys read again at the same tiles (same occupancy), so the
# dataflow's own effect shows apart from its registers (keep55 compared them across commands).
if want keep56; then
  P56=448x16,448x16xkeep,384x18,384x18xkeep,384x20,384x20xkeep
  pair_regs $B $P56 keep56-regs.md
  for r in 1 2; do timeout 100 $B bench sort --n 2^26 --key u32 --values 4 --binning-policy $P56 --trials 10 --json "$OUT/keep56-$r.json" >> "$OUT/keep56.md" 2>&1; done
fi
# Session 57: kept ranking (`xkeep` with planes in sequence: each element's bucket from its kept
# key, its tile position packed as it is ranked, no el word; a build with
# bench/results/h100/binning/session57/kept-ranking.patch: its first form in session57/1-keep57,
# all of it in session58/1-keep57b), against the kept keys
# that session 56 left at 67 registers at 512x16 (one workgroup an SM). Registers of this build
# and, where present, of target/release/vkprims-base (the build before); u32 pairs at 2^26
# twice, default against kept at 512x16 and longer kept tiles; the base build's default beside
# this one's; the stable 256-way multisplit of pairs; then 2^28.
if want keep57; then
  P57=auto,autoxautoxkeep,448x16xkeep,512x17xkeep,512x18xkeep
  pair_regs $B $P57 keep57-regs.md
  XB=./target/release/vkprims-base
  [ -x $XB ] && pair_regs $XB auto,autoxautoxkeep keep57-regs-base.md
  for r in 1 2; do
    timeout 120 $B bench sort --n 2^26 --key u32 --values 4 --binning-policy $P57 --trials 10 --json "$OUT/keep57-$r.json" >> "$OUT/keep57.md" 2>&1
    [ -x $XB ] && timeout 60 $XB bench sort --n 2^26 --key u32 --values 4 --trials 10 --json "$OUT/keep57-base-$r.json" >> "$OUT/keep57-base.md" 2>&1
  done
  timeout 60 $B bench multisplit --n 2^26 --key u32 --buckets 256 --values 4 --ranking stable --binning-policy auto,autoxautoxkeep --trials 10 --json "$OUT/keep57-split.json" > "$OUT/keep57-split.md" 2>&1
  timeout 150 $B bench sort --n 2^28 --key u32 --values 4 --binning-policy auto,autoxautoxkeep --trials 10 --json "$OUT/keep57-28.json" > "$OUT/keep57-28.md" 2>&1
fi
# Session 60: whether pairs stored side by side (a key and its value in one 8-byte word, so a
# bucket's run is one stretch of the output with two partial sectors, not two with four)
# would pay: 8-byte keys' stable passes (448x13, both words staged at once; `xstablefirst`
# keeps the first pass stable, as a pair sort's must be) per element against u32 pair passes
# (512x16, planes in sequence), with a per-kernel profile, at 2^26 and 2^28.
if want il60; then
  for r in 1 2; do
    timeout 100 $B bench sort --n 2^26,2^28 --key u32 --values 4 --trials 10 --profile --json "$OUT/il60-pairs-$r.json" >> "$OUT/il60.md" 2>&1
    timeout 150 $B bench sort --n 2^26,2^28 --key u64 --values 0 --binning-policy autoxautoxstablefirst --trials 10 --profile --json "$OUT/il60-u64-$r.json" >> "$OUT/il60.md" 2>&1
  done
fi
# Session 60: 4-byte pairs packed in 8-byte words (`xpacked`, the pass kernel of 8-byte keys
# alone at 448x13; the first pass packs; the last, unpacking, in its first form the same
# kernel, 2-packed60, then a pair pass reading the words, 3-packed60b) against planes in
# sequence (512x16), twice, with a per-kernel profile; the passes' registers. (`xlate` on
# top, in 2-packed60 only, was slower.)
if want packed60; then
  P60=auto,autoxautoxpacked
  stats_of $B '^sort_onesweep_(k64_v0_packed|k32_v1)' packed60-regs.md $P60
  for r in $(seq ${R60:-2}); do
    timeout 200 $B bench sort --n 2^26,2^27,2^28 --key u32 --values 4 --binning-policy $P60 --trials 10 --profile --json "$OUT/packed60-$r.json" >> "$OUT/packed60.md" 2>&1
  done
fi
# Session 61: packed pairs' last pass (the pair pass reading the words, then 512x16) at other
# tiles, with its keys kept (`xukeep`) and with both planes staged at once (`xunoseq`):
# policy tokens that only bench/results/h100/binning/session61/unpack61.patch has (against
# 6884556; build this step's binary with it), against planes and the packed sort, at 2^28
# (R61 rounds; R61S=1: planes against packed at 2^26 and 2^27 too); NOSTATS61=1 skips the
# registers of each last pass.
if want unpack61; then
  # (1-unpack61 ran the first six of P61A, then its 240 s limit cut the 2^28 call; 2-unpack61b
  # the rest, P61B.)
  P61A=auto,autoxautoxpacked,autoxautoxpackedxui12,autoxautoxpackedxui14,autoxautoxpackedxuw448,autoxautoxpackedxuw384,autoxautoxpackedxuw384xui20,autoxautoxpackedxuw448xukeep,autoxautoxpackedxunoseq,autoxautoxpackedxunoseqxuw512xui11
  P61B=auto,autoxautoxpacked,autoxautoxpackedxuw384,autoxautoxpackedxuw448xukeep,autoxautoxpackedxunoseq,autoxautoxpackedxunoseqxuw512xui11,autoxautoxpackedxuw384xui20
  P61=${P61:-$P61B}
  [ -z "${NOSTATS61:-}" ] && stats_of $B '^sort_onesweep_(k64_v0_packed|k32_v1)' unpack61-regs.md $P61
  for r in $(seq ${R61:-1}); do
    timeout 420 $B bench sort --n 2^28 --key u32 --values 4 --binning-policy $P61 --trials 10 --profile --json "$OUT/unpack61-28-$r.json" >> "$OUT/unpack61.md" 2>&1
  done
  [ -n "${R61S:-}" ] && timeout 150 $B bench sort --n 2^26,2^27 --key u32 --values 4 --binning-policy auto,autoxautoxpacked --trials 10 --profile --json "$OUT/unpack61-small.json" >> "$OUT/unpack61.md" 2>&1
fi
# Session 62: packed pairs' last pass keeping the values of the first group (`xvcN`, 8 by
# default) from the read that stages their keys (`xuhold`, in place of that group's read
# before the key scatter: those words read twice, not three times; `xuholdxvc16` every
# value), and reading every value at once (`xvc16`), against the packed sort and planes, with
# a per-kernel profile and the passes' registers: N62 (2^26 and 2^28) once, then 2^28 R62
# times. `xuhold` lives only in bench/results/h100/binning/session62/hold62.patch (against
# 83832c9; build this step's binary with it).
if want hold62; then
  # (1-hold62 ran P62A with the patch's first form, every value held with `xuhold`, 86
  # registers: what `xuholdxvc16` is in the patch; 2-hold62b P62B with N62=2^28.)
  P62A=auto,autoxautoxpacked,autoxautoxpackedxuhold,autoxautoxpackedxvc16
  P62B=autoxautoxpacked,autoxautoxpackedxuhold,autoxautoxpackedxuholdxvc12
  P62=${P62:-$P62B}
  stats_of $B '^sort_onesweep_(k64_v0_packed|k32_v1)' hold62-regs.md $P62
  timeout 300 $B bench sort --n ${N62:-2^26,2^28} --key u32 --values 4 --binning-policy $P62 --trials 10 --profile --json "$OUT/hold62-all.json" >> "$OUT/hold62.md" 2>&1
  for r in $(seq ${R62:-1}); do
    timeout 200 $B bench sort --n 2^28 --key u32 --values 4 --binning-policy $P62 --trials 10 --profile --json "$OUT/hold62-28-$r.json" >> "$OUT/hold62.md" 2>&1
  done
fi
# Session 63: where packed pairs' last pass loses to a pair pass. Skip bits 9 (the value
# round's stores) and 10 (the whole value round) act only on planes in sequence, so keys stay
# right through every pass: with planes every pass drops them, in the packed sort only the
# last. The per-kernel profile then sets each pass's key work, value reads and staging, and
# value stores side by side; N63 (2^28) R63 times, with the passes' registers.
if want diag63; then
  P63=auto,autoxautoxskip512,autoxautoxskip1024,autoxautoxpacked,autoxautoxpackedxskip512,autoxautoxpackedxskip1024
  stats_of $B '^sort_onesweep_(k64_v0_packed|k32_v1)' diag63-regs.md $P63
  for r in $(seq ${R63:-1}); do
    timeout 300 $B bench sort --n ${N63:-2^28} --key u32 --values 4 --binning-policy $P63 --trials 10 --profile --json "$OUT/diag63-$r.json" >> "$OUT/diag63.md" 2>&1
  done
fi
# Session 63: diag63 found a pair pass's value reads and staging cost 0.25 ms at 2^28 on an H100
# where the values come from device memory, 0.06 where the keys' reads brought them into L2
# (packed pairs' last pass). Skip bit 11 (results stay right) reads a value word per 32-byte
# sector of each tile with its keys; against the default at 2^28, sort and the stable 256-way
# multisplit of pairs, R63W alternations, with the registers. Bit 11 lives only in
# bench/results/h100/binning/session63/warm63.patch (build this step's binary with it).
if want warm63; then
  W63=auto,autoxautoxskip2048
  stats_of $B '^(sort_onesweep_k32_v1 |multisplit_k32_v1)' warm63-regs.md $W63
  for r in $(seq ${R63W:-2}); do
    timeout 200 $B bench sort --n 2^28 --key u32 --values 4 --binning-policy $W63 --trials 10 --profile --json "$OUT/warm63-sort-$r.json" >> "$OUT/warm63.md" 2>&1
    timeout 100 $B bench multisplit --n 2^28 --buckets 256 --values 4 --ranking stable --binning-policy $W63 --trials 10 --profile --json "$OUT/warm63-ms-$r.json" >> "$OUT/warm63.md" 2>&1
  done
fi
# Session 68: runs staged sector-aligned (`xalign`) against the default, u32 pairs sorted at
# N68 (2^26 and 2^28) and the stable 256-way multisplit of 2^28 pairs, R68 alternations, with
# a per-kernel profile and the pair passes' registers (a CUDA probe of the store pattern,
# bench/results/h100/binning/session68/2-scatter68, ran two planes' scatter 8% faster so);
# policies A68 for the sort, M68 for the multisplit. `xalign` lives only in
# bench/results/h100/binning/session68/align68.patch (against 8902b99; build this step's
# binary with it).
if want align68; then
  A68=${A68:-auto,autoxautoxalign}
  M68=${M68:-$A68}
  stats_of $B '^(sort_onesweep_k32_v1(_align)? \(sort u32 values 4B|multisplit_k32_v1)' align68-regs.md $A68
  for r in $(seq ${R68:-2}); do
    timeout 200 $B bench sort --n ${N68:-2^26,2^28} --key u32 --values 4 --binning-policy $A68 --trials 10 --profile --json "$OUT/align68-sort-$r.json" >> "$OUT/align68.md" 2>&1
    timeout 150 $B bench multisplit --n 2^28 --key u32 --buckets 256 --values 4 --ranking stable --binning-policy $M68 --trials 10 --profile --json "$OUT/align68-ms-$r.json" >> "$OUT/align68.md" 2>&1
  done
fi
# Session 69: aligned runs with experiment bits 12-16 (12-13 chain the key round's reads, 14
# the value round's too, 15 the value round's gaps from the key round's bits, 16 every run half
# a sector off its alignment, the gaps as many):
# bench/results/h100/binning/session69/align69.patch (against f9c5fab; build this step's
# binary with it). The registers of each policy in P69 (space-separated), the SASS of each
# policy in SASS69 (target/exp/sass.py), then 2^28 pairs under the default and the first T69
# policies of at most 64 registers.
if want align69; then
  P69=${P69:-"auto autoxautoxalign"}
  stats_of $B '^sort_onesweep_k32_v1(_align)? \(sort u32 values 4B middle' align69-regs.md "$(echo $P69 | tr ' ' ,)"
  paste -d' ' <(echo $P69 | tr ' ' '\n') <(sed -E 's/.*Register Count: ([0-9]+).*/\1/' "$OUT/align69-regs.md") > "$OUT/align69-regs.txt"
  if [ -n "${SASS69:-}" ] && [ -f target/exp/sass.py ]; then
    for x in $SASS69; do
      sass_of "pairs-$x" align69-sass.md $B bench sort --n 2^20 --key u32 --values 4 --binning-policy $x --trials 1
    done
  fi
  T=auto
  for x in $(awk '$2 <= 64 && $1 != "auto" {print $1}' "$OUT/align69-regs.txt" | head -n ${T69:-4}); do T=$T,$x; done
  echo "timed: $T" >> "$OUT/align69.md"
  for r in $(seq ${R69:-2}); do
    timeout 240 $B bench sort --n ${N69:-2^28} --key u32 --values 4 --binning-policy $T --trials 10 --profile --json "$OUT/align69-sort-$r.json" >> "$OUT/align69.md" 2>&1
  done
fi
step loads 150 $B loads --verify --json "$OUT/loads.json" --csv "$OUT/loads.csv"
step chase 60 $B loads --filter chase --verify --json "$OUT/chase.json" --csv "$OUT/chase.csv"
# Session 53: on an H100 the 1 GiB chase's H-hop dispatches took 3.8 ms more than its 2H ones
# (bench/results/h100/binning/session53/2-lab53). Whether that repeats alone, after 512 MiB,
# and with 4x the hops.
if want chase53; then
  for f in '^chase 1GiB$' '^chase 1GiB$' '^chase (512MiB|1GiB)$'; do
    echo "== $f" >> "$OUT/chase53.md"; timeout 60 $B loads --filter "$f" >> "$OUT/chase53.md" 2>&1
  done
  echo "== 1GiB, 32768 hops" >> "$OUT/chase53.md"; timeout 60 $B loads --filter '^chase 1GiB$' --chase-hops 32768 >> "$OUT/chase53.md" 2>&1
fi
# Session 70: storage-buffer bounds checks off (VK_EXT_pipeline_robustness, asked for by
# VKPRIMS_NO_BOUNDS_CHECKS=1; needs bench/results/h100/binning/session70/robust70.patch)
# against the driver's default, which checks every access: the passes' registers, then u32
# keys and pairs at N70 (2^28) and the stable 256-way multisplit of pairs at 2^28, R70
# alternations. (Session 20 tried it on the kernels of then: more registers, slower.)
if want robust70; then
  stats_of $B "$RE_PASSES" robust70-regs-checks.md
  export VKPRIMS_NO_BOUNDS_CHECKS=1; stats_of $B "$RE_PASSES" robust70-regs-nochecks.md; unset VKPRIMS_NO_BOUNDS_CHECKS
  for r in $(seq ${R70:-2}); do
    for c in checks nochecks; do
      e=0; [ $c = nochecks ] && e=1
      echo "== $c $r" >> "$OUT/robust70.md"
      VKPRIMS_NO_BOUNDS_CHECKS=$e timeout 150 $B bench sort --n ${N70:-2^28} --key u32 --values 0,4 --trials 10 --profile --json "$OUT/robust70-sort-$c-$r.json" >> "$OUT/robust70.md" 2>&1
      VKPRIMS_NO_BOUNDS_CHECKS=$e timeout 100 $B bench multisplit --n 2^28 --key u32 --buckets 256 --values 4 --ranking stable --trials 10 --json "$OUT/robust70-ms-$c-$r.json" >> "$OUT/robust70.md" 2>&1
    done
  done
fi
# Session 70 (run in session 71: h200/binning/session71/1-reads70): what a pair pass's value
# reads cost, beside what CUB's cost (session70/2-decomp70: CUB's pair sort 1.24 ms faster at
# 2^28 on an H100 without them). Needs bench/results/h100/binning/session70/reads70.patch: skip bit 4096 stages each
# element's input position in place of its value read. Registers, then u32 pairs at 2^28
# whole, without value stores (512), without value reads (4096), without both (4608) and
# without the value round (1024), R70R rounds; the rows with skips fail validation on their
# values alone.
if want reads70; then
  P70R=auto,autoxautoxskip512,autoxautoxskip4096,autoxautoxskip4608,autoxautoxskip1024
  stats_of $B '^sort_onesweep_k32_v1' reads70-regs.md $P70R
  for r in $(seq ${R70R:-1}); do
    timeout 200 $B bench sort --n 2^28 --key u32 --values 4 --binning-policy $P70R --trials 10 --profile --json "$OUT/reads70-$r.json" >> "$OUT/reads70.md" 2>&1
  done
fi
# Session 72 (h100/binning/session72/2-order72): a 2^28 pair row took 3.5% longer after a
# keys row in the same process than alone. Main's build against target/exp/vkprims-skew
# (bench/build-variants.sh skew=bench/results/h100/binning/session72/skew72.patch: buffers of
# 16 MiB or more in dedicated allocations, or, with VKPRIMS_EXP_SKEW=S, bound at skewed
# offsets, each S of S72), each with keys then pairs and with pairs alone, R72 rounds, into
# order72.md.
if want order72; then
  o72() {
    local lb=$1 bin=$2 vals=$3; shift 3
    echo "== $lb values $vals round $r" >> "$OUT/order72.md"
    env "$@" timeout 100 $bin bench sort --n ${N72:-2^28} --key u32 --values $vals --trials 10 --json "$OUT/order72-$lb-${vals/,/-}-$r.json" >> "$OUT/order72.md" 2>&1
  }
  for r in $(seq ${R72:-1}); do
    for v in 0,4 4; do
      o72 main $B $v; o72 dedicated target/exp/vkprims-skew $v
      for S in ${S72:-69888}; do o72 skew$S target/exp/vkprims-skew $v VKPRIMS_EXP_SKEW=$S; done
    done
  done
fi
tar czf "$OUT.tgz" -C "$(dirname "$OUT")" "$(basename "$OUT")"
# The device tool returns few files: keep only the archive where asked.
[ -n "${PACK_ONLY:-}" ] && rm -rf "$OUT"
