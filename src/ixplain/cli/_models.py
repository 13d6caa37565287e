"""River models by name, with the preprocessing a stream of mixed columns needs."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from ._errors import CLIError

__all__ = [
    "DATASET_MODELS",
    "DEFAULT_MODELS",
    "MODEL_NAMES",
    "OnlinePreprocessor",
    "PreprocessedClassifier",
    "PreprocessedRegressor",
    "make_river_model",
]

#: The model each task gets when ``--model`` is not given: fast, adapts to drift, nonlinear.
DEFAULT_MODELS = {"regression": "hoeffding-tree", "binary": "hoeffding-tree"}
#: Bundled datasets whose default model is another one: on rainfall the Hoeffding tree stops
#: splitting after about 1,800 rows (prequential accuracy 0.715, every importance decays to 0);
#: the online logistic regression keeps learning (accuracy 0.750).
DATASET_MODELS = {"rainfall": "linear"}


def _builders() -> dict[str, dict[str, Callable[[int], Any]]]:
    from river import forest, linear_model, naive_bayes, neighbors, preprocessing, tree

    return {
        "regression": {
            "linear": lambda seed: preprocessing.TargetStandardScaler(
                regressor=linear_model.LinearRegression()
            ),
            "hoeffding-tree": lambda seed: tree.HoeffdingTreeRegressor(),
            "adaptive-tree": lambda seed: tree.HoeffdingAdaptiveTreeRegressor(seed=seed),
            "arf": lambda seed: forest.ARFRegressor(n_models=5, seed=seed),
            "knn": lambda seed: neighbors.KNNRegressor(),
        },
        "binary": {
            "linear": lambda seed: linear_model.LogisticRegression(),
            "hoeffding-tree": lambda seed: tree.HoeffdingTreeClassifier(),
            "adaptive-tree": lambda seed: tree.HoeffdingAdaptiveTreeClassifier(seed=seed),
            "arf": lambda seed: forest.ARFClassifier(n_models=5, seed=seed),
            "knn": lambda seed: neighbors.KNNClassifier(),
            "naive-bayes": lambda seed: naive_bayes.GaussianNB(),
        },
    }


#: Model names accepted by ``--model`` for each task.
MODEL_NAMES = {
    "regression": ("linear", "hoeffding-tree", "adaptive-tree", "arf", "knn"),
    "binary": ("linear", "hoeffding-tree", "adaptive-tree", "arf", "knn", "naive-bayes"),
}


def make_river_model(
    name: str, task: str, numeric: Sequence[str], categorical: Sequence[str], seed: int
) -> Any:
    """Build the River model ``name`` behind an online preprocessor for the stream's columns.

    Numeric columns are standardised online (with a bounded scaled value, so a feature that was
    constant so far cannot blow up the model at its first new value), string/categorical
    columns one-hot encoded (:class:`OnlinePreprocessor`), so every model accepts every stream.

    Raises
    ------
    CLIError
        For an unknown model name (the message lists the known ones for the task).
    """
    try:
        builders = _builders()[task]
    except ImportError as exc:  # pragma: no cover - river is in the cli extra
        raise CLIError("ixplain stream needs River: pip install 'ixplain[cli]'.") from exc
    if name not in builders:
        raise CLIError(
            f"unknown model {name!r} for a {task} task; choose one of: {', '.join(builders)}."
        )
    wrapper = PreprocessedClassifier if task == "binary" else PreprocessedRegressor
    return wrapper(builders[name](seed), numeric, categorical)


class OnlinePreprocessor:
    """Scale numeric features and one-hot encode the others, learning online.

    The same transformation as River's ``(Select(num) | StandardScaler()) + (Select(cat) |
    OneHotEncoder())`` in one ``transform_one`` call (River's pipeline machinery costs several
    times the prediction of a Hoeffding tree, and explainers call the model many times per row),
    except for one guard: the scaled value is bounded.

    A numeric value ``x`` of feature ``k`` becomes ``clip((x - mean_k) / s_k, -z_bound,
    z_bound)`` with ``s_k = max(sd_k, range_k / z_bound)``, where ``mean_k`` and ``sd_k`` are
    Welford's running mean and population standard deviation and ``range_k = max_k - min_k``,
    all over the finite values learnt so far. Why the floor: a feature that was constant for
    ``n`` rows has ``sd_k = 0``; after its first new value (learnt before it is transformed, as
    River's pipelines do) ``sd_k`` is about ``|step| / sqrt(n)``, so River's ``StandardScaler``
    maps that value to about ``sqrt(n)`` standard deviations (93 for ``year`` at the first
    2012 row of the bike stream, after 8,645 rows of 2011), and the linear leaf models of a
    Hoeffding tree, trained by gradient steps proportional to their input, blow up (errors of
    2,648 on a target whose maximum is 977). Since every learnt value lies within
    ``[min_k, max_k]``, the floor keeps it within ``z_bound`` of the mean; it leaves the
    transformation affine within the observed range (so the model stays a monotone function of
    the raw value there, and PD/ALE curves over the raw values get no plateau from us, as a
    clip of learnt values would give them). It is inactive while ``range_k <= z_bound * sd_k``:
    always for a uniform feature (ratio 3.5), for a binary one whose rarer level has a share
    of 4 % or more; a normal feature has ratio 6.1 over 500 rows and 7.7 over 10,000, so its
    scale is widened by that much over 5 (values within about 5 of the mean instead of 3.9):
    still an affine map, which a linear model absorbs in its weight and a tree ignores. The
    clip only acts on values outside the observed range (unseen extremes, infinities). Models
    that need no scaling (trees without leaf models) are not hurt by an order-preserving map,
    so every model gets the same inputs.

    Missing values (NaN or None) are not counted and map to 0, the running mean, so one empty
    cell does not turn the model's state into NaN; a feature with zero range so far maps to 0;
    a category becomes the key ``"name=level"`` with value 1 and the other levels seen so far
    get 0 (River's ``OneHotEncoder`` default).

    Parameters
    ----------
    numeric : sequence of str
        Names of the numeric features (scaled).
    categorical : sequence of str
        Names of the categorical features (one-hot encoded).
    z_bound : float, default=5.0
        Largest absolute scaled value, in units of the scale ``s_k``. On the bike stream 5 keeps
        the Hoeffding tree's largest prequential error at 582 (10 still lets it reach 1,084).

    Raises
    ------
    ValueError
        If ``z_bound`` is not a finite number > 0.

    References
    ----------
    .. [1] B. P. Welford, "Note on a method for calculating corrected sums of squares and
       products", Technometrics 4(3), 1962.

    Examples
    --------
    >>> p = OnlinePreprocessor(["a"], ["c"])
    >>> for x in ({"a": 1.0, "c": "u"}, {"a": 3.0, "c": "v"}):
    ...     p.learn_one(x)
    >>> p.transform_one({"a": 3.0, "c": "v"})
    {'a': 1.0, 'c=u': 0, 'c=v': 1}

    A feature constant for 1,000 rows, then one step: its new value stays within the bound.

    >>> q = OnlinePreprocessor(["year"], [])
    >>> for v in [2011.0] * 1000 + [2012.0]:
    ...     q.learn_one({"year": v})
    >>> round(q.transform_one({"year": 2012.0})["year"], 3)
    4.995
    """

    def __init__(
        self, numeric: Sequence[str], categorical: Sequence[str], z_bound: float = 5.0
    ) -> None:
        if isinstance(z_bound, bool) or not isinstance(z_bound, (int, float)) or not (
            0 < z_bound < float("inf")
        ):
            raise ValueError(
                "The 'z_bound' parameter of OnlinePreprocessor must be a finite number > 0. "
                f"Got {z_bound!r} instead."
            )
        self.numeric = list(numeric)
        self.categorical = list(categorical)
        self.z_bound = float(z_bound)
        self.n = 0
        self.count = dict.fromkeys(self.numeric, 0)
        self.mean = dict.fromkeys(self.numeric, 0.0)
        self.m2 = dict.fromkeys(self.numeric, 0.0)
        self.low = dict.fromkeys(self.numeric, float("inf"))
        self.high = dict.fromkeys(self.numeric, float("-inf"))
        self.levels: dict[str, dict[str, None]] = {k: {} for k in self.categorical}
        self._stale = True
        self._affine: list[tuple[str, float, float]] = []
        self._constant: dict[str, float] = {}
        self._zeros: dict[str, int] = {}

    def learn_one(self, x: dict[str, Any]) -> None:
        """Update the running statistics with one row (a dict of all the features)."""
        self.n += 1
        for k in self.numeric:
            v = _as_float(x[k])
            if not math.isfinite(v):  # missing or infinite: skip the update
                continue
            self.count[k] += 1
            delta = v - self.mean[k]
            self.mean[k] += delta / self.count[k]
            self.m2[k] += delta * (v - self.mean[k])
            if v < self.low[k]:
                self.low[k] = v
            if v > self.high[k]:
                self.high[k] = v
        for k in self.categorical:
            self.levels[k].setdefault(f"{k}={x[k]}", None)
        self._stale = True

    def _refresh(self) -> None:
        # the explainers call transform_one many times between two learn_one calls: cache the
        # scaling and the zero entries of the one-hot encoding
        self._affine, self._constant = [], {}
        for k in self.numeric:
            n = self.count[k]
            sd = (self.m2[k] / n) ** 0.5 if n > 0 else 0.0
            span = self.high[k] - self.low[k] if n > 0 else 0.0
            scale = max(sd, span / self.z_bound)
            if scale > 0:
                self._affine.append((k, self.mean[k], 1.0 / scale))
            else:
                self._constant[k] = 0.0
        self._zeros = {key: 0 for k in self.categorical for key in self.levels[k]}
        self._stale = False

    def transform_one(self, x: dict[str, Any]) -> dict[str, Any]:
        """The scaled and encoded row (a new dict; ``x`` is not changed)."""
        if self._stale:
            self._refresh()
        b = self.z_bound
        out: dict[str, Any] = {}
        for k, m, inv in self._affine:
            z = (_as_float(x[k]) - m) * inv
            # NaN (a missing value) -> 0, the running mean; beyond the bound -> the bound
            out[k] = 0.0 if z != z else (b if z > b else (-b if z < -b else z))
        out.update(self._constant)
        if self.categorical:
            out.update(self._zeros)
            for k in self.categorical:
                out[f"{k}={x[k]}"] = 1
        return out


def _as_float(v: Any) -> float:
    return float("nan") if v is None else float(v)


class PreprocessedRegressor:
    """A River regressor behind an :class:`OnlinePreprocessor` (``learn_one``/``predict_one``).

    ``learn_one`` updates the preprocessor first, then the model with the transformed row, as
    River's pipelines do.
    """

    def __init__(self, model: Any, numeric: Sequence[str], categorical: Sequence[str]) -> None:
        self.model = model
        self.preprocessor = OnlinePreprocessor(numeric, categorical)

    def learn_one(self, x: dict[str, Any], y: Any) -> None:
        self.preprocessor.learn_one(x)
        self.model.learn_one(self.preprocessor.transform_one(x), y)

    def predict_one(self, x: dict[str, Any]) -> Any:
        return self.model.predict_one(self.preprocessor.transform_one(x))

    def __repr__(self) -> str:
        return f"{type(self.model).__name__} (River, standardised/one-hot inputs)"


class PreprocessedClassifier(PreprocessedRegressor):
    """A River classifier behind an :class:`OnlinePreprocessor` (adds ``predict_proba_one``)."""

    def predict_proba_one(self, x: dict[str, Any]) -> dict[Any, float]:
        return self.model.predict_proba_one(self.preprocessor.transform_one(x))
