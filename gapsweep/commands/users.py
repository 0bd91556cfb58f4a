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
import sys

from gapsweep.archive.accounts import MAX_TOKEN_LABEL, check_name, check_password

from .exit_codes import EXIT_BAD_INPUT, EXIT_OK, CommandError
from .output import print_json


def _archive():
    """The configured database's archive, acting as the local admin (the command line)."""
    from gapsweep.archive.endpoint import URL_VARIABLE, configured
    from gapsweep.archive.local import LocalArchive
    from gapsweep.settings import get_settings

    if configured():
        raise CommandError(
            f"the user and audit commands work on a database, and {URL_VARIABLE} is set: "
            f"run them where the server's database is, without {URL_VARIABLE}")
    return LocalArchive.open(get_settings())


def read_password(name: str) -> str:
    """A new password for ``name``: asked twice (not echoed) on a terminal; else the first
    line of stdin without its line ending, so scripts can pipe it in."""
    stdin = sys.stdin
    if stdin is not None and stdin.isatty():
        first = getpass.getpass(f"new password for {name}: ")
        check_password(first)
        if getpass.getpass("the same again: ") != first:
            raise CommandError("password: the two entries differ — allowed the same password "
                               "typed twice")
        return first
    line = stdin.readline() if stdin is not None else ""
    password = line[:-1] if line.endswith("\n") else line
    password = password[:-1] if password.endswith("\r") else password
    check_password(password)
    return password


def _require_user(arch, name: str) -> None:
    if not arch.user_exists(name):
        raise CommandError(f"name: {name!r} — no user of that name (`gapsweep user list`)")


# --- users ----------------------------------------------------------------------------------

def cmd_add(args: argparse.Namespace) -> int:
    from gapsweep.archive.accounts import check_role

    name, role = check_name(args.name), check_role(args.role)
    arch = _archive()
    if arch.user_exists(name):  # before asking for a password
        raise CommandError(f"name: {name!r} — a user of that name exists")
    first = not arch.accounts_exist()
    arch.add_user(name, role, read_password(name))
    print(f"user {name} added ({role})")
    if first:
        print("accounts are on from now: the web app and its API need a sign-in or an API "
              f"token (`gapsweep user token {name}`)", file=sys.stderr)
    return EXIT_OK


def cmd_list(args: argparse.Namespace) -> int:
    users = _archive().users()
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
    old = _archive().set_role(args.name, args.role)
    print(f"user {args.name}: {old} -> {args.role}")
    return EXIT_OK


def _set_disabled(args: argparse.Namespace, disabled: bool) -> int:
    _archive().set_disabled(args.name, disabled)
    if disabled:
        print(f"user {args.name} disabled: their sign-ins ended, their tokens are refused")
    else:
        print(f"user {args.name} enabled")
    return EXIT_OK


def cmd_password(args: argparse.Namespace) -> int:
    arch = _archive()
    _require_user(arch, args.name)  # before asking for a password
    arch.set_password(args.name, read_password(args.name))
    print(f"user {args.name}: password changed, their web sign-ins ended (tokens stay)")
    return EXIT_OK


# --- tokens ---------------------------------------------------------------------------------

def cmd_token(args: argparse.Namespace) -> int:
    token_id, token = _archive().create_token(args.name, args.label)
    print(token, flush=True)  # stdout holds the token alone: TOKEN=$(gapsweep user token ...)
    print(f"token {token_id} of {args.name}: shown this once (only its digest is stored); "
          f"send it as Authorization: Bearer <token>, or set GAPSWEEP_TOKEN", file=sys.stderr)
    return EXIT_OK


def cmd_tokens(args: argparse.Namespace) -> int:
    tokens = _archive().tokens(args.name)
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
    _archive().revoke_token(args.name, args.token_id)
    print(f"token {args.token_id} of {args.name} revoked")
    return EXIT_OK


# --- the audit log --------------------------------------------------------------------------

def cmd_audit(args: argparse.Namespace) -> int:
    events = _archive().audit_log(limit=args.limit)
    if args.json:
        print_json({"items": events})
        return EXIT_OK
    for e in events:
        detail = " ".join(f"{k}={json.dumps(v)}" for k, v in (e["detail"] or {}).items())
        print(f"{e['at'][:19].replace('T', ' ')}  {e['actor']}  {e['action']}  {e['target']}"
              + (f"  {detail}" if detail else ""))
    print(f"{len(events)} event(s), newest first")
    return EXIT_OK


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
    tok.add_argument("--label", default="",
                     help=f"what it is for (up to {MAX_TOKEN_LABEL} characters)")
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
