"""Payloads for the report-page tests: the example, and the example with hostile names."""

from __future__ import annotations

import copy
from typing import Any

from ixplain.report import example_payload

EVIL = "<script>alert(1)</script>"
CLOSER = "a</script><b>&amp;"


def evil_payload(n_rows: int = 400) -> dict[str, Any]:
    """The example payload with its feature ``humidity`` renamed to a script and ``workingday``
    to a name that closes the script element, everywhere they occur."""
    payload = copy.deepcopy(example_payload(n_rows))
    names = {"humidity": EVIL, "workingday": CLOSER}

    def rename(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: rename(v) for k, v in value.items()}
        if isinstance(value, list):
            return [rename(v) for v in value]
        return names.get(value, value) if isinstance(value, str) else value

    return rename(payload)
