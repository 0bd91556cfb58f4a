"""The FUNCTION expressions the import reads, as linear forms (no eval anywhere).

A supported expression is a sum of terms, each a constant times one of ``1``, ``TIME``,
``DM(i, j)`` or ``VR(i, j)``: numbers (a ``D`` suffix: degrees), ``PI``, ``DTOR``, ``RTOD``,
``+ - * / **`` and parentheses, where a product or a quotient has a constant on one side and
a power is of constants. That covers a MOTION's ``w*TIME`` or a constant rate, and an
SFORCE's ``-k*(DM(i,j)-L0) - c*VR(i,j)`` and constants. Anything else (STEP, IF, a VARIABLE,
a USER subroutine, DX, a product of two motions) is refused, naming what was found.
"""

from __future__ import annotations

import math
import re

MAX_LENGTH = 2_000  # characters of one expression
MAX_DEPTH = 50  # nesting of parentheses and signs

# a linear form: symbol -> coefficient; symbols "1", "TIME", ("DM", i, j), ("VR", i, j)
Form = dict

_TOKEN = re.compile(r"\s*(?:(?P<num>(?:\d+\.?\d*|\.\d+)(?:[E][+-]?\d+)?(?P<deg>D(?![A-Z_]))?)"
                    r"|(?P<name>[A-Z_][A-Z0-9_]*)|(?P<op>\*\*|[-+*/(),]))", re.IGNORECASE)
_CONSTANTS = {"PI": math.pi, "DTOR": math.pi / 180.0, "RTOD": 180.0 / math.pi}


class FunctionError(ValueError):
    """An expression outside the supported forms; the message says what was found."""


def _tokens(text: str) -> list[tuple[str, str]]:
    out, k = [], 0
    text = text.strip()
    while k < len(text):
        m = _TOKEN.match(text, k)
        if not m or m.end() == k:
            raise FunctionError(f"cannot read {text[k:k + 20]!r}")
        if m.group("num") is not None:
            out.append(("num", m.group("num")))
        elif m.group("name") is not None:
            out.append(("name", m.group("name").upper()))
        else:
            out.append(("op", m.group("op")))
        k = m.end()
        while k < len(text) and text[k].isspace():
            k += 1
    return out


def _constant(form: Form) -> float | None:
    return form.get("1", 0.0) if set(form) <= {"1"} else None


def _add(a: Form, b: Form, sign: float = 1.0) -> Form:
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0.0) + sign * v
    return out


def _scale(a: Form, s: float) -> Form:
    return {k: v * s for k, v in a.items()}


class _Parser:
    def __init__(self, text: str) -> None:
        if len(text) > MAX_LENGTH:
            raise FunctionError(f"an expression of {len(text):,} characters (at most "
                                f"{MAX_LENGTH:,})")
        self.toks = _tokens(text)
        self.k = 0
        self.depth = 0

    def peek(self) -> tuple[str, str] | None:
        return self.toks[self.k] if self.k < len(self.toks) else None

    def take(self, value: str | None = None) -> tuple[str, str]:
        tok = self.peek()
        if tok is None or (value is not None and tok[1] != value):
            raise FunctionError(f"expected {value or 'more'} at the end" if tok is None
                                else f"expected {value!r}, found {tok[1]!r}")
        self.k += 1
        return tok

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise FunctionError(f"nested more than {MAX_DEPTH} deep")

    def expr(self) -> Form:
        self.enter()
        out = self.term()
        while (tok := self.peek()) and tok[1] in "+-" and tok[0] == "op":
            self.k += 1
            out = _add(out, self.term(), 1.0 if tok[1] == "+" else -1.0)
        self.depth -= 1
        return out

    def term(self) -> Form:
        out = self.unary()
        while (tok := self.peek()) and tok[0] == "op" and tok[1] in ("*", "/"):
            self.k += 1
            right = self.unary()
            if tok[1] == "*":
                cl, cr = _constant(out), _constant(right)
                if cl is not None:
                    out = _scale(right, cl)
                elif cr is not None:
                    out = _scale(out, cr)
                else:
                    raise FunctionError("a product of two varying terms")
            else:
                cr = _constant(right)
                if cr is None:
                    raise FunctionError("a division by a varying term")
                if cr == 0.0:
                    raise FunctionError("a division by zero")
                out = _scale(out, 1.0 / cr)
        return out

    def unary(self) -> Form:
        tok = self.peek()
        if tok and tok[0] == "op" and tok[1] in "+-":
            self.k += 1
            self.enter()
            out = self.unary()
            self.depth -= 1
            return _scale(out, -1.0) if tok[1] == "-" else out
        return self.power()

    def power(self) -> Form:
        base = self.atom()
        tok = self.peek()
        if tok and tok[1] == "**":
            self.k += 1
            exponent = self.unary()
            b, e = _constant(base), _constant(exponent)
            if b is None or e is None:
                raise FunctionError("a power of a varying term")
            if abs(e) > 64 or abs(b) > 1e100:
                raise FunctionError("a power too large")
            try:
                value = float(b) ** float(e)
            except (OverflowError, ZeroDivisionError):
                raise FunctionError("a power out of range") from None
            if isinstance(value, complex) or not math.isfinite(value):
                raise FunctionError("a power out of range")
            return {"1": value}
        return base

    def atom(self) -> Form:
        kind, text = self.take()
        if kind == "num":
            if text[-1] in "dD":
                return {"1": math.radians(float(text[:-1]))}
            return {"1": float(text)}
        if kind == "op" and text == "(":
            out = self.expr()
            self.take(")")
            return out
        if kind == "name":
            if text in _CONSTANTS:
                return {"1": _CONSTANTS[text]}
            if text == "TIME":
                return {"TIME": 1.0}
            if text in ("DM", "VR"):
                self.take("(")
                i = self.marker()
                self.take(",")
                j = self.marker()
                self.take(")")
                return {(text, i, j): 1.0}
            raise FunctionError(f"{text} (supported: numbers, PI, TIME, DM(i,j), VR(i,j))")
        raise FunctionError(f"{text!r} where a value was expected")

    def marker(self) -> int:
        kind, text = self.take()
        if kind != "num" or not text.isdigit():
            raise FunctionError(f"a marker id, found {text!r}")
        return int(text)


def linear_form(text: str) -> Form:
    """The expression as ``{symbol: coefficient}`` (zero terms dropped); raises
    :class:`FunctionError` when it is not of the supported forms."""
    p = _Parser(text)
    out = p.expr()
    if p.peek() is not None:
        raise FunctionError(f"unexpected {p.peek()[1]!r}")
    return {k: v for k, v in out.items() if v != 0.0}
