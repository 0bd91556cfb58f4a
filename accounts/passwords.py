"""Password hashes with scrypt (memory-hard; Python's ``hashlib``, no extra dependency).

A hash is ``scrypt$<log2 n>$<r>$<p>$<salt hex>$<digest hex>``: it carries its parameters, so
raising the cost later leaves old hashes verifiable. n = 2**15, r = 8 needs 32 MiB per hash
(128 n r bytes), which is what makes a GPU or an ASIC guessing attack costly.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

LOG2_N, R, P = 15, 8, 1
SALT_BYTES, DIGEST_BYTES = 16, 32
MIN_LENGTH, MAX_LENGTH = 8, 1024  # the upper bound keeps a hostile 1 MB "password" cheap


class PasswordError(ValueError):
    """A password gapsweep will not accept (says why)."""


def check_password(password: str) -> None:
    """Raise :class:`PasswordError` unless ``password`` is 8 to 1024 characters."""
    if not MIN_LENGTH <= len(password) <= MAX_LENGTH:
        raise PasswordError(
            f"password: {len(password)} characters — allowed {MIN_LENGTH} to {MAX_LENGTH}"
        )


def _scrypt(password: str, salt: bytes, log2_n: int, r: int, p: int) -> bytes:
    n = 1 << log2_n
    return hashlib.scrypt(
        password.encode("utf-8"), salt=salt, n=n, r=r, p=p,
        maxmem=256 * n * r * p, dklen=DIGEST_BYTES,
    )


def hash_password(password: str) -> str:
    """A new salted hash of ``password`` (checked by :func:`check_password` first)."""
    check_password(password)
    salt = secrets.token_bytes(SALT_BYTES)
    digest = _scrypt(password, salt, LOG2_N, R, P)
    return f"scrypt${LOG2_N}${R}${P}${salt.hex()}${digest.hex()}"


def verify_password(password: str, stored: str) -> bool:
    """Whether ``password`` matches ``stored``; False for a malformed hash or an overlong
    password (never raises on what a client sends)."""
    if len(password) > MAX_LENGTH:
        return False
    try:
        scheme, log2_n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        got = _scrypt(password, bytes.fromhex(salt), int(log2_n), int(r), int(p))
    except ValueError:
        return False
    return hmac.compare_digest(got, bytes.fromhex(digest))
