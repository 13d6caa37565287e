"""ixplain.plot."""
