"""ixplain.methods."""
