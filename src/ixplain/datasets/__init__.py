"""ixplain.datasets."""
