"""ixplain.checks."""
