"""ixplain.cli."""
