"""How a study's case ids become messages: balanced chunks sized by what a case costs."""

from __future__ import annotations

from pathlib import Path

import pytest
from gapsweep.study.designs import estimate_seconds
from gapsweep.study.spec import load_spec_file, parse_spec
from gapsweep.workers.dispatch import MAX_CHUNK, MIN_MESSAGES, chunking, chunks

from gapsweep.settings import get_settings

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "clearance_x_stiffness.toml"


@pytest.mark.parametrize(
    ("n", "size", "at_least", "lengths"),
    [
        (20, 8, 1, [7, 7, 6]),  # three messages, no runt at the end (was 8, 8, 4)
        (16, 8, 1, [8, 8]),
        (15, 32, 2, [8, 7]),  # a small study still reaches two processes
        (1, 32, 2, [1]),
        (0, 8, 2, []),
        (5, 1, 1, [1, 1, 1, 1, 1]),
        (1000, 32, 2, [32] * 8 + [31] * 24),
    ],
)
def test_chunks_are_balanced_and_keep_every_id_once_in_order(n, size, at_least, lengths):
    ids = list(range(100, 100 + n))
    out = chunks(ids, size, at_least=at_least)
    assert sorted(len(c) for c in out) == sorted(lengths)
    assert [i for c in out for i in c] == ids
    assert all(len(c) <= size for c in out)


def _spec(t_end: float | None):
    data = load_spec_file(EXAMPLE).to_dict()
    if t_end is not None:
        data["base"] = {**data.get("base", {}), "t_end": t_end}
    return parse_spec(data)


def test_automatic_size_follows_the_estimated_cost_of_a_case(tmp_path):
    settings = get_settings({"GAPSWEEP_DATA": str(tmp_path)})
    assert settings.chunk_size is None
    # until settled (up to 80 revolutions, ~0.16 s estimated): one case a message
    settled = estimate_seconds(_spec(None), 1)
    assert settled == pytest.approx(0.16)
    assert chunking(settings, settled, 15) == (1, MIN_MESSAGES)
    # two revolutions (~4 ms): as many as a message may hold
    two = estimate_seconds(_spec(0.024), 1)
    assert chunking(settings, two, 1000) == (MAX_CHUNK, MIN_MESSAGES)
    # 0.1 s of motion (~17 ms): 0.15 s / 0.0167 s = 9 cases
    assert chunking(settings, estimate_seconds(_spec(0.1), 1), 1000) == (9, MIN_MESSAGES)
    # a huge study is held to MAX_MESSAGES messages, however long its cases
    assert chunking(settings, settled, 20_000) == (8, MIN_MESSAGES)
    assert chunking(settings, two, 100_000) == (40, MIN_MESSAGES)
    size, at_least = chunking(settings, settled, 100_000)
    assert len(chunks(list(range(100_000)), size, at_least=at_least)) == 2500


def test_a_configured_size_is_taken_exactly(tmp_path):
    settings = get_settings({"GAPSWEEP_DATA": str(tmp_path), "GAPSWEEP_CHUNK_SIZE": "4"})
    size, at_least = chunking(settings, 0.16, 10)
    assert (size, at_least) == (4, 1)
    assert [len(c) for c in chunks(list(range(10)), size, at_least=at_least)] == [4, 3, 3]
