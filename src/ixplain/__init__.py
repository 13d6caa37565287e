"""ixplain: global explanations of machine-learning models on static data and data streams.

Every method is a per-observation explanation function averaged over a dataset (static) or
smoothed over a stream (incremental). The user guide (docs/user_guide/index.rst) maps the
package.
"""

from . import datasets
from ._validation import ModelEvaluationError
from .aggregation import EWMean, Mean
from .change import ChangeExplanation, compare
from .drift import DriftEvent, ExplanationDriftDetector
from .imputation import ConditionalSampler, ConditionalStorage
from .losses import get_loss
from .methods._engine import ProgressInfo
from .methods.ale import accumulated_local_effects
from .methods.hstatistic import h_statistic
from .methods.iale import IncrementalALE
from .methods.iinteractions import IncrementalShapleyInteractions
from .methods.interactions import shapley_interactions
from .methods.ipdp import IncrementalPDP
from .methods.isage import IncrementalSAGE
from .methods.pdp import partial_dependence
from .methods.pfi import IncrementalPFI, permutation_importance
from .methods.sage import sage
from .models import as_model
from .plot.ale import AccumulatedLocalEffectsDisplay
from .plot.drift import DriftExplanationDisplay
from .plot.hstatistic import HStatisticDisplay
from .plot.importance import FeatureImportanceDisplay, ImportanceTraceDisplay
from .plot.interactions import InteractionHeatmapDisplay, InteractionTraceDisplay
from .plot.partial_dependence import PartialDependenceDisplay
from .plot.pd_trace import PartialDependenceTraceDisplay
from .results import (
    AccumulatedLocalEffects,
    DriftExplanation,
    FeatureImportance,
    HStatistic,
    PartialDependence,
)
from .results.interactions import InteractionTimeSeries, ShapleyInteractions
from .storage import DatasetStorage, GeometricReservoir, SlidingWindow, UniformReservoir
from .tabular import Table, as_table
from .tree import tree_partial_dependence

__version__ = "0.1.0"

# Public API: pinned by tests/test_public_api.py. Each method module adds its names below.
__all__ = [
    # incremental framework and importance results (branch ipfi)
    "DatasetStorage",
    "EWMean",
    "FeatureImportance",
    "IncrementalPFI",
    "GeometricReservoir",
    "Mean",
    "SlidingWindow",
    "UniformReservoir",
    "permutation_importance",
    # bundled datasets and synthetic streams (branch cli)
    "datasets",
    # incremental PDP and the stream Displays (branch ipdp)
    "FeatureImportanceDisplay",
    "ImportanceTraceDisplay",
    "IncrementalPDP",
    "PartialDependenceTraceDisplay",
    # foundation
    "ModelEvaluationError",
    "PartialDependence",
    "PartialDependenceDisplay",
    "Table",
    "__version__",
    "as_model",
    "as_table",
    "get_loss",
    "partial_dependence",
    # SAGE (branch sage)
    "IncrementalSAGE",
    "sage",
    "tree_partial_dependence",
    # accumulated local effects (branch ale)
    "AccumulatedLocalEffects",
    "AccumulatedLocalEffectsDisplay",
    "IncrementalALE",
    "accumulated_local_effects",
    # Friedman's H-statistic (branch hstat)
    "HStatistic",
    "HStatisticDisplay",
    "h_statistic",
    # Shapley interactions (branch shapley)
    "IncrementalShapleyInteractions",
    "InteractionHeatmapDisplay",
    "InteractionTimeSeries",
    "InteractionTraceDisplay",
    "ShapleyInteractions",
    "shapley_interactions",
    # conditional (observational) removal (branch conditional)
    "ConditionalSampler",
    "ConditionalStorage",
    # the explanation engine (branch engine-drivers)
    "ProgressInfo",
    # explanation-based drift detection (branch drift)
    "DriftEvent",
    "DriftExplanation",
    "DriftExplanationDisplay",
    "ExplanationDriftDetector",
    # explaining change between two models or datasets (branch change)
    "ChangeExplanation",
    "compare",
]
