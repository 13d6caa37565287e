"""ixplain.imputation."""
