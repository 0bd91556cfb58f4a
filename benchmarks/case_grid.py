"""Issue 17's case-table benchmark: a 10,000-case study's table, the DataTable way (the
whole study detail read and every row shaped and sent, on load and whenever a count moved)
against the AG Grid way (one block of 100 rows, sorted/filtered/paged in SQL).

    .venv/bin/python benchmarks/case_grid.py [--cases 10000] [--repeat 5]
        [--postgres]   # a fresh database of its own on 127.0.0.1:5432 (dropped after)
                       # default: a fresh SQLite file

Fills a fresh archive with one grid study (clearance x stiffness, the real spec and plan,
``--cases`` design cases) whose cases are all done with synthetic metrics (Result rows
written in bulk), then times, median of ``--repeat``, in this process:

- baseline: ``study_detail`` + :func:`datatable_rows` (the study page's former
  ``study_view.case_rows``, kept here) + the JSON the DataTable received (what the study page
  did on load, and on every poll that saw a count move);
- grid, through the Dash callback over HTTP (Flask test client, full request/response):
  the first block (design order), the first block sorted by a metric (descending), sorted by
  an axis (read from the params JSON), and filtered on an axis range + sorted.

With ``--browser``, also serves the app on a free port and times in Debian's chromium
(Playwright), median of ``--repeat``: the study page from navigation to the grid's first
rows, and a header click (sort by peak acceleration, descending) to the sorted first row.

Prints a table with milliseconds and response bytes, and the baseline/grid ratio of the
first page. The grid's targets (reports, not gates): first block and a sorted block < 300 ms.

Figures (10,000 cases, median of 5; 2 shared cores at load 10-12, other jobs competing):

| view | SQLite | PostgreSQL | bytes |
|---|---|---|---|
| baseline: whole detail + every row (DataTable) | 4715 ms | 3526 ms | 3,404,406 |
| grid: first block of 100 | 29 ms | 41 ms | 31,252 |
| grid: sorted by peak acceleration (desc) | 70 ms | 91 ms | 32,282 |
| grid: sorted by clearance (params JSON) | 146 ms | 180 ms | 31,817 |
| grid: filtered 0.04-0.06 mm, sorted by stiffness | 87 ms | 127 ms | 32,187 |

In chromium (SQLite, median of 3, load 10): the study page to the grid's first rows 2470 ms
(the page's frame no longer reads the cases), two header clicks to the sorted first row
1119 ms (two server round trips: ascending, then descending).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "web"))
sys.path.insert(0, str(HERE.parent / "tests" / "db"))


def fill(sessions, n_cases: int) -> int:
    """One grid study of ``n_cases`` done cases (n x n levels); its id."""
    from gapsweep.db.models import Case, Result
    from gapsweep.study.spec import parse_spec
    from gapsweep.workers.submit import create_study_rows
    from sqlalchemy import insert, select, update

    side = max(1, round(n_cases ** 0.5))
    spec = parse_spec({
        "name": f"{side * side}-case grid", "model": "slider-crank", "design": "grid",
        "ideal_twin": False, "series": "none",
        "axes": {"clearance_mm": {"start": 0.02, "stop": 0.1, "count": side},
                 "stiffness_scale": {"start": 0.7, "stop": 1.3, "count": side}}})
    study_id = create_study_rows(spec, sessions=sessions)
    with sessions.begin() as s:
        cases = s.execute(select(Case.id, Case.params).where(Case.study_id == study_id)).all()
        s.execute(update(Case).where(Case.study_id == study_id)
                  .values(status="done", attempts=1, wall_time_s=0.02))
        rows = []
        for case_id, params in cases:
            c, k = params["clearance_mm"], params["stiffness_scale"]
            peak = 1000.0 * k * (1 + 100 * c) + (case_id % 97)  # ties broken, not monotone
            rows.append({"case_id": case_id, "peak_slider_accel": peak,
                         "rms_slider_accel": peak / 3, "peak_contact_force": 10 * peak,
                         "max_penetration": 1e-6 * k, "impacts": case_id % 11,
                         "peak_slider_accel_steady": peak / 2, "wall_time_s": 0.02,
                         "extra": {}})
        s.execute(insert(Result), rows)
    return study_id


def datatable_rows(detail: dict) -> list[dict]:
    """Every design case as the former DataTable row (the baseline's work)."""
    import math

    from gapsweep.web.views.study_view import TABLE_METRICS, axes_of

    def rounded(value):
        if isinstance(value, float):
            return float(f"{value:.6g}") if math.isfinite(value) else None
        return value

    rows = []
    for case in detail.get("cases") or []:
        params, metrics = case.get("params") or {}, case.get("metrics") or {}
        row = {"id": case["id"], "case": f"[{case['id']}](/cases/{case['id']})",
               "status": case.get("status", ""), "attempts": case.get("attempts", 0),
               "reason": case.get("reason") or "",
               "wall_time_s": rounded(metrics.get("wall_time_s"))}
        row.update({a: rounded(params.get(a)) for a in axes_of(detail)})
        row.update({m: rounded(metrics.get(m)) for m in TABLE_METRICS})
        rows.append(row)
    return rows


def browser_times(app, study_id: int, repeat: int) -> list[tuple[str, float]]:
    """(view, median ms) of the study page in chromium: grid shown; sorted by a header."""
    import logging
    import shutil
    import threading

    from playwright.sync_api import sync_playwright
    from werkzeug.serving import make_server

    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    server = make_server("127.0.0.1", 0, app.server, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}/studies/{study_id}"
    grid = "#study-case-grid"
    shown, sorted_ = [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"),
                                    args=["--headless", "--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.set_default_timeout(60_000)
        page.goto(url)  # warm-up: the JS bundles cached
        page.wait_for_selector(f"{grid} .ag-row[row-index='0'] a[href^='/cases/']")
        for _ in range(repeat):
            t0 = time.perf_counter()
            page.goto(url)
            page.wait_for_selector(f"{grid} .ag-row[row-index='0'] a[href^='/cases/']")
            shown.append(time.perf_counter() - t0)
            first = page.inner_text(f"{grid} .ag-row[row-index='0'] [col-id='case']")
            header = page.locator(f"{grid} .ag-header-cell[col-id='peak_slider_accel'] "
                                  ".ag-header-cell-label")
            t0 = time.perf_counter()
            header.click()
            header.click()
            page.wait_for_function(
                """([sel, old]) => { const el = document.querySelector(sel);
                                     return el && el.innerText.trim() !== old; }""",
                arg=[f"{grid} .ag-row[row-index='0'] [col-id='case']", first.strip()])
            sorted_.append(time.perf_counter() - t0)
        browser.close()
    server.shutdown()
    return [("study page to the grid's first rows", 1000 * statistics.median(shown)),
            ("header clicks to the sorted first row", 1000 * statistics.median(sorted_))]


def median_ms(fn, repeat: int) -> tuple[float, int]:
    times, size = [], 0
    for _ in range(repeat):
        t0 = time.perf_counter()
        size = fn()
        times.append(1000 * (time.perf_counter() - t0))
    return statistics.median(times), size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--postgres", action="store_true")
    parser.add_argument("--browser", action="store_true")
    args = parser.parse_args()
    url = None
    if args.postgres:
        from database_fixtures import create_postgres_database, drop_postgres_database

        url = create_postgres_database()
    try:
        run(args, url)
    finally:
        if url:
            drop_postgres_database(url)


def run(args: argparse.Namespace, database_url: str | None) -> None:
    tmp = tempfile.mkdtemp(prefix="gapsweep-grid-")
    os.environ["GAPSWEEP_DATA"] = tmp
    os.environ.pop("GAPSWEEP_BROKER_URL", None)
    if database_url:
        os.environ["GAPSWEEP_DATABASE_URL"] = database_url
    else:
        os.environ.pop("GAPSWEEP_DATABASE_URL", None)
    from account_fixtures import callback_body
    from gapsweep.web import context, ids
    from gapsweep.web.app import create_app

    from gapsweep.settings import get_settings

    settings = get_settings()
    app = create_app(settings)
    sessions = app.server.extensions[context.EXTENSION].sessions
    t0 = time.perf_counter()
    study_id = fill(sessions, args.cases)
    print(f"filled {args.cases} cases in {time.perf_counter() - t0:.1f} s "
          f"({settings.database_url.split(':')[0]}); load average "
          f"{os.getloadavg()[0]:.1f}")
    client = app.server.test_client()

    def baseline() -> int:
        from gapsweep.db.studies import study_detail

        with sessions() as s:
            detail = study_detail(s, study_id)
        return len(json.dumps(datatable_rows(detail)))

    kinds = {"clearance_mm": "number", "stiffness_scale": "number"}
    body = callback_body(client, "study-case-grid.getRowsResponse", {
        (ids.STUDY_CASE_GRID, "getRowsRequest"): None, (ids.STUDY_ID_STORE, "data"): study_id,
        (ids.STUDY_CASE_GRID_KINDS, "data"): kinds})
    body["outputs"] = body["outputs"][0]

    def grid(request: dict) -> int:
        body["inputs"][0]["value"] = {"startRow": 0, "endRow": 100, **request}
        r = client.post("/_dash-update-component", json=body)
        assert r.status_code == 200, r.get_data(as_text=True)[:500]
        got = r.get_json()["response"][ids.STUDY_CASE_GRID]["getRowsResponse"]
        assert len(got["rowData"]) == min(100, got["rowCount"])
        return len(r.get_data())

    views = [
        ("baseline: whole detail + every row (DataTable)", baseline),
        ("grid: first block of 100", lambda: grid({})),
        ("grid: sorted by peak acceleration (desc)",
         lambda: grid({"sortModel": [{"colId": "peak_slider_accel", "sort": "desc"}]})),
        ("grid: sorted by clearance (params JSON)",
         lambda: grid({"sortModel": [{"colId": "clearance_mm", "sort": "desc"}]})),
        ("grid: filtered 0.04-0.06 mm, sorted by stiffness",
         lambda: grid({"sortModel": [{"colId": "stiffness_scale", "sort": "asc"}],
                       "filterModel": {"clearance_mm": {"filterType": "number",
                                                        "type": "inRange", "filter": 0.04,
                                                        "filterTo": 0.06}}})),
    ]
    results = []
    print(f"\n| view ({args.cases} cases, median of {args.repeat}) | time [ms] | bytes |")
    print("|---|---|---|")
    for name, fn in views:
        ms, size = median_ms(fn, args.repeat)
        results.append(ms)
        print(f"| {name} | {ms:.1f} | {size:,} |")
    if args.browser:
        for name, ms in browser_times(app, study_id, args.repeat):
            print(f"| browser: {name} | {ms:.0f} | |")
    print(f"\nfirst page: baseline / grid = {results[0] / results[1]:.1f}x; "
          f"sorted block {results[2]:.1f} ms (target < 300 ms)")
    import shutil

    shutil.rmtree(tmp, ignore_errors=True)
    from sqlalchemy.orm import close_all_sessions

    close_all_sessions()
    sessions.kw["bind"].dispose()


if __name__ == "__main__":
    main()
