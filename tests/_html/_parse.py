"""Read the notebook summaries back with the standard library's HTML parser (an independent
reading of what a browser would show: table cells as text, SVG elements with attributes)."""

from __future__ import annotations

from html.parser import HTMLParser


class Summary(HTMLParser):
    """Tables (list of rows of cell texts), every start tag with its attributes, the text."""

    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[list[list[str]]] = []
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.text: list[str] = []
        self._cell: list[str] | None = None
        self._in_svg = 0
        self.feed(page)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "svg":
            self._in_svg += 1

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append("".join(self._cell).strip())
            self._cell = None
        elif tag == "svg":
            self._in_svg -= 1

    def handle_data(self, data):
        if self._in_svg:  # (an SVG tooltip is not cell text)
            return
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)

    def column(self, table: int, col: int = 0) -> list[str]:
        """One column of a table, without its header row."""
        return [row[col] for row in self.tables[table][1:]]

    def polylines(self) -> list[list[tuple[float, float]]]:
        """The points of every ``<polyline>``, in document order."""
        out = []
        for tag, attrs in self.tags:
            if tag == "polyline":
                out.append([tuple(map(float, p.split(","))) for p in attrs["points"].split()])
        return out


def parse(page: str) -> Summary:
    """The parsed summary of ``page``."""
    return Summary(page)
