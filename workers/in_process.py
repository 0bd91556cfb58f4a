"""A dispatcher that runs each chunk at once, in this process, through the task's function.

For tests and scripts that want a study run without any worker process; the queue message,
the claim and the store are the same as a worker's. It lives apart from :mod:`.dispatch`
because it needs :func:`.case_runner.run_chunk`, which itself enqueues through
:mod:`.dispatch`: kept in either module, the two would import each other.
"""

from __future__ import annotations

from sqlalchemy.orm import Session, sessionmaker

from gapsweep.settings import Settings

from .case_runner import run_chunk


class InProcessDispatcher:
    """Runs each chunk it is sent at once, in this process (a :class:`.dispatch.Dispatcher`)."""

    def __init__(
        self, sessions: sessionmaker[Session], settings: Settings, holder: str = "in-process"
    ) -> None:
        self._sessions, self._settings, self._holder = sessions, settings, holder

    def send(self, chunk: list[int]) -> None:
        # itself as the dispatcher: what a chunk queues (a finished study's certificates,
        # crashed cases) runs here too, as a worker's would go out through the broker
        run_chunk(chunk, sessions=self._sessions, holder=self._holder, settings=self._settings,
                  dispatcher=self)

    def pending_messages(self) -> int | None:
        return 0
