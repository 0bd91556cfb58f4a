"""A study file uploaded through a browser (the new-study page's drop zone): a data URL
decoded, bounded and parsed into the file's mapping, with the spec's own errors - before
any of it reaches the form. Kept beside the spec (design.md 3): nothing here is Dash's.

Hostile input is expected (a hand-made request, not only the page): the size is checked
before anything is decoded, text must be UTF-8, and nesting too deep for the parsers is
refused as an error, never a crash.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from .errors import FieldError, SpecError
from .spec import loads_spec, parse_spec, tomllib

MAX_UPLOAD_BYTES = 256 * 1024  # a study file is a few KB


def decode_data_url(contents: Any, name: str, *, max_bytes: int, what: str,
                    readable: str) -> bytes:
    """The bytes of a browser upload's data URL (``data:<type>;base64,<payload>``), at most
    ``max_bytes`` of them. SpecError naming field ``file`` = ``name``: allowed ``readable``
    when it is not a data URL of base64, "a ``what`` of at most N KB" when too big. The size is
    checked before anything is decoded: a hand-made request is refused as cheaply as a
    browser's (dcc.Upload's ``max_size`` is only the browser's own check)."""
    unreadable = SpecError([FieldError("file", name, readable)])
    if not isinstance(contents, str):
        raise unreadable
    _, comma, payload = contents.partition(",")
    if not comma:
        raise unreadable
    too_big = SpecError([FieldError("file", name, f"a {what} of at most {max_bytes // 1024} KB")])
    if len(payload) > 4 * -(-max_bytes // 3):  # base64 holds 3 bytes in every 4 characters
        raise too_big
    try:
        raw = base64.b64decode(payload, validate=True)
    except ValueError:
        raise unreadable from None
    if len(raw) > max_bytes:
        raise too_big
    return raw


def read_upload(contents: str, filename: str | None) -> tuple[dict[str, Any] | None, list]:
    """An uploaded study file's mapping (even if it does not validate: the form shows why),
    or None and the errors when it cannot be read at all. ``contents``: a data URL
    (``data:<type>;base64,<payload>``, as a browser's file upload sends it)."""

    name = str(filename or "study.toml")
    fmt = "json" if name.lower().endswith(".json") else "toml"
    readable = "a UTF-8 .toml or .json study file"
    unreadable = [FieldError("file", name, readable)]
    try:
        raw = decode_data_url(contents, name, max_bytes=MAX_UPLOAD_BYTES, what="study file",
                              readable=readable)
    except SpecError as exc:
        return None, exc.errors
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None, unreadable
    too_deep = [FieldError("file", name, "a study file that does not nest this deeply")]
    try:
        data = tomllib.loads(text) if fmt == "toml" else json.loads(text)
    except RecursionError:
        return None, too_deep
    except ValueError:
        try:
            loads_spec(text, fmt)
        except SpecError as exc:
            return None, exc.errors
        except RecursionError:
            return None, too_deep
        return None, [FieldError("file", name, f"a {fmt.upper()} study file")]
    if not isinstance(data, dict):
        return None, [FieldError("file", type(data).__name__, "a table of the study's keys")]
    try:
        parse_spec(data)
    except SpecError as exc:
        return data, exc.errors
    except RecursionError:
        return None, too_deep
    return data, []
