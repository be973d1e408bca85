import os, subprocess, re, sys
out = os.environ['OUT']
EXIT = b'\x4d\x79\x00\x00\x00\x00\x00\x00'
def dis(data):
    open('/tmp/slice.bin', 'wb').write(data)
    r = subprocess.run(['nvdisasm', '-b', 'SM90', '/tmp/slice.bin'], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr
for f in sys.argv[1:]:
    b = open(f, 'rb').read()
    ex = [i for i in range(len(b)) if b.startswith(EXIT, i)]
    for j, last in enumerate(ex):
        lo = last % 16
        start = last
        step = 16 * 256
        while step >= 16:
            if start - step >= lo:
                rc, o, e = dis(b[start - step:last + 16])
                if rc == 0 and not e.strip():
                    start -= step
                    continue
            step //= 2
        end = min(len(b), last + 16 * 16)
        rc, o, e = dis(b[start:end])
        name = f'{out}/{os.path.basename(f)}_{j}.sass'
        open(name, 'w').write(f'# {f} bytes {start}..{end} exit {last}\n' + o + e)
        regs = set(int(m.group(1)) for m in re.finditer(r'\bR(\d+)\b', o))
        print(f, j, 'code', start, end, 'instrs', (end - start) // 16, 'max reg', max(regs) if regs else None)
