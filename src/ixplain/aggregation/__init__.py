"""ixplain.aggregation."""
