"""Hostile input to the JSON API and the Dash callbacks, through the Flask test client.

Oversized and deeply nested bodies, an upload past the 256 KB limit (refused on the server,
not only by the browser's ``max_size``), markup, path-like and SQL-like text, ids no
database holds, wrong content types and bodies of the wrong shape. Every request is checked
for its exact status and message, and for what it changed: every table's row count, every
case's status and every file of the data folder, before and after - nothing, or exactly the
one new study.

Requests come from the editor eve (token ``accounts.bearer("eve")``, or a signed-in client
with its ``X-CSRFToken``, as Dash's renderer sends it).
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from account_fixtures import callback_body
from archive_fixtures import find, page, preset, texts
from gapsweep.web import ids
from sqlalchemy import text

XSS = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>'
XSS_TAGS = ["<script>alert(1)</script>", "<img src=x onerror=alert(2)>"]
# what the archive's markdown link shows for XSS: every markdown punctuation mark escaped
XSS_MARKDOWN = (r'\<img src=x onerror="window\.\_\_xss=1"\>'
                r"\<script\>window\.\_\_xss=2\</script\>")
SQL_NAME = "'; DROP TABLE studies; --"
SQL_TAGS = ['" OR 1=1 --', "x'); DELETE FROM users; --"]
SQL_DESCRIPTION = "1; UPDATE cases SET status='done'"
PATH_NAMES = {  # name -> the download's file name the form makes of it
    "../../etc/passwd": "etc_passwd.toml",
    "..\\..\\x": "x.toml",
    "/etc/passwd": "etc_passwd.toml",
    "%2e%2e%2fetc%2fpasswd": "2e_2e_2fetc_2fpasswd.toml",
}
TOO_LARGE = "The data value transmitted exceeds the capacity limit."
NOT_AN_OBJECT = "a JSON object"
BIG_ID = 99999999999999999999  # > 2**64: no database integer holds it
MAX_ID = 2**63 - 1
MB = 1 << 20
UPLOAD_LIMIT = 256 * 1024
CASES = 16  # the preset: 15 cases + 1 ideal twin


# --- what a request may change ----------------------------------------------------------

def state(archive) -> dict:
    """Every table's row count (SQLite's own bookkeeping aside), every case's status, every
    study's text fields, and every file of the data folder."""
    with archive.sessions() as s:
        tables = s.execute(text("SELECT name FROM sqlite_master WHERE type = 'table' "
                                "AND name NOT LIKE 'sqlite_%' ORDER BY name")).scalars().all()
        counts = {t: s.execute(text(f'SELECT count(*) FROM "{t}"')).scalar() for t in tables}  # noqa: S608
        statuses = dict(s.execute(text("SELECT id, status FROM cases")).all())
        studies = {r[0]: tuple(r[1:]) for r in s.execute(
            text("SELECT id, name, description, status, deleted_at FROM studies")).all()}
    return {"counts": counts, "statuses": statuses, "studies": studies,
            "files": files(archive.settings.data_dir)}


def files(folder: Path) -> list[str]:
    """The data folder's files and folders, and its parent's entries (a ``../`` name that
    escaped would land there)."""
    inside = sorted(str(p.relative_to(folder)) for p in Path(folder).rglob("*"))
    beside = sorted(p.name for p in Path(folder).parent.iterdir())
    return [*inside, "--", *beside]


def grown(before: dict, after: dict) -> dict[str, int]:
    """The tables whose row count changed, and by how much."""
    return {t: after["counts"][t] - n for t, n in before["counts"].items()
            if after["counts"][t] != n}


def new_study_delta(tags: int) -> dict[str, int]:
    return {"studies": 1, "cases": CASES, **({"study_tags": tags} if tags else {})}


@pytest.fixture
def eve(archive, accounts):
    """The editor eve's token headers, a client signed in as her (and its CSRF header), and
    a study of hers already in the archive (so a filter that matches everything shows)."""
    from gapsweep.study.spec import parse_spec
    from gapsweep.workers.submit import create_study_rows

    study_id = create_study_rows(parse_spec(preset()), sessions=archive.sessions, owner="eve")
    browser, csrf = accounts.sign_in("eve")
    return SimpleNamespace(archive=archive, api=archive.client(), token=accounts.bearer("eve"),
                           browser=browser, csrf={"X-CSRFToken": csrf}, study=study_id)


def post_json(client, path: str, body: bytes | str, headers: dict, ctype="application/json"):
    return client.post(path, data=body, headers={**headers, "Content-Type": ctype})


def padded(data: dict, size: int) -> bytes:
    """``data`` as JSON followed by spaces up to exactly ``size`` bytes (still valid JSON)."""
    raw = json.dumps(data).encode()
    assert len(raw) <= size
    return raw + b" " * (size - len(raw))


def nested(depth: int, leaf: str = "") -> str:
    return "[" * depth + leaf + "]" * depth


# --- Dash callbacks over HTTP, as the renderer posts them (account_fixtures.callback_body) --

def form_values(eve) -> dict:
    """The new-study form's values as its layout holds them for eve, keyed as the callbacks
    take them."""
    with eve.archive.request(headers=eve.token):
        module = page("new_study")
        layout = module.layout()
        return {(cid, prop): getattr(find(layout, cid), prop) for _, cid, prop in module.FIELDS}


def call(eve, output_part: str, values: dict):
    """POST one callback as eve's browser; the response."""
    body = callback_body(eve.browser, output_part, values)
    return eve.browser.post("/_dash-update-component", json=body, headers=eve.csrf)


def outputs(r) -> dict:
    assert r.status_code == 200, r.get_data(as_text=True)[:500]
    return r.get_json()["response"]


# --- oversized bodies ---------------------------------------------------------------------

def test_api_body_over_1_mb_is_413_and_exactly_1_mb_is_read(eve):
    before = state(eve.archive)
    r = post_json(eve.api, "/api/studies", padded(preset(), MB + 1), eve.token)
    assert r.status_code == 413
    assert r.get_json() == {"error": TOO_LARGE}
    assert state(eve.archive) == before
    assert eve.archive.sent == []
    # the limit is the size, not the content: the same spec at exactly 1 MB is a study
    r = post_json(eve.api, "/api/studies", padded(preset(), MB), eve.token)
    assert r.status_code == 201, r.get_data(as_text=True)
    assert grown(before, state(eve.archive)) == new_study_delta(tags=2)


def test_dash_body_over_4_mb_is_413_and_2_mb_is_read(eve):
    body = callback_body(eve.browser, "new-case-count.children", form_values(eve))
    before = state(eve.archive)
    r = post_json(eve.browser, "/_dash-update-component", padded(body, (4 * MB) + 1), eve.csrf)
    assert r.status_code == 413
    assert "Request Entity Too Large" in r.get_data(as_text=True)
    assert state(eve.archive) == before
    # the API's 1 MB is the API's: a callback over it and under 4 MB runs
    r = post_json(eve.browser, "/_dash-update-component", padded(body, 2 * MB), eve.csrf)
    assert "15 cases + 1 ideal twin" in json.dumps(outputs(r)[ids.NEW_CASE_COUNT])
    assert state(eve.archive) == before


# --- deeply nested JSON -------------------------------------------------------------------

DEEP_BODIES = {
    "100000 [": "[" * 100_000,
    "100000 [] balanced": nested(100_000),
    "100000 objects": '{"a": ' * 100_000 + "1" + "}" * 100_000,
    "deep inside a spec": json.dumps(preset())[:-1] + ', "extra": ' + nested(100_000) + "}",
}


@pytest.mark.parametrize("body", DEEP_BODIES.values(), ids=DEEP_BODIES.keys())
def test_deep_json_to_the_api_is_400(eve, body):
    before = state(eve.archive)
    r = post_json(eve.api, "/api/studies", body, eve.token)
    assert r.status_code == 400
    assert r.get_json() == {"error": "the body is not JSON this server reads: it nests too deeply"}
    assert state(eve.archive) == before
    assert eve.archive.sent == []


def test_a_spec_whose_values_nest_500_deep_is_refused_not_a_500(eve):
    spec = json.dumps(preset())
    body = spec.replace("[0.02, 0.035, 0.05, 0.08, 0.1]", nested(500, "0.02"))
    assert body != spec
    before = state(eve.archive)
    r = post_json(eve.api, "/api/studies", body, eve.token)
    assert r.status_code in (400, 422), r.get_data(as_text=True)
    assert state(eve.archive) == before


@pytest.mark.parametrize("where", ["the whole body", "a callback's state value"])
def test_deep_json_to_dash_is_400(eve, where):
    if where == "the whole body":
        body = "[" * 100_000
    else:
        shape = callback_body(eve.browser, "new-case-count.children", {})
        shape["state"] = "@STATE@"
        body = json.dumps(shape).replace('"@STATE@"', nested(100_000))
    before = state(eve.archive)
    r = post_json(eve.browser, "/_dash-update-component", body, eve.csrf)
    assert r.status_code == 400
    assert r.get_json() == {"error": "the request body nests too deeply"}
    assert state(eve.archive) == before


@pytest.mark.parametrize("table", ["axes", "base"])
def test_a_form_cell_of_lists_500_deep_is_a_message_not_a_500(eve, table):
    """Dash parses 500 levels (its guard stops at the recursion limit); the spec check would
    overflow: the form says so (web/pages/new_study.py check_form)."""
    values = form_values(eve)
    deep = json.loads(nested(500, "0.02"))
    if table == "axes":
        rows = values[(ids.NEW_AXES_TABLE, "data")]
        rows[0] = {**rows[0], "values": deep}
    else:
        rows = values[(ids.NEW_BASE_TABLE, "data")]
        rows[0] = {**rows[0], "value": deep}
    before = state(eve.archive)
    out = outputs(call(eve, "new-case-count.children", values))
    assert out[ids.NEW_CASE_COUNT]["children"]["props"]["children"] == "Not valid yet"
    assert out[ids.NEW_SUBMIT]["disabled"] is True
    assert "form: lists nested too deeply — numbers, text or flat lists" in json.dumps(
        out[ids.NEW_ERRORS], ensure_ascii=False)
    values[(ids.NEW_SUBMIT, "n_clicks")] = 1
    out = outputs(call(eve, "new-submit-message.children", values))
    assert ids.NEW_REDIRECT not in out  # no study to go to
    assert "lists nested too deeply" in json.dumps(out[ids.NEW_SUBMIT_MESSAGE])
    assert state(eve.archive) == before


HOSTILE_TABLES = {  # a table's data as a hand-made request may send it ->
    # (the summary, a message it must show, or None for no message)
    # no axis row: a grid of no axes is its base alone (design.md 4.16)
    "axes a string": ((ids.NEW_AXES_TABLE, "data"), "x", "1 case + 1 ideal twin", None),
    "axes rows numbers": ((ids.NEW_AXES_TABLE, "data"), [1, None], "1 case + 1 ideal twin",
                          None),
    "axis form a list": ((ids.NEW_AXES_TABLE, "data"),
                         [{"parameter": "clearance_mm", "form": ["values"], "values": "0.1"}],
                         "Not valid yet",
                         'axes.clearance_mm.form: ["values"] — one of values, nominal ± %, '
                         "range"),
    "base a string": ((ids.NEW_BASE_TABLE, "data"), "x", "15 cases + 1 ideal twin", None),
    "base rows numbers": ((ids.NEW_BASE_TABLE, "data"), [1, None], "15 cases + 1 ideal twin",
                          None),
}


def alert_texts(component) -> list[str]:
    """The texts of the field-error lines in a serialised error list (None: no list)."""
    if component is None:
        return []
    lines = component["props"]["children"]
    return [line["props"]["children"] for line in lines]


@pytest.mark.parametrize("case", HOSTILE_TABLES.values(), ids=HOSTILE_TABLES.keys())
def test_form_tables_of_the_wrong_shape_are_no_rows_not_a_500(eve, case):
    """What is not a row is not one (web/views/study_form.py): no axis is the spec's own message,
    no base row the defaults."""
    key, value, summary, message = case
    values = form_values(eve)
    values[key] = value
    before = state(eve.archive)
    out = outputs(call(eve, "new-case-count.children", values))
    assert out[ids.NEW_CASE_COUNT]["children"]["props"]["children"].startswith(summary)
    errors = alert_texts(out[ids.NEW_ERRORS]["children"])
    if message is None:
        assert errors == [] and out[ids.NEW_SUBMIT]["disabled"] is False
    else:
        assert any(e.startswith(message) for e in errors), errors
        assert out[ids.NEW_SUBMIT]["disabled"] is True
    assert state(eve.archive) == before


# --- the upload ---------------------------------------------------------------------------

def data_url(raw: bytes, mime: str = "application/json") -> str:
    return f"data:{mime};base64," + base64.b64encode(raw).decode()


class Spy:
    """Counts the calls of a function it wraps."""

    def __init__(self, func):
        self.func, self.calls = func, 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return self.func(*args, **kwargs)


@pytest.fixture
def uploads(eve, monkeypatch):
    """The new-study module inside eve's request, with spies on what would decode and parse
    an upload (the upload reader's own base64, json and tomllib names only: study/upload.py
    decodes what the page receives)."""
    import gapsweep.study.upload as reader
    import tomllib

    with eve.archive.request(headers=eve.token):
        module = page("new_study")
        spies = SimpleNamespace(b64decode=Spy(base64.b64decode), json=Spy(json.loads),
                                toml=Spy(tomllib.loads))
        monkeypatch.setattr(reader, "base64", SimpleNamespace(b64decode=spies.b64decode))
        monkeypatch.setattr(reader, "json", SimpleNamespace(loads=spies.json))
        monkeypatch.setattr(reader, "tomllib", SimpleNamespace(loads=spies.toml))
        yield module, spies


def upload_outcome(module, contents, filename):
    """(the message's text, whether any form field or the dropdowns changed)."""
    out = module.upload(contents, filename)
    # the form's fields, the message, the axes' dropdowns, a mechanism's variables, then the
    # mechanism editor's tables
    n_fields = len(module.FIELDS)
    fields, (message, dropdown, variables) = out[:n_fields], out[n_fields:n_fields + 3]
    editor = out[n_fields + 3:]
    assert len(editor) == len(module.mechanism_editor.outputs())
    changed = any(f is not module.no_update for f in [*fields, dropdown, variables, *editor])
    return texts(message), changed


def test_an_upload_over_256_kb_is_refused_before_it_is_decoded(eve, uploads):
    module, spies = uploads
    before = state(eve.archive)
    raw = padded(preset(), 300 * 1024)
    message, changed = upload_outcome(module, data_url(raw), "big.json")
    assert message == "file: big.json — a study file of at most 256 KB"
    assert not changed
    assert (spies.b64decode.calls, spies.json.calls, spies.toml.calls) == (0, 0, 0)
    assert state(eve.archive) == before


def test_an_upload_one_byte_over_256_kb_is_refused_and_exactly_256_kb_loads(eve, uploads):
    module, spies = uploads
    before = state(eve.archive)
    # 262,145 bytes: base64 of 349,528 characters, the most the character check lets by
    message, changed = upload_outcome(module, data_url(padded(preset(), UPLOAD_LIMIT + 1)),
                                      "over.json")
    assert message == "file: over.json — a study file of at most 256 KB"
    assert not changed
    assert (spies.json.calls, spies.toml.calls) == (0, 0)  # decoded, measured, not parsed
    message, changed = upload_outcome(module, data_url(padded(preset(), UPLOAD_LIMIT)),
                                      "exact.json")
    assert message == "Loaded exact.json."
    assert changed and spies.json.calls == 1
    assert state(eve.archive) == before  # loading fills the form, it creates nothing


def test_an_upload_over_256_kb_over_http_changes_only_the_message(eve):
    before = state(eve.archive)
    r = call(eve, "new-upload-message.children", {
        (ids.NEW_UPLOAD, "contents"): data_url(padded(preset(), 300 * 1024)),
        (ids.NEW_UPLOAD, "filename"): "big.json"})
    out = outputs(r)
    assert list(out) == [ids.NEW_UPLOAD_MESSAGE]  # no form field was touched
    assert "file: big.json — a study file of at most 256 KB" in json.dumps(
        out[ids.NEW_UPLOAD_MESSAGE], ensure_ascii=False)
    assert state(eve.archive) == before


DEEP_FILES = {
    "deep.json": nested(100_000).encode(),
    "deep.toml": b"name = " + nested(100_000).encode(),
    "values500.json": json.dumps(preset()).replace(
        "[0.02, 0.035, 0.05, 0.08, 0.1]", nested(500, "0.02")).encode(),
}


@pytest.mark.parametrize("filename", DEEP_FILES)
def test_a_deeply_nested_study_file_is_a_message(eve, uploads, filename):
    module, _ = uploads
    before = state(eve.archive)
    message, changed = upload_outcome(module, data_url(DEEP_FILES[filename]), filename)
    assert message == f"file: {filename} — a study file that does not nest this deeply"
    assert not changed
    assert state(eve.archive) == before


MISSHAPEN = {  # a section of the wrong shape: the spec's own message, the form untouched
    "axes a string": ({"axes": "x"}, "axes: x — a table of keys and values"),
    "an axis a number": ({"axes": {"clearance_mm": 5}},
                         "axes.clearance_mm: 5 — a table of keys and values"),
    "base a list": ({"base": [1]}, "base: [1] — a table of keys and values"),
    "base a string": ({"base": "x"}, "base: x — a table of keys and values"),
    "tags a number": ({"tags": 5}, "tags: 5 — a list"),
}


@pytest.mark.parametrize("case", MISSHAPEN.values(), ids=MISSHAPEN.keys())
def test_a_study_file_with_a_misshapen_section_is_a_message(eve, uploads, case):
    module, _ = uploads
    change, expected = case
    before = state(eve.archive)
    message, changed = upload_outcome(module, data_url(json.dumps({**preset(), **change})
                                                       .encode()), "odd.json")
    assert expected in message
    assert not changed
    assert state(eve.archive) == before


UNREADABLE = {
    "not text": 5,
    "a list": ["data:application/json;base64,e30="],
    "no comma": "garbage",
    "not base64": "data:application/json;base64,@@@!!",
    "not UTF-8": data_url(b"\xff\xfe\x00name"),
}


@pytest.mark.parametrize("contents", UNREADABLE.values(), ids=UNREADABLE.keys())
def test_an_unreadable_upload_is_a_message(eve, uploads, contents):
    module, spies = uploads
    before = state(eve.archive)
    message, changed = upload_outcome(module, contents, "a.json")
    assert message == "file: a.json — a UTF-8 .toml or .json study file"
    assert not changed
    assert (spies.json.calls, spies.toml.calls) == (0, 0)
    assert state(eve.archive) == before


# --- markup, paths and SQL are text -------------------------------------------------------

def test_markup_in_name_description_and_tags_is_stored_and_returned_as_text(eve):
    before = state(eve.archive)
    spec = {**preset(), "name": XSS, "description": XSS, "tags": XSS_TAGS}
    r = post_json(eve.api, "/api/studies", json.dumps(spec), eve.token)
    assert r.status_code == 201, r.get_data(as_text=True)
    study_id = r.get_json()["id"]
    assert grown(before, state(eve.archive)) == new_study_delta(tags=2)
    r = eve.api.get(f"/api/studies/{study_id}", headers=eve.token)
    assert r.status_code == 200
    assert r.mimetype == "application/json"
    assert r.headers["X-Content-Type-Options"] == "nosniff"  # never sniffed as HTML
    raw = r.get_data(as_text=True)
    assert '"<img src=x onerror=\\"window.__xss=1\\"><script>window.__xss=2</script>"' in raw
    detail = r.get_json()
    assert (detail["name"], detail["description"], detail["tags"]) == (XSS, XSS, XSS_TAGS)
    listed = eve.api.get("/api/studies", headers=eve.token).get_json()["items"]
    assert [i["name"] for i in listed if i["id"] == study_id] == [XSS]
    with eve.archive.request(headers=eve.token):
        # the archive's table: the name as escaped markdown, the tags as plain text
        rows = page("archive").table_rows([i for i in listed if i["id"] == study_id])
        assert rows[0]["link"] == f"[{XSS_MARKDOWN}](/studies/{study_id})"
        assert rows[0]["tags"] == ", ".join(XSS_TAGS)
        # the study page: text children (React renders a string as a text node)
        layout = page("study").layout(study_id=str(study_id))
        heading = next(c for c in layout._traverse() if type(c).__name__ == "H3")
        assert heading.children == [f"Study {study_id}: ", XSS]
        assert XSS in [c.children for c in layout._traverse() if type(c).__name__ == "P"]
        badges = [c.children for c in layout._traverse() if type(c).__name__ == "Badge"]
        assert badges[-2:] == XSS_TAGS


def test_markup_in_the_form_is_stored_as_text(eve):
    values = form_values(eve)
    values.update({(ids.NEW_NAME, "value"): XSS, (ids.NEW_DESCRIPTION, "value"): XSS,
                   (ids.NEW_SUBMIT, "n_clicks"): 1})
    before = state(eve.archive)
    out = outputs(call(eve, "new-submit-message.children", values))
    study_id = int(out[ids.NEW_REDIRECT]["pathname"].rsplit("/", 1)[1])
    assert f"Study {study_id} created." in json.dumps(out[ids.NEW_SUBMIT_MESSAGE])
    after = state(eve.archive)
    assert grown(before, after) == new_study_delta(tags=2)
    assert after["studies"][study_id][:2] == (XSS, XSS)


@pytest.mark.parametrize("name", PATH_NAMES)
def test_path_like_names_are_text_and_make_no_file(eve, name):
    before = state(eve.archive)
    spec = {**preset(), "name": name, "tags": [name]}
    r = post_json(eve.api, "/api/studies", json.dumps(spec), eve.token)
    assert r.status_code == 201, r.get_data(as_text=True)
    study_id = r.get_json()["id"]
    after = state(eve.archive)
    assert grown(before, after) == new_study_delta(tags=1)
    assert after["files"] == before["files"]
    detail = eve.api.get(f"/api/studies/{study_id}", headers=eve.token).get_json()
    assert (detail["name"], detail["tags"]) == (name, [name])
    r = eve.api.get(f"/api/studies/{study_id}/cases.csv", headers=eve.token)
    assert r.status_code == 200
    assert r.headers["Content-Disposition"] == (
        f'attachment; filename="study-{study_id}-cases.csv"')
    # the form's download names the file from the name: no separator, no ".." survives
    values = form_values(eve)
    values.update({(ids.NEW_NAME, "value"): name, (ids.NEW_DOWNLOAD_BUTTON, "n_clicks"): 1})
    out = outputs(call(eve, "new-download.data", values))
    assert out[ids.NEW_DOWNLOAD]["data"]["filename"] == PATH_NAMES[name]
    assert state(eve.archive)["files"] == before["files"]


def test_sql_like_strings_are_stored_and_searched_as_text(eve):
    before = state(eve.archive)
    spec = {**preset(), "name": SQL_NAME, "description": SQL_DESCRIPTION, "tags": SQL_TAGS}
    r = post_json(eve.api, "/api/studies", json.dumps(spec), eve.token)
    assert r.status_code == 201, r.get_data(as_text=True)
    study_id = r.get_json()["id"]
    after = state(eve.archive)
    assert grown(before, after) == new_study_delta(tags=2)
    assert {k: v for k, v in after["statuses"].items() if k in before["statuses"]} == before[
        "statuses"]  # no UPDATE ran
    assert set(after["statuses"].values()) == {"queued"}
    detail = eve.api.get(f"/api/studies/{study_id}", headers=eve.token).get_json()
    assert (detail["name"], detail["description"], detail["tags"]) == (
        SQL_NAME, SQL_DESCRIPTION, SQL_TAGS)
    searches = {  # query -> the ids found (an injected OR 1=1 would find both studies)
        ("search", SQL_NAME): [study_id],
        ("search", "DROP TABLE"): [study_id],
        ("search", "status='done'"): [study_id],
        ("search", '" OR 1=1 --'): [],
        ("search", "' OR '1'='1"): [],
        ("search", "%"): [],  # LIKE's wildcards are text too
        ("search", "_"): [],
        ("tag", SQL_TAGS[0]): [study_id],
        ("tag", SQL_TAGS[1]): [study_id],
        ("tag", "' OR '1'='1"): [],
        ("status", "queued' OR '1'='1"): [],
        ("model", "slider-crank' --"): [],
    }
    found = {}
    for key, value in searches:
        r = eve.api.get("/api/studies", query_string={key: value}, headers=eve.token)
        assert r.status_code == 200, (key, value, r.get_data(as_text=True))
        body = r.get_json()
        found[(key, value)] = [i["id"] for i in body["items"]]
        assert body["total"] == len(found[(key, value)])
    assert found == searches
    # the archive page's own query, as its search box sends it
    with eve.archive.request(headers=eve.token):
        table = page("archive").update_table(0, None, SQL_NAME, None, None, None, 0, None, [])
        assert [row["id"] for row in table[0]] == [study_id] and table[2] == "1 study"
        table = page("archive").update_table(0, None, '" OR 1=1 --', None, None, None, 0,
                                             None, [])
        assert table[0] == [] and table[2] == "0 studies"
    final = state(eve.archive)
    assert final["counts"] == after["counts"] and final["statuses"] == after["statuses"]


# --- ids and numbers no database holds ----------------------------------------------------

LIST_PARAMS = {
    "limit=10**30": ({"limit": str(10**30)}, f"limit: {10**30} — an integer from 1 to 1000"),
    "limit=0": ({"limit": "0"}, "limit: 0 — an integer from 1 to 1000"),
    "limit=abc": ({"limit": "abc"}, "limit: 'abc' — an integer from 1 to 1000"),
    "limit=1.5": ({"limit": "1.5"}, "limit: '1.5' — an integer from 1 to 1000"),
    "limit=NUL": ({"limit": "\x00"}, "limit: '\\x00' — an integer from 1 to 1000"),
    "offset=-1": ({"offset": "-1"}, "offset: -1 — an integer from 0 to 1000000000000"),
    "offset=10**20": ({"offset": str(10**20)},
                      f"offset: {10**20} — an integer from 0 to 1000000000000"),
}


@pytest.mark.parametrize("case", LIST_PARAMS.values(), ids=LIST_PARAMS.keys())
def test_list_parameters_out_of_range_are_422(eve, case):
    query, message = case
    before = state(eve.archive)
    r = eve.api.get("/api/studies", query_string=query, headers=eve.token)
    assert r.status_code == 422
    assert r.get_json() == {"error": message}
    assert state(eve.archive) == before


def test_audit_limit_out_of_range_is_422(eve, accounts):
    r = eve.api.get("/api/audit", query_string={"limit": str(10**30)},
                    headers=accounts.bearer("ada"))
    assert r.status_code == 422
    assert r.get_json() == {"error": f"limit: {10**30} — an integer from 1 to 1000"}


NOT_AN_ID = ["abc", "-1", "1.5", "1e3", "0x10", "%2e%2e%2fetc", " 1"]


@pytest.mark.parametrize("raw", NOT_AN_ID)
def test_a_path_id_that_is_not_an_integer_is_404(eve, raw):
    before = state(eve.archive)
    for path in (f"/api/studies/{raw}", f"/api/cases/{raw}"):
        r = eve.api.get(path, headers=eve.token)
        assert r.status_code == 404, path
        assert r.get_json()["error"].startswith("no such API path: /api/"), path
    r = eve.api.post(f"/api/studies/{raw}/cancel", headers=eve.token)
    assert r.status_code == 404
    assert state(eve.archive) == before


@pytest.mark.parametrize("study_id", [0, MAX_ID])
def test_an_integer_id_of_no_study_is_404(eve, study_id):
    before = state(eve.archive)
    for path, kind in ((f"/api/studies/{study_id}", "study"),
                       (f"/api/studies/{study_id}/cases.csv", "study"),
                       (f"/api/cases/{study_id}", "case"),
                       (f"/api/cases/{study_id}/series", "case")):
        r = eve.api.get(path, headers=eve.token)
        assert r.status_code == 404, path
        assert r.get_json() == {"error": f"no {kind} with id {study_id}"}, path
    for verb in ("cancel", "retry"):
        r = eve.api.post(f"/api/studies/{study_id}/{verb}", headers=eve.token)
        assert r.get_json() == {"error": f"no study with id {study_id}"}
        assert r.status_code == 404
    assert state(eve.archive) == before


BEYOND = [("GET", f"/api/studies/{BIG_ID}"), ("GET", f"/api/studies/{MAX_ID + 1}"),
          ("GET", f"/api/studies/{BIG_ID}/cases.csv"), ("GET", f"/api/cases/{BIG_ID}"),
          ("GET", f"/api/cases/{BIG_ID}/series"), ("POST", f"/api/studies/{BIG_ID}/cancel"),
          ("POST", f"/api/studies/{BIG_ID}/retry")]


@pytest.mark.parametrize(("method", "path"), BEYOND, ids=[f"{m} {p}" for m, p in BEYOND])
def test_an_id_beyond_the_database_is_404_not_500(eve, method, path):
    before = state(eve.archive)
    r = eve.api.open(path, method=method, headers=eve.token)
    assert r.status_code == 404, r.get_data(as_text=True)
    assert state(eve.archive) == before


def test_pages_with_ids_beyond_the_database_say_there_is_none(eve):
    before = state(eve.archive)
    with eve.archive.request(headers=eve.token):
        assert texts(page("study").layout(study_id=str(BIG_ID))).startswith(
            f"There is no study {BIG_ID}.")
        assert texts(page("case").layout(case_id=str(BIG_ID))).startswith(
            f"There is no case {BIG_ID}.")
        compare = texts(page("compare").layout(cases=f"{BIG_ID},{MAX_ID + 1}"))
        assert f"cases: no case with id {BIG_ID}, {MAX_ID + 1}" in compare
    # the same through Dash's page router, as the browser asks for the page
    out = outputs(call(eve, "_pages_content.children", {
        ("_pages_location", "pathname"): f"/studies/{BIG_ID}",
        ("_pages_location", "search"): ""}))
    assert f"There is no study {BIG_ID}." in json.dumps(out["_pages_content"])
    assert state(eve.archive) == before


HOSTILE_STORES = {"huge": BIG_ID, "text": "abc", "a list": [1], "an object": {"a": 1},
                  "true": True, "a fraction": 1.5, "null": None}


@pytest.mark.parametrize("verb", ["cancel", "retry"])
@pytest.mark.parametrize("store", HOSTILE_STORES.values(), ids=HOSTILE_STORES.keys())
def test_the_study_page_action_with_a_hostile_store_changes_nothing(eve, store, verb):
    """The page's study id comes back from the browser: anything but the id is no study
    (``[1]`` and ``true`` once reached study 1 - eve's own, so a cancel would have gone
    through)."""
    before = state(eve.archive)
    assert eve.study == 1
    out = outputs(call(eve, "study-action-message.children", {
        (f"study-{verb}", "n_clicks"): 1, (ids.STUDY_ID_STORE, "data"): store}))
    assert out[ids.STUDY_ACTION_MESSAGE]["children"]["props"]["children"] == (
        "This study no longer exists.")
    assert state(eve.archive) == before


@pytest.mark.parametrize("store", HOSTILE_STORES.values(), ids=HOSTILE_STORES.keys())
def test_the_study_page_poll_with_a_hostile_store_reads_no_study(eve, store):
    before = state(eve.archive)
    out = outputs(call(eve, "study-status.children", {
        (ids.STUDY_POLL, "n_intervals"): 1, (ids.STUDY_ID_STORE, "data"): store}))
    assert out[ids.STUDY_STATUS]["children"] == "deleted"
    assert state(eve.archive) == before


ARCHIVE_INPUTS = {
    "page 10**20": ((ids.ARCHIVE_TABLE, "page_current"), BIG_ID, 0),
    "page text": ((ids.ARCHIVE_TABLE, "page_current"), "abc", 1),
    "page negative": ((ids.ARCHIVE_TABLE, "page_current"), -3, 1),
    "sort text": ((ids.ARCHIVE_TABLE, "sort_by"), "abc", 1),
    "sort [{}]": ((ids.ARCHIVE_TABLE, "sort_by"), [{}], 1),
    "sort [1]": ((ids.ARCHIVE_TABLE, "sort_by"), [1], 1),
    "sort column a list": ((ids.ARCHIVE_TABLE, "sort_by"), [{"column_id": ["id"]}], 1),
    "search a list": ((ids.ARCHIVE_SEARCH, "value"), ["x"], 1),
    "tag an object": ((ids.ARCHIVE_TAG, "value"), {"a": 1}, 1),
    "status a list": ((ids.ARCHIVE_STATUS, "value"), ["done"], 1),
}


@pytest.mark.parametrize("case", ARCHIVE_INPUTS.values(), ids=ARCHIVE_INPUTS.keys())
def test_the_archive_table_with_hostile_inputs_shows_a_page(eve, case):
    """What is not what the table sends is page 0, the default order or no filter: the one
    study (or, past the last page, no row)."""
    key, value, rows = case
    before = state(eve.archive)
    out = outputs(call(eve, "archive-table.data", {key: value}))
    assert [r["id"] for r in out[ids.ARCHIVE_TABLE]["data"]] == [eve.study][:rows]
    assert out[ids.ARCHIVE_TOTAL]["children"] == "1 study"
    assert state(eve.archive) == before


HOSTILE_DELETES = {
    "id huge": ([0], [{"id": BIG_ID}]),
    "id text": ([0], [{"id": "abc"}]),
    "row without id": ([0], [{}]),
    "row not an object": ([0], [5]),
    "index text": (["a"], [{"id": 1}]),
    "index true": ([True], [{"id": 1}]),
    "index negative": ([-1], [{"id": 1}]),
    "index past the rows": ([5], [{"id": 1}]),
    "rows not a list": ([0], {"id": 1}),
    "selection not a list": (0, [{"id": 1}]),
}


@pytest.mark.parametrize("case", HOSTILE_DELETES.values(), ids=HOSTILE_DELETES.keys())
def test_the_archive_delete_with_hostile_rows_deletes_nothing(eve, case):
    selected, rows = case
    before = state(eve.archive)
    out = outputs(call(eve, "archive-message.children", {
        (ids.ARCHIVE_DELETE_CONFIRM, "submit_n_clicks"): 1,
        (ids.ARCHIVE_TABLE, "selected_rows"): selected, (ids.ARCHIVE_TABLE, "data"): rows}))
    assert out == {}  # nothing to say, nothing refreshed
    assert state(eve.archive) == before


def test_the_archive_delete_of_a_real_row_still_deletes(eve):
    """The control for the hostile deletes: eve's own study, as the table sends it."""
    before = state(eve.archive)
    out = outputs(call(eve, "archive-message.children", {
        (ids.ARCHIVE_DELETE_CONFIRM, "submit_n_clicks"): 1,
        (ids.ARCHIVE_TABLE, "selected_rows"): [0],
        (ids.ARCHIVE_TABLE, "data"): [{"id": eve.study}], (ids.ARCHIVE_REFRESH, "data"): "x"}))
    assert out[ids.ARCHIVE_MESSAGE]["children"] == "Deleted 1 study."
    assert out[ids.ARCHIVE_REFRESH]["data"] == 1
    after = state(eve.archive)
    assert grown(before, after) == {"audit_events": 1}
    assert after["studies"][eve.study][3] is not None  # soft-deleted: deleted_at set


# --- content types and body shapes --------------------------------------------------------

SHAPES = {"a list": ("[]", "list"), "a string": ('"spec"', "str"), "null": ("null", "NoneType"),
          "a number": ("42", "int"), "true": ("true", "bool"), "a huge number": ("1e999", "float")}


@pytest.mark.parametrize("case", SHAPES.values(), ids=SHAPES.keys())
def test_a_json_body_that_is_not_an_object_is_422(eve, case):
    body, kind = case
    before = state(eve.archive)
    r = post_json(eve.api, "/api/studies", body, eve.token)
    assert r.status_code == 422
    assert r.get_json() == {"errors": [{"field": "file", "value": kind,
                                        "allowed": NOT_AN_OBJECT}]}
    assert state(eve.archive) == before


NOT_JSON = {
    "empty": (b"", "application/json"),
    "a form": (b"name=x&model=slider-crank", "application/x-www-form-urlencoded"),
    "not UTF-8": (b"\xff\xfe{\x00", "application/json"),
    "truncated": (json.dumps(preset())[:-1].encode(), "application/json"),
    "XML": (b"<?xml version='1.0'?><study/>", "application/xml"),
}


@pytest.mark.parametrize("case", NOT_JSON.values(), ids=NOT_JSON.keys())
def test_a_body_that_is_not_json_is_400(eve, case):
    body, ctype = case
    before = state(eve.archive)
    r = post_json(eve.api, "/api/studies", body, eve.token, ctype=ctype)
    assert r.status_code == 400
    assert r.get_json()["error"].startswith("the body is not JSON: ")
    assert state(eve.archive) == before


def test_a_multipart_body_is_400(eve):
    before = state(eve.archive)
    r = eve.api.post("/api/studies", data={"spec": (json.dumps(preset()).encode(), "s.json")},
                     headers=eve.token)
    assert r.status_code == 400
    assert r.get_json()["error"].startswith("the body is not JSON: ")
    assert state(eve.archive) == before


def test_the_api_reads_a_json_spec_whatever_its_content_type_but_a_cookie_needs_csrf(eve):
    """``POST /api/studies`` parses the body as JSON whatever the Content-Type says (so a
    ``text/plain`` spec from curl is a study); that is no cross-site hole, because a browser
    never adds a token, and with only the session cookie the CSRF header is required."""
    before = state(eve.archive)
    r = post_json(eve.browser, "/api/studies", json.dumps(preset()), {}, ctype="text/plain")
    assert r.status_code == 403
    assert r.get_json() == {"error": "CSRF token missing or wrong: reload the page"}
    assert state(eve.archive) == before
    r = post_json(eve.api, "/api/studies", json.dumps(preset()), eve.token, ctype="text/plain")
    assert r.status_code == 201, r.get_data(as_text=True)
    assert grown(before, state(eve.archive)) == new_study_delta(tags=2)


@pytest.mark.parametrize("ctype", ["text/plain", "application/x-www-form-urlencoded"])
def test_a_callback_of_the_wrong_content_type_is_415(eve, ctype):
    body = callback_body(eve.browser, "study-action-message.children", {
        ("study-cancel-confirm", "submit_n_clicks"): 1, (ids.STUDY_ID_STORE, "data"): eve.study})
    before = state(eve.archive)
    r = post_json(eve.browser, "/_dash-update-component", json.dumps(body), eve.csrf,
                  ctype=ctype)
    assert r.status_code == 415
    assert "Unsupported Media Type" in r.get_data(as_text=True)
    assert state(eve.archive) == before
    # the control: the very body as JSON cancels eve's study
    r = post_json(eve.browser, "/_dash-update-component", json.dumps(body), eve.csrf)
    assert "Cancelled 16 queued cases" in r.get_data(as_text=True)


@pytest.mark.parametrize("body", ["[]", '"s"', "null", "1", "{}", '{"output": 5}'])
def test_a_callback_body_that_is_not_a_callback_is_400(eve, body):
    before = state(eve.archive)
    r = post_json(eve.browser, "/_dash-update-component", body, eve.csrf)
    assert r.status_code == 400, r.get_data(as_text=True)[:200]
    assert state(eve.archive) == before
