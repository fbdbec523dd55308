"""Renaming and removing accounts (docs/operator.md): the account keeps its stable id, so its
balances, hand records and settings follow a rename; a removal needs a zero balance and no seat
or tournament entry in play, keeps the books' history, and lifts no self-exclusion or cool-off;
every refusal names what is valid and changes nothing; the books balance after every step."""

from __future__ import annotations

import re

import pytest

from books import build_history, wallet_balance
from feltroom.room import Accounts, Argon2Settings, Cashier, HandHistories, audit
from feltroom.room.errors import (
    AuthenticationFailed,
    ProtectionRefused,
    RoomError,
    UnknownAccount,
)
from feltroom.room.ledger import (
    TransferKind,
    account_owner,
    external_key,
    new_transfer,
    wallet_key,
)
from feltroom.room.operators import OperatorLog, Operators
from feltroom.room.player_stats import PlayerStatistics
from feltroom.room.storage import ProtectionRow
from feltroom.store import SqlStorage

NOW = 1_000_000.0


@pytest.fixture
def room(storage: SqlStorage) -> tuple[Operators, Accounts, Cashier, int]:
    hand = build_history(storage, NOW)["hand"]
    accounts = Accounts(storage, argon2=Argon2Settings.cheap(), clock=lambda: NOW)
    return Operators(accounts), accounts, Cashier(storage, clock=lambda: NOW), hand


def _books_pass(storage: SqlStorage) -> None:
    report = audit(storage, shuffles=0)
    assert report["pass"], report["problems"]


def _user_ids(storage: SqlStorage) -> dict[str, int]:
    with storage.transaction(write=False) as tx:
        return {
            name: user.account_id
            for name in ("alice", "bob", "carol", "alicia", "Alice")
            if (user := tx.get_user(name)) is not None
        }


def test_a_renamed_account_keeps_its_balance_history_and_settings(
    storage: SqlStorage, room: tuple[Operators, Accounts, Cashier, int]
) -> None:
    operators, accounts, cashier, hand = room
    before = cashier.balance("alice")["balances"]
    ids = _user_ids(storage)
    session = accounts.sign_in("alice", "correct horse")
    result = operators.rename("alice", "alicia", "op", "asked by the player")
    assert result["renamed_to"] == "alicia"
    assert result["account_id"] == ids["alice"]
    assert result["sessions_ended"] == 1
    with pytest.raises(AuthenticationFailed):  # signs in under the new name
        accounts.authenticate(session.token)
    fresh = accounts.sign_in("alicia", "correct horse")
    assert accounts.authenticate(fresh.token) == "alicia"
    with pytest.raises(UnknownAccount):
        cashier.balance("alice")
    assert cashier.balance("alicia")["balances"] == before
    assert wallet_balance(storage, "alicia", "PLAY") == 1090
    histories = HandHistories(storage)
    assert histories.hands_of("alicia") == [hand]
    view = histories.for_player(hand, "alicia")
    # The hand record keeps the name the hand was played under (a tracker's screen name).
    assert view["viewer"] == "alice"
    assert [p["player"] for p in view["players"]] == ["alice", "bob"]
    assert view["players"][0]["hole"] == "As Ks"
    assert histories.summaries("alicia", [hand])[0]["net"] == 90
    stats = PlayerStatistics(storage).stats("alicia")
    assert stats["results"][0]["hands"] == 1  # the hand played under the old name counts
    entry = OperatorLog(storage).entries()[-1]
    assert (entry["action"], entry["target"], entry["operator"]) == ("rename", "alice", "op")
    assert entry["details"]["to"] == "alicia"
    assert entry["details"]["account_id"] == ids["alice"]
    # A new account under the old name starts from nothing: its own id, no history.
    accounts.sign_up("alice", "another horse")
    assert _user_ids(storage)["alice"] not in ids.values()
    assert cashier.balance("alice")["balances"] == {}
    assert histories.hands_of("alice") == []
    _books_pass(storage)


def test_a_rename_obeys_the_sign_up_name_rules_and_a_refusal_changes_nothing(
    storage: SqlStorage, room: tuple[Operators, Accounts, Cashier, int]
) -> None:
    operators, accounts, _, _ = room
    accounts.sign_up("dora", "correct horse")
    with storage.transaction() as tx:
        tx.put_protection(ProtectionRow("excluded", 0, None, None, True))
    refusals = {
        "house": "is reserved",
        "bot.t1.1": "reserved for the room's house bots",
        "Bob": "is taken (as 'bob'",
        "bad name": "use 1 to 32 letters",
        "x" * 33: "use 1 to 32 letters",
        "Excluded": "under a self-exclusion",
        "dora": "the account is named 'dora' already",
    }
    for new_name, message in refusals.items():
        with pytest.raises(RoomError, match=re.escape(message)) as refused:
            operators.rename("dora", new_name, "op", "r")
        assert not isinstance(refused.value, UnknownAccount)
    with pytest.raises(UnknownAccount, match="no player account named 'nobody'"):
        operators.rename("nobody", "somebody", "op", "r")
    with pytest.raises(RoomError, match="give a reason"):
        operators.rename("dora", "dorothy", "op", " ")
    assert _user_ids(storage).keys() == {"alice", "bob", "carol"}
    with storage.transaction(write=False) as tx:
        assert tx.get_user("dora") is not None
    assert [e["action"] for e in OperatorLog(storage).entries()] == []
    # Only the letter case changes: the same account, allowed.
    assert operators.rename("dora", "Dora", "op", "capitals")["renamed_to"] == "Dora"
    _books_pass(storage)


def test_no_rename_or_removal_while_seated_or_entered_in_a_tournament(
    storage: SqlStorage, room: tuple[Operators, Accounts, Cashier, int]
) -> None:
    operators, _, _, _ = room
    with pytest.raises(RoomError, match="'bob' sits at t1"):
        operators.rename("bob", "bobby", "op", "r")
    with pytest.raises(RoomError, match="'bob' sits at t1"):
        operators.remove("bob", "op", "r")
    with pytest.raises(RoomError, match="'carol' is entered in tournament sng-1"):
        operators.rename("carol", "caroline", "op", "r")
    with pytest.raises(RoomError, match="'carol' is entered in tournament sng-1"):
        operators.remove("carol", "op", "r")
    assert _user_ids(storage).keys() == {"alice", "bob", "carol"}
    assert OperatorLog(storage).entries() == []
    _books_pass(storage)


def test_remove_needs_a_zero_balance_and_keeps_the_books_history(
    storage: SqlStorage, room: tuple[Operators, Accounts, Cashier, int]
) -> None:
    operators, accounts, cashier, hand = room
    alice = _user_ids(storage)["alice"]
    with pytest.raises(RoomError, match=r"'alice' still holds 1090 PLAY \(wallet:#\d+:PLAY\)"):
        operators.remove("alice", "op", "r")
    cashier.deposit("alice", "USD", "5.00", "d")
    with pytest.raises(RoomError, match=r"1090 PLAY .* 5\.00 USD"):
        operators.remove("alice", "op", "r")
    accounts.sign_up("op", "correct horse")
    operators.grant("op", "", "root", "hired")
    with pytest.raises(RoomError, match="cannot remove their own account"):
        operators.remove("op", "op", "r")
    with pytest.raises(RoomError, match="is an operator; revoke-operator first"):
        operators.remove("op", "root", "r")
    cashier.withdraw("alice", "USD", "5.00", "w")
    with storage.transaction() as tx:  # play chips go back to the room: no chip created or lost
        tx.post_transfer(
            new_transfer(
                TransferKind.WITHDRAWAL,
                "PLAY",
                wallet_key(account_owner(alice), "PLAY"),
                external_key("PLAY"),
                1090,
            )
        )
    session = accounts.sign_in("alice", "correct horse")
    result = operators.remove("alice", "op", "closed at the player's request")
    assert result == {
        "account": "alice",
        "removed": True,
        "account_id": alice,
        "sessions_ended": 1,
        "entry": result["entry"],
    }
    with pytest.raises(AuthenticationFailed):
        accounts.authenticate(session.token)
    with pytest.raises(UnknownAccount):
        cashier.balance("alice")
    with storage.transaction(write=False) as tx:
        assert tx.get_user("alice") is None
        # The ledger keeps the account's history under its id.
        assert {row.key for row in tx.accounts_of(account_owner(alice))} == {
            f"wallet:#{alice}:PLAY",
            f"wallet:#{alice}:USD",
        }
    assert HandHistories(storage).for_observer(hand)["players"][0]["player"] == "alice"
    _books_pass(storage)
    # The name is free again, for a new account with a new id and nothing of the old one.
    accounts.sign_up("alice", "another horse")
    assert _user_ids(storage)["alice"] > alice
    assert HandHistories(storage).hands_of("alice") == []
    assert [e["action"] for e in OperatorLog(storage).entries()][-1] == "remove"
    _books_pass(storage)


def test_removing_an_account_lifts_no_self_exclusion_or_cool_off(
    storage: SqlStorage, room: tuple[Operators, Accounts, Cashier, int]
) -> None:
    operators, accounts, cashier, _ = room
    for name in ("erin", "fred"):
        accounts.sign_up(name, "correct horse")
    with storage.transaction() as tx:
        tx.put_protection(ProtectionRow("erin", 0, None, NOW + 86_400.0 * 180, False))
        tx.put_protection(ProtectionRow("fred", 0, NOW + 86_400.0, None, False))
    operators.remove("erin", "op", "self-excluded player asked to close")
    operators.remove("fred", "op", "asked to close")
    with storage.transaction(write=False) as tx:
        assert tx.get_protection("erin") is not None
        assert tx.get_protection("FRED") is not None
    with pytest.raises(RoomError, match="under a self-exclusion"):
        accounts.sign_up("Erin", "correct horse")
    accounts.sign_up("fred", "correct horse")  # a cool-off does not hold a name...
    with pytest.raises(ProtectionRefused, match="cool-off"):  # ...but still applies to it
        cashier.deposit("fred", "USD", "1.00", "during-the-cool-off")
    _books_pass(storage)


def test_a_rename_carries_the_players_protection_and_keeps_it_on_the_old_name(
    storage: SqlStorage, room: tuple[Operators, Accounts, Cashier, int]
) -> None:
    operators, _, cashier, _ = room
    with storage.transaction() as tx:
        tx.put_protection(ProtectionRow("alice", 0, NOW + 86_400.0, None, False))
    operators.rename("alice", "alicia", "op", "r")
    with pytest.raises(ProtectionRefused, match="cool-off"):
        cashier.deposit("alicia", "USD", "1.00", "d")
    with storage.transaction(write=False) as tx:
        assert tx.get_protection("alice") is not None
    _books_pass(storage)
