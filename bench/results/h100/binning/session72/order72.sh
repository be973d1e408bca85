#!/usr/bin/env bash
# Session 72: does a pair sort's time depend on where its buffers land? A = main's build,
# B = the same with large buffers in dedicated allocations, and with VKPRIMS_EXP_SKEW=S each
# large buffer bound at (k mod 8) * S bytes into a padded allocation instead (k: its serial).
# Rows in one process run keys first (the order that was slow) or pairs alone.
f() { local e=$1 b=$2; shift 2; echo "== ${e:-plain} $b $*"; env ${e:+"$e"} timeout 100 $b bench sort --key u32 --trials 10 "$@" 2>&1 | grep "^| sort" | awk -F'|' '{print $2,"|",$4,"|",$5,"|",$14}'; }
f "" /tmp/vkA --n 2^28 --values 0,4
f "" /tmp/vkB --n 2^28 --values 0,4
f VKPRIMS_EXP_SKEW=69888 /tmp/vkB --n 2^28 --values 0,4
