"""Explaining change between two models or two datasets.

:func:`compare` explains both sides with the same methods and the same random numbers (common
random numbers: the same permutations, background draws and coalitions for a row on both
sides), and reports per-feature importance deltas ``b - a`` with paired intervals, Holm's
family-wise test across features, the ranking change (NDCG@k, Kendall's tau) and the two
models' expected squared discrepancy. Modules: ``_importance`` (per-row values of a side),
``_stats`` (intervals, tests, rankings), ``_discrepancy``, ``_result`` (the result objects),
``_compare`` (the public function); PD/ALE curve changes (:class:`CurveChange`), the
explanation-shift test (:class:`ShiftTest`), the Display (:class:`ChangeDisplay`), the report
payload and the Dask form (:func:`compare_dask`) live in their own modules.
"""

from ._compare import compare
from ._curves import CurveChange
from ._dask import compare_dask
from ._display import ChangeDisplay
from ._result import ChangeExplanation, Discrepancy, ImportanceChange, RankingChange
from ._shift import ShiftTest

__all__ = ["ChangeDisplay", "ChangeExplanation", "CurveChange", "Discrepancy", "ImportanceChange",
           "RankingChange", "ShiftTest", "compare", "compare_dask"]
