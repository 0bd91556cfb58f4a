"""Settings from the environment: defaults, overrides, and errors naming the variable."""

from __future__ import annotations

from pathlib import Path

import pytest

from gapsweep.settings import SettingsError, get_settings


def test_defaults(monkeypatch, tmp_path):
    s = get_settings({"HOME": str(tmp_path)})
    assert s.database_url.startswith("sqlite:///") and s.broker_url is None
    assert (s.max_attempts, s.lease_s, s.reconcile_interval_s, s.max_cases) == (
        3, 60.0, 15.0, 100_000
    )
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("GAPSWEEP_DATA", raising=False)
    monkeypatch.delenv("GAPSWEEP_DATABASE_URL", raising=False)
    s = get_settings()
    assert s.data_dir == tmp_path / "xdg" / "gapsweep"
    assert s.database_url == f"sqlite:///{tmp_path / 'xdg' / 'gapsweep' / 'gapsweep.db'}"
    assert not s.data_dir.exists()  # reading settings creates nothing
    assert s.ensure_data_dir().is_dir()


def test_overrides_read_at_each_call(monkeypatch, tmp_path):
    monkeypatch.setenv("GAPSWEEP_DATA", str(tmp_path / "d"))
    monkeypatch.setenv("GAPSWEEP_LEASE_S", "2.5")
    monkeypatch.setenv("GAPSWEEP_MAX_ATTEMPTS", "5")
    monkeypatch.setenv("GAPSWEEP_RECONCILE_S", "0.2")
    monkeypatch.setenv("GAPSWEEP_MAX_CASES", "10")
    monkeypatch.setenv("GAPSWEEP_BROKER_URL", "redis://127.0.0.1:6379/0")
    s = get_settings()
    assert s.data_dir == Path(tmp_path / "d")
    assert s.database_url == f"sqlite:///{tmp_path / 'd' / 'gapsweep.db'}"
    assert (s.lease_s, s.max_attempts, s.reconcile_interval_s, s.max_cases) == (2.5, 5, 0.2, 10)
    assert s.broker_url == "redis://127.0.0.1:6379/0"
    monkeypatch.setenv("GAPSWEEP_DATABASE_URL", "postgresql+psycopg://u@h/db")
    monkeypatch.setenv("GAPSWEEP_LEASE_S", "")  # empty = default
    s = get_settings()
    assert s.database_url == "postgresql+psycopg://u@h/db" and s.lease_s == 60.0


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("GAPSWEEP_LEASE_S", "abc"),
        ("GAPSWEEP_LEASE_S", "-1"),
        ("GAPSWEEP_LEASE_S", "nan"),
        ("GAPSWEEP_RECONCILE_S", "0"),
        ("GAPSWEEP_MAX_ATTEMPTS", "2.5"),
        ("GAPSWEEP_MAX_ATTEMPTS", "0"),
        ("GAPSWEEP_MAX_CASES", "many"),
    ],
)
def test_bad_values_name_the_variable(name, value):
    with pytest.raises(SettingsError) as info:
        get_settings({name: value})
    assert info.value.variable == name and info.value.value == value
    assert str(info.value).startswith(f"{name}={value!r} is not allowed: ")
