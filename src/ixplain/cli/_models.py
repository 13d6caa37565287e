"""River models by name, with the preprocessing a stream of mixed columns needs."""

from __future__ import annotations

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

    Numeric columns are standardised online, string/categorical columns one-hot encoded
    (:class:`OnlinePreprocessor`), so every model accepts every stream.

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
    """Standardise numeric features and one-hot encode the others, learning online.

    The same transformation as River's ``(Select(num) | StandardScaler()) + (Select(cat) |
    OneHotEncoder())`` in one ``transform_one`` call (River's pipeline machinery costs several
    times the prediction of a Hoeffding tree, and explainers call the model many times per row).
    Means and variances are Welford's running estimates over the values learnt so far (missing
    values, NaN or None, are not counted, and are mapped to 0, the running mean, so one empty
    cell does not turn the model's state into NaN); a feature with zero variance maps to 0; a category becomes the key ``"name=level"`` with value 1 and
    the other levels seen so far get 0 (River's ``OneHotEncoder`` default).

    Examples
    --------
    >>> p = OnlinePreprocessor(["a"], ["c"])
    >>> for x in ({"a": 1.0, "c": "u"}, {"a": 3.0, "c": "v"}):
    ...     p.learn_one(x)
    >>> p.transform_one({"a": 3.0, "c": "v"})
    {'a': 1.0, 'c=u': 0, 'c=v': 1}
    """

    def __init__(self, numeric: Sequence[str], categorical: Sequence[str]) -> None:
        self.numeric = list(numeric)
        self.categorical = list(categorical)
        self.n = 0
        self.count = dict.fromkeys(self.numeric, 0)
        self.mean = dict.fromkeys(self.numeric, 0.0)
        self.m2 = dict.fromkeys(self.numeric, 0.0)
        self.levels: dict[str, dict[str, None]] = {k: {} for k in self.categorical}
        self._stale = True
        self._affine: list[tuple[str, float, float]] = []
        self._constant: dict[str, float] = {}
        self._zeros: dict[str, int] = {}

    def learn_one(self, x: dict[str, Any]) -> None:
        self.n += 1
        for k in self.numeric:
            v = _as_float(x[k])
            if v != v:  # missing: skip the update
                continue
            self.count[k] += 1
            delta = v - self.mean[k]
            self.mean[k] += delta / self.count[k]
            self.m2[k] += delta * (v - self.mean[k])
        for k in self.categorical:
            self.levels[k].setdefault(f"{k}={x[k]}", None)
        self._stale = True

    def _refresh(self) -> None:
        # the explainers call transform_one many times between two learn_one calls: cache the
        # scaling and the zero entries of the one-hot encoding
        self._affine, self._constant = [], {}
        for k in self.numeric:
            n = self.count[k]
            var = self.m2[k] / n if n > 0 else 0.0
            if var > 0:
                self._affine.append((k, self.mean[k], 1.0 / var**0.5))
            else:
                self._constant[k] = 0.0
        self._zeros = {key: 0 for k in self.categorical for key in self.levels[k]}
        self._stale = False

    def transform_one(self, x: dict[str, Any]) -> dict[str, Any]:
        if self._stale:
            self._refresh()
        out: dict[str, Any] = {k: (_as_float(x[k]) - m) * inv for k, m, inv in self._affine}
        out.update(self._constant)
        for k, v in out.items():
            if v != v:  # a missing value: the running mean
                out[k] = 0.0
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
