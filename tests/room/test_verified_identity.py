"""Issue 40, item 9: ``verify`` takes the identity the operator checked (an e-mail address or a
document number), keeps only its keyed hash, and refuses it while it belongs to an account under
a self-exclusion: a new name does not get round one. Every refusal changes nothing."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from sqlalchemy import select

from fakeclock import Clock
from feltroom.room.accounts import Accounts
from feltroom.room.errors import RoomError
from feltroom.room.operators import OperatorLog, Operators, normal_identity
from feltroom.room.protection import Protection
from feltroom.store import SqlStorage
from feltroom.store.models import operator_log, room_secrets, verified_identities

from .test_protection import DAY, _audit_passes


def _dump(storage: SqlStorage) -> str:
    """Every row the verification and the log keep, as text."""
    with storage.engine.connect() as c:
        rows: list[Any] = [
            *c.execute(select(verified_identities)),
            *c.execute(select(operator_log)),
        ]
    return repr(rows).lower()


def test_an_identity_of_a_self_excluded_account_verifies_no_new_name(
    storage: SqlStorage, accounts: Accounts, clock: Clock
) -> None:
    operators = Operators(accounts)
    protection = Protection(storage, OperatorLog(storage, clock), clock)
    for name in ("alice", "alice2", "dora"):
        accounts.sign_up(name, "correct horse")
    operators.verify("alice", "root", "passport seen", "Alice@Example.org ")
    operators.verify("dora", "root", "id card seen", "P-1234/5678")
    protection.exclude("alice", 6)
    before = OperatorLog(storage).entries()
    for written in ("alice@example.org", " ALICE@EXAMPLE.ORG"):
        with pytest.raises(RoomError, match="self-exclusion that still runs"):
            operators.verify("alice2", "root", "new player", written)
    assert OperatorLog(storage).entries() == before
    assert operators.describe(["alice2"])["alice2"]["verified"] is False
    # another identity is another person; a document number is one however it is written
    accounts.sign_up("erin", "correct horse")
    operators.verify("erin", "root", "id card seen", "p 1234 5678")
    assert operators.describe(["erin"])["erin"]["verified"] is True
    # the exclusion over, the identity verifies again
    clock.now += 190 * DAY
    operators.verify("alice2", "root", "exclusion over", "alice@example.org")
    assert operators.describe(["alice2"])["alice2"]["verified"] is True
    _audit_passes(storage)


def test_a_permanent_exclusion_survives_the_accounts_removal(
    storage: SqlStorage, accounts: Accounts, clock: Clock
) -> None:
    operators = Operators(accounts)
    protection = Protection(storage, OperatorLog(storage, clock), clock)
    accounts.sign_up("gus", "correct horse")
    operators.verify("gus", "root", "passport seen", "AB123456")
    protection.exclude("gus", None)
    operators.remove("gus", "root", "the player asked")
    accounts.sign_up("gus2", "correct horse")
    with pytest.raises(RoomError, match="self-exclusion"):
        operators.verify("gus2", "root", "new player", "ab-123-456")
    _audit_passes(storage)


def test_only_a_keyed_hash_of_the_identity_is_kept(storage: SqlStorage, accounts: Accounts) -> None:
    operators = Operators(accounts)
    accounts.sign_up("hal", "correct horse")
    operators.verify("hal", "root", "checked", "hal.holder@example.org")
    kept = _dump(storage)
    assert "hal.holder" not in kept
    assert "example.org" not in kept
    plain = normal_identity("hal.holder@example.org").encode()
    assert hashlib.sha256(plain).hexdigest() not in kept  # keyed: not the plain hash
    with storage.engine.connect() as c:
        (row,) = c.execute(select(verified_identities)).all()
        (key,) = c.execute(select(room_secrets.c.value)).all()
    assert row.name == "hal"
    assert len(row.identity) == 64
    assert len(key.value) == 64
    for bad in ("", "  ", "a@b", "x" * 255):
        with pytest.raises(RoomError, match="give the identity you checked"):
            normal_identity(bad)
