"""
The report: what its first screen says
======================================

``ixplain stream`` and ``ixplain explain`` write ``report.html``: one self-contained,
interactive page (plotly.js inlined, nothing loaded from the network). Its first screen holds
sentences generated from the results, the importances over the stream with their bands and the
timeline's marks (known changes, incidents, model updates), and the final ranking with bounds;
clicking an incident opens its before/after ranking. ``ixplain stream --live`` serves the same
page on 127.0.0.1 while the stream runs.

A gallery page cannot embed that interactive page, so this example runs a small stream with the
command line, writes the first screen's sentences with
:func:`ixplain.report.summarize_stream`, builds a report payload from the run's files and renders
it with :func:`ixplain.report.render_page` (written next to the run's own ``report.html``), and
draws a static picture of the first screen with matplotlib.
"""

# %%
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from ixplain.report import render_page, summarize_stream

quick = os.environ.get("IXPLAIN_DOCS_QUICK") == "1"  # the CI build: the first 4,000 rows
n_rows = 4000 if quick else 6000
out = Path(tempfile.mkdtemp(prefix="ixplain-report-"))
subprocess.run([sys.executable, "-m", "ixplain", "stream", "--dataset", "bike", "--explain",
                "pfi,drift", "--n-rows", str(n_rows), "--no-progress", "--out", str(out)],
               check=True, capture_output=True)
print(sorted(p.name for p in out.iterdir()))

# %%
# The run's files: the importance trace (one row per snapshot and feature) and the incidents.
trace = pd.read_csv(out / "importances.csv")
values = trace.pivot(index="row", columns="feature", values="importance")
bounds = trace.pivot(index="row", columns="feature", values="bound")
incidents = json.loads((out / "incidents.json").read_text())
features = list(values.columns)
summary = summarize_stream(features, values.index.to_numpy(), values.to_numpy(),
                           incidents=incidents)
for sentence in summary:
    print(sentence)

# %%
# A payload (the report's data contract; :func:`ixplain.report.example_payload` shows every
# key) rendered as a page. ``render_page`` returns the HTML as a string.
final, half = values.iloc[-1], bounds.iloc[-1]
top = list(final.sort_values(ascending=False).index[:5])
payload = {
    "title": f"bike sharing, first {n_rows:,} rows",
    "summary": summary,
    "ranking": {"title": "Final ranking (iPFI)", "unit": "squared error increase",
                "features": top, "values": final[top].tolist(),
                "lower": (final[top] - half[top]).tolist(),
                "upper": (final[top] + half[top]).tolist()},
    "headline": "importance",
    "charts": [{"id": "importance", "title": "iPFI over the stream", "kind": "traces",
                "x_label": "row", "y_label": "iPFI", "x": values.index.tolist(),
                "series": [{"name": f, "y": values[f].tolist(),
                            "lower": (values[f] - bounds[f]).tolist(),
                            "upper": (values[f] + bounds[f]).tolist()} for f in top[:4]],
                "markers": [{"x": float(i["detected"]), "label": i["headline"],
                             "kind": i["kind"], "incident": i["id"]}
                            for i in incidents]}],
    "incidents": incidents,
}
page = render_page(payload)
(out / "my_report.html").write_text(page, encoding="utf-8")
external = re.findall(r'<(?:script|link)[^>]*(?:src|href)="https?://', page)
print(f"my_report.html: {len(page) / 1e6:.1f} MB, {len(external)} external scripts or styles")

# %%
# A static picture of the first screen: the importances over the stream with their 95 % bands,
# the incidents (red) and model updates (grey, dotted), and the final ranking with bounds.
fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(12, 4.2), gridspec_kw={"width_ratios": [2.2, 1]})
for f in top[:4]:
    ax0.plot(values.index, values[f], label=f)
    ax0.fill_between(values.index, values[f] - bounds[f], values[f] + bounds[f], alpha=0.15)
for inc in incidents:
    if inc["kind"] == "model_update":
        ax0.axvline(inc["detected"], color="0.7", ls=":", lw=0.9)
    else:
        ax0.axvline(inc["detected"], color="tab:red", lw=1.2)
ax0.set_xlabel("row")
ax0.set_ylabel("iPFI (squared error increase)")
ax0.legend(loc="upper left")
fig.suptitle("\n".join(textwrap.wrap(" ".join(summary), 140)), fontsize=9, x=0.01, ha="left")
ax1.barh(top[::-1], final[top[::-1]], xerr=half[top[::-1]], color="tab:blue", alpha=0.8)
ax1.set_title("Final ranking (iPFI)")
fig.tight_layout()
