import numpy as np, pickle
from river import tree
from ixplain import ExplanationDriftDetector as D, IncrementalPFI
rng=np.random.default_rng(0); n=8000; names=["a","b","c"]
X=rng.normal(size=(n,3)); y=2*X[:,0]+X[:,1]+0.1*rng.normal(size=n); y[4000:]=X[4000:,0]+2*X[4000:,1]
def run(pick):
    m=tree.HoeffdingTreeRegressor(); d=D(random_state=0)
    e=IncrementalPFI(m, "squared_error", feature_names=names, random_state=0, drift_detector=d)
    for s in range(0,n,100):
        e.explain_many(X[s:s+100], y[s:s+100])
        for i in range(s,s+100): m.learn_one(dict(zip(names,X[i])), y[i])
        if pick and s+100==pick:
            m, e = pickle.loads(pickle.dumps((m, e))); d=e.drift_detector
            # is e's model the same object as m after joint unpickle?
            print("  model identity kept:", e.model is m if hasattr(e,'model') else '?')
    return [(x.row,x.feature,x.channel,round(x.after,8)) for x in d.events_]
R=run(None); print(R)
print(run(3000)==R)
