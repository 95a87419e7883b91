import sys, re
from cases import aligned
a=open(sys.argv[1]).read().split('\n'); b=open(sys.argv[2]).read().split('\n')
a, b, _ = aligned(a, b)
case=None; on=False; n=0; bad=0
for x,y in zip(a,b):
    if x.startswith('CASE'):
        m=re.search(r'stag=(\d+) dtag=(\d+)',x); on = m.group(1)!=m.group(2) and m.group(2)!='1'; case=x; continue
    if on and x and not x[0].isalpha():
        n+=1
        if x!=y:
            bad+=1
            if bad<5: print(case,x,y)
print("ref-only cases values",n,"bitdiff",bad)
