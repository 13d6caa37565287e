"""iPFI follows concept drift: River tree learning prequentially on a drifting Agrawal stream."""

import numpy as np
import pytest
from river import tree
from river.datasets.synth import Agrawal, ConceptDriftStream

from ixplain import IncrementalPFI


@pytest.mark.slow
def test_importances_move_to_the_new_concept_after_drift():
    """Function 2 (salary, age) drifts to function 3 (elevel, age) at row 10,000 (width 200).

    The two Agrawal streams get different seeds (with one seed river replays the same rows).
    A HoeffdingAdaptiveTreeClassifier learns prequentially (each mini-batch is explained, then
    learnt; the first 7,000 rows are only learnt, to keep the test short). The 'ema' estimate forgets the old concept geometrically: (1 - alpha)**k of it is
    left k rows after the model changes, 5% after 3/alpha rows. So
    * before the drift (rows 8,000-10,000) salary matters (> 0.15) and elevel does not (~0: the
      tree never splits on it, so permuting it never changes a prediction);
    * from 10,000 + 200 + 3/alpha rows on, salary's importance is below a third of its
      pre-drift value (the adaptive tree replaces the salary splits quickly);
    * in the last 1,000 rows elevel clearly exceeds salary (the new pattern).
    """
    alpha = 0.02
    stream = ConceptDriftStream(
        stream=Agrawal(classification_function=1, seed=1),
        drift_stream=Agrawal(classification_function=2, seed=2),
        position=10_000,
        width=200,
        seed=3,
    )
    data = list(stream.take(12_500))
    model = tree.HoeffdingAdaptiveTreeClassifier(leaf_prediction="mc", grace_period=100, seed=0)
    e = IncrementalPFI(model, "zero_one", alpha=alpha, random_state=0, history_every=250)
    for x, y in data[:7_000]:  # warm-up: the explainer only needs ~3/alpha rows before 8,000
        model.learn_one(x, y)
    for s in range(7_000, len(data), 100):
        chunk = data[s : s + 100]
        e.explain_many([x for x, _ in chunk], np.array([y for _, y in chunk]))
        for x, y in chunk:
            model.learn_one(x, y)
    hist = e.importance_history().to_frame()
    hist.index = hist.index + 7_000  # stream position (the explainer started at row 7,000)
    # averages over snapshot windows (single snapshots carry the 'ema' noise and the tree's own
    # restructuring)
    before = hist.loc[8_000:10_000].mean()
    assert before["salary"] > 0.15 and abs(before["elevel"]) < 0.02
    settled = hist.loc[10_000 + 200 + 3 / alpha : 11_000].mean()
    assert settled["salary"] < before["salary"] / 3
    end = hist.loc[11_500:].mean()
    assert end["elevel"] > end["salary"] + 0.1
