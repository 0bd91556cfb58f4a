"""What the archive refuses, local or remote, as the caller sees it: one class per reason,
so the CLI picks its exit code (design.md 4.5), the API its status and a notebook its
``except`` from the class, whichever implementation raised it."""

from __future__ import annotations


class ArchiveError(Exception):
    """A refusal or failure explained in one line (``str(exc)``)."""


class RefusedError(ArchiveError, ValueError):
    """Bad input, refused credentials, an operation the archive does not offer: nothing was
    changed (the CLI exits 2)."""


class ForbiddenError(ArchiveError, PermissionError):
    """The principal's role does not allow the change (the message says who, what, whose;
    nothing was changed; the CLI exits 2). Not a ValueError: a page tells the two apart."""


class UnknownIdError(ArchiveError):
    """An id that names no (undeleted) study - or, with ``what``, no measurement of a live
    study: ``args[0]`` is the id (the CLI exits 2)."""

    def __init__(self, key: int, what: str = "study") -> None:
        super().__init__(key)
        self.what = what

    @property
    def study_id(self) -> int:
        return self.args[0]

    def __str__(self) -> str:
        return f"no {self.what} with id {self.args[0]}"


class UnavailableError(ArchiveError):
    """The archive cannot be reached or answered with something else than gapsweep's API
    (the CLI exits 1: trying again later may work)."""
