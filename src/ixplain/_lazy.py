"""Heavy optional libraries are imported where they are used, so ``import ixplain`` stays light.

``import ixplain`` loads numpy and ixplain's own modules only: pandas, scipy, scikit-learn,
matplotlib, River, Dask and numba are imported by the functions that need them, on first use.
A type check does not need to import a library at all: a value can only be, say, a pandas
object once pandas has been imported, so :func:`loaded` (the module if it is in
``sys.modules``, else ``None``) is enough to ask ``isinstance(X, pd.DataFrame)``.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any

__all__ = ["is_instance", "loaded"]


def loaded(name: str) -> ModuleType | None:
    """The module ``name`` if something has imported it already, else ``None`` (no import).

    Examples
    --------
    >>> loaded("sys") is sys, loaded("a_module_nobody_imported") is None
    (True, True)
    """
    return sys.modules.get(name)


def is_instance(obj: Any, module: str, *names: str) -> bool:
    """``isinstance(obj, module.<name> for name in names)`` without importing ``module``.

    Examples
    --------
    >>> import numpy as np
    >>> is_instance(np.zeros(2), "numpy", "ndarray"), is_instance([], "numpy", "ndarray")
    (True, False)
    """
    mod = sys.modules.get(module)
    return mod is not None and isinstance(obj, tuple(getattr(mod, n) for n in names))
