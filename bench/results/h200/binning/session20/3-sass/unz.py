import os, subprocess, glob, re
out = os.environ['OUT']
F = sorted(glob.glob(os.path.expanduser('~/.cache/nvidia/GLCache/*/*/*.bin')), key=os.path.getsize)[-1]
b = open(F, 'rb').read()
offs = [m.start() for m in re.finditer(re.escape(b'\x28\xb5\x2f\xfd'), b)]
print('zstd frames at', offs)
EXIT = b'\x4d\x79\x00\x00\x00\x00\x00\x00'
for k, o in enumerate(offs):
    r = subprocess.run(['zstd', '-d', '-c'], input=b[o:], capture_output=True)
    d = r.stdout
    print(k, o, 'rc', r.returncode, 'out', len(d), 'ELF' if b'\x7fELF' in d else '-', 'EXITs', d.count(EXIT), r.stderr[:120])
    if d:
        open(f'/tmp/z{k}.bin', 'wb').write(d)
        if b'\x7fELF' in d:
            i = d.index(b'\x7fELF')
            open(f'/tmp/z{k}.elf', 'wb').write(d[i:])
            s = subprocess.run(['cuobjdump', '-sass', f'/tmp/z{k}.elf'], capture_output=True, text=True)
            t = subprocess.run(['nvdisasm', '-c', f'/tmp/z{k}.elf'], capture_output=True, text=True)
            open(f'{out}/z{k}.sass', 'w').write(s.stdout + s.stderr + '\n#### nvdisasm\n' + t.stdout[:3000000] + t.stderr)
            print('  sass chars', len(s.stdout), len(t.stdout), s.stderr[:200], t.stderr[:200])
