"""Explaining change between two models or two datasets (placeholder until the statistics core lands; the
``change`` branch owns this file)."""
