"""Formulas as text: a math renderer for the HTML builder that loads nothing.

Sphinx renders ``:math:`` and ``.. math::`` with MathJax from a CDN by default, which a site
opened offline from ``file://`` cannot load. This renderer writes the formula's source (LaTeX as
the docstring author wrote it) in a monospaced span or block instead.
"""

from __future__ import annotations

from html import escape
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx


def _inline(self: Any, node: nodes.Element) -> None:
    self.body.append(f'<code class="math notranslate">{escape(node.astext())}</code>')
    raise nodes.SkipNode


def _block(self: Any, node: nodes.Element) -> None:
    self.body.append(f'<pre class="math notranslate">{escape(node.astext())}</pre>\n')
    raise nodes.SkipNode


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_html_math_renderer("plainmath", (_inline, None), (_block, None))
    return {"parallel_read_safe": True, "parallel_write_safe": True}
