"""The study page's affordances without a browser (issue 17): clone a study into the form
(``/studies/new?from=<id>``), edit its notes and tags under the accounts rules with the
audit row. The browser checks are in test_browser_affordances.py."""

from __future__ import annotations

import pytest
from account_fixtures import callback_body
from archive_fixtures import component_ids, find, page, preset, texts
from gapsweep.web import ids
from sqlalchemy import select


def form_spec(module, layout) -> dict:
    """The spec the form in ``layout`` holds, as submit would read it (validated)."""
    from gapsweep.study.spec import parse_spec
    from gapsweep.web.views.study_form import form_to_spec

    values = {key: getattr(find(layout, cid), prop) for key, cid, prop in module.FIELDS}
    data, errors = form_to_spec(**values)
    assert errors == []
    return parse_spec(data).to_dict()


def test_clone_fills_the_form_with_the_source_spec_and_its_current_notes(archive):
    from gapsweep.study.spec import parse_spec

    source = preset()
    source.update(name="Source study", design="one-at-a-time", series="full",
                  description="first notes", tags=["a", "b"])
    source["base"] = {"speed_rpm": 3000, "friction": 0.05}
    source["axes"] = {"clearance_mm": {"values": [0.02, 0.05, 0.1], "nominal": 0.05},
                      "restitution": {"nominal": 0.9, "relative_percent": 5, "levels": 3}}
    with archive.request():
        study_id = archive.create(source)
        from gapsweep.accounts.roles import LOCAL
        from gapsweep.web import actions

        actions.archive(LOCAL).set_notes(study_id, description="edited notes", tags=["c"])
        module = page("new_study")
        layout = module.layout(**{"from": str(study_id)})
        got = form_spec(module, layout)
        want = parse_spec({**source, "description": "edited notes", "tags": ["c"]}).to_dict()
        assert got == want
        assert f"study {study_id}: Source study" in texts(
            find(layout, ids.NEW_CLONE_NOTICE))
        # the form is the same form: submitting it creates a second study of that spec
        n = archive.count("studies")
        values = tuple(getattr(find(layout, cid), prop) for _, cid, prop in module.FIELDS)
        path, _ = module.submit(1, *values)
        assert path == f"/studies/{study_id + 1}" and archive.count("studies") == n + 1
        with archive.sessions() as s:
            from gapsweep.db.studies import study_detail

            assert parse_spec(study_detail(s, study_id + 1)["spec"]).to_dict() == want


@pytest.mark.parametrize("bad", ["999999", "abc", str(2**70)])
def test_clone_of_an_unknown_study_says_so_and_shows_the_preset(archive, bad):
    from gapsweep.study.spec import parse_spec

    with archive.request():
        module = page("new_study")
        layout = module.layout(**{"from": bad})
        assert form_spec(module, layout) == parse_spec(preset()).to_dict()
        assert "the preset" in texts(find(layout, ids.NEW_CLONE_NOTICE))


def test_study_page_has_clone_link_and_notes_editor(archive):
    with archive.request():
        study_id = archive.create()
        layout = page("study").layout(study_id=str(study_id))
    assert find(layout, ids.STUDY_CLONE).href == f"/studies/new?from={study_id}"
    assert {ids.STUDY_NOTES_EDIT, ids.STUDY_NOTES_SAVE, ids.STUDY_DESCRIPTION,
            ids.STUDY_TAGS} <= component_ids(layout)  # accounts off: the local admin


def _audit(archive) -> list[tuple]:
    from gapsweep.db.models import AuditEvent

    with archive.sessions() as s:
        return [(e.actor, e.action, e.target, e.detail) for e in
                s.scalars(select(AuditEvent).order_by(AuditEvent.id))]


def _notes(archive, study_id) -> tuple[str, list[str], list[str]]:
    from gapsweep.db.models import Study, StudyTag

    with archive.sessions() as s:
        study = s.get(Study, study_id)
        index = sorted(s.scalars(select(StudyTag.tag).where(StudyTag.study_id == study_id)))
        return study.description, list(study.tags), index


def _save(accounts, who: str, study_id: int, text: str, tags: str):
    reader, _ = accounts.sign_in("ada")
    body = callback_body(reader, "study-notes-message.children", {
        (ids.STUDY_NOTES_SAVE, "n_clicks"): 1, (ids.STUDY_ID_STORE, "data"): study_id,
        (ids.STUDY_NOTES_TEXT, "value"): text, (ids.STUDY_NOTES_TAGS, "value"): tags})
    client, csrf = accounts.sign_in(who)
    r = client.post("/_dash-update-component", json=body, headers={"X-CSRFToken": csrf})
    assert r.status_code == 200, r.get_data(as_text=True)
    return r.get_json()["response"]


@pytest.mark.parametrize("who, allowed", [("eve", True), ("ada", True), ("ed", False),
                                          ("vic", False)])
def test_notes_and_tags_edit_role_matrix_with_audit_row(archive, accounts, who, allowed):
    """The owner (editor eve) and an admin may; another editor and a viewer are refused
    with nothing written. The tag index follows the edit (the archive's tag filter)."""
    from gapsweep.db.studies import list_studies
    from gapsweep.study.spec import parse_spec
    from gapsweep.workers.submit import create_study_rows

    study_id = create_study_rows(parse_spec(preset()), sessions=archive.sessions, owner="eve")
    before = _notes(archive, study_id)
    out = _save(accounts, who, study_id, "new notes", " x-1, y ,x-1, ")
    if not allowed:
        assert "Not allowed" in str(out) and "may not tag study" in str(out)
        assert _notes(archive, study_id) == before and _audit(archive) == []
        return
    assert out[ids.STUDY_DESCRIPTION]["children"] == "new notes"
    assert _notes(archive, study_id) == ("new notes", ["x-1", "y"], ["x-1", "y"])
    assert _audit(archive) == [(who, "study.tag", f"study:{study_id}", {
        "via": "session", "old": {"description": before[0], "tags": before[1]},
        "new": {"description": "new notes", "tags": ["x-1", "y"]}})]
    with archive.sessions() as s:
        assert [i["id"] for i in list_studies(s, tag="x-1")[1]] == [study_id]
        assert list_studies(s, tag="flores")[0] == 0


def test_notes_over_the_limits_are_refused_naming_the_field(archive):
    from gapsweep.accounts.roles import LOCAL
    from gapsweep.web import actions

    with archive.request():
        study_id = archive.create()
        before = _notes(archive, study_id)
        with pytest.raises(ValueError, match=r"tags\[1\]: .*allowed 1 to 40 characters"):
            actions.archive(LOCAL).set_notes(study_id, description="", tags=["ok", "x" * 41])
        with pytest.raises(ValueError, match="description: 10001 characters — allowed at "
                                             "most 10000"):
            actions.archive(LOCAL).set_notes(study_id, description="d" * 10_001, tags=[])
        assert _notes(archive, study_id) == before and _audit(archive) == []


# --- /admin/users --------------------------------------------------------------------------

USER_BUTTONS = (ids.USERS_ADD, ids.USERS_SET_ROLE, ids.USERS_DISABLE, ids.USERS_ENABLE,
                ids.USERS_TOKEN_CREATE, ids.USERS_TOKEN_REVOKE)


def _users_call(accounts, who: str, button: str | None, **states):
    """POST the users page's callback as ``who``'s browser would, ``button`` pressed."""
    reader, _ = accounts.sign_in("ada")
    values = {(button, "n_clicks"): 1} if button else {}  # first: the triggering input
    values[(ids.USERS_TARGET, "value")] = states.pop("target", None)
    names = {"name": ids.USERS_NAME, "role": ids.USERS_ROLE, "password": ids.USERS_PASSWORD,
             "new_role": ids.USERS_NEW_ROLE, "label": ids.USERS_TOKEN_LABEL,
             "token_id": ids.USERS_TOKEN_ID}
    for key, value in states.items():
        values[(names[key], "value")] = value
    body = callback_body(reader, "users-message.children", values)
    client, csrf = accounts.sign_in(who)
    r = client.post("/_dash-update-component", json=body, headers={"X-CSRFToken": csrf})
    assert r.status_code == 200, r.get_data(as_text=True)
    return r.get_json()["response"]


def _users(archive) -> dict[str, tuple[str, bool]]:
    from gapsweep.db.models import User

    with archive.sessions() as s:
        return {u.name: (u.role, u.disabled) for u in s.scalars(select(User))}


def test_users_page_refuses_a_non_admin_and_shows_an_admin_the_users(archive, accounts):
    for who, allowed in (("vic", False), ("eve", False), ("ada", True)):
        client, _ = accounts.sign_in(who)
        layout = client.get("/_dash-layout")
        assert layout.status_code == 200
        with archive.app.server.test_request_context():
            from flask import g
            from gapsweep.accounts.roles import Principal

            g.principal = Principal(who, {"vic": "viewer", "eve": "editor",
                                          "ada": "admin"}[who], "session")
            page_layout = page("users").layout()
        text = texts(page_layout)
        if allowed:
            assert ids.USERS_ADD in component_ids(page_layout)
            assert all(name in text for name in ("ada", "eve", "ed", "vic", "dan"))
        else:
            assert "Not allowed: only an admin can manage users" in text
            assert ids.USERS_ADD not in component_ids(page_layout)


def test_admin_adds_a_user_who_can_sign_in_and_the_audit_row_says_so(archive, accounts):
    out = _users_call(accounts, "ada", ids.USERS_ADD, name="newbie", role="editor",
                      password="a long enough password")
    assert "User newbie added (editor)." in str(out[ids.USERS_MESSAGE])
    assert _users(archive)["newbie"] == ("editor", False)
    assert _audit(archive)[-1] == ("ada", "user.add", "user:newbie",
                                   {"role": "editor", "via": "session"})
    accounts.sign_in("newbie", "a long enough password")  # asserts the 302 of a sign-in


@pytest.mark.parametrize("who", ["vic", "eve"])
@pytest.mark.parametrize("button", USER_BUTTONS)
def test_every_user_change_is_refused_to_a_non_admin_with_nothing_written(
        archive, accounts, who, button):
    before, audit_before = _users(archive), _audit(archive)
    out = _users_call(accounts, who, button, name="mallory", role="admin",
                      password="a long enough password", target="vic", new_role="admin",
                      label="x", token_id=1)
    assert "Not allowed" in str(out[ids.USERS_MESSAGE])
    assert _users(archive) == before and _audit(archive) == audit_before


def test_bad_input_names_the_field_and_writes_nothing(archive, accounts):
    before = _users(archive)
    cases = [({"name": "bad name!", "role": "viewer", "password": "long enough pw"},
              "name: 'bad name!' — allowed"),
             ({"name": "okname", "role": "boss", "password": "long enough pw"},
              "role: 'boss' — allowed viewer, editor, admin"),
             ({"name": "okname", "role": "viewer", "password": "short"},
              "password: 5 characters — allowed 8 to 1024"),
             ({"name": "eve", "role": "viewer", "password": "long enough pw"},
              "name: 'eve' — a user of that name exists")]
    for states, message in cases:
        out = _users_call(accounts, "ada", ids.USERS_ADD, **states)
        assert message in str(out[ids.USERS_MESSAGE]), out
    assert _users(archive) == before


def test_the_last_enabled_admin_can_be_neither_demoted_nor_disabled(archive, accounts):
    out = _users_call(accounts, "ada", ids.USERS_SET_ROLE, target="ada", new_role="editor")
    assert "the last enabled admin cannot be demoted" in str(out[ids.USERS_MESSAGE])
    out = _users_call(accounts, "ada", ids.USERS_DISABLE, target="ada")
    assert "the last enabled admin cannot be disabled" in str(out[ids.USERS_MESSAGE])
    assert _users(archive)["ada"] == ("admin", False)
    # with a second admin, the first may step down; audited with old and new
    _users_call(accounts, "ada", ids.USERS_SET_ROLE, target="ed", new_role="admin")
    _users_call(accounts, "ada", ids.USERS_SET_ROLE, target="ada", new_role="viewer")
    assert _users(archive)["ada"] == ("viewer", False)
    assert [a[:3] + (a[3]["old"], a[3]["new"]) for a in _audit(archive)] == [
        ("ada", "user.role", "user:ed", "editor", "admin"),
        ("ada", "user.role", "user:ada", "admin", "viewer")]


def test_disable_enable_and_tokens_through_the_page(archive, accounts):
    from gapsweep.accounts.tokens import digest
    from gapsweep.db.models import ApiToken

    _users_call(accounts, "ada", ids.USERS_DISABLE, target="vic")
    assert _users(archive)["vic"] == ("viewer", True)
    r = archive.client().get("/api/studies", headers=accounts.bearer("vic"))
    assert r.status_code == 401  # a disabled user's token is refused
    _users_call(accounts, "ada", ids.USERS_ENABLE, target="vic")
    assert _users(archive)["vic"] == ("viewer", False)
    out = _users_call(accounts, "ada", ids.USERS_TOKEN_CREATE, target="vic", label="ci")
    token = str(out[ids.USERS_MESSAGE]).split("'children': '")[-1].split("'")[0]
    assert token.startswith("gsw_")
    with archive.sessions() as s:
        row = s.scalar(select(ApiToken).where(ApiToken.token_hash == digest(token)))
        token_id = row.id
    assert archive.client().get("/api/studies", headers={
        "Authorization": f"Bearer {token}"}).status_code == 200
    out = _users_call(accounts, "ada", ids.USERS_TOKEN_REVOKE, target="vic", token_id=token_id)
    assert f"Token {token_id} of vic revoked." in str(out[ids.USERS_MESSAGE])
    assert archive.client().get("/api/studies", headers={
        "Authorization": f"Bearer {token}"}).status_code == 401
    assert [a[1] for a in _audit(archive)] == ["user.disable", "user.enable", "token.create",
                                               "token.revoke"]


# --- the case grid (server-side rows) ------------------------------------------------------

def test_case_grid_callback_pages_sorts_and_filters_on_the_server(archive):
    from archive_fixtures import fake_metrics

    with archive.request():
        study_id = archive.create()
        layout = page("study").layout(study_id=str(study_id))
    archive.run(archive.case_ids(study_id))
    client = archive.client()
    kinds = find(layout, ids.STUDY_CASE_GRID_KINDS).data
    assert kinds == {"clearance_mm": "number", "stiffness_scale": "number"}

    def rows(request):
        body = callback_body(client, "study-case-grid.getRowsResponse", {
            (ids.STUDY_CASE_GRID, "getRowsRequest"): request,
            (ids.STUDY_ID_STORE, "data"): study_id,
            (ids.STUDY_CASE_GRID_KINDS, "data"): kinds})
        body["outputs"] = body["outputs"][0]  # a single output is sent as itself
        r = client.post("/_dash-update-component", json=body)
        assert r.status_code == 200, r.get_data(as_text=True)
        return r.get_json()["response"][ids.STUDY_CASE_GRID]["getRowsResponse"]

    params = [{"clearance_mm": c, "stiffness_scale": k} for c in (0.02, 0.035, 0.05, 0.08, 0.1)
              for k in (0.7, 1.0, 1.3)]
    # the grid's metric columns are the headline: the settled motion's (issue 23)
    want = sorted(params, key=lambda p: -fake_metrics(p)["peak_slider_accel_settled"])
    got = rows({"startRow": 0, "endRow": 100,
                "sortModel": [{"colId": "peak_slider_accel_settled", "sort": "desc"}]})
    assert got["rowCount"] == 15
    assert [(r["clearance_mm"], r["stiffness_scale"]) for r in got["rowData"]] == [
        (p["clearance_mm"], p["stiffness_scale"]) for p in want]
    first = got["rowData"][0]
    assert first["peak_slider_accel_settled"] == pytest.approx(
        fake_metrics(want[0])["peak_slider_accel_settled"])
    assert first["case"] == f"[{first['id']}](/cases/{first['id']})"
    got = rows({"startRow": 0, "endRow": 100, "sortModel": [], "filterModel": {
        "stiffness_scale": {"filterType": "number", "type": "equals", "filter": 1.0}}})
    assert got["rowCount"] == 5 and {r["stiffness_scale"] for r in got["rowData"]} == {1.0}
    # a hand-made request naming no column: no rows, not a server error
    assert rows({"startRow": 0, "endRow": 100,
                 "sortModel": [{"colId": "x; DROP TABLE cases", "sort": "asc"}]}) == {
        "rowData": [], "rowCount": 0}
    assert archive.count("cases") == 16


def test_the_case_grid_pins_the_ideal_twin_marked_and_hides_the_run_columns(archive):
    """The ideal twin is listed under the cases, marked, with its metrics in the table's
    units; attempts, reason and time are on demand (they took the width of the metrics)."""
    from archive_fixtures import fake_metrics
    from gapsweep.web.components import case_grid

    with archive.request():
        study_id = archive.create()
        layout = page("study").layout(study_id=str(study_id))
        archive.run(archive.case_ids(study_id))
        kinds = find(layout, ids.STUDY_CASE_GRID_KINDS).data
        pinned = case_grid.pinned_twins(1, study_id, kinds)
    (twin_id,) = archive.case_ids(study_id, "twin")
    (row,) = pinned
    assert row["case"] == f"[{twin_id} (ideal twin)](/cases/{twin_id})"
    assert row["peak_slider_accel_settled"] == pytest.approx(
        fake_metrics({"ideal": True})["peak_slider_accel_settled"])
    assert row["max_penetration_settled"] == pytest.approx(0.9e-6 * 1e6)  # in µm, as shown
    columns = find(layout, ids.STUDY_CASE_GRID).columnDefs
    hidden = {c["field"] for c in columns if c.get("hide")}
    assert hidden == {"attempts", "reason", "wall_time_s"}
    shown = [c["field"] for c in columns if not c.get("hide")]
    assert shown[:4] == ["case", "status", "clearance_mm", "stiffness_scale"]
    assert not any(c.get("hide") for c in case_grid.more_columns(["more"], kinds))


# --- figure downloads ----------------------------------------------------------------------

def test_every_figure_has_png_svg_csv_downloads(archive):
    import json

    from gapsweep.web.figures.style import GRAPH_CONFIG

    with archive.request():
        study_id = archive.create()
        archive.run(archive.case_ids(study_id))
        case_id = archive.case_ids(study_id, "case")[0]
        layouts = {"case": page("case").layout(case_id=str(case_id)),
                   "study": page("study").layout(study_id=str(study_id))}
    for name, layout in layouts.items():
        found = component_ids(layout)
        graphs = {c.id for c in layout._traverse()
                  if type(c).__name__ == "Graph" and isinstance(c.id, str)}
        targets = graphs | ({ids.SENSITIVITY_CONTENT, ids.SPECTRA_GRAPH,
                             ids.CONVERGENCE_CONTENT} if name == "study" else set())
        assert len(graphs) >= (3 if name == "case" else 1), name
        for target in targets:
            for fmt in ("png", "svg", "csv"):
                assert json.dumps({"format": fmt, "graph": target,
                                   "type": ids.FIGURE_DOWNLOAD}, sort_keys=True) in found
        for g in (c for c in layout._traverse() if type(c).__name__ == "Graph"):
            assert g.config["toImageButtonOptions"]["format"] == "png"
    assert GRAPH_CONFIG["displaylogo"] is False


# --- rerun a case with other solver settings -----------------------------------------------

def test_rerun_spec_keeps_the_case_and_changes_only_the_solver_settings(archive):
    from gapsweep.db.studies import case_detail
    from gapsweep.study.designs import plan_study
    from gapsweep.study.spec import parse_spec
    from gapsweep.web.components.case_rerun import rerun_spec

    with archive.request():
        study_id = archive.create()
        case_id = archive.case_ids(study_id, "case")[7]
        with archive.sessions() as s:
            detail = case_detail(s, case_id)
        spec = rerun_spec(detail, {"rtol": 1e-9, "integrator": "bs32", "n_output": "",
                                   "event_location": None})
        plan = plan_study(parse_spec(spec))
        assert plan.cases == [{**detail["params"], "integrator": "bs32", "rtol": 1e-9}]
        assert plan.twins == [] and spec["series"] == "full"
        twin = archive.case_ids(study_id, "twin")[0]
        with archive.sessions() as s:
            twin_detail = case_detail(s, twin)
        with pytest.raises(ValueError, match="ideal twin"):
            rerun_spec(twin_detail, {"rtol": 1e-9})


def test_rerun_button_submits_a_one_case_study_and_the_page_compares_the_metrics(
        archive, monkeypatch):
    from archive_fixtures import fake_metrics
    from gapsweep.web.components.case_rerun import COMPARED, differences

    with archive.request():
        study_id = archive.create()
        archive.run(archive.case_ids(study_id))
        case_id = archive.case_ids(study_id, "case")[4]
        module = page("case")
        layout = module.layout(case_id=str(case_id))
        assert find(layout, ids.CASE_RERUN_RTOL).value == 1e-6  # the setting it ran with
        from gapsweep.web.components import case_rerun

        href, _ = case_rerun.submit(1, case_id, 1e-8, "bs32", 1201, "bisect")
        rerun_case = int(href.split("rerun=")[1])
        assert href == f"/cases/{case_id}?rerun={rerun_case}"
        assert archive.sent[-1] == [rerun_case]  # enqueued alone, no twin
        waiting = module.layout(case_id=str(case_id), rerun=str(rerun_case))
        assert "is queued" in texts(find(waiting, ids.CASE_RERUN_RESULT))
        assert find(waiting, ids.CASE_RERUN_POLL).disabled is False
        archive.run([rerun_case])  # fake metrics of the rerun's params: same as the stored
        content, stop = case_rerun.poll(1, [case_id, str(rerun_case)])
        assert stop is True
        shown = texts(content)
        assert f"Rerun (case {rerun_case})" in shown and "rtol = 1e-08" in shown
    stored = fake_metrics(archive_params(archive, case_id))
    rows = differences(stored, {**stored, "peak_slider_accel": 1.1 * stored[
        "peak_slider_accel"], "impacts": stored["impacts"] + 2})
    by = {r["metric"]: r for r in rows}
    assert by["peak_slider_accel"]["relative_percent"] == pytest.approx(10.0)
    assert by["impacts"]["difference"] == 2
    assert set(by) == {m for m in COMPARED if m in stored}


def archive_params(archive, case_id: int) -> dict:
    from gapsweep.db.models import Case

    with archive.sessions() as s:
        return dict(s.get(Case, case_id).params)


def test_rerun_is_refused_to_a_viewer_with_nothing_written(archive, accounts):
    from gapsweep.study.spec import parse_spec
    from gapsweep.workers.submit import create_study_rows

    before = archive.count("studies")
    study_id = create_study_rows(parse_spec(preset()), sessions=archive.sessions, owner="eve")
    case_id = archive.case_ids(study_id, "case")[0]
    reader, _ = accounts.sign_in("ada")
    body = callback_body(reader, "case-rerun-result-message.children", {
        (ids.CASE_RERUN_GO, "n_clicks"): 1, (ids.CASE_ID_STORE, "data"): case_id,
        (ids.CASE_RERUN_RTOL, "value"): 1e-8})
    client, csrf = accounts.sign_in("vic")
    r = client.post("/_dash-update-component", json=body, headers={"X-CSRFToken": csrf})
    assert r.status_code == 200 and "Not allowed" in r.get_data(as_text=True)
    assert archive.count("studies") == before + 1  # only the source study
