"""The public API is pinned: adding or removing a name is a deliberate change to this list."""

import ixplain

EXPECTED = {
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
    # incremental PDP (branch ipdp)
    "IncrementalPDP",
    # incremental PDP and the stream Displays (branch ipdp)
    "FeatureImportanceDisplay",
    "ImportanceTraceDisplay",
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
}


def test_all_is_pinned():
    assert set(ixplain.__all__) == EXPECTED


def test_all_lists_every_name_once():
    assert len(ixplain.__all__) == len(set(ixplain.__all__)), sorted(
        n for n in ixplain.__all__ if ixplain.__all__.count(n) > 1
    )


def test_every_public_name_is_importable_and_documented():
    for name in ixplain.__all__:
        obj = getattr(ixplain, name)
        if name != "__version__":
            assert obj.__doc__, f"{name} has no docstring"
