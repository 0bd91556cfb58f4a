"""The ADAMS/Solver dataset language split into statements (design.md 4.13).

A dataset is a title line (ADAMS's rule: the first line is the title, never a statement),
then statements ``NAME/id, ARG = value, ARG = v1, v2, v3, KEYWORD, ...`` ending at ``END``.
A statement continues on lines whose first non-blank character is ``,``; ``!`` starts a
comment; a FUNCTION expression runs to the end of its statement or to a ``\\`` when other
arguments follow it. An Adams/View ``!  adams_view_name='NAME'`` comment names the next
statement's element.

Limits (design.md 4.15): 20 MB, 100,000 statements, 1,000 continuation lines a statement.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .errors import AdamsError

_CONTINUED = "\x01"  # a continuation line's leading comma (a separator, except in a FUNCTION)
_SEPARATORS = re.compile("[,\x01]")
_FUNCTION = re.compile("[,\x01]\\s*FU[A-Z]*\\s*=", re.IGNORECASE)
MAX_BYTES = 20 * 1024 * 1024
MAX_STATEMENT = 200_000  # characters of one statement (1,000 lines of 200)
MAX_STATEMENTS = 100_000
MAX_CONTINUATIONS = 1_000
_VIEW_NAME = re.compile(r"adams_view_name\s*=\s*'([^']*)'", re.IGNORECASE)
# the first words of an Adams/View command file (.cmd), never of a Solver dataset
_VIEW_COMMANDS = re.compile(
    r"^\s*(model|part|marker|constraint|force|defaults|geometry|simulation|variable|"
    r"entity|executive_control|material|units)\s+(create|modify|attributes|units|"
    r"set|delete)\b", re.IGNORECASE)


@dataclass
class RawStatement:
    """One statement as written: ``line`` its first line (1-based), ``head`` the text before
    the first comma (``PART/2``), ``args`` the rest split at top-level commas, with a
    FUNCTION's expression kept whole; ``view_name`` from an adams_view_name comment."""

    line: int
    head: str
    args: list[str] = field(default_factory=list)
    view_name: str | None = None


@dataclass
class Dataset:
    title: str
    statements: list[RawStatement]


def decode(data: bytes, filename: str = "") -> str:
    """The dataset's text; refuses a file too large, not UTF-8 or an Adams/View .cmd."""
    if len(data) > MAX_BYTES:
        raise AdamsError(f"the file is {len(data) / 2**20:.1f} MB; at most "
                         f"{MAX_BYTES // 2**20} MB is read")
    if filename.lower().endswith(".cmd"):
        raise AdamsError("an Adams/View command file (.cmd), not an Adams/Solver dataset: "
                         "export the model from Adams/View as a dataset (.adm)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise AdamsError(f"not UTF-8 text (byte {exc.start})", line) from None
    if "\x00" in text or _CONTINUED in text:
        raise AdamsError("a binary file (control bytes), not a dataset")
    return text


def _split_args(text: str, line: int, head: str) -> list[str]:
    """Top-level comma-separated pieces; ``FUNCTION = ...`` (and ``FUNC=``, any prefix)
    keeps its commas up to a ``\\`` or the end."""
    if "(" not in text and ")" not in text and "\\" not in text and not _FUNCTION.search(text):
        return [a for a in (p.strip() for p in _SEPARATORS.split(text)) if a]  # the common case
    out: list[str] = []
    buf: list[str] = []
    depth = 0
    k = 0
    n = len(text)
    while k < n:
        ch = text[k]
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                raise AdamsError("an unmatched ')'", line, head)
        if ch in (",", _CONTINUED) and depth == 0:
            out.append("".join(buf).strip())
            buf = []
            k += 1
            # a FUNCTION argument: the expression runs to a backslash or the end; a
            # continuation line's comma inside it only continues the line
            m = re.match(r"\s*(FU[A-Z]*)\s*=", text[k:], re.IGNORECASE)
            if m and "FUNCTION".startswith(m.group(1).upper()):
                end = text.find("\\", k)
                end = n if end < 0 else end
                out.append(text[k:end].replace(_CONTINUED, " ").strip())
                k = end + 1
                if k < n:  # what follows the backslash: more arguments
                    rest = text[k:].lstrip()
                    if rest.startswith((",", _CONTINUED)):
                        k = n - len(rest)  # the comma is read by the loop
                    elif rest:
                        text = text[:k] + "," + rest
                        n = len(text)
                continue
            continue
        buf.append(ch)
        k += 1
    if depth != 0:
        raise AdamsError("an unclosed '('", line, head)
    out.append("".join(buf).strip())
    return [a for a in out if a]


def tokenize(text: str) -> Dataset:
    """Split the dataset text into its title and statements (up to ``END``)."""
    lines = text.splitlines()
    if not lines:
        raise AdamsError("an empty file (a dataset starts with its title line)")
    title = lines[0].strip()
    first = next((ln for ln in lines[1:] if ln.strip() and not ln.lstrip().startswith("!")),
                 "")
    if _VIEW_COMMANDS.match(first) or _VIEW_COMMANDS.match(title):
        raise AdamsError("an Adams/View command file (.cmd), not an Adams/Solver dataset: "
                         "export the model from Adams/View as a dataset (.adm)")
    statements: list[RawStatement] = []
    current: list[str] = []
    start = 0
    continuations = 0
    pending_name: str | None = None

    def flush() -> None:
        nonlocal current
        if current:
            joined = " ".join(current)
            if len(joined) > MAX_STATEMENT:
                raise AdamsError(f"a statement of {len(joined):,} characters (at most "
                                 f"{MAX_STATEMENT:,})", start, joined.split(",")[0][:40])
            name, slash, after = joined.partition("/")
            ident, _, rest = after.replace(_CONTINUED, ",", 1).partition(",")
            if slash and re.fullmatch(r"\s*\d+\s*", ident):
                head = f"{name.strip()}/{ident.strip()}"
            elif slash:  # ``UNITS/FORCE = NEWTON, ...``: no id, the arguments follow the slash
                head, rest = name.strip(), after
            else:
                head, _, rest = joined.replace(_CONTINUED, ",", 1).partition(",")
            st = RawStatement(start, head.strip(), [], pending_for_current)
            st.args = _split_args("," + rest, start, st.head) if rest.strip() else []
            statements.append(st)
            if len(statements) > MAX_STATEMENTS:
                raise AdamsError(f"more than {MAX_STATEMENTS:,} statements")
        current = []

    pending_for_current: str | None = None
    for number, raw in enumerate(lines[1:], start=2):
        text, bang, comment = raw.partition("!")
        if bang:
            m = _VIEW_NAME.search(comment)
            if m:
                pending_name = m.group(1)
        stripped = text.strip()
        if not stripped:
            continue
        if stripped.startswith(","):
            if not current:
                raise AdamsError("a continuation line (starting with ',') with no statement "
                                 "before it", number, stripped[:40])
            continuations += 1
            if continuations > MAX_CONTINUATIONS:
                raise AdamsError(f"more than {MAX_CONTINUATIONS:,} continuation lines in one "
                                 "statement", start, current[0].split(",")[0].strip())
            current.append(_CONTINUED + stripped[1:])
            continue
        flush()
        if stripped.upper().rstrip("/ ") == "END":
            break
        current, start, continuations = [stripped], number, 0
        pending_for_current, pending_name = pending_name, None
    flush()
    return Dataset(title, statements)
