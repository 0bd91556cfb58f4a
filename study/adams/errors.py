"""The one error of the ADAMS import: a dataset it cannot read at all."""

from __future__ import annotations


class AdamsError(ValueError):
    """A dataset refused as a whole (too large, not UTF-8, an Adams/View command file, a
    statement past the limits); ``line`` 0 when no line is to blame."""

    def __init__(self, why: str, line: int = 0, statement: str = "(file)") -> None:
        super().__init__(f"line {line}: {statement}: {why}" if line else why)
        self.why, self.line, self.statement = why, line, statement
