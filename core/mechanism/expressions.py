"""Arithmetic expressions of a mechanism's design variables, evaluated without ``eval``.

An expression is parsed by :mod:`ast` and walked over a whitelist: numbers, names (the design
variables and ``pi``), ``+ - * / **``, unary ``+ -``, parentheses and calls of ``sqrt sin cos
tan asin acos atan atan2`` (angles in radians). Anything else - attribute access,
subscripts, comprehensions, keywords, strings, ``__import__`` - is refused naming the field.
The text is bounded (:data:`MAX_LENGTH` characters, :data:`MAX_NODES` nodes) and so is what
``**`` may produce (exponent within :data:`MAX_EXPONENT`, result within
:data:`MAX_MAGNITUDE`), so ``9**9**9**9`` is refused at once instead of computed.
"""

from __future__ import annotations

import ast
import functools
import math
from collections.abc import Callable, Mapping

from ..errors import InputError

MAX_LENGTH = 500  # characters
MAX_NODES = 200
MAX_EXPONENT = 64.0
MAX_MAGNITUDE = 1e15

FUNCTIONS: dict[str, tuple[Callable[..., float], int]] = {
    "sqrt": (math.sqrt, 1),
    "sin": (math.sin, 1),
    "cos": (math.cos, 1),
    "tan": (math.tan, 1),
    "asin": (math.asin, 1),
    "acos": (math.acos, 1),
    "atan": (math.atan, 1),
    "atan2": (math.atan2, 2),
}
CONSTANTS = {"pi": math.pi}
SYNTAX = (
    "arithmetic: numbers, design variables, pi, + - * / **, parentheses, "
    + " ".join(FUNCTIONS)
)


def evaluate(field: str, value: object, variables: Mapping[str, float]) -> float:
    """The finite number ``value`` stands for: a number as it is, a string as an expression
    of ``variables``. Raises :class:`InputError` naming ``field`` otherwise."""
    if isinstance(value, bool):
        raise InputError(field, value, "a number or an arithmetic expression")
    if isinstance(value, (int, float)):
        x = float(value)
        if not math.isfinite(x):
            raise InputError(field, value, "a finite number")
        return x
    if not isinstance(value, str):
        raise InputError(field, value, "a number or an arithmetic expression (a string)")
    if len(value) > MAX_LENGTH:
        raise InputError(field, value[:40] + "...", f"an expression of at most {MAX_LENGTH} "
                         f"characters (this one has {len(value)})")
    tree, nodes = _parse(value.strip())
    if tree is None:
        raise InputError(field, value, SYNTAX, "not a valid expression")
    if nodes > MAX_NODES:
        raise InputError(field, value[:40] + "...", f"an expression of at most {MAX_NODES} terms")
    try:
        x = _Evaluator(field, value, variables).visit(tree.body)
    except (ZeroDivisionError, OverflowError, ValueError) as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError(field, value, "an expression with a finite value", str(exc)) from None
    if not math.isfinite(x):
        raise InputError(field, value, "an expression with a finite value")
    return x


@functools.lru_cache(maxsize=4096)  # a study's cases share their expressions
def _parse(text: str) -> tuple[ast.Expression | None, int]:
    """The syntax tree of ``text`` (None if it is not an expression) and its node count."""
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        return None, 0
    return tree, sum(1 for _ in ast.walk(tree))


class _Evaluator:
    def __init__(self, field: str, text: str, variables: Mapping[str, float]) -> None:
        self.field, self.text, self.variables = field, text, variables

    def refuse(self, what: str) -> InputError:
        return InputError(self.field, self.text, SYNTAX, f"{what} is not allowed")

    def visit(self, node: ast.AST) -> float:
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
                raise self.refuse(f"the constant {node.value!r}")
            return float(node.value)
        if isinstance(node, ast.Name):
            if node.id in self.variables:
                return float(self.variables[node.id])
            if node.id in CONSTANTS:
                return CONSTANTS[node.id]
            known = ", ".join([*self.variables, *CONSTANTS])
            raise InputError(self.field, self.text, f"names among: {known}",
                             f"{node.id!r} is not defined")
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
            x = self.visit(node.operand)
            return -x if isinstance(node.op, ast.USub) else x
        if isinstance(node, ast.BinOp):
            return self.binary(node)
        if isinstance(node, ast.Call):
            return self.call(node)
        raise self.refuse(type(node).__name__)

    def binary(self, node: ast.BinOp) -> float:
        a, b = self.visit(node.left), self.visit(node.right)
        op = node.op
        if isinstance(op, ast.Add):
            return a + b
        if isinstance(op, ast.Sub):
            return a - b
        if isinstance(op, ast.Mult):
            return a * b
        if isinstance(op, ast.Div):
            if b == 0.0:
                raise InputError(self.field, self.text, "an expression with a finite value",
                                 "division by zero")
            return a / b
        if isinstance(op, ast.Pow):
            if abs(b) > MAX_EXPONENT:
                raise InputError(self.field, self.text,
                                 f"a power with an exponent within ±{MAX_EXPONENT:g}",
                                 f"exponent {b:g}")
            if a == 0.0 and b < 0.0:
                raise InputError(self.field, self.text, "an expression with a finite value",
                                 "zero to a negative power")
            if a < 0.0 and not float(b).is_integer():
                raise InputError(self.field, self.text, "a real value",
                                 "a negative number to a fractional power")
            if a != 0.0 and b * math.log10(abs(a)) > math.log10(MAX_MAGNITUDE):
                raise InputError(self.field, self.text,
                                 f"a power of magnitude at most {MAX_MAGNITUDE:g}")
            return a**b
        raise self.refuse(f"the operator {type(op).__name__}")

    def call(self, node: ast.Call) -> float:
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            what = node.func.id if isinstance(node.func, ast.Name) else "this call"
            raise self.refuse(f"calling {what}")
        if node.keywords:
            raise self.refuse("a keyword argument")
        fn, arity = FUNCTIONS[node.func.id]
        if len(node.args) != arity:
            raise InputError(self.field, self.text, f"{node.func.id} of {arity} argument(s)")
        args = [self.visit(a) for a in node.args]
        try:
            return float(fn(*args))
        except ValueError:
            raise InputError(self.field, self.text, f"arguments inside the domain of "
                             f"{node.func.id}") from None
