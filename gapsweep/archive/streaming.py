"""A whole study as JSON text, written a page of cases at a time (``gapsweep show --json``,
issue 41): the text is the one ``json.dumps`` of the whole detail would give, byte for byte,
while memory holds the study's head and one page, not its 100,000 cases."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

#: the keys of a study head that are not part of the detail (the paging's own)
PAGING_KEYS = ("cases_total", "twins_total", "cases_cursor", "twins_cursor", "next",
               "twins_next")


def _text(value: Any) -> str:
    """``value`` as ``gapsweep.commands.output.json_text`` writes it (strict JSON: NaN and
    infinities null, numpy values plain), without importing the commands (the archive is
    below them)."""
    from gapsweep.db.metrics import plain

    return json.dumps(plain(value), default=str, allow_nan=False)


def _page_text(page: list[dict[str, Any]]) -> str:
    """The items of ``page`` as ``json_text`` writes them inside a list, in one call: rows
    from the database are plain JSON values already (NaN was stored as null), so only a page
    that holds a non-finite number (or a numpy value) takes the value-by-value way."""
    try:
        text = json.dumps(page, allow_nan=False)
    except (ValueError, TypeError):
        text = _text(page)
    return text[1:-1]


def study_json_chunks(
    head: Mapping[str, Any],
    rest: Mapping[str, Callable[[], Iterable[list[dict[str, Any]]]]],
) -> Iterator[str]:
    """The JSON text of ``head`` (its paging keys left out) whose lists named in ``rest``
    are the head's first page followed by the pages ``rest[key]()`` yields, in pieces. The
    pieces joined are ``json_text`` of the whole dict (same keys, same order, same
    separators)."""
    yield "{"
    first = True
    for key, value in head.items():
        if key in PAGING_KEYS:
            continue
        yield ("" if first else ", ") + json.dumps(key) + ": "
        first = False
        if key not in rest:
            yield _text(value)
            continue
        yield "["
        started = False
        for page in itertools.chain([value], rest[key]()):  # lazily: one page at a time
            if page:
                yield (", " if started else "") + _page_text(page)
                started = True
        yield "]"
    yield "}"


def csv_chunks(columns: list[str], pages: Iterable[list[Mapping[str, Any]]]) -> Iterator[str]:
    """CSV text of export ``pages`` (rows keyed by ``columns``): the header, then one chunk
    per page (``gapsweep export`` and ``cases.csv`` write the same text). Each row goes to
    the writer as a list in column order - ``csv`` writes None as an empty field itself -
    not as a dict DictWriter copies again: that copy was a third of a large export's time."""
    import csv
    import io

    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for rows in pages:
        writer.writerows([row.get(c) for c in columns] for row in rows)
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
    yield buffer.getvalue()
