#!/usr/bin/env python3
# Per kernel of a CUDA binary: its store and local-memory instructions by kind, from
# `cuobjdump -sass`; only kernels with a global store. Usage: sass70.py BINARY
import collections, re, subprocess, sys
sass = subprocess.run(["cuobjdump", "-sass", sys.argv[1]], capture_output=True, text=True).stdout
kernels, name = collections.OrderedDict(), None
for line in sass.splitlines():
    m = re.search(r"Function : (\S+)", line)
    if m:
        name = m.group(1)
        kernels[name] = collections.Counter()
        continue
    m = re.search(r"\b(STG\.E[\w.]*|STL[\w.]*|LDL[\w.]*|ST\.E[\w.]*)", line)
    if name and m:
        kernels[name][m.group(1)] += 1
names = list(kernels)
try:
    names = subprocess.run(["cu++filt"], input="\n".join(names), capture_output=True, text=True).stdout.splitlines() or names
except OSError:
    pass
for (mangled, counts), pretty in zip(kernels.items(), names):
    if not any(k.startswith(("STG", "ST.E")) for k in counts):
        continue
    short = re.sub(r"\s+", " ", pretty)
    val = re.search(r"3ValILi(\d)EE", mangled)
    print(f"{short[:110]}" + (f" [Val<{val.group(1)}>]" if val else ""))
    print("    " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
