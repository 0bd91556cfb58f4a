"""On CI a browser test never skips for a missing chromium, however CI spells its flag (the
other fixtures read ``CI`` lower-cased: tests/support/backends.py and database_fixtures.py);
elsewhere it skips."""

from __future__ import annotations

import pytest
from support import chromium

OUTCOMES = (pytest.fail.Exception, pytest.skip.Exception)


@pytest.mark.parametrize("flag", ["true", "True", "TRUE"])
def test_a_missing_chromium_fails_on_ci(monkeypatch, flag):
    monkeypatch.setattr(chromium.shutil, "which", lambda name: None)
    monkeypatch.setenv("CI", flag)
    with pytest.raises(OUTCOMES) as raised:  # a skip caught here, not skipping this test
        chromium.need_chromium()
    assert raised.type is pytest.fail.Exception, raised.value


@pytest.mark.parametrize("flag", [None, "false", ""])
def test_a_missing_chromium_skips_elsewhere(monkeypatch, flag):
    monkeypatch.setattr(chromium.shutil, "which", lambda name: None)
    if flag is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", flag)
    with pytest.raises(OUTCOMES) as raised:
        chromium.need_chromium()
    assert raised.type is pytest.skip.Exception, raised.value
