"""Study commands (design.md 4.3): validate, run, submit, wait, the archive and its upkeep.

    gapsweep study validate FILE          case count and estimated time, or the errors
    gapsweep run FILE                     create, run to the end, summary table
    gapsweep submit FILE / wait ID        create and enqueue / follow to the end
    gapsweep studies | show ID | export ID --format csv|parquet|json
    gapsweep cancel ID | retry ID | delete ID | purge

Exit codes (4.5): 0 every case done; 1 some case failed or cancelled; 2 bad input or an
unknown id; 3 ``wait`` timed out. ``--json`` prints the shapes of 4.5 on stdout.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from collections.abc import Iterator
from typing import Any

from gapsweep.settings import Settings, get_settings
from gapsweep.study.errors import SpecError

from .exit_codes import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, EXIT_TIMEOUT
from .output import print_errors, print_json, progress_printer, study_table

HEADLINE = (
    "peak_slider_accel",
    "rms_slider_accel",
    "peak_contact_force",
    "max_penetration",
    "impacts",
    "peak_slider_accel_steady",
)


class UnknownIdError(Exception):
    """An id that names no (undeleted) study."""


def _sessions(settings: Settings):
    from gapsweep.db.engine import open_database

    return open_database(settings.database_url)


def _load(path: str):
    from gapsweep.study.spec import load_spec_file

    return load_spec_file(path)


def cmd_validate(args: argparse.Namespace) -> int:
    from gapsweep.study.designs import estimate_seconds, plan_study

    spec = _load(args.file)
    plan = plan_study(spec)
    n = len(plan.cases)
    estimate = estimate_seconds(spec, n + len(plan.twins))
    if args.json:
        print_json({"cases": n, "estimated_s": estimate})
    else:
        twins = f" (+ {len(plan.twins)} ideal twin(s))" if plan.twins else ""
        print(f"{spec.name}: {n} case(s){twins}, {spec.design} design; "
              f"estimated solver time {estimate:.2f} s")
    return EXIT_OK


def _summary(sessions, study_id: int) -> dict[str, Any]:
    from gapsweep.db import studies

    with sessions() as session:
        detail = studies.study_detail(session, study_id)
    if detail is None:
        raise UnknownIdError(study_id)
    counts = detail["counts"]
    return {
        "study_id": study_id,
        "status": detail["status"],
        "cases": counts["total"],
        "done": counts["done"],
        "failed": counts["failed"],
        "_detail": detail,
    }


def _finish(summary: dict[str, Any], args: argparse.Namespace) -> int:
    detail = summary.pop("_detail")
    if args.json:
        print_json(summary)
    else:
        study_table(detail, HEADLINE)
        print(f"study {summary['study_id']}: {summary['status']}, "
              f"{summary['done']}/{summary['cases']} done, {summary['failed']} failed")
    if summary["status"] != "done":
        return EXIT_FAILED
    return EXIT_OK if summary["done"] == summary["cases"] else EXIT_FAILED


@contextlib.contextmanager
def _local_workers_if_embedded(settings: Settings, concurrency: int | None) -> Iterator[None]:
    """The embedded default starts its own workers (design.md 4.5); a broker URL means
    ``gapsweep worker`` processes elsewhere do the work."""
    if settings.broker_url:
        yield
        return
    from gapsweep.workers.local_workers import LocalWorkers

    from .termination import stop_cleanly_on_sigterm

    stop_cleanly_on_sigterm()
    with LocalWorkers(settings, concurrency):
        yield


def _wait(sessions, settings: Settings, study_id: int, timeout_s: float | None, quiet: bool):
    """Poll the study until nothing is queued or running; False on timeout. The reconciler
    runs here too, so a case whose worker died is sent again while we wait."""
    from gapsweep.db import studies
    from gapsweep.workers.reconciler import start_reconciler

    stop = start_reconciler(settings, sessions)
    show = progress_printer(sys.stderr, quiet)
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    try:
        while True:
            with sessions() as session:
                progress = studies.study_progress(session, study_id)
            show(progress)
            if progress["queued"] == 0 and progress["running"] == 0:
                return True
            if deadline is not None and time.monotonic() > deadline:
                return False
            time.sleep(0.1)
    finally:
        stop.set()


def cmd_run(args: argparse.Namespace) -> int:
    from gapsweep.workers.submit import submit_study

    spec = _load(args.file)
    settings = get_settings()
    sessions = _sessions(settings)
    # workers start first: they load the kernels while the study is written
    with _local_workers_if_embedded(settings, args.concurrency):
        study_id = submit_study(spec, sessions=sessions, settings=settings)
        print(f"study {study_id}: {spec.name}", file=sys.stderr)
        _wait(sessions, settings, study_id, None, args.quiet)
    return _finish(_summary(sessions, study_id), args)


def cmd_submit(args: argparse.Namespace) -> int:
    from gapsweep.workers.submit import submit_study

    spec = _load(args.file)
    settings = get_settings()
    sessions = _sessions(settings)
    study_id = submit_study(spec, sessions=sessions, settings=settings)
    summary = _summary(sessions, study_id)
    summary.pop("_detail")
    if args.json:
        print_json(summary)
    else:
        print(f"study {study_id} submitted: {summary['cases']} case(s) queued")
    return EXIT_OK


def cmd_wait(args: argparse.Namespace) -> int:
    from gapsweep.workers.readiness import live_workers

    settings = get_settings()
    sessions = _sessions(settings)
    _summary(sessions, args.id)  # an unknown id fails before anything starts
    # embedded, with nobody to run the cases: start local workers for the wait
    own = not settings.broker_url and not live_workers(settings)
    with _local_workers_if_embedded(settings, None) if own else contextlib.nullcontext():
        finished = _wait(sessions, settings, args.id, args.timeout, args.quiet)
    summary = _summary(sessions, args.id)
    code = _finish(summary, args)
    return code if finished else EXIT_TIMEOUT


def cmd_studies(args: argparse.Namespace) -> int:
    from gapsweep.db import studies

    with _sessions(get_settings())() as session:
        total, items = studies.list_studies(
            session, search=args.search, tag=args.tag, limit=args.limit, offset=0
        )
    if args.json:
        print_json({"total": total, "items": items})
        return EXIT_OK
    print(f"{'id':>6}  {'status':<10} {'done':>11}  {'created':<19}  name")
    for item in items:
        created = str(item["created"])[:19].replace("T", " ")
        progress = f"{item['done']}/{item['cases']}"
        status = item["status"]
        print(f"{item['id']:>6}  {status:<10} {progress:>11}  {created:<19}  {item['name']}")
    print(f"{len(items)} of {total} stud{'y' if total == 1 else 'ies'}")
    return EXIT_OK


def cmd_show(args: argparse.Namespace) -> int:
    from gapsweep.db import studies

    with _sessions(get_settings())() as session:
        detail = studies.study_detail(session, args.id)
    if detail is None:
        raise UnknownIdError(args.id)
    if args.json:
        print_json(detail)
        return EXIT_OK
    print(f"study {detail['id']}: {detail['name']}  [{detail['status']}]  model {detail['model']}")
    if detail.get("description"):
        print(detail["description"])
    prov = detail.get("provenance") or {}
    print("made by gapsweep {} (commit {}), numpy {}, scipy {}, numba {}, on {}".format(
        prov.get("gapsweep"), prov.get("git_commit"), prov.get("numpy"), prov.get("scipy"),
        prov.get("numba"), prov.get("host")))
    study_table(detail, HEADLINE, with_attempts=True)
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    from gapsweep.db import studies

    from .export import write_rows

    with _sessions(get_settings())() as session:
        if studies.study_detail(session, args.id) is None:
            raise UnknownIdError(args.id)
        columns, rows = studies.export_rows(session, args.id)
    write_rows(columns, rows, args.format, args.output)
    return EXIT_OK


def _change(args: argparse.Namespace, action: str) -> int:
    from gapsweep.db import studies

    settings = get_settings()
    sessions = _sessions(settings)
    with sessions.begin() as session:
        if studies.study_detail(session, args.id) is None:
            raise UnknownIdError(args.id)
        result = getattr(studies, action)(session, study_id=args.id)
    if action == "retry_failed" and result:
        from gapsweep.workers.dispatch import enqueue
        from gapsweep.workers.submit import default_dispatcher

        enqueue(result, sessions=sessions, dispatcher=default_dispatcher(), chunk_size=1)
        print(f"study {args.id}: {len(result)} failed case(s) queued again")
        if not settings.broker_url:
            print("(embedded: they run while `gapsweep serve` or `gapsweep wait "
                  f"{args.id}` is running)")
    else:
        print(f"study {args.id}: {action.replace('_', ' ')} done")
    return EXIT_OK


def cmd_purge(args: argparse.Namespace) -> int:
    from gapsweep.db import studies

    with _sessions(get_settings()).begin() as session:
        counts = studies.purge_deleted(session)
    if args.json:
        print_json(counts)
    else:
        print("purged: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    return EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    """Add the study commands to the top-level parser."""
    study = sub.add_parser("study", help="study files")
    study_sub = study.add_subparsers(dest="study_command", required=True)
    val = study_sub.add_parser("validate", help="check a study file: case count, estimated time")
    val.add_argument("file")
    val.add_argument("--json", action="store_true")
    val.set_defaults(func=cmd_validate)

    run = sub.add_parser("run", help="create a study and run it to completion")
    run.add_argument("file")
    run.add_argument("--concurrency", type=int, default=None, help="local worker processes")
    submit = sub.add_parser("submit", help="create a study, enqueue it, return its id")
    submit.add_argument("file")
    wait = sub.add_parser("wait", help="follow a study to the end")
    wait.add_argument("id", type=int)
    wait.add_argument("--timeout", type=float, default=None, metavar="S")
    for p, func in ((run, cmd_run), (submit, cmd_submit), (wait, cmd_wait)):
        p.add_argument("--json", action="store_true")
        p.add_argument("--quiet", action="store_true", help="no progress on stderr")
        p.set_defaults(func=func)

    lst = sub.add_parser("studies", help="the archive, newest first")
    lst.add_argument("--search", default=None)
    lst.add_argument("--tag", default=None)
    lst.add_argument("--limit", type=int, default=50)
    lst.add_argument("--json", action="store_true")
    lst.set_defaults(func=cmd_studies)

    show = sub.add_parser("show", help="a study, its provenance and its cases")
    show.add_argument("id", type=int)
    show.add_argument("--json", action="store_true")
    show.set_defaults(func=cmd_show)

    exp = sub.add_parser("export", help="one row per case: parameters, status, metrics")
    exp.add_argument("id", type=int)
    exp.add_argument("--format", choices=("csv", "parquet", "json"), default="csv")
    exp.add_argument("-o", "--output", default=None, help="file (stdout if omitted)")
    exp.set_defaults(func=cmd_export)

    for name, action, help_text in (
        ("cancel", "cancel_study", "cancel the queued cases of a study"),
        ("retry", "retry_failed", "run a study's failed cases again"),
        ("delete", "soft_delete", "delete a study (kept until purge)"),
    ):
        p = sub.add_parser(name, help=help_text)
        p.add_argument("id", type=int)
        p.set_defaults(func=lambda a, action=action: _change(a, action))
    purge = sub.add_parser("purge", help="remove deleted studies for good")
    purge.add_argument("--json", action="store_true")
    purge.set_defaults(func=cmd_purge)


def handle_errors(args: argparse.Namespace, exc: Exception) -> int | None:
    """Exit code for the errors these commands raise on purpose (None: not ours)."""
    if isinstance(exc, SpecError):
        print_errors(exc.errors, as_json=getattr(args, "json", False))
        return EXIT_BAD_INPUT
    if isinstance(exc, UnknownIdError):
        print(f"error: no study with id {exc.args[0]}", file=sys.stderr)
        if getattr(args, "json", False):
            print(json.dumps({"errors": [{"field": "id", "value": exc.args[0],
                                          "allowed": "the id of an existing study"}]}))
        return EXIT_BAD_INPUT
    return None
