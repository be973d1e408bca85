#!/usr/bin/env bash
# On a machine with an NVIDIA GPU and CUDA: build and run the CUB anchor (and torch.randperm,
# where PyTorch is present) and `vkprims bench all` in one go, write both results as JSON, and
# print one table of vkprims/anchor throughput ratios per primitive and size.
#   usage: bench/compare-cub.sh [OUTDIR] [extra `vkprims bench all` arguments]
# The anchor source is $CUB_ANCHOR, else .gl/cub_anchor.cu, else ../shared/device/cub_anchor.cu.
set -euo pipefail
cd "$(dirname "$0")/.."
OUTDIR=${1:-bench/results/latest}; shift || true
mkdir -p "$OUTDIR"
SRC=${CUB_ANCHOR:-}
for c in .gl/cub_anchor.cu ../shared/device/cub_anchor.cu; do [ -n "$SRC" ] || { [ -f "$c" ] && SRC=$c; }; done
[ -n "$SRC" ] || { echo "compare-cub: no cub_anchor.cu (set CUB_ANCHOR)" >&2; exit 2; }
B=./target/release/vkprims
[ -x "$B" ] || cargo build --release -q
nvcc -O3 -arch=sm_90 -o /tmp/cub_anchor "$SRC"
/tmp/cub_anchor | tee "$OUTDIR/cub.txt"
# torch.randperm, the permutation's anchor, where PyTorch is present.
RP=${RANDPERM_ANCHOR:-$(dirname "$SRC")/randperm_anchor.py}
if [ -f "$RP" ] && python3 -c "import torch" 2>/dev/null; then
  python3 "$RP" | awk '$3 ~ /^[0-9.]+$/ {printf "%-14s %12s %10s %12s %10s\n", $1, $2, $3, $4, 0}' >> "$OUTDIR/cub.txt"
fi
$B bench all --n 2^16:2^28:2 --json "$OUTDIR/vkprims.json" "$@" > "$OUTDIR/vkprims.md"
python3 - "$OUTDIR" <<'PY'
import json, re, sys
out = sys.argv[1]
cub = {}
for line in open(f"{out}/cub.txt"):
    m = re.match(r"(\w+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)$", line.strip())
    if m:
        cub[(m.group(1), int(m.group(2)))] = {"primitive": m.group(1), "n": int(m.group(2)), "ms": float(m.group(3)),
                                              "gelem_per_s": float(m.group(4)), "gbps": float(m.group(5))}
json.dump(list(cub.values()), open(f"{out}/cub.json", "w"), indent=1)
vk = json.load(open(f"{out}/vkprims.json"))
pairs = {"exclusive add u32": "exscan_u32", "reduce add u32": "reduce_u32", "copy (shader)": "memcpy_u32",
         "sort u32": "sort_keys_u32", "sort u32 pairs 4B": "sort_pairs_u32", "sort u64": "sort_keys_u64",
         "multisplit u32 256 buckets": "split256_keys", "multisplit u32 pairs 4B 256 buckets": "split256_pairs",
         "perm 4B": "torch_randperm"}
print(f"\nvkprims / CUB on {vk['device']['name']} (G elements/s; ratio > 1: vkprims faster)")
print("| primitive | n | vkprims | CUB | ratio |\n|---|---:|---:|---:|---:|")
for r in vk["rows"]:
    c = cub.get((pairs.get(r["primitive"], ""), r["n"]))
    if c and r["validation"] == "ok":
        g = r["elems_per_s"] / 1e9
        print(f"| {r['primitive']} ({pairs[r['primitive']]}) | 2^{r['n'].bit_length() - 1} | {g:.1f} | {c['gelem_per_s']:.1f} | {g / c['gelem_per_s']:.2f}x |")
PY
