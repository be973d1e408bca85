#!/usr/bin/env bash
# Session 72's device call: main's build at width 32 (selftest, soak, lean sort bench, with the
# CUB anchor) and tile72.cu, compiled meanwhile in each form CUB versions may want.
# usage: bash run72.sh OUTDIR   (after source .gl/setup.sh)
set -uo pipefail
O=${1:?outdir}; mkdir -p "$O"; D=$(dirname "$0")
H=$(find /usr/local/cuda/ /usr/include -name dispatch_radix_sort.cuh 2>/dev/null | head -1)
{ echo "$H"; grep -n -B3 -A10 "^struct DispatchRadixSort" "$H"; grep -rn "define CUB_VERSION " "$(dirname "$H")/../../version.cuh"; } > "$O/cub-header.txt" 2>&1
i=0
for f in "" "-DHUB_LAST" "-DORDER_BOOL" "-DORDER_BOOL -DHUB_LAST"; do
  i=$((i+1)); ( nvcc -O3 -arch=sm_90 $f -o /tmp/tile72-$i "$D/tile72.cu" > "$O/build-$i.txt" 2>&1; echo "flags '$f' rc=$?" >> "$O/build-$i.txt" ) &
done
STEPS="selftest soak" bash bench/h200-binning.sh "$O/main"
wait
for i in 1 2 3 4; do
  if [ -x /tmp/tile72-$i ]; then tail -1 "$O/build-$i.txt" > "$O/tile72.txt"; timeout 120 /tmp/tile72-$i >> "$O/tile72.txt" 2>&1; break; fi
done
STEPS="anchors sort-lean" bash bench/h200-binning.sh "$O/main"
gzip -f "$O"/main/*.json 2>/dev/null; rm -f "$O/main.tgz"
for i in 1 2 3 4; do gzip -f "$O/build-$i.txt"; done
cat "$O/main/selftest.md" | tail -3; tail -5 "$O/main/soak.md"; cat "$O/tile72.txt"; tail -12 "$O/main/sort-lean.md"
