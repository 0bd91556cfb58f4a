"""Study commands (design.md 4.3): validate, run, submit, wait, the archive and its upkeep.

    gapsweep study validate FILE          case count and estimated time, or the errors
    gapsweep run FILE                     create, run to the end, summary table
    gapsweep submit FILE / wait ID        create and enqueue / follow to the end
    (FILE or --example NAME, a study file that ships with gapsweep: `gapsweep examples`)
    gapsweep studies | show ID | export ID --format csv|parquet|json|mat|adm [--case CASE_ID]
    gapsweep cancel ID | retry ID | delete ID | purge

With ``GAPSWEEP_URL`` set, ``run``, ``submit``, ``wait``, ``studies``, ``show``, ``cancel`` and
``retry`` talk to that server's API (:mod:`gapsweep.archive.remote`, :func:`archive` decides),
with the same output; ``export``, ``delete`` and ``purge`` refuse (the API has no such call).
Changes made on the database are audited (``cancel``, ``retry``, ``delete``, ``purge``).

Exit codes (4.5): 0 every case done; 1 some case failed or cancelled; 2 bad input or an
unknown id; 3 ``wait`` timed out. ``--json`` prints the shapes of 4.5 on stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from gapsweep.archive.errors import UnknownIdError
from gapsweep.core import metrics as metric_registry

from .examples import example_file
from .exit_codes import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, EXIT_TIMEOUT, CommandError
from .output import print_errors, print_json, progress_printer, study_table

# the table's columns: the registry's headline (the settled motion) and its class
HEADLINE = (*metric_registry.headline(), "motion")


def _load(path: str):
    from gapsweep.study.spec import load_spec_file

    return load_spec_file(path)


def _study_file(args: argparse.Namespace) -> str:
    """FILE, or the shipped study file ``--example NAME`` names (exactly one of them)."""
    if (args.file is None) == (args.example is None):
        raise CommandError("give one of a study FILE or --example NAME (`gapsweep examples` "
                           "lists the names)")
    return args.file if args.example is None else str(example_file(args.example))


def cmd_validate(args: argparse.Namespace) -> int:
    from gapsweep.study.designs import estimate_seconds, plan_study

    spec = _load(_study_file(args))
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


def _summary(detail: dict[str, Any]) -> dict[str, Any]:
    """What ``run``, ``submit`` and ``wait`` print (design.md 4.5), from ``show``'s detail."""
    counts = detail["counts"]
    return {
        "study_id": detail["id"],
        "status": detail["status"],
        "cases": counts["total"],
        "done": counts["done"],
        "failed": counts["failed"],
    }


def _finish(detail: dict[str, Any], args: argparse.Namespace) -> int:
    summary = _summary(detail)
    if args.json:
        print_json(summary)
    else:
        study_table(detail, HEADLINE)
        print(f"study {summary['study_id']}: {summary['status']}, "
              f"{summary['done']}/{summary['cases']} done, {summary['failed']} failed")
    if summary["status"] != "done":
        return EXIT_FAILED
    return EXIT_OK if summary["done"] == summary["cases"] else EXIT_FAILED


def archive():
    """The one place local or remote is decided: a server's API when ``GAPSWEEP_URL`` is
    set, else the configured database, where the command line acts as the local admin
    (:func:`gapsweep.archive.actor.cli_principal`)."""
    from gapsweep.archive.opening import open_archive

    return open_archive()


def cmd_run(args: argparse.Namespace) -> int:
    path = _study_file(args)  # a wrong FILE / --example is refused before anything opens
    arch = archive()
    if arch.starts_workers:
        from .termination import stop_cleanly_on_sigterm

        stop_cleanly_on_sigterm()
    study_id = arch.run(path, concurrency=args.concurrency,
                        progress=progress_printer(sys.stderr, args.quiet),
                        announce=lambda text: print(text, file=sys.stderr))
    return _finish(arch.study(study_id), args)


def cmd_submit(args: argparse.Namespace) -> int:
    path = _study_file(args)
    arch = archive()
    summary = _summary(arch.study(arch.submit(path)))
    if args.json:
        print_json(summary)
    else:
        print(f"study {summary['study_id']} submitted: {summary['cases']} case(s) queued")
    return EXIT_OK


def cmd_wait(args: argparse.Namespace) -> int:
    arch = archive()
    if arch.starts_workers:
        from .termination import stop_cleanly_on_sigterm

        stop_cleanly_on_sigterm()  # the local workers `wait` may start stop cleanly
    finished = arch.wait(args.id, args.timeout, progress_printer(sys.stderr, args.quiet))
    code = _finish(arch.study(args.id), args)
    return code if finished else EXIT_TIMEOUT


def cmd_studies(args: argparse.Namespace) -> int:
    page = archive().listing(search=args.search, tag=args.tag, limit=args.limit)
    if args.json:
        print_json(page)
        return EXIT_OK
    total, items = page["total"], page["items"]
    print(f"{'id':>6}  {'status':<10} {'done':>11}  {'created':<19}  name")
    for item in items:
        created = str(item["created"])[:19].replace("T", " ")
        progress = f"{item['done']}/{item['cases']}"
        status = item["status"]
        print(f"{item['id']:>6}  {status:<10} {progress:>11}  {created:<19}  {item['name']}")
    print(f"{len(items)} of {total} stud{'y' if total == 1 else 'ies'}")
    return EXIT_OK


def cmd_show(args: argparse.Namespace) -> int:
    if args.json:  # whole, streamed a page of cases at a time (design.md 4.16)
        for piece in archive().study_json(args.id):
            sys.stdout.write(piece)
        sys.stdout.write("\n")
        return EXIT_OK
    detail = archive().study(args.id)
    print(f"study {detail['id']}: {detail['name']}  [{detail['status']}]  model {detail['model']}")
    if detail.get("description"):
        print(detail["description"])
    if detail.get("owner"):
        print(f"owner {detail['owner']}")
    prov = detail.get("provenance") or {}
    print("made by gapsweep {} (commit {}), numpy {}, scipy {}, numba {}, on {}".format(
        prov.get("gapsweep"), prov.get("git_commit"), prov.get("numpy"), prov.get("scipy"),
        prov.get("numba"), prov.get("host")))
    study_table(detail, HEADLINE, with_attempts=True)
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    from .export import write_mat, write_pages, write_rows

    arch = archive()
    if args.format == "adm":
        return _export_adm(arch, args)
    if args.case is not None:
        raise CommandError("--case: only with --format adm (the other formats hold every case)")
    if args.format in ("csv", "json"):  # streamed a page of cases at a time
        columns, pages = arch.export_pages(args.id)
        write_pages(columns, pages, args.format, args.output)
    else:
        columns, rows = arch.export_rows(args.id)
    if args.format == "mat":
        write_mat(args.output, arch.summary(args.id), columns, rows,
                  arch.case_series([row["case_id"] for row in rows]))
    elif args.format == "parquet":
        write_rows(columns, rows, args.format, args.output)
    if args.format == "csv" and args.output:
        # the header is the contract's names; their units travel beside it
        from gapsweep.study.export_units import sidecar_path, units_csv

        with open(sidecar_path(args.output), "w", encoding="utf-8", newline="") as handle:
            handle.write(units_csv(columns))
    return EXIT_OK


def _export_adm(arch: Any, args: argparse.Namespace) -> int:
    """One case's mechanism as an ADAMS/Solver dataset (design.md 4.13, 4.15): the study's
    first case unless ``--case``."""
    from gapsweep.core.errors import InputError
    from gapsweep.core.mechanism.case import MechanismCase
    from gapsweep.study.adams.export import dataset_text
    from gapsweep.study.case_inputs import case_inputs

    detail = arch.study(args.id)
    if detail.get("model") != "mechanism":
        raise CommandError(f"--format adm: study {args.id} is a {detail.get('model')} study; "
                           "a dataset is written of a mechanism study's case")
    cases = sorted(detail.get("cases") or [], key=lambda c: c["id"])
    if not cases:
        raise CommandError(f"study {args.id} has no cases")
    case = cases[0] if args.case is None else next(
        (c for c in cases if c["id"] == args.case), None)
    if case is None:
        raise CommandError(f"--case {args.case}: not a case of study {args.id} (its cases: "
                           f"{cases[0]['id']}..{cases[-1]['id']})")
    try:
        params = case_inputs(case["params"], detail.get("spec"))  # the study's table
        text = dataset_text(MechanismCase.from_mapping(params).spec)
    except InputError as exc:
        raise CommandError(f"--format adm: {exc}") from None
    if args.output:
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(text)
    else:
        sys.stdout.write(text)
    return EXIT_OK


def cmd_cancel(args: argparse.Namespace) -> int:
    n = archive().cancel(args.id)["cancelled"]
    print(f"study {args.id}: cancelled ({n} queued case(s); running ones finish)")
    return EXIT_OK


def cmd_retry(args: argparse.Namespace) -> int:
    arch = archive()
    n = arch.retry(args.id)["retried"]
    print(f"study {args.id}: {n} failed case(s) queued again")
    if n and arch.starts_workers:
        print("(embedded: they run while `gapsweep serve` or `gapsweep wait "
              f"{args.id}` is running)")
    return EXIT_OK


def cmd_delete(args: argparse.Namespace) -> int:
    archive().delete(args.id)
    print(f"study {args.id}: deleted (`gapsweep purge` removes it for good)")
    return EXIT_OK


def cmd_purge(args: argparse.Namespace) -> int:
    counts = archive().purge()
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
    val.add_argument("--json", action="store_true")
    val.set_defaults(func=cmd_validate)

    run = sub.add_parser("run", help="create a study and run it to completion")
    run.add_argument("--concurrency", type=int, default=None, help="local worker processes")
    submit = sub.add_parser("submit", help="create a study, enqueue it, return its id")
    for p in (val, run, submit):
        p.add_argument("file", nargs="?", default=None, help="a .toml or .json study file")
        p.add_argument("--example", default=None, metavar="NAME",
                       help="a study file that ships with gapsweep (`gapsweep examples`)")
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
    exp.add_argument("--format", choices=("csv", "parquet", "json", "mat", "adm"),
                     default="csv", help="mat: a MATLAB file with the stored series too "
                     "(needs -o); adm: one case's mechanism as an ADAMS/Solver dataset")
    exp.add_argument("--case", type=int, default=None,
                     help="CASE_ID for --format adm (default: the study's first case)")
    exp.add_argument("-o", "--output", default=None, help="file (stdout if omitted)")
    exp.set_defaults(func=cmd_export)

    for name, func, help_text in (
        ("cancel", cmd_cancel, "cancel the queued cases of a study"),
        ("retry", cmd_retry, "run a study's failed cases again"),
        ("delete", cmd_delete, "delete a study (kept until purge)"),
    ):
        p = sub.add_parser(name, help=help_text)
        p.add_argument("id", type=int)
        p.set_defaults(func=func)
    purge = sub.add_parser("purge", help="remove deleted studies for good")
    purge.add_argument("--json", action="store_true")
    purge.set_defaults(func=cmd_purge)


def handle_errors(args: argparse.Namespace, exc: Exception) -> int | None:
    """Exit code for the errors these commands raise on purpose (None: not ours).

    The error classes are looked up among the modules already imported: an exception of a
    module that was never imported cannot have been raised, and importing the study layer
    (scipy) or the database layer (SQLAlchemy) here would cost every command that fails."""
    spec_errors = sys.modules.get("gapsweep.study.errors")
    if spec_errors is not None and isinstance(exc, spec_errors.SpecError):
        print_errors(exc.errors, as_json=getattr(args, "json", False))
        return EXIT_BAD_INPUT
    lifecycle = sys.modules.get("gapsweep.db.lifecycle")
    not_found = (UnknownIdError,) + ((lifecycle.StudyNotFoundError,) if lifecycle else ())
    if isinstance(exc, not_found):
        key, what = exc.study_id, getattr(exc, "what", "study")
        print(f"error: no {what} with id {key}", file=sys.stderr)
        if getattr(args, "json", False):
            print(json.dumps({"errors": [{"field": "id", "value": key,
                                          "allowed": f"the id of an existing {what}"}]}))
        return EXIT_BAD_INPUT
    return None
