"""Accounts without storage: password hashing, secrets, roles and the sign-in limiter's rule.

- :mod:`.passwords` - scrypt hashes (memory-hard), self-describing so parameters can grow.
- :mod:`.tokens` - session ids, CSRF and API tokens: random, stored only as SHA-256 digests.
- :mod:`.roles` - who (a :class:`~.roles.Principal`) may do what to whose study.
- :mod:`.login_limiter` - when failed sign-ins lock an account or an address, and for how long.

The tables are in :mod:`gapsweep.db.models`, their queries in :mod:`gapsweep.db.accounts`;
the web app's use of all this is :mod:`gapsweep.web.auth`.
"""
