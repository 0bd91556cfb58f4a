"""kombu's Redis transport with a channel that survives being closed after its connection.

Celery 5.7 closes the broken connection as soon as the consumer sees it lost (before it
reconnects). Closing the connection closes its default channel, whose ``close`` first drops
its connection pools and then restores the unacknowledged messages - which builds a new
pool from the transport's client. When the transport has already let go of that client,
this raises ``AttributeError: 'NoneType' object has no attribute 'hostname'``, which Celery
does not count as a connection error: the worker logs "Unrecoverable error" and exits, and
the study waits for a worker that is gone. Seen here on a Redis restart mid-study (about one
restart in four under load; the fault test ``test_redis_restart_mid_study`` timed out in CI).

Nothing is lost by skipping that restore: the messages stay in Redis's unacked set (restored
after the visibility timeout), and the database, not the broker, is the source of truth - the
reconciler re-sends queued cases whose messages are gone and expired leases come back.
"""

from __future__ import annotations

import logging

from kombu.transport import redis

log = logging.getLogger(__name__)

#: What ``broker_transport`` names for a ``redis://`` or ``rediss://`` broker URL.
TRANSPORT = f"{__name__}:Transport"


class Channel(redis.Channel):
    def close(self) -> None:
        if not self.closed and self.connection is not None and self.connection.client is None:
            # the transport let go of its client: close everything but the restore, which
            # has nothing left to connect through
            self.do_restore = False
            unacked = len(self._qos._delivered) if self._qos is not None else 0
            if unacked:
                log.warning("broker channel closed after its connection: %d unacknowledged "
                            "message(s) left to the visibility timeout and the reconciler",
                            unacked)
        super().close()


class Transport(redis.Transport):
    Channel = Channel
