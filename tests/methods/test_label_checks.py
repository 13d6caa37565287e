"""The labels an incremental explainer refuses before any model call: a shape the loss and
the model's outputs cannot use (named as the caller gave it), a label that no class of the
model can equal (None, a str among numbers), and a missing y (with the pointer to a
label-free detector when one is attached)."""

import re

import numpy as np
import pytest

from ixplain import ExplanationDriftDetector, IncrementalPFI, IncrementalSAGE
from ixplain.losses import LOSSES, foreign_label, label_shape_error

rng = np.random.default_rng(0)
X = rng.normal(size=(200, 3))
Y = 2 * X[:, 0] + X[:, 1]


def one_output(A):
    return 2 * A[:, 0] + A[:, 1]


def two_outputs(A):
    return np.c_[A[:, 0], A[:, 1]]


@pytest.mark.parametrize("cls", [IncrementalPFI, IncrementalSAGE])
def test_a_two_column_label_names_its_shape_before_any_model_call(cls):
    ex = cls(one_output, loss="squared_error", random_state=0)
    ex.explain_many(X[:100], Y[:100])
    calls = ex._model.n_calls
    with pytest.raises(ValueError, match=re.escape(
            f"{cls.__name__}.explain_many: y has shape (10, 2), but the loss 'squared_error' "
            "takes the model's 1 output per observation, so y needs shape (10,).")):
        ex.explain_many(X[100:110], np.c_[Y[100:110], Y[100:110]])
    with pytest.raises(ValueError, match=re.escape(
            f"{cls.__name__}.explain_one: y has shape (2,), but the loss 'squared_error' takes "
            "the model's 1 output per observation, so y needs a single value.")):
        ex.explain_one(X[100], np.array([1.0, 2.0]))
    assert ex._model.n_calls == calls and ex.n_seen_ == 100


def test_the_stream_first_model_call_gives_the_same_message_and_takes_nothing():
    """Before the model's first call its output shape is unknown: the loss's error is
    replaced by the one naming y's shape, and nothing of the call is taken."""
    ex = IncrementalPFI(one_output, "squared_error", random_state=0)
    with pytest.raises(ValueError, match=r"y has shape \(10, 2\).* y needs shape \(10,\)"):
        ex.explain_many(X[:10], np.c_[Y[:10], Y[:10]])
    assert ex.n_seen_ == 0
    ex.explain_many(X[:10], Y[:10])  # the retry with the right labels is a first call
    assert ex.n_seen_ == 10


def test_a_multi_output_model_needs_its_number_of_columns():
    ex = IncrementalPFI(two_outputs, "squared_error", random_state=0)
    ex.explain_many(X[:50], X[:50, :2])
    for y, given in ((Y[50:60], "(10,)"), (X[50:60], "(10, 3)")):
        with pytest.raises(ValueError, match=re.escape(
                f"y has shape {given}, but the loss 'squared_error' takes the model's 2 outputs "
                "per observation, so y needs shape (10, 2).")):
            ex.explain_many(X[50:60], y)
    ex.explain_many(X[50:60], X[50:60, :2])
    assert ex.n_seen_ == 60


def test_a_class_loss_refuses_a_label_matrix_before_the_first_model_call():
    ex = IncrementalPFI(lambda A: 1 / (1 + np.exp(-A[:, 0])), "log_loss", random_state=0)
    with pytest.raises(ValueError, match=r"y has shape \(10, 2\), but the loss 'log_loss' "
                                         r"takes one class label per observation"):
        ex.explain_many(X[:10], np.zeros((10, 2), dtype=int))
    assert ex._model.n_calls == 0


def test_label_shape_error_and_foreign_label_by_hand():
    y = np.zeros((4, 1))
    assert label_shape_error(LOSSES["squared_error"], "f", y, y[:, 0], ()) is None
    assert label_shape_error(LOSSES["squared_error"], "f", y, y[:, 0], None) is None
    assert "needs shape (4, 3)" in label_shape_error(LOSSES["absolute_error"], "f", y, y[:, 0],
                                                     (3,))
    assert foreign_label(np.array([0, 1, None], dtype=object), [0, 1]) == 2
    assert foreign_label(np.array([1.0, np.nan, True], dtype=object), [0, 1]) is None
    assert foreign_label(np.array(["a", "b"]), [0, 1]) == 0
    assert foreign_label(np.array([0, 1]), np.array(["no", "yes"])) == 0
    assert foreign_label(np.array(["maybe"]), np.array(["no", "yes"])) is None


@pytest.fixture(scope="module")
def river_tree():
    tree = pytest.importorskip("river.tree")
    model = tree.HoeffdingTreeClassifier(grace_period=50)
    rows = [dict(zip("abc", r)) for r in X.tolist()]
    for x, t in zip(rows, (X[:, 0] > 0).astype(int).tolist()):
        model.learn_one(x, t)
    return model, rows, (X[:, 0] > 0).astype(int).tolist()


def test_one_str_label_among_int_classes_is_refused_with_its_row(river_tree):
    model, rows, labels = river_tree
    ex = IncrementalPFI(model, "log_loss", random_state=0)
    ex.explain_many(rows[:100], labels[:100])
    calls, before = ex._model.n_calls, ex.importances_
    bad = labels[100:110]
    bad[3] = "yes"
    with pytest.raises(ValueError, match=re.escape(
            "IncrementalPFI.explain_many: the label y of batch row 3 (stream row 103) is 'yes' "
            "(str), which cannot be one of the model's classes [0, 1] (int)")):
        ex.explain_many(rows[100:110], bad)
    assert ex.n_seen_ == 100 and ex._model.n_calls == calls
    np.testing.assert_array_equal(ex.importances_, before)
    bad[3] = 2  # of the classes' type, new to the model: taken (River meets new classes)
    ex.explain_many(rows[100:110], bad)
    assert ex.n_seen_ == 110


def test_none_gets_one_message_from_explain_one_and_explain_many(river_tree):
    model, rows, labels = river_tree
    ex = IncrementalPFI(model, "zero_one", random_state=0)
    ex.explain_many(rows[:100], labels[:100])
    tail = "is None, which cannot be one of the model's classes [0, 1] (int): every " \
           "observation needs its label. Nothing of this call was taken."
    with pytest.raises(ValueError) as one:
        ex.explain_one(rows[100], None)
    with pytest.raises(ValueError) as many:
        ex.explain_many(rows[100:102], [labels[100], None])
    assert str(one.value) == ("IncrementalPFI.explain_one: the label y of the observation "
                              f"(stream row 100) {tail}")
    assert str(many.value) == ("IncrementalPFI.explain_many: the label y of batch row 1 "
                               f"(stream row 101) {tail}")
    assert ex.n_seen_ == 100


def test_missing_y_points_to_the_label_free_detector_only_when_one_is_attached():
    plain = IncrementalPFI(one_output, "squared_error", random_state=0)
    with pytest.raises(ValueError) as err:
        plain.explain_one(X[0])
    assert str(err.value) == "IncrementalPFI needs the label y of each observation."
    det = ExplanationDriftDetector(label_free=True, static_model=True)
    ex = IncrementalPFI(one_output, "squared_error", random_state=0, drift_detector=det)
    with pytest.raises(ValueError, match=re.escape(
            "For label-free drift detection call detector.update(x) on the attached detector")):
        ex.explain_one(X[0])
    with pytest.raises(ValueError, match=re.escape("call detector.update_many(X)")):
        ex.explain_many(X[:5])
    det.update_many(X[:20])  # what the pointer says works
    det.update(X[20])
    assert ex.n_seen_ == 21
    labelled = ExplanationDriftDetector()
    ex = IncrementalPFI(one_output, "squared_error", random_state=0, drift_detector=labelled)
    with pytest.raises(ValueError) as err:
        ex.explain_one(X[0])
    assert "label-free" not in str(err.value)


@pytest.mark.parametrize("name", ["permutation_importance", "sage", "shapley_interactions"])
def test_static_methods_name_the_label_shape_as_given(name):
    """The static methods name y's shape as the caller gave it, not the loss's internal rows
    (``shapley_interactions`` said "predictions of shape (80,) and targets of shape (80, 2)"
    for 40 rows of two coalitions; session 11)."""
    import ixplain

    method = getattr(ixplain, name)
    with pytest.raises(ValueError, match=re.escape(
            f"{name}: y has shape (40, 2), but the loss 'squared_error' takes the model's 1 "
            "output per observation, so y needs shape (40,).")):
        method(one_output, X[:40], np.c_[Y[:40], Y[:40]], loss="squared_error", random_state=0)


@pytest.mark.parametrize("loss", ["log_loss", "zero_one"])
def test_a_multi_output_classifier_gets_the_label_shape_message(loss):
    """A classifier fitted on y of shape (n, 2) has one array of classes per output: the
    first-labels check compared each label with those arrays (numpy's "truth value of an
    array ... is ambiguous"; QA, session 11). The class losses take one label per row: the
    message names y's shape as for any model."""
    from sklearn.ensemble import RandomForestClassifier

    from ixplain import permutation_importance

    Yc = (X[:40, :2] > 0).astype(int)
    rf = RandomForestClassifier(n_estimators=3, random_state=0).fit(X[:40], Yc)
    with pytest.raises(ValueError, match=re.escape(
            f"permutation_importance: y has shape (40, 2), but the loss '{loss}' takes one "
            "class label per observation, so y needs shape (40,).")):
        permutation_importance(rf, X[:40], Yc, loss=loss, n_repeats=2, random_state=0)
