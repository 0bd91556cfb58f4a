"""Long-running services and upkeep: ``worker``, ``workers``, ``serve``, ``db upgrade``.

    gapsweep worker [--concurrency N]      a Celery worker on the configured broker
    gapsweep workers [--json]              the workers that answer
    gapsweep serve [--host H] [--port P] [--workers N] [--threads T] [--auth]
                                           the web app (+ local workers, embedded) on
                                           waitress; a host other than loopback needs
                                           accounts (users exist, or GAPSWEEP_ADMIN_PASSWORD
                                           creates the first admin)
    gapsweep db upgrade                    migrate the database to the current schema
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import socket
import sys

from gapsweep.settings import get_settings

from .exit_codes import EXIT_FAILED, EXIT_OK, CommandError
from .output import print_json


def cmd_worker(args: argparse.Namespace) -> int:
    settings = get_settings()
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    from gapsweep.db.engine import open_database
    from gapsweep.workers.celery_app import app

    open_database(settings.database_url)  # migrate before the first claim, once
    concurrency = args.concurrency or settings.concurrency
    name = args.name or f"gapsweep-{os.getpid()}@{socket.gethostname()}"
    broker = settings.broker_url or f"embedded (filesystem broker in {settings.data_dir})"
    print(f"gapsweep worker {name}: {concurrency} process(es), broker {broker}", flush=True)
    app.worker_main(
        [
            "worker",
            "--concurrency", str(concurrency),
            "--pool", "prefork",
            "--loglevel", args.loglevel,
            "--hostname", name,
            "--queues", app.conf.task_default_queue,
            # no gossip/mingle: the database coordinates workers, and both slow the start
            "--without-gossip",
            "--without-mingle",
        ]
    )
    return EXIT_OK


def live_workers() -> list[dict]:
    """Workers that answer: ready marks of local ones, and a Celery ping on a broker."""
    from gapsweep.workers.readiness import live_workers as local

    settings = get_settings()
    found = [{"name": m["holder"], "source": "local", **m} for m in local(settings)]
    if settings.broker_url:
        from gapsweep.workers.celery_app import app

        for reply in app.control.ping(timeout=1.0) or []:
            found += [{"name": name, "source": "broker"} for name in reply]
    return found


def cmd_workers(args: argparse.Namespace) -> int:
    workers = live_workers()
    if args.json:
        print_json({"workers": workers})
    else:
        for w in workers:
            print(w["name"])
        print(f"{len(workers)} worker(s)")
    return EXIT_OK if workers else EXIT_FAILED


def is_loopback(host: str) -> bool:
    """``localhost``, 127.0.0.0/8 or ::1: only this machine can connect."""
    name = host.strip().strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:  # another host name: it may resolve to anything
        return False


def _accounts_gate(args: argparse.Namespace, archive) -> None:
    """Serve's accounts, settled before anything starts: the first admin from
    ``GAPSWEEP_ADMIN_PASSWORD``; a host other than loopback refused without accounts
    (whoever reaches the port would have every right); the state said in one line."""
    from gapsweep.archive.accounts import ADMIN_PASSWORD_VARIABLE, ADMIN_USER_VARIABLE

    created = archive.bootstrap_admin()
    if created:
        print(f"gapsweep serve: created the first admin {created!r} from "
              f"{ADMIN_PASSWORD_VARIABLE}", flush=True)
    elif os.environ.get(ADMIN_PASSWORD_VARIABLE):
        print(f"gapsweep serve: {ADMIN_PASSWORD_VARIABLE} ignored: accounts exist already "
              "(`gapsweep user password NAME` changes a password)", flush=True)
    configured = archive.accounts_exist()
    if not configured and not is_loopback(args.host):
        raise CommandError(
            f"serve --host {args.host}: not a loopback address, and no account exists, so "
            "anyone who reaches the port would have every right. Set accounts up first: "
            "`gapsweep user add NAME --role admin`, or set "
            f"{ADMIN_PASSWORD_VARIABLE} (and {ADMIN_USER_VARIABLE}, default admin) for serve "
            "to create the first admin; or serve on 127.0.0.1")
    if configured:
        print("gapsweep serve: accounts on: sign in at /login; API clients send "
              "Authorization: Bearer <token> (`gapsweep user token NAME`)", flush=True)
    elif args.auth:
        print("gapsweep serve: accounts required (--auth), but no user exists yet: nobody can "
              "sign in until `gapsweep user add NAME --role admin`", flush=True)
    else:
        print(f"gapsweep serve: accounts are off: anyone who can reach {args.host}:{args.port} "
              "has full rights; `gapsweep user add NAME --role admin` turns them on",
              flush=True)


def cmd_serve(args: argparse.Namespace) -> int:
    settings = get_settings()
    from gapsweep.archive.local import LocalArchive
    from gapsweep.web.app import create_app

    from .termination import received_signal, stop_cleanly_on_sigterm

    _accounts_gate(args, LocalArchive.open(settings))
    stop_cleanly_on_sigterm()  # the web server's threads and the local workers stop cleanly
    local = None
    if not settings.broker_url:
        from gapsweep.workers.local_workers import LocalWorkers

        local = LocalWorkers(settings, args.workers).start()
    try:
        app = create_app(settings, require_accounts=args.auth)
        listening = waitress_server(app.server, args.host, args.port, args.threads)
        url = f"http://{args.host}:{args.port}/"
        workers = (f"{local.concurrency} local worker process(es)" if local
                   else f"workers on {settings.broker_url}")
        print(f"gapsweep serve: open {url}  ({workers}, database {settings.database_url}); "
              "Ctrl-C stops it", flush=True)
        listening.run()  # until SIGTERM or Ctrl-C
    finally:
        if local is not None:
            local.stop()
    signum = received_signal()
    if signum is None:  # waitress returns on Ctrl-C too (it swallows KeyboardInterrupt)
        print("interrupted", file=sys.stderr)
        return 130
    return 128 + signum


def waitress_server(server, host: str, port: int, threads: int):
    """``server`` (a WSGI app) on waitress, listening on ``host:port``; its ``run()`` serves
    until SIGTERM or Ctrl-C. A port that cannot be had exits 1 naming it.

    Waitress, not Flask's development server (which says it is one) nor gunicorn (Unix only,
    a master process of its own that would own SIGTERM and the local workers' shutdown):
    pure Python, one process with ``threads`` request threads, on every platform the
    embedded default runs on; benchmarks/wsgi_servers.py measures the three."""
    from waitress import create_server

    try:
        return create_server(server, host=host, port=port, threads=threads, ident="gapsweep")
    except OSError as exc:  # the port is taken, the address is not this machine's ...
        raise CommandError(f"serve --host {host} --port {port}: cannot listen there "
                           f"({exc.strerror or exc})", EXIT_FAILED) from None


def cmd_db_upgrade(args: argparse.Namespace) -> int:
    from gapsweep.db.engine import current_revision, upgrade

    url = get_settings().database_url
    upgrade(url)
    print(f"database at revision {current_revision(url)}: {url}", file=sys.stderr)
    return EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    """Add the service commands to the top-level parser."""
    worker = sub.add_parser("worker", help="run a Celery worker on the configured broker")
    worker.add_argument("--concurrency", type=int, default=None, help="processes (default: cores)")
    worker.add_argument("--name", default=None, help="node name (default: gapsweep-PID@host)")
    worker.add_argument("--loglevel", default="INFO")
    worker.set_defaults(func=cmd_worker)

    workers = sub.add_parser("workers", help="list the workers that answer")
    workers.add_argument("--json", action="store_true")
    workers.set_defaults(func=cmd_workers)

    serve = sub.add_parser("serve", help="the web app (and local workers, embedded)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8050)
    serve.add_argument("--workers", type=int, default=None, help="local worker processes")
    serve.add_argument("--threads", type=int, default=8,
                       help="request threads of the web server (default 8)")
    serve.add_argument("--auth", action="store_true",
                       help="require a sign-in even before the first user exists")
    serve.set_defaults(func=cmd_serve)

    db = sub.add_parser("db", help="database upkeep")
    db_sub = db.add_subparsers(dest="db_command", required=True)
    up = db_sub.add_parser("upgrade", help="migrate the database to the current schema")
    up.set_defaults(func=cmd_db_upgrade)
