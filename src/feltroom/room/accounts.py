"""Player accounts: sign-up and sign-in with Argon2id, sessions, and protection allowances.

Passwords are hashed with Argon2id (argon2-cffi). Hashing is slow on purpose, so the server must
not do it on its event loop: the ``*_async`` methods run the whole call in a thread executor.
The cost parameters are settings; tests use ``Argon2Settings.cheap()``.

A session is a random token handed to the client; the database keeps only its SHA-256, so a
stolen database does not yield usable tokens. Sessions expire.

Protections (R-TIME-3): each account may be protected a limited number of times per rolling
window (room setting, default 2 per 24 hours) across all tables. The table runtime asks
``consume_protection`` when a player's time runs out; ``False`` means none is left and R-TIME-2
applies. The operator's ``reset_protections`` restores the full allowance at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import secrets
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from argon2 import PasswordHasher, Type
from argon2.exceptions import InvalidHashError, VerificationError

from feltroom.room.errors import (
    AccountSuspended,
    AuthenticationFailed,
    DuplicateKey,
    RoomError,
    UnknownAccount,
)
from feltroom.room.ledger import valid_name
from feltroom.room.storage import SessionRow, Storage, Transaction, UserRow

__all__ = [
    "HOUSE_BOT_PREFIX",
    "RESERVED_NAMES",
    "Accounts",
    "Argon2Settings",
    "HashingPool",
    "NotAHouseBot",
    "Session",
    "check_player_name",
    "reserved",
    "token_hash",
]

RESERVED_NAMES = frozenset({"house", "tax", "external", "escrow", "wallet", "room", "admin"})
"""Names a player cannot take: they name the room's own ledger accounts."""

HOUSE_BOT_PREFIX = "bot."
"""House bots are named ``bot.<table>.<k>`` (``housebots.bot_name``): no person may take a name
that starts so, in any letter case, so that raising the bot count never meets a person's
account."""

BOT_PASSWORD_HASH = "!house-bot"
"""A house bot's password hash: not an Argon2 hash, so no password ever matches it."""

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Argon2Settings:
    """Argon2id cost parameters (defaults: argon2-cffi's, RFC 9106 low-memory profile)."""

    time_cost: int = 3
    memory_cost: int = 65536  # KiB
    parallelism: int = 4

    @classmethod
    def cheap(cls) -> Argon2Settings:
        """The cheapest valid parameters: for tests only."""
        return cls(time_cost=1, memory_cost=8, parallelism=1)

    def hasher(self) -> PasswordHasher:
        return PasswordHasher(
            time_cost=self.time_cost,
            memory_cost=self.memory_cost,
            parallelism=self.parallelism,
            type=Type.ID,
        )


HASH_NICENESS = 10
"""The nice value of the hashing threads (the event loop's is 0): see ``HashingPool``."""


def _lower_priority() -> None:
    """Run this thread (and the threads Argon2 starts from it) at ``HASH_NICENESS``: Linux sets
    the nice value of one thread by its id; elsewhere this does nothing."""
    with contextlib.suppress(AttributeError, OSError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), HASH_NICENESS)


class HashingPool:
    """A ``PasswordHasher`` whose hashes and verifications run in a pool of ``size`` threads:
    at most ``size`` Argon2 computations at once, whoever asks (each takes ``memory_cost``:
    64 MiB by default), so a crowd of sign-ups waits its turn instead of taking the memory.

    The pool's threads run at a lower CPU priority than the rest of the process, so the event
    loop keeps its turns while they hash. They run nothing but Argon2's C code, which holds no
    lock of Python's (the GIL is released): a low-priority thread never keeps the loop waiting.
    The callers (sign-up, sign-in: the database work around a hash) stay at normal priority."""

    def __init__(self, hasher: PasswordHasher, size: int) -> None:
        if size < 1:
            raise RoomError(f"a hashing pool needs at least 1 thread, not {size}")
        self.hasher = hasher
        self.size = size
        self._pool = ThreadPoolExecutor(
            size, thread_name_prefix="feltroom-hash", initializer=_lower_priority
        )

    def hash(self, password: str) -> str:
        return self._pool.submit(self.hasher.hash, password).result()

    def verify(self, password_hash: str, password: str) -> bool:
        return self._pool.submit(self.hasher.verify, password_hash, password).result()

    def check_needs_rehash(self, password_hash: str) -> bool:
        return self.hasher.check_needs_rehash(password_hash)


@dataclass(frozen=True, slots=True)
class Session:
    """A signed-in session: give ``token`` to the client; it is never stored."""

    token: str
    user: str
    expires_at: float


class NotAHouseBot(RoomError):
    """A name the room wanted for a house bot belongs to a person (or differs from a person's
    only in letter case): the room never plays it, and takes another name."""


def reserved(name: str) -> str | None:
    """Why a person may not take ``name`` (letter case does not matter), or ``None``."""
    folded = name.lower()
    if folded in RESERVED_NAMES:
        return (
            f"the name {name!r} is reserved; choose another (reserved: "
            f"{', '.join(sorted(RESERVED_NAMES))})"
        )
    if folded.startswith(HOUSE_BOT_PREFIX):
        return (
            f"the name {name!r} is reserved for the room's house bots (names starting with "
            f"{HOUSE_BOT_PREFIX!r}, in any letter case); choose another"
        )
    return None


def check_player_name(name: str) -> str:
    """A name a person may take (sign-up, an operator's rename): valid and not reserved;
    otherwise ``RoomError`` saying what is valid."""
    valid_name(name, "player name")
    why = reserved(name)
    if why is not None:
        raise RoomError(why)
    return name


def token_hash(token: str) -> str:
    """What the database keeps of a session token."""
    return hashlib.sha256(token.encode()).hexdigest()


class Accounts:
    """Sign-up, sign-in, sessions and protection allowances over a ``Storage``."""

    def __init__(
        self,
        storage: Storage,
        *,
        argon2: Argon2Settings | None = None,
        protections_per_day: int = 2,
        protection_window_seconds: float = 24 * 3600.0,
        session_seconds: float = 7 * 24 * 3600.0,
        min_password_length: int = 8,
        clock: Callable[[], float] = time.time,
        executor: Executor | None = None,
    ) -> None:
        if protections_per_day < 0:
            raise RoomError(f"protections_per_day must be 0 or more, not {protections_per_day}")
        self.storage = storage
        self.hasher: PasswordHasher | HashingPool = (argon2 or Argon2Settings()).hasher()
        self.protections_per_day = protections_per_day
        self.protection_window_seconds = protection_window_seconds
        self.session_seconds = session_seconds
        self.min_password_length = min_password_length
        self.clock = clock
        self.executor = executor
        self._dummy_hash = self.hasher.hash(secrets.token_hex(16))

    def bound_hashing(self, size: int) -> None:
        """Hash at most ``size`` passwords at once, at a low CPU priority (``HashingPool``)."""
        hasher = self.hasher
        if isinstance(hasher, HashingPool):
            hasher = hasher.hasher
        self.hasher = HashingPool(hasher, size)

    # -- sign-up and sign-in

    def check_new_account(self, name: str, password: str) -> None:
        """Refuse (``RoomError``, saying what is valid) a name or password that ``sign_up``
        would refuse before hashing: an invalid or reserved name, a short password, or a
        password equal to the name (in any letter case)."""
        check_player_name(name)
        if len(password) < self.min_password_length:
            raise RoomError(f"a password needs at least {self.min_password_length} characters")
        if password.lower() == name.lower():
            raise RoomError("the password may not be the name; choose another password")

    def sign_up(self, name: str, password: str) -> str:
        """Create a player account; returns the name. Blocking (hashes): see ``sign_up_async``.

        Names are one whatever their letter case: ``alice`` is taken once ``Alice`` is (the
        database holds a unique index on the lower-case name too)."""
        self.check_new_account(name, password)
        with self.storage.transaction(write=False) as tx:
            self.check_name_free(tx, name)
        password_hash = self.hasher.hash(password)
        now = self.clock()
        try:
            with self.storage.transaction() as tx:
                tx.add_user(UserRow(name, password_hash, now, 0.0))
        except DuplicateKey:
            raise RoomError(self._taken(name, name)) from None
        return name

    def check_name_free(self, tx: Transaction, name: str, account_id: int | None = None) -> None:
        """Refuse (``RoomError``) a name that an account other than ``account_id`` holds in any
        letter case, or that a self-exclusion still covers (it outlives the account it was
        taken on, issue 25)."""
        taken = tx.get_user(name, nocase=True)
        if taken is not None and (account_id is None or taken.account_id != account_id):
            raise RoomError(self._taken(name, taken.name))
        excluded = tx.get_protection(name)
        if excluded is not None and (
            excluded.excluded_permanently or (excluded.excluded_until or 0.0) > self.clock()
        ):
            raise RoomError(
                f"the name {name!r} is under a self-exclusion; it cannot be signed up again "
                "while that runs"
            )

    @staticmethod
    def _taken(name: str, holder: str) -> str:
        if holder == name:
            return f"the name {name!r} is taken; choose another"
        return (
            f"the name {name!r} is taken (as {holder!r}: names are the same in any letter "
            "case); choose another"
        )

    def ensure_bot(self, name: str) -> str:
        """A house bot's account (created on first use, flagged ``bot``). It has no password:
        nobody can sign in as a bot; the room plays it in-process."""
        valid_name(name, "bot name")
        if name.lower() in RESERVED_NAMES:
            raise RoomError(f"the name {name!r} is reserved")
        try:
            with self.storage.transaction() as tx:
                user = tx.get_user(name, nocase=True)
                if user is None:
                    tx.add_user(UserRow(name, BOT_PASSWORD_HASH, self.clock(), 0.0, bot=True))
                elif not user.bot or user.name != name:
                    raise NotAHouseBot(
                        f"{name!r} is a person's account ({user.name!r}), not a house bot"
                    )
        except DuplicateKey:  # a person took it meanwhile
            raise NotAHouseBot(f"{name!r} is a person's account, not a house bot") from None
        return name

    def is_bot(self, name: str) -> bool:
        """Whether ``name`` is a house bot."""
        with self.storage.transaction(write=False) as tx:
            return self._user(tx, name).bot

    def sign_in(self, name: str, password: str) -> Session:
        """Check the password and open a session. Blocking (hashes): see ``sign_in_async``."""
        with self.storage.transaction(write=False) as tx:
            user = tx.get_user(name)
        if user is None:
            self._verify(self._dummy_hash, password)  # the same work, so timing reveals nothing
            raise AuthenticationFailed("wrong name or password")
        if not self._verify(user.password_hash, password):
            raise AuthenticationFailed("wrong name or password")
        if user.suspended:  # said only to whoever knows the password
            raise AccountSuspended(
                f"the account {name!r} is suspended by the room; contact the room's support"
            )
        now = self.clock()
        token = secrets.token_urlsafe(32)
        session = Session(token, name, now + self.session_seconds)
        rehash = self.hasher.check_needs_rehash(user.password_hash)
        new_hash = self.hasher.hash(password) if rehash else None
        with self.storage.transaction() as tx:
            if new_hash is not None:
                tx.set_password_hash(name, new_hash)
            tx.add_session(SessionRow(token_hash(token), name, now, session.expires_at))
        return session

    def _verify(self, password_hash: str, password: str) -> bool:
        try:
            return self.hasher.verify(password_hash, password)
        except (VerificationError, InvalidHashError):
            return False

    def authenticate(self, token: str) -> str:
        """The player a session token belongs to, or ``AuthenticationFailed``."""
        return self.session(token).user

    def session(self, token: str) -> Session:
        """The live session of a token (its player and expiry), or ``AuthenticationFailed``."""
        with self.storage.transaction(write=False) as tx:
            row = tx.get_session(token_hash(token))
        if row is None or row.expires_at <= self.clock():
            raise AuthenticationFailed("unknown or expired session; sign in again")
        return Session(token, row.user, row.expires_at)

    def sign_out(self, token: str) -> None:
        with self.storage.transaction() as tx:
            tx.delete_session(token_hash(token))

    def purge_expired_sessions(self) -> int:
        with self.storage.transaction() as tx:
            return tx.delete_expired_sessions(self.clock())

    async def sign_up_async(self, name: str, password: str) -> str:
        """``sign_up`` in the thread executor, off the event loop."""
        return await self._off_loop(partial(self.sign_up, name, password))

    async def sign_in_async(self, name: str, password: str) -> Session:
        """``sign_in`` in the thread executor, off the event loop."""
        return await self._off_loop(partial(self.sign_in, name, password))

    async def authenticate_async(self, token: str) -> str:
        return await self._off_loop(partial(self.authenticate, token))

    async def _off_loop(self, call: Callable[[], T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(self.executor, call)

    # -- protections (R-TIME-3)

    def protections_left(self, name: str, now: float | None = None) -> int:
        """How many protections the account has left in the rolling window."""
        now = self.clock() if now is None else now
        with self.storage.transaction(write=False) as tx:
            return self._left(tx, name, now)

    def consume_protection(
        self, name: str, table_id: str, hand_id: int | None = None, now: float | None = None
    ) -> bool:
        """Use one protection if any is left (then ``True``); ``False``: none left (R-TIME-2).

        The count and the use happen in one transaction with the account's row locked, so two
        tables asking at once cannot both take the last one.
        """
        now = self.clock() if now is None else now
        with self.storage.transaction() as tx:
            if self._left(tx, name, now, lock=True) <= 0:
                return False
            tx.add_protection(name, now, table_id, hand_id)
            return True

    def reset_protections(self, name: str, now: float | None = None) -> dict[str, Any]:
        """The operator's reset: the full allowance is available again from ``now``."""
        now = self.clock() if now is None else now
        with self.storage.transaction() as tx:
            self._user(tx, name, lock=True)
            tx.set_protections_reset(name, now)
        return {"account": name, "protections_left": self.protections_per_day, "reset_at": now}

    def _left(self, tx: Transaction, name: str, now: float, lock: bool = False) -> int:
        user = self._user(tx, name, lock=lock)
        since = max(now - self.protection_window_seconds, user.protections_reset_at)
        used = tx.count_protections(name, since)
        return max(0, self.protections_per_day - used)

    @staticmethod
    def _user(tx: Transaction, name: str, lock: bool = False) -> UserRow:
        user = tx.get_user(name, lock=lock)
        if user is None:
            raise UnknownAccount(f"no player account named {name!r} (names are case-sensitive)")
        return user
