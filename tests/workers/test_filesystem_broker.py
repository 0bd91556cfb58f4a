"""The embedded broker (workers/filesystem_broker.py) against kombu's consumer loop: whole
messages only, and a consumer whose prefetch slot is taken gets the next message as soon as
its ack frees the slot, not a polling interval later (issue 28: each pool process idled
half an interval, 25 ms, a chunk)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from gapsweep.workers import filesystem_broker  # registers the scheme
from kombu import Connection, Exchange, Queue

POLL_S = 2.0  # long enough that a wait for a poll cannot pass for a wake by the ack


def _connection(tmp_path: Path) -> Connection:
    folder = tmp_path / "queue"
    folder.mkdir()
    return Connection(f"{filesystem_broker.SCHEME}://", transport_options={
        "data_folder_in": str(folder), "data_folder_out": str(folder),
        "control_folder": str(tmp_path), "store_processed": False,
        "polling_interval": POLL_S,
    })


def test_a_freed_slot_takes_the_next_message_without_waiting_for_a_poll(tmp_path: Path):
    queue = Queue("q", Exchange("q", type="direct"), routing_key="q")
    got: list[tuple[float, object]] = []
    with _connection(tmp_path) as conn:
        producer = conn.Producer(serializer="json")
        for i in range(2):
            producer.publish([i], exchange=queue.exchange, routing_key="q", declare=[queue])
        messages = []
        consumer = conn.Consumer(queue, callbacks=[lambda body, m: (
            got.append((time.monotonic(), body)), messages.append(m))], accept=["json"])
        consumer.qos(prefetch_count=1)
        with consumer:
            conn.drain_events(timeout=5)
            assert len(got) == 1  # the slot is taken until this one is acked
            ack_at: list[float] = []

            def ack_later() -> None:  # the pool's result thread acks when a chunk is done
                time.sleep(0.3)
                ack_at.append(time.monotonic())
                messages[0].ack()

            acker = threading.Thread(target=ack_later)
            acker.start()
            conn.drain_events(timeout=5)
            acker.join()
    assert sorted(b for _, b in got) == [[0], [1]]
    # the second message comes with the ack (kombu's loop: at the next poll, up to 2 s on)
    assert got[1][0] - ack_at[0] < POLL_S / 4


def test_an_empty_queue_still_times_out(tmp_path: Path):
    queue = Queue("q", Exchange("q", type="direct"), routing_key="q")
    with _connection(tmp_path) as conn:
        conn.transport.polling_interval = 0.05
        with conn.Consumer(queue, callbacks=[lambda body, m: None], accept=["json"]):
            t0 = time.monotonic()
            with pytest.raises(TimeoutError):
                conn.drain_events(timeout=0.3)
    assert 0.3 <= time.monotonic() - t0 < 2.0


@pytest.mark.parametrize("flag", ["should_stop", "should_terminate"])
def test_a_stopping_worker_takes_no_new_message(tmp_path: Path, monkeypatch, flag):
    # Celery's blocking consumer loop drains once more after a warm shutdown is asked for
    # (celery.worker.loops.synloop); that drain must not start a chunk the worker will not
    # finish (a CI run: two cases claimed during the shutdown, run again after their lease).
    # The flag is an exit code: 0 for a warm shutdown, which is still "stop".
    from celery.worker import state

    # a queue of its own: kombu keeps the declared exchanges per transport class, so a name
    # declared by an earlier test would route this message to that test's folder
    name = f"stop-{flag}"
    queue = Queue(name, Exchange(name, type="direct"), routing_key=name)
    got: list[object] = []
    with _connection(tmp_path) as conn:
        conn.transport.polling_interval = 0.05
        conn.Producer(serializer="json").publish([1], exchange=queue.exchange, routing_key=name,
                                                 declare=[queue])
        with conn.Consumer(queue, callbacks=[lambda body, m: got.append(body)],
                           accept=["json"]):
            monkeypatch.setattr(state, flag, 0)
            with pytest.raises(TimeoutError):
                conn.drain_events(timeout=0.3)
            assert got == []  # left in the folder for the next worker
            monkeypatch.setattr(state, flag, None)
            conn.drain_events(timeout=2.0)
    assert got == [[1]]
