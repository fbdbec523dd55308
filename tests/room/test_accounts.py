"""Accounts: Argon2id sign-up and sign-in, sessions, and protection allowances (R-TIME-3)."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from argon2 import PasswordHasher

from fakeclock import Clock
from feltroom.room import (
    Accounts,
    Argon2Settings,
    AuthenticationFailed,
    DuplicateKey,
    RoomError,
    UnknownAccount,
)
from feltroom.room.storage import UserRow
from feltroom.store import SqlStorage


def _rows(db_url: str, query: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(db_url.removeprefix("sqlite:///")) as raw:
        return list(raw.execute(query))


def test_passwords_are_stored_as_argon2id_hashes(accounts: Accounts, db_url: str) -> None:
    accounts.sign_up("alice", "correct horse")
    [(stored,)] = _rows(db_url, "SELECT password_hash FROM users WHERE name = 'alice'")
    assert isinstance(stored, str)
    assert stored.startswith("$argon2id$")
    assert "correct horse" not in stored


def test_sign_in_opens_a_session_whose_token_is_stored_only_as_a_hash(
    accounts: Accounts, db_url: str
) -> None:
    accounts.sign_up("alice", "correct horse")
    session = accounts.sign_in("alice", "correct horse")
    assert accounts.authenticate(session.token) == "alice"
    stored = _rows(db_url, "SELECT token_hash FROM sessions")
    assert len(stored) == 1
    assert session.token not in str(stored)
    accounts.sign_out(session.token)
    with pytest.raises(AuthenticationFailed):
        accounts.authenticate(session.token)


def test_wrong_password_and_unknown_name_fail_alike(accounts: Accounts) -> None:
    accounts.sign_up("alice", "correct horse")
    with pytest.raises(AuthenticationFailed, match="wrong name or password"):
        accounts.sign_in("alice", "battery staple")
    with pytest.raises(AuthenticationFailed, match="wrong name or password"):
        accounts.sign_in("nobody", "correct horse")


def test_sessions_expire(accounts: Accounts, clock: Clock) -> None:
    accounts.sign_up("alice", "correct horse")
    session = accounts.sign_in("alice", "correct horse")
    clock.now = session.expires_at + 1
    with pytest.raises(AuthenticationFailed, match="expired"):
        accounts.authenticate(session.token)
    assert accounts.purge_expired_sessions() == 1


def test_names_are_validated_unique_and_not_reserved(accounts: Accounts) -> None:
    accounts.sign_up("alice", "correct horse")
    with pytest.raises(RoomError, match="taken"):
        accounts.sign_up("alice", "another password")
    with pytest.raises(RoomError, match="reserved"):
        accounts.sign_up("house", "correct horse")
    with pytest.raises(RoomError, match="not valid"):
        accounts.sign_up("bad name!", "correct horse")
    with pytest.raises(RoomError, match="at least 8 characters"):
        accounts.sign_up("bob", "short")


def test_hashes_are_upgraded_when_the_parameters_change(
    storage: SqlStorage, clock: Clock, db_url: str
) -> None:
    Accounts(storage, argon2=Argon2Settings.cheap(), clock=clock).sign_up("alice", "pw123456")
    stronger = Accounts(storage, argon2=Argon2Settings(1, 16, 1), clock=clock)
    stronger.sign_in("alice", "pw123456")
    [(stored,)] = _rows(db_url, "SELECT password_hash FROM users")
    assert isinstance(stored, str)
    assert "m=16," in stored


def test_async_wrappers_hash_off_the_event_loop(storage: SqlStorage, clock: Clock) -> None:
    threads: set[str] = set()
    executor = ThreadPoolExecutor(1, thread_name_prefix="argon2")
    accounts = Accounts(storage, argon2=Argon2Settings.cheap(), clock=clock, executor=executor)

    class SpyHasher(PasswordHasher):
        def hash(self, password: str | bytes, *, salt: bytes | None = None) -> str:
            threads.add(threading.current_thread().name)
            return super().hash(password, salt=salt)

    accounts.hasher = SpyHasher(time_cost=1, memory_cost=8, parallelism=1)

    async def scenario() -> str:
        await accounts.sign_up_async("alice", "correct horse")
        session = await accounts.sign_in_async("alice", "correct horse")
        return await accounts.authenticate_async(session.token)

    try:
        assert asyncio.run(scenario()) == "alice"
    finally:
        executor.shutdown()
    assert threads
    assert all(name.startswith("argon2") for name in threads)


# Rules: R-TIME-3
def test_R_TIME_3_the_allowance_is_per_account_across_all_tables(
    accounts: Accounts, clock: Clock
) -> None:
    accounts.sign_up("alice", "correct horse")
    accounts.sign_up("bob", "correct horse")
    assert accounts.protections_left("alice") == 2
    assert accounts.consume_protection("alice", "table-1", hand_id=1)
    clock.now += 60
    assert accounts.consume_protection("alice", "table-2", hand_id=7)
    clock.now += 60
    # none left at any table: R-TIME-2 applies
    assert not accounts.consume_protection("alice", "table-3", hand_id=9)
    assert not accounts.consume_protection("alice", "table-1", hand_id=2)
    assert accounts.protections_left("alice") == 0
    # another account is unaffected
    assert accounts.protections_left("bob") == 2


# Rules: R-TIME-3
def test_R_TIME_3_the_window_is_a_rolling_24_hours(accounts: Accounts, clock: Clock) -> None:
    accounts.sign_up("alice", "correct horse")
    start = clock.now
    assert accounts.consume_protection("alice", "t1")
    clock.now = start + 3600
    assert accounts.consume_protection("alice", "t2")
    clock.now = start + 24 * 3600 - 1
    assert accounts.protections_left("alice") == 0
    clock.now = start + 24 * 3600 + 1  # the first use has left the window
    assert accounts.protections_left("alice") == 1
    clock.now = start + 25 * 3600 + 1
    assert accounts.protections_left("alice") == 2


# Rules: R-TIME-3
def test_R_TIME_3_the_operator_resets_the_allowance(accounts: Accounts, clock: Clock) -> None:
    accounts.sign_up("alice", "correct horse")
    assert accounts.consume_protection("alice", "t1")
    assert accounts.consume_protection("alice", "t2")
    clock.now += 10
    assert accounts.reset_protections("alice")["protections_left"] == 2
    assert accounts.protections_left("alice") == 2
    clock.now += 10
    assert accounts.consume_protection("alice", "t1")
    assert accounts.protections_left("alice") == 1
    with pytest.raises(UnknownAccount, match="no player account named 'zed'"):
        accounts.reset_protections("zed")


# Rules: R-TIME-3
def test_R_TIME_3_the_allowance_is_a_room_setting(storage: SqlStorage, clock: Clock) -> None:
    accounts = Accounts(storage, argon2=Argon2Settings.cheap(), clock=clock, protections_per_day=1)
    accounts.sign_up("alice", "correct horse")
    assert accounts.consume_protection("alice", "t1")
    assert not accounts.consume_protection("alice", "t2")


# Rules: R-TIME-3
def test_R_TIME_3_two_tables_racing_cannot_both_take_the_last_protection(
    db_url: str, clock: Clock
) -> None:
    from feltroom.store import open_storage

    stores = [open_storage(db_url) for _ in range(2)]
    tables = [Accounts(s, argon2=Argon2Settings.cheap(), clock=clock) for s in stores]
    tables[0].sign_up("alice", "correct horse")
    assert tables[0].consume_protection("alice", "t0")  # one left
    barrier = threading.Barrier(8)
    granted: list[bool] = []

    def ask(index: int) -> None:
        barrier.wait()
        granted.append(tables[index % 2].consume_protection("alice", f"t{index}"))

    workers = [threading.Thread(target=ask, args=(i,)) for i in range(8)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert sorted(granted) == [False] * 7 + [True]
    for store in stores:
        store.close()


@pytest.mark.parametrize("other", ["Alice", "alIce", "ALICE"])
def test_names_are_unique_regardless_of_letter_case(
    accounts: Accounts, storage: SqlStorage, other: str
) -> None:
    """Issue 27, point 2: ``alice``, ``Alice`` and ``alIce`` are one name."""
    accounts.sign_up("alice", "correct horse")
    with pytest.raises(RoomError, match=r"taken .*any letter case"):
        accounts.sign_up(other, "correct horse")
    # The database holds it too, whatever a caller skips.
    with pytest.raises(DuplicateKey), storage.transaction() as tx:
        tx.add_user(UserRow(other, "!x", 0.0, 0.0))
    with storage.transaction(write=False) as tx:
        found = tx.get_user(other, nocase=True)
    assert found is not None
    assert found.name == "alice"


@pytest.mark.parametrize("password", ["alice-long-name", "ALICE-LONG-NAME", "Alice-Long-Name"])
def test_a_password_may_not_be_the_name(accounts: Accounts, password: str) -> None:
    with pytest.raises(RoomError, match="password may not be the name"):
        accounts.sign_up("alice-long-name", password)
    assert accounts.sign_up("alice-long-name", "another-password") == "alice-long-name"
