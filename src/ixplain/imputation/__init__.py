"""Removal of features: marginal (model structure) or conditional (data-aware) imputation.

Every method that removes features -- PFI, SAGE, iPFI, iSAGE -- evaluates the model on rows
whose removed block ``J`` holds imputed values. There are two readings, and with correlated
features they differ a lot:

``removal="marginal"`` (interventional; the default, unchanged)
    ``J`` is taken from another, random row: ``x_J ~ P(X_J)``, ignoring the kept ``x_S``. The
    explanation describes the **model's structure**: a feature the model does not use gets
    exactly 0, a feature it uses gets credit even when a correlated feature carries the same
    information. Failure mode: with dependent features the model is evaluated on rows that
    never occur (a 20-year-old with 40 years of work experience); a model's behaviour there is
    arbitrary (extrapolation), and so is the explanation.

``removal="conditional"`` (observational)
    ``J`` is drawn from ``P(X_J | X_S = x_S)``, by the chain rule with one tree per feature
    (:class:`~ixplain.imputation.conditional.ConditionalSampler`; on a stream
    :class:`~ixplain.imputation.stream.ConditionalStorage`). The rows stay on the data, and the
    explanation is **data-aware**: a feature gets the importance of what it adds *beyond* the
    features it is kept with. Two strongly correlated features each get little (removing one
    loses nothing the other does not know) although the pair matters (remove both together:
    ``features={"pair": [...]}`` / ``groups``); a feature the model never reads can get
    credit through the features it predicts (SAGE). Failure modes: the sampler is an estimate
    -- trees need data; coarse leaves overstate conditional variance (importance biased
    up), and small leaves hold few values, whose mean's noise inflates the loss of every
    coalition whose trees the kept features split finely (in SAGE and Shapley interactions a
    kept feature that is irrelevant and independent gets a negative value, the ones it splits
    the pools of are inflated; leaves of 5 on 800 rows: -8.8 % of the strong feature's value,
    of 20, SAGE's leaves there: -1.7 %; iSAGE's default leaves are the small ones:
    :mod:`~ixplain.imputation.conditional`, "Leaf size") --; at splits on removed features
    the draw descends by the fitted rows' weight, which
    ignores dependence that reaches a removed feature only through other removed features
    (exact for blocks independent of the rest, approximate otherwise); the tail of a
    distribution, where leaves are wide, is drawn less faithfully than its centre.

When to use which: marginal to audit or debug a model (what does it compute?), conditional to
learn about the data through the model (what information does each feature carry?). Report
both when features are correlated: their difference is the part of an importance that the
feature shares with others.
"""

from .base import REMOVALS, Removal, check_removal
from .conditional import ConditionalSampler
from .marginal import MarginalRemoval
from .stream import ConditionalStorage

__all__ = [
    "REMOVALS",
    "ConditionalSampler",
    "ConditionalStorage",
    "MarginalRemoval",
    "Removal",
    "check_removal",
]
