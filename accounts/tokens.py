"""Random secrets (session ids, CSRF tokens, API tokens) and the digests they are stored as.

A secret has 256 bits of entropy, so a plain SHA-256 is enough to store it: there is nothing
to brute-force, unlike a password. Only the digest is written; a database dump reveals no
usable session or token.
"""

from __future__ import annotations

import hashlib
import secrets

TOKEN_PREFIX = "gsw_"  # makes a leaked token recognisable (secret scanners, logs)


def new_secret() -> str:
    """43 URL-safe characters (32 random bytes)."""
    return secrets.token_urlsafe(32)


def new_api_token() -> str:
    """A personal API token: ``gsw_`` + a new secret."""
    return TOKEN_PREFIX + new_secret()


def digest(secret: str) -> str:
    """The SHA-256 hex digest ``secret`` is stored and looked up as."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()
