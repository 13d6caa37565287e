"""The README's main-job command, exactly as written, on a fresh clone with its own environment."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _readme_main_command() -> str:
    """The first command of the README's Quickstart block (the main job)."""
    readme = (ROOT / "README.md").read_text()
    quickstart = readme.split("## Quickstart", 1)[1]
    block = re.search(r"```bash\n(.*?)```", quickstart, re.S)
    assert block is not None, "the Quickstart has no bash block"
    commands = [line.split("#")[0].strip() for line in block.group(1).splitlines()]
    commands = [c for c in commands if c]
    assert commands == ["make demo", "make test"], commands
    return commands[0]


@pytest.mark.slow
def test_readme_main_job_on_a_fresh_clone(tmp_path):
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: no fresh clone to make")
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    command = _readme_main_command()
    clone = tmp_path / "ixplain"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True, timeout=120)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["MPLBACKEND"] = "Agg"
    proc = subprocess.run(
        command, shell=True, cwd=clone, env=env, capture_output=True, text=True, timeout=1500
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    out = clone / "ixplain-output"
    report = out / "report.html"
    assert f"Report: {report.resolve()}" in proc.stdout
    assert (clone / ".venv" / "bin" / "ixplain").exists()  # its own environment

    summary = json.loads((out / "summary.json").read_text())
    assert summary["settings"]["rows"] == "17379 of 17379"
    assert summary["interrupted"] is False
    methods = summary["settings"]["methods"].split(", ")
    assert "pfi" in methods
    for method, values in summary["final_importances"].items():
        assert all(v is not None for v in values.values()), method
        # hour of the day drives bike rentals: it must come out on top
        assert max(values, key=values.get) == "hour", (method, values)
    html = report.read_text()
    n_images = html.count('src="data:image/png;base64,')
    assert n_images == (2 * ("pfi" in methods or "sage" in methods) + ("pdp" in methods) + 1
                        + ("ale" in methods) + ("drift" in methods))
    assert "Final importances" in html and "bike" in html
    assert "http://" not in html and "https://" not in html
