"""The embedded broker: kombu's filesystem transport with messages written atomically.

kombu's ``filesystem`` transport writes a message by opening its final name and then
writing it under an advisory ``flock``; the consumer never takes that lock - it renames the
file away and reads it. A consumer polling while a message is being written therefore reads
an empty or partial file: measured here (kombu 5.7), the first message a warm worker polled
was read empty, ``json.loads`` raised, and the worker's consumer stopped with
"Unrecoverable error: JSONDecodeError" (the message lost, the worker dead). Here a message is
written under a name the consumer ignores (``.part``) and renamed into place, which is
atomic on one filesystem, so a consumer only ever sees whole messages. Reading is kombu's.

A worker whose prefetch slots are all taken (one chunk per pool process) takes its next
message the moment a chunk's ack frees a slot. kombu's transport instead found the slots
taken, slept a whole polling interval (50 ms) and looked again: each pool process idled
25 ms a chunk on average, about a fifth of a chunk of 8 two-revolution cases (issue 28,
benchmarks/system_throughput.py). An empty queue is still polled at the interval.

A worker told to stop takes no new message. Celery's blocking consumer loop (the one a
transport without an event loop gets, ``celery.worker.loops.synloop``) drains once more
after the warm-shutdown flag is set; that drain waited for the running chunks' acks and then
took the next message, so a warm shutdown started a chunk it would not finish with the
worker (seen in a CI run: two cases claimed while the worker stopped, run again when their
lease expired). The drain now gives up, as on a timeout, once the worker is stopping; the
message stays in the folder for the next worker.
"""

from __future__ import annotations

import os
import threading
import uuid
from queue import Empty
from time import monotonic, sleep

from celery.worker import state as worker_state
from kombu.transport import TRANSPORT_ALIASES, filesystem, virtual
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps

#: broker URL scheme of this transport (``gapsweep-fs://``)
SCHEME = "gapsweep-fs"


class QoS(virtual.QoS):
    """kombu's prefetch accounting; an ack or reject also wakes the transport's wait."""

    def ack(self, delivery_tag):
        super().ack(delivery_tag)
        self.channel.connection.slot_freed.set()

    def reject(self, delivery_tag, requeue=False):
        super().reject(delivery_tag, requeue=requeue)
        self.channel.connection.slot_freed.set()


class Channel(filesystem.Channel):
    QoS = QoS

    def _put(self, queue, payload, **kwargs):
        """Put ``payload`` onto ``queue``: written as ``<name>.part``, then renamed."""
        name = f"{int(round(monotonic() * 1000))}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        part = final + ".part"  # "<ms>_<uuid>.<queue>.msg.part": not a message of any queue
        try:
            with open(part, "wb") as handle:
                handle.write(str_to_bytes(dumps(payload)))
            os.replace(part, final)
        except OSError as exc:
            raise filesystem.ChannelError(f"Cannot add file {final!r} to directory") from exc


class Transport(filesystem.Transport):
    Channel = Channel
    driver_name = "gapsweep-filesystem"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        #: set when an ack or a reject frees a prefetch slot (from the pool's result thread)
        self.slot_freed = threading.Event()

    def _slots_taken(self) -> bool:
        """True when every consuming channel has as many unacked messages as it may hold."""
        consuming = [c for c in self.channels if c._consumers]
        return bool(consuming) and not any(c.qos.can_consume() for c in consuming)

    def drain_events(self, connection, timeout=None):
        """kombu's loop, except that with every slot taken it waits for an ack, not a poll."""
        start = monotonic()
        interval = self.polling_interval
        if timeout and interval and interval > timeout:
            interval = timeout
        while True:
            if stopping():
                raise TimeoutError()  # what a drain with nothing to deliver raises
            self.slot_freed.clear()  # before the look: an ack after it is not missed
            try:
                self.cycle.get(self._deliver, timeout=timeout)
                return
            except Empty:
                pass
            if timeout is not None and monotonic() - start >= timeout:
                raise TimeoutError()
            if self._slots_taken():
                self.slot_freed.wait(interval if interval is not None else timeout)
            elif interval is not None:
                sleep(interval)


def stopping() -> bool:
    """Whether this process's Celery worker was told to stop (warm or cold shutdown): the
    flags ``celery.worker.state.maybe_shutdown`` reads, set to an exit code (0 included)."""
    flags = (worker_state.should_stop, worker_state.should_terminate)
    return any(flag is not None and flag is not False for flag in flags)


TRANSPORT_ALIASES[SCHEME] = f"{__name__}:Transport"
