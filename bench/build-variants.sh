#!/usr/bin/env bash
# Builds variants of this commit for a side-by-side device run, and packs them small enough to
# carry (the device tool's carry limit is 64 MiB with the tracked files; a stripped binary is
# about 21 MiB, 4-5 MiB compressed).
#   usage: bench/build-variants.sh NAME[=PATCH[+PATCH...]] ...
# Each NAME becomes target/exp/vkprims-NAME: HEAD's code with the patches applied (none for a
# bare NAME), built in a worktree under /tmp (one target folder, so each build after the first
# recompiles only the crate). target/exp/bins.tar.xz then holds them: carry it (and `.gl`), and
# on the device run `tar xJf target/exp/bins.tar.xz` first.
# e.g. bench/build-variants.sh base states=bench/results/h100/binning/session52/shape-states.patch
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || { echo "usage: bench/build-variants.sh NAME[=PATCH[+PATCH...]] ..." >&2; exit 2; }
top=$PWD
wt=$(mktemp -d /tmp/vkprims-variants.XXXXXX)
trap 'git -C "$top" worktree remove --force "$wt" 2>/dev/null || rm -rf "$wt"' EXIT
git worktree add -q --detach "$wt" HEAD
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-/tmp/vkprims-variants-target}
mkdir -p target/exp
built=()
for spec in "$@"; do
  name=${spec%%=*}
  git -C "$wt" checkout -q -- .
  if [[ $spec == *=* ]]; then
    IFS=+ read -ra patches <<< "${spec#*=}"
    for p in "${patches[@]}"; do
      git -C "$wt" apply "$top/$p" || { echo "build-variants: $p does not apply to HEAD" >&2; exit 1; }
    done
  fi
  echo "== $name" >&2
  (cd "$wt" && cargo build --release -q)
  cp "$CARGO_TARGET_DIR/release/vkprims" "target/exp/vkprims-$name"
  strip "target/exp/vkprims-$name"
  built+=("target/exp/vkprims-$name")
done
tar cJf target/exp/bins.tar.xz "${built[@]}"
ls -l target/exp/bins.tar.xz "${built[@]}" >&2
