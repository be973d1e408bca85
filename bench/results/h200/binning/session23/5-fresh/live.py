import re,sys
lines=[l for l in open(sys.argv[1]) if re.match(r'\s*/\*[0-9a-f]{4,}\*/',l)]
ins=[]
for l in lines:
    m=re.match(r'\s*/\*([0-9a-f]+)\*/\s+(@!?U?P\w+\s+)?([A-Z0-9_.]+)\s*(.*?)\s*;',l)
    if not m: continue
    addr,pred,op,rest=m.groups()
    ops=[o.strip() for o in rest.split(',')] if rest else []
    ins.append((int(addr,16),op,ops,l.strip()))
def regs(tok,width):
    out=[]
    for r in re.findall(r'\bR(\d+)\b',tok):
        r=int(r)
        out+= [r+k for k in range(width)]
    return out
nostore=('ST','RED','BAR','BRA','EXIT','BSYNC','BSSY','NOP','WARPSYNC','CALL','RET','MEMBAR','ERRBAR','CCTL','DEPBAR','YIELD','ISETP','FSETP','PLOP3','VOTEU','R2UR' )
events={}  # reg -> list of (pos,'d'|'u')
for p,(a,op,ops,l) in enumerate(ins):
    w=1
    if '.128' in op: w=4
    elif '.64' in op or op.startswith('IMAD.WIDE'): w=2
    dst=None
    isdst = not op.startswith(('ST','RED','BAR','BRA','EXIT','BSYNC','BSSY','NOP','WARPSYNC','CALL','RET','MEMBAR','ERRBAR','CCTL','DEPBAR','YIELD','ISETP','FSETP','PLOP3','R2UR','VOTEU','ISETP'))
    srcs=list(ops)
    if isdst and ops:
        # ATOM* / VOTE with predicate first
        first=ops[0]
        if re.match(r'!?U?P(T|\d)',first) and len(ops)>1 and op.startswith(('ATOM','VOTE','SHFL','LDG','LDS')):
            first=ops[1]; srcs=ops[2:]
        else:
            srcs=ops[1:]
        if re.match(r'R\d+',first):
            dw = w if op.startswith(('LD','IMAD.WIDE','ATOM')) or '.64' in op or '.128' in op else 1
            if op.startswith('IMAD.WIDE'): dw=2
            for r in regs(first, dw): events.setdefault(r,[]).append((p,'d'))
    for s in srcs:
        sw = 1
        if s.startswith('[') and '.64' in s: sw=2
        elif op.startswith('ST') and not s.startswith('['): sw=w
        for r in regs(s, sw):
            events.setdefault(r,[]).append((p,'u'))
n=len(ins); live=[0]*n
for r,ev in events.items():
    ev.sort()
    start=None; last=None
    for pos,k in ev:
        if k=='d':
            if start is not None and last is not None:
                for q in range(start,last+1): live[q]+=1
            start=pos; last=None
        else:
            if start is None: start=0
            last=pos
    if start is not None and last is not None:
        for q in range(start,last+1): live[q]+=1
step=int(sys.argv[2]) if len(sys.argv)>2 else 64
for b in range(0,n,step):
    seg=ins[b:b+step]
    tags=[]
    for a,op,ops,l in seg:
        if op.startswith('BAR.SYNC'): tags.append('BAR')
        if op.startswith(('LDG','ATOMG','STG','ATOMS','SHFL','LDS','STS','RED','MATCH')): tags.append(op.split('.')[0])
    from collections import Counter
    c=Counter(tags)
    print(f"{ins[b][0]:05x} {b:5d} max {max(live[b:b+step]):3d} mean {sum(live[b:b+step])/len(seg):5.1f}  "+' '.join(f'{k}:{v}' for k,v in sorted(c.items())))
if len(sys.argv)>3:
    q=int(sys.argv[3])
    # registers live at instruction index q: def<=q<=lastuse
    for r,ev in sorted(events.items()):
        ev.sort(); start=None; last=None; spans=[]
        for pos,k in ev:
            if k=='d':
                if start is not None and last is not None: spans.append((start,last))
                start=pos; last=None
            else:
                if start is None: start=0
                last=pos
        if start is not None and last is not None: spans.append((start,last))
        for s,e in spans:
            if s<=q<=e: print(f"R{r}: def {s} [{ins[s][3][12:80]}]  last use {e} [{ins[e][3][12:70]}]")
