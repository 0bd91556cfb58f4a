"""The Redis channel closed after its connection let go of its client, while it still holds
unacknowledged messages (workers/redis_transport.py): the close must not raise - kombu's own
channel raises AttributeError there, which ended the worker ("Unrecoverable error") on a
Redis restart - and the messages must stay in Redis's unacked set for the visibility timeout
to restore. The fault tests' restarts only rarely close such a channel (the restart test
passed 2 times in 3 without the fix); this test closes one every time."""

from __future__ import annotations

from pathlib import Path

from gapsweep.workers.redis_transport import TRANSPORT
from support.backends import require_redis_server
from support.processes import RedisServer

QUEUE = "gapsweep-transport-test"


def test_channel_closed_after_its_connection_keeps_unacknowledged_messages(
        tmp_path: Path, procs):
    from kombu import Connection

    require_redis_server()
    server = RedisServer(procs, tmp_path / "redis", appendonly=False).start()
    conn = Connection(server.url, transport=TRANSPORT)
    channel = conn.default_channel
    channel.queue_declare(queue=QUEUE)
    for k in range(3):
        channel.basic_publish(channel.prepare_message(f"case {k}"), exchange="",
                              routing_key=QUEUE)
    taken = [channel.basic_get(QUEUE, no_ack=False) for _ in range(2)]
    assert [m.body for m in taken] == [b"case 0", b"case 1"]
    assert len(channel.qos._delivered) == 2  # delivered, not acknowledged
    client = channel.client  # a Redis client of its own, kept to read the server after

    # what Celery does on a lost broker: the connection lets go of its transport's client,
    # then closes the channel
    conn._do_close_transport()
    assert channel.connection.client is None
    channel.close()  # kombu's own Channel raises AttributeError ('NoneType' ... 'hostname')
    assert channel.closed

    # nothing lost: the two taken are in the unacked set, the third still queued
    assert client.hlen(channel.unacked_key) == 2
    assert client.llen(QUEUE) == 1
    client.connection_pool.disconnect()
