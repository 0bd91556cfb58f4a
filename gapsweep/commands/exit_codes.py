"""Exit codes of every command (design.md 4.5): scripts branch on them."""

EXIT_OK = 0
EXIT_FAILED = 1  # a case failed (or, for study commands, was cancelled)
EXIT_BAD_INPUT = 2  # bad input or an unknown id
EXIT_TIMEOUT = 3  # `wait` ran out of time
