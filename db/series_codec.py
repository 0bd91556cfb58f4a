"""How a case's series are stored: one compressed blob per case (``series.data``).

Format ``GSS1``: the 4 magic bytes, a little-endian uint32 header length, a JSON header
``{"arrays": [[name, dtype, shape], ...], "shuffle": true}``, then one zlib stream of every
array's bytes, *byte-shuffled* (byte 0 of every value, then byte 1, ... - the same trick as
Blosc/HDF5's shuffle filter: the exponent bytes of neighbouring samples are alike, so deflate
finds runs). Floating arrays are stored as float32, integer arrays keep their dtype. Decoding
never unpickles (only numeric dtypes are accepted), so a blob from the database is data only.

Measured on the reference case (slider-crank, clearance 0.05 mm; 2 cores shared, mean of 20):
full = its 19 series x 2401 samples + the final state; preview = 10 series x 500 samples + 2
spectra; zlib at level 6 unless said.

| option | full | write | read | preview | write | read |
|---|---|---|---|---|---|---|
| raw float64 | 365 128 B | - | - | 54 424 B | - | - |
| npz deflate float64 | 297 591 B | 8.6 ms | 2.9 ms | 49 774 B | 1.4 ms | 1.0 ms |
| npz deflate float32 | 154 163 B | 3.7 ms | 2.0 ms | 26 730 B | 1.0 ms | 0.7 ms |
| npz stored float32 | 187 818 B | 0.7 ms | 1.0 ms | 30 640 B | 0.2 ms | 0.5 ms |
| zlib float64 | 296 517 B | 14.6 ms | 1.4 ms | 48 351 B | 1.3 ms | 0.2 ms |
| zlib shuffle float64 | 253 619 B | 6.6 ms | 1.3 ms | 42 989 B | 0.9 ms | 0.2 ms |
| zlib float32 | 155 168 B | 4.8 ms | 0.7 ms | 25 457 B | 0.5 ms | 0.1 ms |
| zlib shuffle float32 | 117 154 B | 3.5 ms | 0.7 ms | 21 003 B | 0.4 ms | 0.1 ms |
| **zlib shuffle f32, level 1** | **119 721 B** | 2.3 ms | 0.6 ms | **21 294 B** | 0.3 ms | 0.1 |

Chosen: zlib of byte-shuffled float32 - the smallest by 25-40 % and among the fastest to
read - at level 1, which is only 1-2 % larger than level 6 and ~35 % faster to write (the
write is on the worker's path: 1,000 preview results are stored per benchmark run in
benchmarks/archive_scale.py). float32 keeps 7 significant digits, ample for plots and
spectra; metrics are float64 columns, and a case is deterministic, so full precision is one
re-run away (design.md 3). Preview: ~21 KB per case; full: ~120 KB per case.
"""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Iterable, Mapping

import numpy as np

MAGIC = b"GSS1"
_LEVEL = 1
_KINDS = "biuf"  # numeric dtypes only: bool, signed/unsigned integer, float


def _stored(array: np.ndarray) -> np.ndarray:
    """The array as it is stored: floats as little-endian float32, integers as given."""
    a = np.asarray(array)
    if a.dtype.kind not in _KINDS:
        raise TypeError(f"series of dtype {a.dtype} cannot be stored (numbers only)")
    dtype = np.dtype("<f4") if a.dtype.kind == "f" else a.dtype.newbyteorder("<")
    return np.ascontiguousarray(a, dtype=dtype)


def encode_series(series: Mapping[str, np.ndarray]) -> bytes:
    """One blob holding every named array (see the module docstring for the format)."""
    header, parts = [], []
    for name, array in series.items():
        a = _stored(array)
        raw = a.reshape(-1).view(np.uint8).reshape(-1, a.itemsize)
        parts.append(raw.T.tobytes())  # the byte shuffle
        header.append([str(name), a.dtype.str, list(a.shape)])
    head = json.dumps({"arrays": header, "shuffle": True}).encode()
    return MAGIC + struct.pack("<I", len(head)) + head + zlib.compress(b"".join(parts), _LEVEL)


def series_names(blob: bytes) -> list[str]:
    """The names stored in ``blob``, without decompressing the data."""
    return [entry[0] for entry in _header(blob)[0]["arrays"]]


def decode_series(blob: bytes, names: Iterable[str] | None = None) -> dict[str, np.ndarray]:
    """The arrays of ``blob`` (only ``names`` if given; an unknown name raises KeyError)."""
    head, start = _header(blob)
    wanted = None if names is None else list(names)
    known = {entry[0] for entry in head["arrays"]}
    for name in wanted or ():
        if name not in known:
            raise KeyError(name)
    layout = []
    for name, dtype_str, shape in head["arrays"]:
        dtype = np.dtype(dtype_str)
        if dtype.kind not in _KINDS:
            raise ValueError(f"series blob names a non-numeric dtype {dtype_str!r}")
        layout.append((name, dtype, tuple(shape), int(np.prod(shape, dtype=np.int64))))
    data = zlib.decompress(blob[start:])
    if sum(size * dtype.itemsize for _, dtype, _, size in layout) != len(data):
        raise ValueError("series blob is truncated or has trailing data")
    out: dict[str, np.ndarray] = {}
    offset = 0
    for name, dtype, shape, size in layout:
        nbytes = size * dtype.itemsize
        if wanted is None or name in wanted:
            chunk = np.frombuffer(data, np.uint8, nbytes, offset)
            values = chunk.reshape(dtype.itemsize, size).T.copy().view(dtype)
            out[name] = values.reshape(shape)
        offset += nbytes
    return out


def _header(blob: bytes) -> tuple[dict, int]:
    if blob[:4] != MAGIC:
        raise ValueError("not a gapsweep series blob")
    (length,) = struct.unpack("<I", blob[4:8])
    return json.loads(blob[8 : 8 + length]), 8 + length
