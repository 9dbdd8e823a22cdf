#!/usr/bin/env python3
"""Random linear series against `sm120check apply` (from the hostile review).

Makes a git repository with one or two small files, commits 1-4 random edits, exports them with
`git format-patch -U<CTX>`, and for every state k of the series checks that `apply` (forward)
gives the last state and `apply -R` the first, exit 0, and that a second run changes nothing.
Usage: series_fuzz.py SEED ITERATIONS. Environment: CTX=0,1,3 (context sizes drawn from),
NOINDEX=1 (strip index lines: blob ids then decide nothing), DUMP=N (keep iteration N's
patches and states), SM120CHECK (the binary), FUZZ_DIR (work folder). Failing cases are kept
as FUZZ_DIR/failN/{p,t,want}.
"""
import os, random, subprocess, shutil, sys
S=os.environ.get('SM120CHECK', os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'build', 'sm120check'))
BASE=os.environ.get('FUZZ_DIR', '/tmp/sm120check-series-fuzz')
R=random.Random(int(sys.argv[1]) if len(sys.argv)>1 else 1)
W=BASE+'/w'
CTX=[int(x) for x in os.environ.get('CTX','0,1,3').split(',')]
def run(cmd, cwd=None):
    return subprocess.run(cmd, cwd=cwd, capture_output=True)
def rand_lines(n):
    vocab=['a','b','c','x = 1','}','','return','  pass','foo()','bar()','\t\ty','z\r']
    return [R.choice(vocab)+(str(R.randrange(5)) if R.random()<0.5 else '') for _ in range(n)]
def mutate(lines):
    lines=list(lines)
    for _ in range(R.randrange(1,4)):
        op=R.randrange(3)
        i=R.randrange(len(lines)+1)
        if op==0 and lines:
            del lines[min(i,len(lines)-1):min(i,len(lines)-1)+R.randrange(1,3)]
        elif op==1:
            lines[i:i]=rand_lines(R.randrange(1,3))
        elif lines:
            j=min(i,len(lines)-1); lines[j]=rand_lines(1)[0]
    return lines
def content(lines, eol):
    s='\n'.join(lines)
    if eol and lines: s+='\n'
    return s
def tree_files(d):
    out={}
    for root,ds,fs in os.walk(d):
        if '.git' in ds: ds.remove('.git')
        for f in fs:
            p=os.path.join(root,f); out[os.path.relpath(p,d)]=(open(p,'rb').read(), os.stat(p).st_mode & 0o777)
    return out
fails=0
for it in range(int(sys.argv[2]) if len(sys.argv)>2 else 50):
    shutil.rmtree(W, ignore_errors=True); os.makedirs(W)
    run(['git','init','-q'],W); run(['git','config','user.email','a@b'],W); run(['git','config','user.name','a'],W)
    nfiles=R.randrange(1,3)
    files={f'f{i}.txt':(rand_lines(R.randrange(0,30)), R.random()<0.8) for i in range(nfiles)}
    def write(files):
        for f,(l,e) in files.items():
            open(os.path.join(W,f),'w',newline='').write(content(l,e))
    write(files); run(['git','add','-A'],W); run(['git','commit','-qm','v0'],W)
    states=[tree_files(W)]
    npatch=R.randrange(1,5)
    for k in range(npatch):
        f=R.choice(list(files))
        l,e=files[f]
        while True:
            nf=(mutate(l), e if R.random()<0.8 else not e)
            if content(*nf)!=content(l,e): break
        files[f]=nf
        write(files); run(['git','add','-A'],W); run(['git','commit','-qm',f'p{k+1}'],W)
        states.append(tree_files(W))
    pdir=BASE+'/p'; shutil.rmtree(pdir, ignore_errors=True)
    run(['git','format-patch','-q','-U%d'%R.choice(CTX) ,'-o',pdir,'HEAD~%d'%npatch],W)
    pats=sorted(os.listdir(pdir))
    if os.environ.get('DUMP')==str(it):
        shutil.rmtree(BASE+'/dump',ignore_errors=True); shutil.copytree(pdir,BASE+'/dump/p')
        for i,stt in enumerate(states):
            for f,(b,m) in stt.items():
                os.makedirs(f'{BASE}/dump/s{i}',exist_ok=True); open(f'{BASE}/dump/s{i}/{f}','wb').write(b)
    if os.environ.get('NOINDEX'):
        for pp in pats:
            t=open(os.path.join(pdir,pp),newline='').read().split('\n')
            open(os.path.join(pdir,pp),'w',newline='').write('\n'.join(l for l in t if not l.startswith('index ')))
    for st in range(len(states)):
        for rev in (False, True):
            T=BASE+'/t'; shutil.rmtree(T, ignore_errors=True); os.makedirs(T)
            for f,(b,m) in states[st].items():
                open(os.path.join(T,f),'wb').write(b)
            cmd=[S,'apply','--strict','--no-relocate']+(['-R'] if rev else [])+[os.path.join(pdir,p) for p in pats]+[T]
            r=run(cmd)
            want=states[0] if rev else states[-1]
            got=tree_files(T)
            if r.returncode!=0 or {k:v[0] for k,v in got.items()}!={k:v[0] for k,v in want.items()}:
                fails+=1
                print('FAIL it',it,'state',st,'rev',rev,'rc',r.returncode, r.stdout.decode()[-600:], r.stderr.decode()[-300:])
                d=f'{BASE}/fail{fails}'; shutil.rmtree(d,ignore_errors=True); shutil.copytree(pdir,d+'/p'); 
                os.makedirs(d+'/t')
                for f,(b,m) in states[st].items(): open(os.path.join(d,'t',f),'wb').write(b)
                for f,(b,m) in want.items(): os.makedirs(d+'/want',exist_ok=True); open(os.path.join(d,'want',f),'wb').write(b)
                if fails>5: sys.exit(1)
                continue
            # idempotent
            r2=run(cmd); got2=tree_files(T)
            if r2.returncode!=0 or got2!=got:
                print('NOT IDEMPOTENT', it, st, rev, r2.returncode, r2.stdout.decode()[-500:]); fails+=1
                d=f'{BASE}/fail{fails}'; shutil.rmtree(d,ignore_errors=True); shutil.copytree(pdir,d+'/p'); shutil.copytree(T,d+'/t')
print('fails',fails)
