"""ixplain.tree."""
