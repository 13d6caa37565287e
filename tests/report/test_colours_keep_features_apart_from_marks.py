"""The feature palette never holds a marker colour, nor one a reader could take for it."""

from __future__ import annotations

import json
import math
import re

import pytest

from ixplain.report import example_payload, render_page
from ixplain.report._assets import MARKER_COLOURS, PALETTE


def _lab(hex_colour: str) -> tuple[float, float, float]:
    """CIE L*a*b* (D65) of an sRGB colour, from the CIE and sRGB definitions."""
    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(int(hex_colour[i:i + 2], 16) / 255) for i in (1, 3, 5))
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def test_lab_matches_reference_values():
    assert _lab("#ffffff") == pytest.approx((100, 0, 0), abs=0.05)
    assert _lab("#ff0000") == pytest.approx((53.24, 80.09, 67.20), abs=0.1)


@pytest.mark.parametrize("colour", PALETTE)
def test_palette_colour_is_far_from_every_marker_colour(colour):
    for kind, mark in MARKER_COLOURS.items():
        distance = math.dist(_lab(colour), _lab(mark))  # CIE76 colour difference
        assert distance > 25, (colour, kind, mark, distance)


def test_palette_colours_are_distinct_and_the_page_uses_them():
    assert len(set(PALETTE)) == len(PALETTE) >= 10
    page = render_page(example_payload())
    config = json.loads(re.search(r'id="ixplain-config">(.*?)</script>', page, re.S).group(1))
    assert config["palette"] == list(PALETTE) and config["markers"] == MARKER_COLOURS
    assert config["band_top"] == 5
