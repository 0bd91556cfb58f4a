"""What a case runs with: its stored parameters joined with its study's ``[mechanism]`` table.

A case's ``params`` are what varies (design.md 4.5: the base overrides and its axis values);
a described mechanism's table (design.md 4.7, ~2 kB for the four-bar example) is the
study's, held once in its spec, not repeated in each of 100,000 case rows (issue 34.4). The
worker that claims a case, the case page, a certificate's plan and an ADAMS export put the
two back together here. Pure; imports nothing heavy.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def case_inputs(params: Mapping[str, Any], spec: Mapping[str, Any] | None) -> dict[str, Any]:
    """``params`` with the study ``spec``'s ``mechanism`` table joined in (a copy). A case
    that carries its own table - an archive from before, or a certificate whose refinement
    changed the table - keeps it; a study without a table gives ``params`` as they are."""
    mechanism = (spec or {}).get("mechanism")
    if mechanism is None or "mechanism" in params:
        return dict(params)
    return {**params, "mechanism": mechanism}
