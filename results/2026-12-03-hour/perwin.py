import sys,glob,os,collections
run=sys.argv[1]
ops={'hackbench-proc-s100000':4000,'hackbench-pin-s100000':4000,'hackbench-pin-proc-s100':80000}
for d in sorted(glob.glob(run+'/*-[0-9]')):
    man={l.split()[0]:l.split()[1:] for l in open(d+'/manifest')}
    k={}
    for l in open(d+'/kinsn.out'):
        f=l.split()
        if f[0]=='window': k[f[1]]=int(f[3])
    per=collections.defaultdict(list)
    for w,(name,cg,p) in man.items():
        if w in k: per[(name,cg)].append(k[w]/ops[name])
    print(os.path.basename(d))
    for name in ops:
        m=per[(name,'memcg')]; r=per[(name,'root')]
        tax=[a-b for a,b in zip(m,r)]
        print('  %-24s memcg %s root %s tax %s mean tax %.0f'%(name,' '.join('%.0f'%x for x in m),' '.join('%.0f'%x for x in r),' '.join('%.0f'%x for x in tax),sum(tax)/len(tax)))
