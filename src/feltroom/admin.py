"""``feltroom admin``: the operator's actions (docs/operator.md).

With ``--url URL`` the actions go to the running room's operator API (``/api/operator``): the
command signs in as ``--operator NAME`` (the password from ``FELTROOM_OPERATOR_PASSWORD`` or
asked on the terminal), acts with ``--reason TEXT``, and signs out. With ``--db URL`` it works on
the database alone (the room need not run): ``grant-operator``, ``revoke-operator``,
``verify``, ``rename``, ``remove``, ``reset-protections``, ``cancel-tournament`` and
``log``. Every action prints one JSON object; a refusal prints the reason to standard error and
exits 2, having changed nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import getpass
import json
import os
import sys
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

__all__ = ["LIVE_ACTIONS", "OFFLINE_ACTIONS", "PASSWORD_VARIABLE", "add_admin_parser", "run_admin"]

PASSWORD_VARIABLE = "FELTROOM_OPERATOR_PASSWORD"

LIVE_ACTIONS = (
    "suspend",
    "reinstate",
    "reset-password",
    "verify",
    "rename",
    "remove",
    "close-table",
    "reopen-table",
    "add-table",
    "retire-table",
    "kick",
    "broadcast",
    "online",
    "log",
)
"""The actions of ``--url`` (the operator API)."""

OFFLINE_ACTIONS = (
    "grant-operator",
    "revoke-operator",
    "verify",
    "rename",
    "remove",
    "reset-protections",
    "cancel-tournament",
    "log",
)
"""The actions of ``--db`` (the database alone)."""

_LOGGED = frozenset(LIVE_ACTIONS + OFFLINE_ACTIONS) - {
    "online",
    "log",
    "reset-protections",
    "cancel-tournament",
}
"""The actions that need ``--operator`` and ``--reason``. ``cancel-tournament`` is on record too,
but keeps the form of the tournaments' contract, ``feltroom admin cancel-tournament --id ID``:
without them the operator is ``cli:<OS user>`` and the reason ``cancelled from the command
line``."""


class AdminError(Exception):
    """Bad input or a refusal: the message says what is valid."""


def add_admin_parser(commands: Any, handler: Callable[[argparse.Namespace], int]) -> None:
    """``feltroom admin`` and its actions."""
    admin = commands.add_parser(
        "admin", help="operator actions: on the live room (--url) or the database (--db)"
    )

    def common(parser: argparse.ArgumentParser, default: Any = None) -> None:
        where = parser.add_mutually_exclusive_group()
        where.add_argument(
            "--db",
            default=default,
            metavar="URL",
            help="database URL (default: sqlite:///data/feltroom.sqlite3): offline actions",
        )
        where.add_argument(
            "--url",
            default=default,
            metavar="URL",
            help="the running room (http://host:port): the operator API",
        )
        parser.add_argument(
            "--operator", default=default, metavar="NAME", help="the operator acting"
        )
        parser.add_argument(
            "--reason", default=default, metavar="TEXT", help="why (in the operator log)"
        )

    common(admin)
    actions = admin.add_subparsers(dest="operation", required=True, metavar="ACTION")

    def action(name: str, help_text: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = actions.add_parser(name, help=help_text)
        common(parser, argparse.SUPPRESS)
        return parser

    reset = action("reset-protections", "restore a player's allowance (R-TIME-3; --db)")
    reset.add_argument("--account", required=True, metavar="NAME")
    grant = action("grant-operator", "make an account an operator (--db)")
    grant.add_argument("account", metavar="NAME")
    grant.add_argument(
        "--addresses",
        default="",
        metavar="ADDRS",
        help="comma-separated addresses or networks the operator may act from (default: any)",
    )
    cancel = action(
        "cancel-tournament",
        "cancel a tournament: the prize pool left paid out, entries refunded (R-TOURN-13; --db)",
    )
    cancel.add_argument("--id", required=True, metavar="ID", help="the instance id (sng-turbo-6-1)")
    revoke = action("revoke-operator", "an operator no more (--db)")
    revoke.add_argument("account", metavar="NAME")
    for name, text in (
        ("suspend", "suspend an account: no sign-in, connections closed, seats left"),
        ("reinstate", "lift a suspension"),
        ("reset-password", "a new random password for an account (printed once)"),
    ):
        action(name, f"{text} (--url)").add_argument("account", metavar="NAME")
    verify = action("verify", "mark an account verified: it may play real money (--url or --db)")
    verify.add_argument("account", metavar="NAME")
    verify.add_argument(
        "--identity",
        required=True,
        metavar="TEXT",
        help="the holder's e-mail address or the number of the document you checked (the room "
        "keeps only a keyed hash; docs/operator.md)",
    )
    rename = action(
        "rename", "give an account a new name; its balances and history follow (--url or --db)"
    )
    rename.add_argument("account", metavar="NAME")
    rename.add_argument("--to", required=True, metavar="NAME", help="the new name")
    action(
        "remove", "remove an account with a zero balance and no seat (--url or --db)"
    ).add_argument("account", metavar="NAME")
    for name, text in (
        ("close-table", "no new hands; the players leave with their chips"),
        ("reopen-table", "deal again at a closed table"),
        ("retire-table", "take a closed, empty table out of the room"),
    ):
        action(name, f"{text} (--url)").add_argument("table", metavar="TABLE")
    add = action("add-table", "add a table from a tables file with one [[table]] (--url)")
    add.add_argument("--definition", required=True, metavar="FILE", help="a tables file")
    kick = action("kick", "make a player leave a table (--url)")
    kick.add_argument("table", metavar="TABLE")
    kick.add_argument("player", metavar="NAME")
    broadcast = action("broadcast", "a message to every table (--url)")
    broadcast.add_argument("text", metavar="TEXT")
    action("online", "who is connected and where (--url)")
    log = action("log", "the operator log (--db or --url)")
    log.add_argument(
        "--since", type=_since, default=None, metavar="DATE", help="2026-11-01 or an ISO time"
    )
    log.add_argument("--limit", type=int, default=1000, metavar="N", help="newest N entries")
    admin.set_defaults(handler=handler)


def _since(text: str) -> str:
    from datetime import datetime

    try:
        datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a date like 2026-11-01 or 2026-11-01T12:00, got {text!r}"
        ) from None
    return text


def run_admin(args: argparse.Namespace, offline: Callable[[argparse.Namespace], int]) -> int:
    """Run an action: ``offline`` runs it on the database (the command line's composition
    root); the live actions go to the operator API."""
    operation = args.operation
    try:
        if operation in _LOGGED and not args.reason:
            raise AdminError(f"{operation} needs --reason TEXT: every operator action is on record")
        if operation in _LOGGED and not args.operator:
            raise AdminError(f"{operation} needs --operator NAME: who acts")
        if args.url is None:
            if operation not in OFFLINE_ACTIONS:
                raise AdminError(
                    f"{operation} acts on the running room: give --url URL (the actions of "
                    f"--db are {', '.join(OFFLINE_ACTIONS)})"
                )
            return offline(args)
        if operation not in LIVE_ACTIONS:
            raise AdminError(
                f"{operation} works on the database: give --db URL (the actions of --url are "
                f"{', '.join(LIVE_ACTIONS)})"
            )
        if not args.operator:
            raise AdminError(f"{operation} needs --operator NAME: the operator who signs in")
        result = _live(args)
    except AdminError as error:
        print(f"feltroom admin: error: {error}", file=sys.stderr)
        return 2
    print(json.dumps(result))
    return 0


def _password(name: str) -> str:
    password = os.environ.get(PASSWORD_VARIABLE)
    if password:
        return password
    if not sys.stdin.isatty():
        raise AdminError(f"set {PASSWORD_VARIABLE} to the password of operator {name!r}")
    return getpass.getpass(f"password of operator {name}: ")


def _live(args: argparse.Namespace) -> dict[str, Any]:
    base = args.url.rstrip("/")
    if not base.startswith(("http://", "https://")):
        raise AdminError(f"--url must be the room's address, http://host:port, not {args.url!r}")
    body = _body(args)  # bad input is refused before signing in
    signed_in = _call(
        base, "POST", "/api/signin", {"name": args.operator, "password": _password(args.operator)}
    )
    token = signed_in["token"]
    try:
        operation = args.operation
        if operation == "online":
            return _call(base, "GET", "/api/operator/online", token=token)
        if operation == "log":
            query = {"limit": str(args.limit)}
            if args.since:
                query["since"] = args.since
            return _call(base, "GET", f"/api/operator/log?{urlencode(query)}", token=token)
        return _call(base, "POST", f"/api/operator/{operation}", body, token=token)
    finally:
        with contextlib.suppress(AdminError):
            _call(base, "POST", "/api/signout", token=token)


def _body(args: argparse.Namespace) -> dict[str, Any]:
    operation = args.operation
    if operation in ("online", "log"):
        return {}
    body: dict[str, Any] = {"reason": args.reason}
    if operation in ("suspend", "reinstate", "reset-password", "verify", "remove"):
        body["account"] = args.account
        if operation == "verify":
            body["identity"] = args.identity
    elif operation == "rename":
        body.update(account=args.account, to=args.to)
    elif operation in ("close-table", "reopen-table", "retire-table"):
        body["table"] = args.table
    elif operation == "kick":
        body.update(table=args.table, player=args.player)
    elif operation == "broadcast":
        body["text"] = args.text
    elif operation == "add-table":
        body["definition"] = _definition(args.definition)
    return body


def _definition(path: str) -> dict[str, Any]:
    from feltroom.errors import FeltroomError
    from feltroom.room.tables_config import table_entries

    try:
        text = Path(path).read_text("utf-8")
        entries = table_entries(text, path)
    except (OSError, FeltroomError, ValueError) as error:
        raise AdminError(f"cannot read the table's definition: {error}") from None
    if len(entries) != 1:
        raise AdminError(f"{path} must hold exactly one [[table]], not {len(entries)}")
    return entries[0][1]


def _call(
    base: str,
    method: str,
    path: str,
    body: dict[str, Any] | None = None,
    *,
    token: str | None = None,
) -> dict[str, Any]:
    headers = {"Accept": "application/json"}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(base + path, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            answer: dict[str, Any] = json.loads(response.read() or b"{}")
            return answer
    except urllib.error.HTTPError as error:
        try:
            message = json.loads(error.read())["error"]["message"]
        except (ValueError, KeyError, TypeError):
            message = f"HTTP {error.code}"
        raise AdminError(f"{message} ({error.code})") from None
    except (urllib.error.URLError, OSError) as error:
        raise AdminError(f"cannot reach the room at {base}: {error}") from None
