"""Accounts from the command line: users, their API tokens, the audit log.

    gapsweep user add NAME --role viewer|editor|admin     password: prompted twice on a
    gapsweep user password NAME                           terminal, else stdin's first line
    gapsweep user list [--json]
    gapsweep user set-role NAME ROLE
    gapsweep user disable NAME | enable NAME
    gapsweep user token NAME [--label L]                  the new token on stdout, once
    gapsweep user tokens NAME [--json]
    gapsweep user revoke NAME TOKEN_ID
    gapsweep audit [--limit N] [--json]                   newest first

They work on the database (``GAPSWEEP_DATABASE_URL``); with ``GAPSWEEP_URL`` set they refuse,
rather than change a database the server may not use. Every change writes its audit event
in the change's own transaction (actor ``cli:<login>@<host>``). Bad input exits 2 with one
line: ``field: value — allowed``. The first user turns accounts on (``gapsweep serve``).
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
import re
import sys
from collections.abc import Mapping

from gapsweep.settings import get_settings

from .actor import cli_actor
from .exit_codes import EXIT_BAD_INPUT, EXIT_OK, CommandError
from .output import print_json

ADMIN_PASSWORD_VARIABLE, ADMIN_USER_VARIABLE = "GAPSWEEP_ADMIN_PASSWORD", "GAPSWEEP_ADMIN_USER"
NAME_ALLOWED = "1 to 64 letters, digits and . _ @ -, starting with a letter or digit"
MAX_LABEL = 100
MAX_AUDIT_LIMIT = 10_000


def _sessions():
    from gapsweep import remote
    from gapsweep.db.engine import open_database

    if remote.configured():
        raise CommandError(
            f"the user and audit commands work on a database, and {remote.URL_VARIABLE} is set: "
            f"run them where the server's database is, without {remote.URL_VARIABLE}")
    return open_database(get_settings().database_url)


def check_name(name: str, field: str = "name") -> str:
    from gapsweep.db.accounts import NAME_PATTERN

    if re.fullmatch(NAME_PATTERN, name) is None:
        raise CommandError(f"{field}: {name!r} — allowed {NAME_ALLOWED}")
    return name


def _check_role(role: str) -> str:
    from gapsweep.accounts.roles import check_role

    try:
        return check_role(role)
    except ValueError as exc:
        raise CommandError(str(exc)) from None


def _check_password(password: str, field: str = "password") -> None:
    from gapsweep.accounts.passwords import PasswordError, check_password

    try:
        check_password(password)
    except PasswordError as exc:
        raise CommandError(str(exc).replace("password:", f"{field}:", 1)) from None


def read_password(name: str) -> str:
    """A new password for ``name``: asked twice (not echoed) on a terminal; else the first
    line of stdin without its line ending, so scripts can pipe it in."""
    stdin = sys.stdin
    if stdin is not None and stdin.isatty():
        first = getpass.getpass(f"new password for {name}: ")
        _check_password(first)
        if getpass.getpass("the same again: ") != first:
            raise CommandError("password: the two entries differ — allowed the same password "
                               "typed twice")
        return first
    line = stdin.readline() if stdin is not None else ""
    password = line[:-1] if line.endswith("\n") else line
    password = password[:-1] if password.endswith("\r") else password
    _check_password(password)
    return password


def _user_exists(session, name: str) -> bool:
    from gapsweep.db.accounts import list_users

    return any(u["name"] == name for u in list_users(session))


def _require_user(sessions, name: str) -> None:
    with sessions() as s:
        if not _user_exists(s, name):
            raise CommandError(f"name: {name!r} — no user of that name (`gapsweep user list`)")


# --- users ----------------------------------------------------------------------------------

def cmd_add(args: argparse.Namespace) -> int:
    from gapsweep.accounts.passwords import hash_password
    from gapsweep.db import accounts, audit

    name, role = check_name(args.name), _check_role(args.role)
    sessions = _sessions()
    with sessions() as s:
        if _user_exists(s, name):
            raise CommandError(f"name: {name!r} — a user of that name exists")
        first = not accounts.accounts_exist(s)
    password_hash = hash_password(read_password(name))
    with sessions.begin() as s:
        accounts.add_user(s, name=name, role=role, password_hash=password_hash)
        audit.record(s, actor=cli_actor(), action="user.add", target=f"user:{name}", role=role)
    print(f"user {name} added ({role})")
    if first:
        print("accounts are on from now: the web app and its API need a sign-in or an API "
              f"token (`gapsweep user token {name}`)", file=sys.stderr)
    return EXIT_OK


def cmd_list(args: argparse.Namespace) -> int:
    from gapsweep.db.accounts import list_users

    with _sessions()() as s:
        users = list_users(s)
    if args.json:
        print_json({"users": users})
        return EXIT_OK
    width = max([4, *(len(u["name"]) for u in users)])
    print(f"{'name':<{width}}  {'role':<6}  {'state':<8}  {'tokens':>6}  created")
    for u in users:
        state = "disabled" if u["disabled"] else "enabled"
        print(f"{u['name']:<{width}}  {u['role']:<6}  {state:<8}  {u['tokens']:>6}  "
              f"{u['created'][:19].replace('T', ' ')}")
    print(f"{len(users)} user(s)" + ("" if users else ": accounts are off"))
    return EXIT_OK


def cmd_set_role(args: argparse.Namespace) -> int:
    from gapsweep.db import accounts, audit

    role = _check_role(args.role)
    with _sessions().begin() as s:
        old = accounts.set_role(s, name=args.name, role=role)
        audit.record(s, actor=cli_actor(), action="user.role", target=f"user:{args.name}",
                     old=old, new=role)
    print(f"user {args.name}: {old} -> {role}")
    return EXIT_OK


def _set_disabled(args: argparse.Namespace, disabled: bool) -> int:
    from gapsweep.db import accounts, audit

    with _sessions().begin() as s:
        accounts.set_disabled(s, name=args.name, disabled=disabled)
        audit.record(s, actor=cli_actor(), action="user.disable" if disabled else "user.enable",
                     target=f"user:{args.name}")
    if disabled:
        print(f"user {args.name} disabled: their sign-ins ended, their tokens are refused")
    else:
        print(f"user {args.name} enabled")
    return EXIT_OK


def cmd_password(args: argparse.Namespace) -> int:
    from gapsweep.accounts.passwords import hash_password
    from gapsweep.db import accounts, audit

    sessions = _sessions()
    _require_user(sessions, args.name)  # before asking for a password
    password_hash = hash_password(read_password(args.name))
    with sessions.begin() as s:
        accounts.set_password(s, name=args.name, password_hash=password_hash)
        audit.record(s, actor=cli_actor(), action="user.password", target=f"user:{args.name}")
    print(f"user {args.name}: password changed, their web sign-ins ended (tokens stay)")
    return EXIT_OK


# --- tokens ---------------------------------------------------------------------------------

def cmd_token(args: argparse.Namespace) -> int:
    from gapsweep.accounts.tokens import digest, new_api_token
    from gapsweep.db import accounts, audit

    label = args.label
    if len(label) > MAX_LABEL:
        raise CommandError(f"label: {len(label)} characters — allowed up to {MAX_LABEL}")
    token = new_api_token()
    with _sessions().begin() as s:
        token_id = accounts.add_token(s, name=args.name, token_hash=digest(token), label=label)
        audit.record(s, actor=cli_actor(), action="token.create", target=f"user:{args.name}",
                     token_id=token_id, label=label)
    print(token, flush=True)  # stdout holds the token alone: TOKEN=$(gapsweep user token ...)
    print(f"token {token_id} of {args.name}: shown this once (only its digest is stored); "
          f"send it as Authorization: Bearer <token>, or set GAPSWEEP_TOKEN", file=sys.stderr)
    return EXIT_OK


def cmd_tokens(args: argparse.Namespace) -> int:
    from gapsweep.db.accounts import list_tokens

    with _sessions()() as s:
        tokens = list_tokens(s, name=args.name)
    if args.json:
        print_json({"tokens": tokens})
        return EXIT_OK
    print(f"{'id':>6}  {'state':<7}  {'created':<19}  {'last used':<19}  label")
    for t in tokens:
        last = (t["last_used"] or "-")[:19].replace("T", " ")
        state = "revoked" if t["revoked"] else "live"
        print(f"{t['id']:>6}  {state:<7}  {t['created'][:19].replace('T', ' '):<19}  "
              f"{last:<19}  {t['label']}")
    print(f"{len(tokens)} token(s) of {args.name}")
    return EXIT_OK


def cmd_revoke(args: argparse.Namespace) -> int:
    from gapsweep.db import accounts, audit

    with _sessions().begin() as s:
        accounts.revoke_token(s, name=args.name, token_id=args.token_id)
        audit.record(s, actor=cli_actor(), action="token.revoke", target=f"user:{args.name}",
                     token_id=args.token_id)
    print(f"token {args.token_id} of {args.name} revoked")
    return EXIT_OK


# --- the audit log --------------------------------------------------------------------------

def cmd_audit(args: argparse.Namespace) -> int:
    from gapsweep.db.audit import recent

    if not 1 <= args.limit <= MAX_AUDIT_LIMIT:
        raise CommandError(f"limit: {args.limit} — allowed 1 to {MAX_AUDIT_LIMIT}")
    with _sessions()() as s:
        events = recent(s, limit=args.limit)
    if args.json:
        print_json({"items": events})
        return EXIT_OK
    for e in events:
        detail = " ".join(f"{k}={json.dumps(v)}" for k, v in (e["detail"] or {}).items())
        print(f"{e['at'][:19].replace('T', ' ')}  {e['actor']}  {e['action']}  {e['target']}"
              + (f"  {detail}" if detail else ""))
    print(f"{len(events)} event(s), newest first")
    return EXIT_OK


# --- serve's first admin --------------------------------------------------------------------

def bootstrap_admin(sessions, env: Mapping[str, str] | None = None) -> str | None:
    """With ``GAPSWEEP_ADMIN_PASSWORD`` set and no user yet, create the admin named by
    ``GAPSWEEP_ADMIN_USER`` (default ``admin``), audited ``user.add``; its name, or None
    when nothing was created (the variable unset, or accounts exist already)."""
    from sqlalchemy.exc import IntegrityError

    from gapsweep.accounts.passwords import hash_password
    from gapsweep.db import accounts, audit

    env = os.environ if env is None else env
    password = env.get(ADMIN_PASSWORD_VARIABLE, "")
    if not password:
        return None
    with sessions() as s:
        if accounts.accounts_exist(s):
            return None
    name = check_name(env.get(ADMIN_USER_VARIABLE, "").strip() or "admin", ADMIN_USER_VARIABLE)
    _check_password(password, ADMIN_PASSWORD_VARIABLE)
    password_hash = hash_password(password)
    try:
        with sessions.begin() as s:
            if accounts.accounts_exist(s):  # another process was first
                return None
            accounts.add_user(s, name=name, role="admin", password_hash=password_hash)
            audit.record(s, actor=cli_actor(), action="user.add", target=f"user:{name}",
                         role="admin", source=ADMIN_PASSWORD_VARIABLE)
    except IntegrityError:  # ... at the same moment
        return None
    return name


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``user ...`` and ``audit`` to the top-level parser."""
    user = sub.add_parser("user", help="accounts: users, roles, API tokens")
    user_sub = user.add_subparsers(dest="user_command", required=True)

    add = user_sub.add_parser("add", help="a new user (password from a prompt or stdin)")
    add.add_argument("name")
    add.add_argument("--role", required=True, help="viewer | editor | admin")
    add.set_defaults(func=cmd_add)

    lst = user_sub.add_parser("list", help="every user: role, state, live tokens")
    lst.add_argument("--json", action="store_true")
    lst.set_defaults(func=cmd_list)

    role = user_sub.add_parser("set-role", help="give a user another role")
    role.add_argument("name")
    role.add_argument("role", help="viewer | editor | admin")
    role.set_defaults(func=cmd_set_role)

    for verb, disabled, help_text in (
        ("disable", True, "refuse a user's sign-ins and tokens (ends their sessions)"),
        ("enable", False, "let a disabled user in again"),
    ):
        p = user_sub.add_parser(verb, help=help_text)
        p.add_argument("name")
        p.set_defaults(func=lambda a, disabled=disabled: _set_disabled(a, disabled))

    pw = user_sub.add_parser("password", help="a new password (prompt or stdin)")
    pw.add_argument("name")
    pw.set_defaults(func=cmd_password)

    tok = user_sub.add_parser("token", help="a new API token, printed once on stdout")
    tok.add_argument("name")
    tok.add_argument("--label", default="", help=f"what it is for (up to {MAX_LABEL} characters)")
    tok.set_defaults(func=cmd_token)

    toks = user_sub.add_parser("tokens", help="a user's tokens (never the secrets)")
    toks.add_argument("name")
    toks.add_argument("--json", action="store_true")
    toks.set_defaults(func=cmd_tokens)

    rev = user_sub.add_parser("revoke", help="revoke one of a user's tokens")
    rev.add_argument("name")
    rev.add_argument("token_id", type=int)
    rev.set_defaults(func=cmd_revoke)

    audit = sub.add_parser("audit", help="the audit log, newest first")
    audit.add_argument("--limit", type=int, default=50)
    audit.add_argument("--json", action="store_true")
    audit.set_defaults(func=cmd_audit)


def handle_errors(args: argparse.Namespace, exc: Exception) -> int | None:
    """A duplicate or unknown user, a token that is not theirs: exit 2 (None: not ours)."""
    from gapsweep.db.accounts import AccountError

    if isinstance(exc, AccountError):
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return None
