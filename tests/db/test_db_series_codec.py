"""The series blob: round trip, float32 precision, partial reads, refusals."""

from __future__ import annotations

import struct
import zlib

import numpy as np
import pytest
from gapsweep.db.series_codec import decode_series, encode_series, series_names


def test_round_trip_and_partial_read():
    rng = np.random.default_rng(1)
    series = {
        "t": np.linspace(0, 0.1, 2401),
        "force": rng.normal(size=2401) * 1e4,
        "state": np.arange(22, dtype=np.int64),
        "grid": rng.random((3, 4)),
    }
    blob = encode_series(series)
    assert series_names(blob) == ["t", "force", "state", "grid"]
    out = decode_series(blob)
    assert list(out) == list(series)
    for name in ("t", "force", "grid"):
        assert out[name].dtype == np.float32 and out[name].shape == series[name].shape
        np.testing.assert_array_equal(out[name], series[name].astype(np.float32))
    np.testing.assert_array_equal(out["state"], series["state"])
    assert out["state"].dtype == np.int64
    assert list(decode_series(blob, ["grid", "t"])) == ["t", "grid"]
    with pytest.raises(KeyError, match="missing"):
        decode_series(blob, ["missing"])


def test_smaller_than_raw_float32_on_smooth_series():
    t = np.linspace(0, 0.1, 2401)
    series = {f"s{i}": np.sin((i + 1) * 60 * t) for i in range(10)}
    assert len(encode_series(series)) < 0.9 * 10 * 2401 * 4


def test_refusals():
    with pytest.raises(TypeError, match="numbers only"):
        encode_series({"x": np.array(["a", "b"])})
    with pytest.raises(ValueError, match="not a gapsweep series blob"):
        decode_series(b"PK\x03\x04 a zip file")
    blob = encode_series({"x": np.ones(10)})
    n = struct.unpack("<I", blob[4:8])[0]
    truncated = blob[: 8 + n] + zlib.compress(zlib.decompress(blob[8 + n :])[:-4])
    with pytest.raises(ValueError, match="truncated"):
        decode_series(truncated)
