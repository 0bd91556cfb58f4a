"""The broker probe behind GET /api/health."""

import os
import socket

import pytest
from gapsweep.workers.health import broker_state

from gapsweep.settings import get_settings


def test_embedded_broker_needs_no_server(tmp_path):
    assert broker_state(get_settings({"GAPSWEEP_DATA": str(tmp_path)})) == "embedded"


def test_an_unreachable_redis_is_reported_not_raised(tmp_path):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {"GAPSWEEP_DATA": str(tmp_path), "GAPSWEEP_BROKER_URL": f"redis://127.0.0.1:{port}/0"}
    assert broker_state(get_settings(env), timeout_s=0.5).startswith("error: ")


def test_the_machines_redis_answers(tmp_path):
    env = {"GAPSWEEP_DATA": str(tmp_path), "GAPSWEEP_BROKER_URL": "redis://127.0.0.1:6379/0"}
    state = broker_state(get_settings(env))
    if state != "ok" and os.environ.get("CI", "").lower() != "true":
        pytest.skip(f"Redis on 127.0.0.1:6379: {state}")
    assert state == "ok"
