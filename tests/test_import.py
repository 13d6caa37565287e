"""``import ixplain`` stays light: heavy libraries are imported where they are used."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("pandas", "scipy", "sklearn", "matplotlib", "river", "dask", "numba", "pyarrow",
         "polars", "lightgbm", "xgboost", "tqdm", "typer", "joblib")  # fmt: skip


def _modules_after(code: str) -> set[str]:
    script = f"import sys, json\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    return {name.split(".")[0] for name in json.loads(out.splitlines()[-1])}


def test_import_ixplain_loads_no_heavy_library():
    loaded = _modules_after("import ixplain")
    assert "ixplain" in loaded
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_the_libraries_load_when_used():
    """Asking for a DataFrame imports pandas then, not before."""
    loaded = _modules_after(
        "import numpy as np, ixplain\n"
        "assert 'pandas' not in sys.modules\n"
        "ixplain.as_table(np.eye(3)).to_frame()"
    )
    assert "pandas" in loaded
