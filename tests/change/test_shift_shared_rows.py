"""The explanation-shift test on two tables that share rows: copies of a row are kept in one
cross-fitting fold, so identical tables give a held-out AUC near 0.5 (not far below it) and the
summary says the rows are shared."""

import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge

from ixplain import compare
from ixplain.change._shift import _default_classifier, _duplicates, _held_out_auc

rng = np.random.default_rng(0)
X = pd.DataFrame(rng.normal(size=(300, 3)), columns=["a", "b", "c"])
y = 2 * X["a"] + X["b"]
model = Ridge().fit(X, y)


def test_identical_tables_give_auc_near_one_half_and_say_so():
    res = compare(model, X, y, X_b=X.copy(), y_b=y, methods=("pfi", "shift"), random_state=0)
    assert 0.4 <= res.shift.auc <= 0.6
    assert res.shift.p_value > 0.05
    assert res.shift.settings["rows_on_both_sides"] == 300
    sentence = [s for s in res.to_payload()["summary"] if "explanation-shift" in s]
    assert sentence and "300 row(s) occur on both sides" in sentence[0]


def test_copies_share_a_fold():
    Z = np.r_[X.to_numpy(), X.to_numpy()]
    labels = np.r_[np.zeros(300, int), np.ones(300, int)]
    ids = _duplicates(Z)
    assert ids is not None and (ids[:300] == ids[300:]).all()
    # the brute-force check: ungrouped folds put copies apart and the AUC falls far below 0.5
    from sklearn.model_selection import StratifiedKFold

    from ixplain.change._shift import mann_whitney_auc
    clf, scores = _default_classifier(0), np.empty(600)
    for tr, te in StratifiedKFold(5, shuffle=True, random_state=0).split(Z, labels):
        scores[te] = clf.fit(Z[tr], labels[tr]).predict_proba(Z[te])[:, 1]
    assert mann_whitney_auc(scores, labels) < 0.35
    assert 0.4 <= _held_out_auc(Z, labels, None, clf, 5, 0) <= 0.6


def test_distinct_rows_are_not_grouped():
    assert _duplicates(rng.normal(size=(50, 2))) is None
