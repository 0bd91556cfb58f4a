"""The Celery application: broker from the settings, the settings long CPU-bound cases need.

``celery -A gapsweep.workers.celery_app worker`` and ``gapsweep worker`` use :data:`app`.
With ``GAPSWEEP_BROKER_URL`` unset the broker is kombu's filesystem transport in the data
folder (the embedded default: no server to install); otherwise Redis (or any kombu URL).
The database, not the broker, is the source of truth: results are ignored here, and a lost
message costs a retry through the reconciler, never a case.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from celery import Celery

from gapsweep.settings import Settings, get_settings

TASK_NAME = "gapsweep.run_chunk"


def broker_folders(data_dir: Path) -> dict[str, Path]:
    """The embedded broker's folders: messages, processed messages, exchange tables."""
    root = data_dir / "broker"
    return {"queue": root / "queue", "processed": root / "processed", "control": root / "control"}


def _broker(settings: Settings) -> tuple[str, dict[str, Any]]:
    if settings.broker_url:
        return settings.broker_url, {
            # A message unacked this long goes back to the queue: it must exceed the hard
            # time limit, or a long case would run again while still running.
            "visibility_timeout": settings.visibility_timeout_s,
            # How soon a dead worker's unacked messages come back (default ~60-90 s).
            "unacked_restore_interval": settings.restore_interval_s,
        }
    folders = broker_folders(settings.data_dir)
    for folder in folders.values():
        folder.mkdir(parents=True, exist_ok=True)
    from .filesystem_broker import SCHEME  # registers the transport (atomic writes)

    return f"{SCHEME}://", {
        # producer and consumer share one folder: in = out
        "data_folder_in": str(folders["queue"]),
        "data_folder_out": str(folders["queue"]),
        "processed_folder": str(folders["processed"]),
        "store_processed": False,
        "control_folder": str(folders["control"]),
        # 1 s by default: 8 tasks/s measured; 0.05 s keeps a 15-case study interactive
        "polling_interval": settings.polling_interval_s,
    }


def _transport(url: str) -> str | None:
    """The kombu transport for ``url`` where it is not the scheme's own: Redis gets a
    channel that survives being closed after its connection (:mod:`.redis_transport`)."""
    if url.startswith(("redis://", "rediss://")):
        from .redis_transport import TRANSPORT

        return TRANSPORT
    return None


def make_celery(settings: Settings | None = None) -> Celery:
    """A Celery app configured from ``settings`` (the environment by default)."""
    settings = settings or get_settings()
    url, options = _broker(settings)
    celery = Celery("gapsweep", broker=url, include=["gapsweep.workers.tasks"])
    celery.conf.update(
        broker_transport=_transport(url),
        # JSON only: no pickle over the wire, a message is a list of case ids
        task_serializer="json",
        accept_content=["json"],
        result_serializer="json",
        # the database holds every result; a result backend would be a second truth
        task_ignore_result=True,
        result_backend=None,
        # ack after the task ran: a worker lost mid-chunk leaves its message to redeliver
        # (the conditional claim makes a redelivered chunk harmless)
        task_acks_late=True,
        # a lost worker process counts as a failure to redeliver, not a success to drop;
        # the redelivery cap is the case's attempts counter in the database
        task_reject_on_worker_lost=True,
        # one chunk at a time per process: a prefetched chunk would wait behind a long one
        worker_prefetch_multiplier=1,
        # a chunk that runs away is stopped: soft limit raises inside the task, hard kills
        task_soft_time_limit=settings.soft_time_limit_s,
        task_time_limit=settings.hard_time_limit_s,
        # a broker connection lost mid-chunk: the chunk's message will be redelivered, so
        # stop the running task rather than finish work nobody will ack
        worker_cancel_long_running_tasks_on_connection_loss=True,
        # bound the memory a long-lived pool child can accumulate (numba, result arrays)
        worker_max_tasks_per_child=500,
        broker_connection_retry_on_startup=True,
        broker_transport_options=options,
        worker_hijack_root_logger=False,
        task_default_queue="gapsweep",
    )
    return celery


app = make_celery()
