"""Explanation methods: each module holds a batched explanation function, its static function
and its incremental class. ``_incremental`` holds the base class of the incremental explainers."""
