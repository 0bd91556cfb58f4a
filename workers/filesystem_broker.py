"""The embedded broker: kombu's filesystem transport with messages written atomically.

kombu's ``filesystem`` transport writes a message by opening its final name and then
writing it under an advisory ``flock``; the consumer never takes that lock - it renames the
file away and reads it. A consumer polling while a message is being written therefore reads
an empty or partial file: measured here (kombu 5.7), the first message a warm worker polled
was read empty, ``json.loads`` raised, and the worker's consumer stopped with
"Unrecoverable error: JSONDecodeError" (the message lost, the worker dead). Here a message is
written under a name the consumer ignores (``.part``) and renamed into place, which is
atomic on one filesystem, so a consumer only ever sees whole messages. Reading is kombu's.
"""

from __future__ import annotations

import os
import uuid
from time import monotonic

from kombu.transport import TRANSPORT_ALIASES, filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps

#: broker URL scheme of this transport (``gapsweep-fs://``)
SCHEME = "gapsweep-fs"


class Channel(filesystem.Channel):
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


TRANSPORT_ALIASES[SCHEME] = f"{__name__}:Transport"
