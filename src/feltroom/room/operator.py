"""The operator's commands (``feltroom cashier``, ``admin``, ``audit``, ``integrity``) as functions
over a ``Storage``: each returns an exit code and the JSON object to print. The command line opens
the storage (it is the composition root) and prints.

Exit codes: 0 done; 1 the audit found problems; 2 bad input (nothing was changed).
"""

from __future__ import annotations

import getpass
import time
from collections.abc import Callable
from typing import Any

from feltroom.room.accounts import Accounts, Argon2Settings
from feltroom.room.audit import DEFAULT_SHUFFLES, audit
from feltroom.room.cashier import Cashier
from feltroom.room.errors import RoomError
from feltroom.room.integrity import room_integrity_report
from feltroom.room.operators import MAX_OPERATOR, OperatorLog, Operators, check_reason
from feltroom.room.storage import Storage, Transaction
from feltroom.room.tournament_journal import cancel_tournament

__all__ = [
    "BAD_INPUT",
    "CANCEL_REASON",
    "command_line_operator",
    "run_admin",
    "run_audit",
    "run_cancel_tournament",
    "run_cashier",
    "run_integrity",
]

BAD_INPUT = 2

Outcome = tuple[int, dict[str, Any]]


def _guarded(call: Callable[[], dict[str, Any]]) -> Outcome:
    try:
        return 0, call()
    except RoomError as error:
        return BAD_INPUT, {"error": str(error)}


def run_cashier(
    storage: Storage,
    operation: str,
    account: str,
    code: str | None = None,
    amount: str | None = None,
    key: str | None = None,
) -> Outcome:
    """``deposit`` / ``withdraw`` (all of code, amount and key needed) or ``balance``."""
    cashier = Cashier(storage)
    if operation == "balance":
        return _guarded(lambda: cashier.balance(account))
    if operation not in ("deposit", "withdraw"):
        return BAD_INPUT, {
            "error": f"unknown operation {operation!r}; valid: deposit, withdraw, balance"
        }
    if code is None or amount is None or key is None:
        return BAD_INPUT, {"error": f"{operation} needs --currency, --amount and --key"}
    call = cashier.deposit if operation == "deposit" else cashier.withdraw
    return _guarded(lambda: call(account, code, amount, key))


def run_admin(
    storage: Storage,
    operation: str,
    account: str | None = None,
    protections_per_day: int = 2,
    *,
    operator: str | None = None,
    reason: str | None = None,
    addresses: str = "",
    since: float | None = None,
    limit: int = 1000,
    to: str | None = None,
    identity: str | None = None,
) -> Outcome:
    """The offline actions of ``feltroom admin --db``: ``reset-protections`` (R-TIME-3),
    ``grant-operator`` / ``revoke-operator`` / ``verify`` / ``rename`` (to ``to``) /
    ``remove`` (on record in the operator log, as ``operator`` with ``reason``; ``verify``
    with the ``identity`` the operator checked) and ``log`` (the operator log since
    ``since``)."""
    # These compute no hash; the cheapest parameters keep the constructor fast.
    accounts = Accounts(
        storage, argon2=Argon2Settings.cheap(), protections_per_day=protections_per_day
    )
    operators = Operators(accounts)
    if operation == "log":
        return _guarded(lambda: {"entries": operators.log.entries(since or 0.0, limit)})
    if account is None:
        return BAD_INPUT, {"error": f"{operation} needs an account"}
    if operation == "reset-protections":
        return _guarded(lambda: accounts.reset_protections(account))
    if operation in ("grant-operator", "revoke-operator", "verify", "rename", "remove"):
        if not operator or reason is None:
            return BAD_INPUT, {"error": f"{operation} needs --operator NAME and --reason TEXT"}
        if operation == "rename":
            if not to:
                return BAD_INPUT, {"error": "rename needs --to NAME: the account's new name"}
            return _guarded(lambda: operators.rename(account, to, operator, reason))
        if operation == "remove":
            return _guarded(lambda: operators.remove(account, operator, reason))
        if operation == "grant-operator":
            return _guarded(lambda: operators.grant(account, addresses, operator, reason))
        if operation == "verify":
            if not identity:
                return BAD_INPUT, {
                    "error": "verify needs --identity TEXT: the e-mail address or document "
                    "number you checked (docs/operator.md)"
                }
            return _guarded(lambda: operators.verify(account, operator, reason, identity))
        return _guarded(lambda: operators.revoke(account, operator, reason))
    return BAD_INPUT, {
        "error": f"unknown operation {operation!r}; valid: reset-protections, grant-operator, "
        "revoke-operator, verify, rename, remove, log"
    }


CANCEL_REASON = "cancelled from the command line"
"""The operator log's reason of a ``cancel-tournament`` given no ``--reason``."""


def command_line_operator() -> str:
    """The operator of an action given no ``--operator``: ``cli:`` and the OS user's name."""
    try:
        user = getpass.getuser()
    except (OSError, KeyError):  # no login name in the environment nor the password database
        user = "unknown"
    return f"cli:{user}"[:MAX_OPERATOR]


def run_cancel_tournament(
    storage: Storage,
    tournament_id: str,
    clock: Callable[[], float] = time.time,
    *,
    operator: str | None = None,
    reason: str | None = None,
) -> Outcome:
    """``cancel-tournament``: the operator cancels a tournament (R-TOURN-13; see
    ``tournament_journal.cancel_tournament``): the prize pool left is paid out, entries that never
    played get buy-in and fee back. A room running it stops it within seconds. The operator log
    gets its entry in the same transaction, and every transfer names the entry: ``operator``
    (an operator account; without it ``cli:<OS user>``) with ``reason`` (without it
    ``CANCEL_REASON``)."""
    log = OperatorLog(storage, clock)

    def cancel() -> dict[str, Any]:
        name = command_line_operator() if operator is None else operator
        if operator is not None:  # as the live actions' sign-in: an operator account
            accounts = Accounts(storage, argon2=Argon2Settings.cheap(), clock=clock)
            Operators(accounts, log).check_operator(operator)
        why = check_reason(CANCEL_REASON if reason is None else reason)

        def record(tx: Transaction) -> int:
            return log.add(tx, name, "cancel-tournament", tournament_id, why)

        result = cancel_tournament(storage, tournament_id, clock(), log_entry=record)
        return {"operator": name, **result}

    return _guarded(cancel)


def run_audit(storage: Storage, shuffles: int = DEFAULT_SHUFFLES) -> Outcome:
    """The audit; exit code 0 only when everything passes."""
    report = audit(storage, shuffles)
    return (0 if report["pass"] else 1), report


def run_integrity(
    storage: Storage, since: float | None, threshold: float, account: str | None = None
) -> Outcome:
    """The integrity report (docs/integrity.md), or one account's with ``account``; exit code 0
    whether or not it found pairs."""
    if not threshold > 0:  # also refuses nan
        return BAD_INPUT, {"error": f"the threshold must be a positive score, not {threshold}"}
    if account is not None:
        with storage.transaction(write=False) as tx:
            known = tx.get_user(account) is not None or bool(tx.accounts_of(account))
        if not known:
            return BAD_INPUT, {"error": f"there is no account named {account!r}"}
    return 0, room_integrity_report(storage, since, threshold, account)
