"""What the browser tests share (not a test module): Debian's chromium, its flags, a port
(``free_port`` of tests/support/processes.py), a ``gapsweep serve`` for a module
(:func:`served`), the module's browser (:func:`launch_browser`) and a page that collects its
console errors (:func:`new_page`, :func:`open_page`).

Skipped when chromium is missing, except with ``CI=true`` (then the test fails): the test
command installs it (``apt-get install -y chromium``).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

import pytest
from support.processes import free_port  # the workers' helper, for the servers

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def need_chromium() -> str:
    """The chromium executable (Playwright drives it with ``executable_path``)."""
    path = shutil.which("chromium")
    if path:
        return path
    if os.environ.get("CI", "").lower() == "true":  # CI=true or CI=True, as the others
        pytest.fail("chromium is not installed (apt-get install -y chromium)")
    pytest.skip("chromium is not installed (apt-get install -y chromium)")


# --- the server, the browser, a page (the browser modules' fixtures) -----------------------

ROOT = Path(__file__).resolve().parents[2]
VIEWPORT = {"width": 1280, "height": 800}


def serve_env(data: Path, *, without: tuple[str, ...], **extra: str) -> dict[str, str]:
    """This process's environment less the variables ``without``, with ``GAPSWEEP_DATA`` =
    ``data`` and the variables ``extra``: a server's (or the CLI's) of a test's own."""
    env = {k: v for k, v in os.environ.items() if k not in without}
    env["GAPSWEEP_DATA"] = str(data)
    env.update(extra)
    return env


def api_request(url: str, *, token: str | None = None, cookie: str | None = None,
                body: dict | None = None) -> tuple[int, dict]:
    """GET ``url`` (POST ``body`` as JSON if given), with a bearer ``token`` or a ``cookie``;
    the status and the JSON answer (an error's too)."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if cookie:
        headers["Cookie"] = cookie
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers=headers,
                                 method="GET" if body is None else "POST")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")


def gapsweep_cli(env: dict, *args: str, stdin: str = "") -> str:
    """``gapsweep ARGS`` with ``env`` (``stdin`` on its input): its output, asserting it
    succeeded."""
    done = subprocess.run([sys.executable, "-m", "gapsweep", *args], cwd=ROOT, env=env,
                          input=stdin, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


class Served(NamedTuple):
    base: str  # http://127.0.0.1:<port>
    proc: subprocess.Popen
    log: Path  # serve's output: data/serve.log


@contextlib.contextmanager
def served(env: dict[str, str], data: Path, *, ready: Callable[[str], bool], start_s: float,
           poll_s: float = 0.5) -> Iterator[Served]:
    """``gapsweep serve --host 127.0.0.1 --port <free> --workers 1`` with ``env`` (from the
    repository's root, output in ``data/serve.log``), in its own session; up once
    ``ready(base)`` holds (polled every ``poll_s``, an ``OSError`` counting as not yet),
    failing the test if it exits first (with its log's tail) or is not up in ``start_s``.
    Stopped as a process group on leaving, whatever happened (:func:`stop_group`)."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log_path = data / "serve.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "gapsweep", "serve", "--host", "127.0.0.1", "--port",
             str(port), "--workers", "1"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            deadline = time.monotonic() + start_s
            while True:
                if proc.poll() is not None:
                    pytest.fail(f"gapsweep serve exited ({proc.returncode}):\n"
                                + log_path.read_text(errors="replace")[-3000:])
                with contextlib.suppress(OSError):
                    if ready(base):
                        break
                if time.monotonic() > deadline:
                    pytest.fail(f"gapsweep serve not up after {start_s} s")
                time.sleep(poll_s)
            yield Served(base, proc, log_path)
        finally:
            stop_group(proc)


SERVE_START_S = 90  # a server up: imports, the database


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    """A ``gapsweep serve`` of an empty data folder for a module's tests (in its own session,
    killed as a group at the end) and chromium: ``{"base", "chromium", "log"}``. Shared
    through tests/web/conftest.py; a module that serves rows of its own defines its own."""
    chromium = need_chromium()
    data = tmp_path_factory.mktemp("gapsweep-served")
    env = serve_env(data, without=("GAPSWEEP_DATABASE_URL", "GAPSWEEP_BROKER_URL"))
    with served(env, data, start_s=SERVE_START_S,
                ready=lambda base: api_request(base + "/api/health")[0] == 200) as srv:
        yield {"base": srv.base, "chromium": chromium, "log": srv.log}


def stop_group(proc: subprocess.Popen) -> None:
    """The process group led by ``proc`` (started with ``start_new_session``): SIGTERM, then
    SIGKILL if it is not gone within 20 s."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=20)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


def launch_browser(chromium: str, **options) -> Iterator:
    """For a module's ``browser`` fixture (``yield from``): chromium at path ``chromium``
    through Playwright with :data:`CHROMIUM_ARGS` (and Playwright's launch ``options``),
    closed after."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS, **options)
        yield b
        b.close()


def new_page(browser, timeout_ms: float, *, viewport: dict = VIEWPORT, **context_options):
    """A page in a new browser context (no cookies) with default timeout ``timeout_ms``; its
    console errors and uncaught page errors collect in ``page.errors``."""
    context = browser.new_context(viewport=viewport, **context_options)
    page = context.new_page()
    page.set_default_timeout(timeout_ms)
    page.errors = []
    page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: page.errors.append(f"pageerror: {e}"))
    return page


def open_page(browser, timeout_ms: float, *, no_errors_after: bool = False,
              **context_options) -> Iterator:
    """For a ``page`` fixture (``yield from``): :func:`new_page`, its context closed after;
    with ``no_errors_after``, the test fails if the page logged a console error."""
    page = new_page(browser, timeout_ms, **context_options)
    yield page
    page.context.close()
    if no_errors_after:
        assert page.errors == [], page.errors


# --- reading what Plotly drew (tests/web/test_browser_figures.py) -------------------------

# Plotly's own state of the first plot under a CSS selector: the traces as it decoded them
# (``_fullData``: plotly.py sends numpy arrays base64-encoded, which ``el.data`` keeps as
# ``{dtype, bdata}``), the axes' titles and types, the shapes and annotations of
# ``_fullLayout``, and the boxes the legend and the axes' labels take on the screen.
_READ_PLOT = """sel => {
  const el = document.querySelector(sel + ' .js-plotly-plot') ||
             document.querySelector(sel + '.js-plotly-plot');
  if (!el || !el._fullData) return null;
  const arr = v => (v === undefined || v === null) ? null
                   : (typeof v === 'object' ? Array.from(v) : v);
  const fl = el._fullLayout;
  const axes = {};
  for (const key of Object.keys(fl).filter(k => /^[xy]axis\\d*$/.test(k))) {
    const a = fl[key];
    axes[key] = {title: (a.title || {}).text || '', type: a.type, side: a.side,
                 range: arr(a.range), overlaying: a.overlaying || null};
  }
  const box = node => { if (!node) return null; const r = node.getBoundingClientRect();
                        return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
  const boxes = sel2 => Array.from(el.querySelectorAll(sel2)).map(box)
                              .filter(b => b.right > b.left && b.bottom > b.top);
  return {
    data: el._fullData.map(t => ({
      name: t.name, type: t.type, mode: t.mode || null, orientation: t.orientation || null,
      x: arr(t.x), y: arr(t.y), z: t.z ? Array.from(t.z, row => Array.from(row)) : null,
      base: arr(t.base), xaxis: t.xaxis, yaxis: t.yaxis, visible: t.visible,
      showlegend: t.showlegend, dash: (t.line || {}).dash || null})),
    layout: {
      title: (fl.title || {}).text || '', axes: axes,
      shapes: (fl.shapes || []).map(s => ({type: s.type, xref: s.xref, yref: s.yref,
                                           x0: s.x0, x1: s.x1, y0: s.y0, y1: s.y1})),
      annotations: (fl.annotations || []).map(a => ({text: a.text, x: a.x, y: a.y})),
      showlegend: fl.showlegend,
    },
    screen: {
      plot: box(el.querySelector('.nsewdrag')),
      legend: box(el.querySelector('.legend')),
      y2labels: boxes('.y2tick text').concat(boxes('.g-y2title text')),
      paper: box(el),
      ticks: {x: boxes('.xtick text'), y: boxes('.ytick text'), y2: boxes('.y2tick text')},
      titles: {x: boxes('.g-xtitle text'), y: boxes('.g-ytitle text'),
               y2: boxes('.g-y2title text')},
    },
  };
}"""


def wait_first_option(page, name: str) -> None:
    """Until the open dropdown's first (focused) option is the parameter ``name`` (its label
    ``name — description``, or a mechanism's ``name [unit]``): the list has filtered to what
    was typed, however long that takes."""
    page.wait_for_function(
        """name => { const el = document.querySelector('.Select-option.is-focused');
                     if (!el) return false;
                     const t = el.textContent;
                     return t === name || t.startsWith(name + ' —')
                            || t.startsWith(name + ' ['); }""", arg=name)


def plotly_figure(page, selector: str, ready: str = "true", timeout_ms: float | None = None
                  ) -> dict:
    """The figure Plotly drew in the first ``.js-plotly-plot`` under CSS ``selector`` (see
    ``_READ_PLOT``), once ``ready`` - a JS expression of ``fig`` (what ``_READ_PLOT`` returns)
    such as ``"fig.data.length >= 3"`` - holds. A graph first draws empty, then its
    callback's figure: ``ready`` says which drawing the test wants."""
    page.wait_for_function(
        f"sel => {{ const fig = ({_READ_PLOT})(sel); return fig !== null && ({ready}); }}",
        arg=selector, timeout=timeout_ms)
    return page.evaluate(_READ_PLOT, selector)


def inside(inner: dict, outer: dict, slack_px: float = 1.0) -> bool:
    """Is screen box ``inner`` within ``outer`` (to ``slack_px``)? A tick label outside its
    figure's box is clipped."""
    return (inner["left"] >= outer["left"] - slack_px and inner["right"] <= outer["right"] +
            slack_px and inner["top"] >= outer["top"] - slack_px and
            inner["bottom"] <= outer["bottom"] + slack_px)


def overlap(a: dict | None, b: dict | None, margin_px: float = 0.0) -> bool:
    """Do two screen boxes ``{left, right, top, bottom}`` [px] overlap (by more than
    ``margin_px``)?"""
    if a is None or b is None:
        return False
    return (min(a["right"], b["right"]) - max(a["left"], b["left"]) > margin_px
            and min(a["bottom"], b["bottom"]) - max(a["top"], b["top"]) > margin_px)
