"""Exit codes of every command (design.md 4.5): scripts branch on them; and the error the
commands end with on purpose (the archive's own errors, :mod:`gapsweep.archive.errors`, are
mapped to these codes by :func:`gapsweep.cli.main`)."""

EXIT_OK = 0
EXIT_FAILED = 1  # a case failed (or, for study commands, was cancelled)
EXIT_BAD_INPUT = 2  # bad input or an unknown id
EXIT_TIMEOUT = 3  # `wait` ran out of time


class CommandError(Exception):
    """A refusal or failure a command explains in one line (``error: ...`` on stderr); the
    command exits with ``code``."""

    def __init__(self, message: str, code: int = EXIT_BAD_INPUT) -> None:
        self.code = code
        super().__init__(message)

