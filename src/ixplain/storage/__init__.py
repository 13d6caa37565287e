"""ixplain.storage."""
