"""River models by name, with the preprocessing a stream of mixed columns needs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ._errors import CLIError

__all__ = ["DEFAULT_MODELS", "MODEL_NAMES", "make_river_model"]

#: The model each task gets when ``--model`` is not given: fast, adapts to drift, nonlinear.
DEFAULT_MODELS = {"regression": "hoeffding-tree", "binary": "hoeffding-tree"}


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
    """Build River's ``preprocessing | model`` pipeline for the columns of the stream.

    Numeric columns are standardised online (``StandardScaler``), string/categorical columns
    one-hot encoded (``OneHotEncoder``), so every model accepts every stream.

    Raises
    ------
    CLIError
        For an unknown model name (the message lists the known ones for the task).
    """
    try:
        from river import compose, preprocessing
    except ImportError as exc:  # pragma: no cover - river is in the cli extra
        raise CLIError("ixplain stream needs River: pip install 'ixplain[cli]'.") from exc
    builders = _builders()[task]
    if name not in builders:
        raise CLIError(
            f"unknown model {name!r} for a {task} task; choose one of: {', '.join(builders)}."
        )
    parts = []
    if numeric:
        parts.append(compose.Select(*numeric) | preprocessing.StandardScaler())
    if categorical:
        parts.append(compose.Select(*categorical) | preprocessing.OneHotEncoder())
    prep = parts[0] if len(parts) == 1 else compose.TransformerUnion(*parts)
    return prep | builders[name](seed)
