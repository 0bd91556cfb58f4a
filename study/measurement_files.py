"""A calibration's ``measurement = {file = "rig.csv"}``: read beside the study file and
embedded in the spec as ``csv`` (design.md 4.9), so the stored study needs no file."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .errors import FieldError, SpecError
from .measurements import MAX_BYTES


def embed_measurement(data: Any, folder: Path) -> Any:
    """``data`` with ``measurement.csv`` read from ``folder / measurement.file`` (a copy;
    unchanged when there is no such file key or the text is there already)."""
    if not isinstance(data, Mapping):
        return data
    ref = data.get("measurement")
    if not isinstance(ref, Mapping) or not isinstance(ref.get("file"), str) or "csv" in ref:
        return data
    path = folder / ref["file"]
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise SpecError([FieldError("measurement.file", f"{size} bytes",
                                        f"at most {MAX_BYTES} bytes")])
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError([FieldError("measurement.file", ref["file"],
                                    f"a readable UTF-8 CSV file beside the study file "
                                    f"({folder}): {exc}")]) from None
    return {**data, "measurement": {**ref, "csv": text}}
