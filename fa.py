import numpy as np, time
from ixplain import ExplanationDriftDetector as D
n=20000; k=4
gens = {
 "normal": lambda r: r.normal(size=(n,k)),
 "t2": lambda r: r.standard_t(2, size=(n,k)),
 "cauchy": lambda r: r.standard_cauchy(size=(n,k)),
 "zero-infl 90% exp": lambda r: r.exponential(size=(n,k))*(r.random((n,k))<0.1),
 "zero-infl 99%": lambda r: r.exponential(size=(n,k))*(r.random((n,k))<0.01),
 "bernoulli .5": lambda r: (r.random((n,k))<0.5).astype(float),
 "bernoulli .02": lambda r: (r.random((n,k))<0.02).astype(float),
 "lognormal s=2": lambda r: r.lognormal(0,2,size=(n,k)),
 "AR(1) .5": None,
}
for name,g in gens.items():
    tot={}
    for test in ["cusum","adwin","page_hinkley"]:
        c=0; t=time.time()
        for seed in range(3):
            r=np.random.default_rng(seed)
            if g is None:
                e=r.normal(size=(n,k)); v=np.empty_like(e); v[0]=e[0]
                for i in range(1,n): v[i]=0.5*v[i-1]+e[i]
            else: v=g(r)
            d=D(test=test, random_state=seed).update_values(v)
            c+=len(d.events_)
        tot[test]=c
    print(f"{name:20s} events in 60k rows x {k}:", tot)
