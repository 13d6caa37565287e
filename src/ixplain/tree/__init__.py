"""Tree ensembles as arrays, and exact partial dependence through the tree structure.

* :class:`TreeEnsemble` / :func:`as_tree_ensemble`: one array representation of scikit-learn
  trees and forests, (Hist)GradientBoosting, LightGBM and XGBoost models, with each library's
  split rule mapped onto one canonical rule (see ``_ensemble``);
* :func:`tree_partial_dependence`: the brute-force partial dependence and ICE on the user's data,
  computed by one walk of the rows through the trees (see ``partial_dependence``);
* :func:`supports_tree_method`: whether a model can be explained this way.
"""

from ._convert import UnsupportedModelError, as_tree_ensemble, supports_tree_method
from ._ensemble import TreeEnsemble
from .partial_dependence import tree_partial_dependence

__all__ = [
    "TreeEnsemble",
    "UnsupportedModelError",
    "as_tree_ensemble",
    "supports_tree_method",
    "tree_partial_dependence",
]
