"""Operators and the operator log (docs/operator.md).

An operator is an account with the ``operator`` flag (``feltroom admin --db URL grant-operator
NAME``), optionally restricted to the client addresses it names. Every operator action is written
to the operator log in the database: who, what, on what, when and why. An account action (suspend,
reinstate, reset a password, grant) and its log entry are one transaction, so there is never an
action without its entry nor an entry without its action. An action on the live room (a table
closed, a player kicked) writes its entry first and then acts; a transfer it makes names the entry
in its reference (``operator_reference``), which ``feltroom audit`` checks.

Bad input raises ``RoomError`` (``UnknownAccount``, ``NotAnOperator``) saying what is valid, and
changes nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import secrets
import time
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from feltroom.money import format_units
from feltroom.room.accounts import Accounts, check_player_name
from feltroom.room.errors import NotAnOperator, RoomError, UnknownAccount
from feltroom.room.ledger import OPERATOR_MARK, account_owner, currency, operator_reference
from feltroom.room.protection import blocked_until
from feltroom.room.storage import (
    OperatorEntryRow,
    Storage,
    Transaction,
    UserRow,
)

__all__ = [
    "ACTIONS",
    "MAX_REASON",
    "OPERATOR_MARK",
    "OperatorLog",
    "Operators",
    "check_reason",
    "entry_json",
    "identity_hash",
    "normal_identity",
    "operator_reference",
    "parse_addresses",
]

MAX_REASON = 500
MAX_OPERATOR = 32

ACTIONS = (
    "grant-operator",
    "revoke-operator",
    "suspend",
    "reinstate",
    "reset-password",
    "close-table",
    "reopen-table",
    "add-table",
    "retire-table",
    "kick",
    "broadcast",
    "verify",
    "rename",
    "remove",
    "limits",
    "cool-off",
    "self-exclusion",
    "cancel-tournament",
)
"""Every action the operator log records."""

TEMPORARY_PASSWORD_BYTES = 12


def check_reason(reason: str) -> str:
    """The reason an operator gives, stripped: required, at most ``MAX_REASON`` characters."""
    text = reason.strip()
    if not text:
        raise RoomError("give a reason (--reason TEXT): every operator action is on record")
    if len(text) > MAX_REASON:
        raise RoomError(f"a reason has at most {MAX_REASON} characters, not {len(text)}")
    return text


def parse_addresses(text: str) -> str:
    """Comma-separated IP addresses or networks, normalised (``""``: any address)."""
    found: list[str] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        try:
            found.append(str(ipaddress.ip_network(part, strict=False)))
        except ValueError:
            raise RoomError(
                f"{part!r} is not an IP address or network; give addresses or networks such "
                "as 127.0.0.1,10.0.0.0/8"
            ) from None
    text = ",".join(found)
    if len(text) > 255:
        raise RoomError("the operator's addresses take at most 255 characters")
    return text


IDENTITY_KEY = "identity_key"
"""The room's secret (``Transaction.room_secret``) that verified identities are hashed with."""
MAX_IDENTITY = 254


def normal_identity(identity: str) -> str:
    """The identity an operator checked, written one way: Unicode NFKC, case folded, with no
    white space; a document number (no "@") also without the "-", "." and "/" it is often
    written with. ``RoomError`` unless 4 to ``MAX_IDENTITY`` characters are left."""
    text = "".join(unicodedata.normalize("NFKC", identity).casefold().split())
    if "@" not in text:
        text = text.translate({ord(c): None for c in "-./"})
    if not 4 <= len(text) <= MAX_IDENTITY:
        raise RoomError(
            "give the identity you checked: the holder's e-mail address or the number of the "
            f"document you saw (4 to {MAX_IDENTITY} characters)"
        )
    return text


def identity_hash(key: bytes, identity: str) -> str:
    """What the room keeps of a verified identity (written by ``normal_identity``): its
    HMAC-SHA256 under the room's key, in hex."""
    return hmac.new(key, b"feltroom identity\n" + identity.encode(), hashlib.sha256).hexdigest()


def _address_allowed(allowed: str, address: str) -> bool:
    if not allowed:
        return True
    try:
        client = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(client in ipaddress.ip_network(net) for net in allowed.split(","))


def entry_json(row: OperatorEntryRow) -> dict[str, Any]:
    """An entry of the log as JSON: the time as epoch seconds and as ISO 8601 (UTC)."""
    return {
        "id": row.entry_id,
        "at": row.at,
        "time": datetime.fromtimestamp(row.at, UTC).isoformat(timespec="seconds"),
        "operator": row.operator,
        "action": row.action,
        "target": row.target,
        "reason": row.reason,
        "details": json.loads(row.details),
    }


class OperatorLog:
    """The operator log over a ``Storage``."""

    def __init__(self, storage: Storage, clock: Callable[[], float] = time.time) -> None:
        self.storage = storage
        self.clock = clock

    def add(
        self,
        tx: Transaction,
        operator: str,
        action: str,
        target: str,
        reason: str,
        details: Mapping[str, Any] | None = None,
    ) -> int:
        """Write an entry inside ``tx``; returns its id."""
        if action not in ACTIONS:
            raise RoomError(f"unknown action {action!r}; the actions are {', '.join(ACTIONS)}")
        if not 1 <= len(operator.strip()) <= MAX_OPERATOR:
            raise RoomError(f"an operator's name has 1 to {MAX_OPERATOR} characters: {operator!r}")
        row = OperatorEntryRow(
            0,
            self.clock(),
            operator,
            action,
            target,
            check_reason(reason),
            json.dumps(dict(details or {}), sort_keys=True),
        )
        return tx.add_operator_entry(row)

    def record(
        self,
        operator: str,
        action: str,
        target: str,
        reason: str,
        details: Mapping[str, Any] | None = None,
    ) -> int:
        """Write an entry in its own transaction; returns its id."""
        with self.storage.transaction() as tx:
            return self.add(tx, operator, action, target, reason, details)

    def entries(self, since: float = 0.0, limit: int = 1000) -> list[dict[str, Any]]:
        """The newest ``limit`` entries at or after ``since`` (epoch seconds), oldest first."""
        if not 1 <= limit <= 100_000:
            raise RoomError(f"limit must be from 1 to 100000, not {limit}")
        with self.storage.transaction(write=False) as tx:
            return [entry_json(row) for row in tx.operator_entries(since, limit)]


class Operators:
    """The operator's actions on accounts, each with its log entry in the same transaction.

    ``on_operators``: whether the account actions (suspend, reinstate, reset-password, verify,
    rename, remove) may be taken on an operator's account. The operator API says no (one
    operator must not take another over: a new password, a suspension, a new name); on the
    database (``feltroom admin``), whoever holds it manages operators anyway."""

    def __init__(
        self, accounts: Accounts, log: OperatorLog | None = None, *, on_operators: bool = True
    ) -> None:
        self.accounts = accounts
        self.storage = accounts.storage
        self.log = log or OperatorLog(accounts.storage, accounts.clock)
        self.on_operators = on_operators

    # -- who may act

    def check_operator(self, name: str, address: str | None = None) -> UserRow:
        """The operator's account, or ``NotAnOperator``: not an operator, suspended, or (when
        ``address`` is given and the operator named addresses) from another address."""
        with self.storage.transaction(write=False) as tx:
            user = tx.get_user(name)
        if user is None or not user.operator or user.suspended:
            raise NotAnOperator(
                f"{name!r} is not an operator; an operator is granted with "
                "`feltroom admin --db URL grant-operator NAME`"
            )
        if address is not None and not _address_allowed(user.operator_addresses, address):
            raise NotAnOperator(
                f"operator {name!r} may act only from {user.operator_addresses}, not from {address}"
            )
        return user

    # -- account actions

    def grant(self, name: str, addresses: str, operator: str, reason: str) -> dict[str, Any]:
        """Make ``name`` an operator (from ``addresses`` only, if any are given)."""
        allowed = parse_addresses(addresses)
        with self.storage.transaction() as tx:
            user = self._person(tx, name)
            tx.set_operator(user.name, True, allowed)
            entry = self.log.add(
                tx, operator, "grant-operator", name, reason, {"addresses": allowed}
            )
        return {"account": name, "operator": True, "addresses": allowed, "entry": entry}

    def revoke(self, name: str, operator: str, reason: str) -> dict[str, Any]:
        """``name`` is an operator no more."""
        with self.storage.transaction() as tx:
            user = self._person(tx, name)
            if not user.operator:
                raise RoomError(f"{name!r} is not an operator")
            tx.set_operator(user.name, False, "")
            entry = self.log.add(tx, operator, "revoke-operator", name, reason)
        return {"account": name, "operator": False, "entry": entry}

    def suspend(self, name: str, operator: str, reason: str) -> dict[str, Any]:
        """Suspend ``name``: it cannot sign in, and every session it has ends now. (The live
        room also closes its connections and takes its chips out of play: ``RoomRuntime``.)"""
        with self.storage.transaction() as tx:
            user = self._target(tx, name, "suspend", lock=True)
            if user.suspended:
                raise RoomError(f"{name!r} is already suspended; reinstate it first")
            if name == operator:
                raise RoomError("an operator cannot suspend their own account")
            tx.set_suspended(name, True)
            ended = tx.delete_sessions_of(name)
            entry = self.log.add(tx, operator, "suspend", name, reason, {"sessions_ended": ended})
        return {"account": name, "suspended": True, "sessions_ended": ended, "entry": entry}

    def reinstate(self, name: str, operator: str, reason: str) -> dict[str, Any]:
        """Lift a suspension: the account may sign in again."""
        with self.storage.transaction() as tx:
            user = self._target(tx, name, "reinstate", lock=True)
            if not user.suspended:
                raise RoomError(f"{name!r} is not suspended")
            tx.set_suspended(name, False)
            entry = self.log.add(tx, operator, "reinstate", name, reason)
        return {"account": name, "suspended": False, "entry": entry}

    def reset_password(self, name: str, operator: str, reason: str) -> dict[str, Any]:
        """Give ``name`` a new random password (returned once, to hand to the player) and end
        every session it has. Blocking: hashes."""
        with self.storage.transaction(write=False) as tx:
            self._target(tx, name, "reset-password")
        password = secrets.token_urlsafe(TEMPORARY_PASSWORD_BYTES)
        password_hash = self.accounts.hasher.hash(password)
        with self.storage.transaction() as tx:
            self._target(tx, name, "reset-password", lock=True)
            tx.set_password_hash(name, password_hash)
            ended = tx.delete_sessions_of(name)
            entry = self.log.add(
                tx, operator, "reset-password", name, reason, {"sessions_ended": ended}
            )
        return {"account": name, "password": password, "sessions_ended": ended, "entry": entry}

    def verify(self, name: str, operator: str, reason: str, identity: str) -> dict[str, Any]:
        """Mark ``name`` verified: the operator checked who holds the account, by
        ``identity`` (a document number or an e-mail address; the room keeps only its keyed
        hash, ``identity_hash``); real-money tables and tournaments take it from now on.
        Refused while the identity belongs to an account under a self-exclusion (a new name
        does not get round one)."""
        if name == operator:
            raise RoomError(
                "an operator cannot verify their own account: another operator checks who holds it"
            )
        checked = normal_identity(identity)
        now = self.log.clock()
        with self.storage.transaction() as tx:
            user = self._target(tx, name, "verify", lock=True)
            if user.verified:
                raise RoomError(f"{name!r} is verified already")
            key = tx.room_secret(IDENTITY_KEY, secrets.token_hex(32))
            hashed = identity_hash(bytes.fromhex(key), checked)
            for other in tx.names_of_identity(hashed):
                protection = tx.get_protection(other)
                running = None if protection is None else blocked_until(protection, now)
                if running is not None and running[0] == "self-exclusion":
                    raise RoomError(
                        "this identity was verified for an account under a self-exclusion that "
                        "still runs: no account is verified for it until the exclusion ends"
                    )
            tx.set_verified(name, True)
            tx.add_identity(hashed, name, now)
            entry = self.log.add(tx, operator, "verify", name, reason, {"identity": "kept hashed"})
        return {"account": name, "verified": True, "entry": entry}

    def rename(self, name: str, new_name: str, operator: str, reason: str) -> dict[str, Any]:
        """Give the account ``name`` the name ``new_name`` (the sign-up rules apply: a valid,
        unreserved name no other account holds in any letter case, not under a
        self-exclusion). The account keeps its id, so its balances, its hand records and its
        settings follow it; its sessions end (it signs in under the new name). Refused while
        it holds a seat or a tournament entry that is still in play. Its protection (limits,
        cool-off, self-exclusion) applies under the new name too, and stays on the old one."""
        try:
            check_player_name(new_name)
        except RoomError as error:  # a bad new name is bad input, not an unknown account
            raise RoomError(f"cannot rename to {new_name!r}: {error}") from None
        with self.storage.transaction() as tx:
            user = self._target(tx, name, "rename", lock=True)
            if new_name == name:
                raise RoomError(f"the account is named {name!r} already")
            self.accounts.check_name_free(tx, new_name, user.account_id)
            self._not_in_play(tx, user, "rename")
            ended = tx.delete_sessions_of(name)
            tx.rename_user(name, new_name)
            self._carry_protection(tx, name, new_name)
            entry = self.log.add(
                tx,
                operator,
                "rename",
                name,
                reason,
                {"to": new_name, "account_id": user.account_id, "sessions_ended": ended},
            )
        return {
            "account": name,
            "renamed_to": new_name,
            "account_id": user.account_id,
            "sessions_ended": ended,
            "entry": entry,
        }

    def remove(self, name: str, operator: str, reason: str) -> dict[str, Any]:
        """Remove the account ``name``: only with nothing in any wallet or pending at a table
        (every currency) and no seat or tournament entry in play. Its sessions end; its id is
        never issued again, and the books and hand records under the id stay (the audit keeps
        balancing). Its protection stays with the name: a self-exclusion or cool-off is not
        lifted, and a sign-up under the name is refused while a self-exclusion runs."""
        with self.storage.transaction() as tx:
            user = self._target(tx, name, "remove", lock=True)
            if name == operator:
                raise RoomError("an operator cannot remove their own account")
            if user.operator:
                raise RoomError(
                    f"{name!r} is an operator; revoke-operator first, then remove the account"
                )
            self._not_in_play(tx, user, "remove")
            held = [
                f"{format_units(row.balance, currency(row.currency))} {row.currency} ({row.key})"
                for row in sorted(
                    tx.accounts_of(account_owner(user.account_id)), key=lambda r: r.key
                )
                if row.balance != 0
            ]
            if held:
                raise RoomError(
                    f"{name!r} still holds {', '.join(held)}; an account is removed only with "
                    "a zero balance in every currency (withdraw it first)"
                )
            ended = tx.delete_sessions_of(name)
            tx.remove_user(name, self.log.clock())
            entry = self.log.add(
                tx,
                operator,
                "remove",
                name,
                reason,
                {"account_id": user.account_id, "sessions_ended": ended},
            )
        return {
            "account": name,
            "removed": True,
            "account_id": user.account_id,
            "sessions_ended": ended,
            "entry": entry,
        }

    @staticmethod
    def _not_in_play(tx: Transaction, user: UserRow, action: str) -> None:
        """Refuse while ``user`` holds a cash seat or an entry of a tournament that is
        registering or running (its chips, its prize would be lost track of)."""
        tables = tx.seats_of(user.name)
        if tables:
            raise RoomError(
                f"{user.name!r} sits at {', '.join(tables)}; {action} it once it has left "
                "(kick it first if need be)"
            )
        entered = []
        for row in tx.tournaments(["registering", "running"]):
            count = 0
            for item in tx.journal(row.tournament_id):
                if (
                    item.kind in ("register", "unregister")
                    and json.loads(item.payload).get("account") == user.name
                ):
                    count += 1 if item.kind == "register" else -1
            if count > 0:
                entered.append(row.tournament_id)
        if entered:
            raise RoomError(
                f"{user.name!r} is entered in tournament {', '.join(entered)}; {action} it "
                "once the tournament is over (or unregister it)"
            )

    @staticmethod
    def _carry_protection(tx: Transaction, name: str, new_name: str) -> None:
        """The player's limits and breaks apply under the new name too (and stay on the old
        one, which they were taken on)."""
        if name.lower() == new_name.lower():
            return
        protection = tx.get_protection(name)
        if protection is not None:
            tx.put_protection(replace(protection, name=new_name))
        for row in tx.limits_of(name):
            tx.put_limit(replace(row, name=new_name))

    def describe(self, names: Iterable[str]) -> dict[str, dict[str, Any]]:
        """Each known account of ``names``: operator, suspended, bot."""
        found: dict[str, dict[str, Any]] = {}
        with self.storage.transaction(write=False) as tx:
            for name in names:
                user = tx.get_user(name)
                if user is not None:
                    found[name] = {
                        "operator": user.operator,
                        "suspended": user.suspended,
                        "bot": user.bot,
                        "verified": user.verified,
                    }
        return found

    def _target(self, tx: Transaction, name: str, action: str, lock: bool = False) -> UserRow:
        """The person's account an account action is taken on; an operator's is refused
        unless ``on_operators``."""
        user = self._person(tx, name, lock)
        if user.operator and not self.on_operators:
            raise RoomError(
                f"{name!r} is an operator: the operator API does not {action} an operator's "
                "account; operators are managed on the database (feltroom admin --db URL "
                "revoke-operator / grant-operator, then the action)"
            )
        return user

    @staticmethod
    def _person(tx: Transaction, name: str, lock: bool = False) -> UserRow:
        user = tx.get_user(name, lock=lock)
        if user is None:
            raise UnknownAccount(f"no player account named {name!r} (names are case-sensitive)")
        if user.bot:
            raise RoomError(f"{name!r} is a house bot, not a person's account")
        return user
