"""Scale-out on Dask: static explanations over a partitioned ``dask.dataframe.DataFrame``.

Every static explanation in ixplain is a mean of a per-observation explanation function, so it
splits over partitions. Each function here builds the method's engine object on the client
(model adapter, grid or background rows, seed) and hands it to the engine's Dask driver
(:func:`ixplain.methods._engine.explain_partitions`): every partition evaluates the *same*
explanation function with the single-machine code, knowing the global index of its rows, and
only the partitions' :class:`~ixplain.aggregation.Mean` states (and ICE curves, if asked)
travel back to be merged. :func:`explain` runs any engine method this way.

What "equal to the single-machine result" means, method by method:

* :func:`partial_dependence` -- *equal* to :func:`ixplain.partial_dependence` on
  ``ddf.compute()`` (float rounding, ~1e-15): the grid is built once from the gathered target
  columns (only those columns travel to the client), and PD is deterministic.
* :func:`sage` -- *equal*, for the same ``random_state``, to :func:`ixplain.sage` on
  ``ddf.compute()`` with ``n_permutations=n_rows, convergence_threshold=None`` (one pass over
  the rows; float rounding, ~1e-15): row ``t`` takes the order and background draws that
  ``ixplain.sage``'s first pass gives it (keyed by the seed and the row's place in that pass,
  not by its partition), and the default background is the same rows. Only the stopping rule
  differs: ``ixplain.sage`` stops when its convergence ratio falls below the threshold, which
  a partitioned pass cannot do, so here every row is explained once.
* :func:`permutation_importance` -- for a fixed ``random_state`` the result does **not depend
  on the number of partitions** (row ``t``'s draws are keyed by ``(seed, t)``, the background
  rows picked by global row index), and equals the engine's static driver on ``ddf.compute()``
  with the same method object. It is *not* the number :func:`ixplain.permutation_importance`
  gives for the same seed, and cannot be: scikit-learn's definition pairs each row with the row
  a *global* permutation assigns, which a partition cannot form without a shuffle of the whole
  data, so each row here draws its replacement from a background sample of the whole data
  instead (the iPFI paper's marginal ``lambda``). Both estimate the mean loss increase under
  marginal replacement and agree within their reported standard errors
  (``settings["standard_error"]``); the tests check exactly that.
* ``removal="conditional"`` (:func:`permutation_importance`, :func:`sage`) -- the conditional
  sampler (:class:`~ixplain.imputation.ConditionalSampler`) is fitted **once, on the client**,
  on ``sampler_size`` rows (default 20,000) drawn without replacement by global row index with
  the seed (all rows when there are at most that many), and shipped to the workers with the
  rows it holds. Row ``t``'s draws are keyed by ``(seed, t)`` and exclude its own values when
  it is a fitted row, so the result does not depend on the number of partitions. When the
  data has at most ``sampler_size`` rows the result *equals* the single-machine one on
  ``ddf.compute()`` (float rounding): :func:`ixplain.permutation_importance` with
  ``removal="conditional"`` for the same ``n_repeats`` and seed -- a conditional draw is
  per row, so no global permutation is involved -- and :func:`ixplain.sage` with
  ``removal="conditional", n_permutations=n_rows, convergence_threshold=None``. Beyond that
  the sampler is learnt from the sample (an estimate of the same conditional distributions
  from fewer rows), which the single-machine functions, fitting on all rows, do not do.

Install with ``pip install 'ixplain[dask]'``. Each driver lives in a private module of this
package (``_explain``, ``_pd``, ``_pfi``, ``_sage``) over the helpers of ``_partitions``
(column checks, row counts, rows drawn by global row index); this module re-exports them.
"""

from __future__ import annotations

from ._explain import explain
from ._pd import partial_dependence
from ._pfi import permutation_importance
from ._sage import sage

__all__ = ["explain", "partial_dependence", "permutation_importance", "sage"]
