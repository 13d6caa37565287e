"""ixai's public API on ixplain's engine: change the import, keep the loop.

ixai (Muschalik, Fumagalli et al., the iPFI and iSAGE authors' library) writes::

    from ixai.explainer import IncrementalPFI
    from ixai.storage import GeometricReservoirStorage

    explainer = IncrementalPFI(model_function=model.predict_one, loss_function=metrics.MAE(),
                               feature_names=names, smoothing_alpha=0.001, n_inner_samples=5,
                               storage=GeometricReservoirStorage(size=500, store_targets=False))
    for x, y in stream:
        explainer.explain_one(x, y)          # returns {feature: importance}
        model.learn_one(x, y)
    explainer.importance_values

Replacing ``ixai`` by ``ixplain.compat.ixai`` in the imports runs the same code on ixplain:
the subpackages mirror ixai's import paths (``explainer``, ``explainer.sage``, ``storage``,
``imputer``, ``utils.wrappers``, ``visualization``), and this package exports what ixai's
top level does. What differs from ixai, on purpose (see the user guide's migration page,
docs/user_guide/migrating.rst):

* iSAGE is ixplain's estimator (ixai's is biased by the loss of an averaged prediction);
  ``n_inner_samples`` is forwarded as ixplain's ``n_samples`` (``IncrementalSage`` and, per
  explanation, ``BatchSage`` / ``IntervalSage``; ``IncrementalPFI`` too);
* ``GeometricReservoirStorage(size)`` keeps every new row once full (``p = 1``);
* randomness comes from ``random_state`` (a keyword ixai does not have; default None), never
  from Python's or NumPy's global state;
* imputers: ``MarginalImputer(..., "joint", storage)`` (ixplain's marginal removal) only;
* ``Accuracy`` is scored as the 0-1 loss (``marginal_loss`` / ``model_loss`` are reported on
  ixai's scale).

References
----------
M. Muschalik, F. Fumagalli, B. Hammer, E. Hüllermeier, "iSAGE: An Incremental Version of SAGE
for Online Explanation on Data Streams", ECML PKDD 2023; the ``ixai`` package, version 0.1.3.

Examples
--------
>>> import numpy as np
>>> from ixplain.compat.ixai import IncrementalPFI
>>> rng = np.random.default_rng(0)
>>> f = lambda x: 3 * x["a"]                                 # ixai's per-row model function
>>> pfi = IncrementalPFI(f, "squared_error", ["a", "b"], dynamic_setting=False, random_state=0)
>>> for _ in range(2000):
...     x = {"a": rng.normal(), "b": rng.normal()}
...     values = pfi.explain_one(x, 3 * x["a"])
>>> {k: round(v) for k, v in values.items()}                 # 2 * 3**2 * Var(a) = 18
{'a': 18, 'b': 0}
"""

from .explainer import BatchSage, IncrementalPDP, IncrementalPFI, IncrementalSage, IntervalSage
from .imputer import DefaultImputer, MarginalImputer, TreeImputer
from .storage import (
    BatchStorage,
    GeometricReservoirStorage,
    IntervalStorage,
    SequenceStorage,
    TreeStorage,
    UniformReservoirStorage,
)
from .utils.wrappers import RiverWrapper, SklearnWrapper, TorchWrapper
from .visualization import FeatureImportancePlotter

__all__ = [
    "BatchSage",
    "BatchStorage",
    "DefaultImputer",
    "FeatureImportancePlotter",
    "GeometricReservoirStorage",
    "IncrementalPDP",
    "IncrementalPFI",
    "IncrementalSage",
    "IntervalSage",
    "IntervalStorage",
    "MarginalImputer",
    "RiverWrapper",
    "SequenceStorage",
    "SklearnWrapper",
    "TorchWrapper",
    "TreeImputer",
    "TreeStorage",
    "UniformReservoirStorage",
]
