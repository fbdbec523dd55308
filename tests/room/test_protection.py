"""Player protection in the books (issue 25): deposit and loss limits per day, week and month,
a raise only after 24 hours, cool-off and self-exclusion that cannot be undone early, verified
accounts at real money; every refusal says what would be valid and changes nothing; every
change is in the operator log; the books balance."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import delete

from fakeclock import Clock
from feltroom.room import audit
from feltroom.room.accounts import Accounts
from feltroom.room.cashier import Cashier
from feltroom.room.errors import ProtectionRefused, RoomError
from feltroom.room.operators import OperatorLog, Operators
from feltroom.room.protection import PERIOD_TEXT, Protection
from feltroom.room.settlement import Settlement
from feltroom.room.tournaments import TournamentBooks
from feltroom.store import SqlStorage
from feltroom.store.models import users

DAY = 86_400.0


@pytest.fixture
def protection(storage: SqlStorage, clock: Clock) -> Protection:
    return Protection(storage, OperatorLog(storage, clock), clock)


@pytest.fixture
def alice(accounts: Accounts, cashier: Cashier, clock: Clock) -> str:
    """A verified account holding 1000.00 USD, deposited over a month ago."""
    accounts.sign_up("alice", "correct horse")
    Operators(accounts).verify("alice", "root", "passport seen", "alice@example.org")
    cashier.deposit("alice", "USD", "1000.00", "first")
    clock.now += 31 * DAY
    return "alice"


def _limit(kind: str, period: str, amount: str | None, code: str = "USD") -> dict[str, Any]:
    return {"currency": code, "kind": kind, "period": period, "amount": amount}


def _balance(cashier: Cashier, name: str, code: str = "USD") -> str:
    return str(cashier.balance(name)["balances"].get(code, "0.00"))


def _log(storage: SqlStorage) -> list[dict[str, Any]]:
    return OperatorLog(storage).entries()


def _audit_passes(storage: SqlStorage) -> None:
    report = audit(storage, shuffles=0)
    assert report["problems"] == []


def test_a_deposit_over_a_deposit_limit_is_refused_with_what_is_left(
    storage: SqlStorage, clock: Clock, cashier: Cashier, protection: Protection, alice: str
) -> None:
    result = protection.set_limits(alice, [_limit("deposit", "day", "100.00")])
    assert result["changes"][0]["effect"] == "now"
    cashier.deposit(alice, "USD", "60.00", "d1")
    with pytest.raises(ProtectionRefused) as refused:
        cashier.deposit(alice, "USD", "50.00", "d2")
    assert "at most 40.00 USD more is possible now, not 50.00 USD" in str(refused.value)
    assert refused.value.details["allowed"] == "40.00"
    assert _balance(cashier, alice) == "1060.00"  # nothing changed
    cashier.deposit(alice, "USD", "40.00", "d2")
    with pytest.raises(ProtectionRefused):
        cashier.deposit(alice, "USD", "0.01", "d3")
    view = protection.view(alice)
    assert view["limits"][0]["used"] == "100.00"
    clock.now += DAY + 1  # the rolling day has passed
    cashier.deposit(alice, "USD", "100.00", "d3")
    cashier.grant(alice, 5000, "play")  # play money has no limits
    # a week limit counts the last 7 days
    clock.now += DAY + 1
    protection.set_limits(alice, [_limit("deposit", "week", "250.00")])
    with pytest.raises(ProtectionRefused) as refused:
        cashier.deposit(alice, "USD", "60.00", "d4")
    assert "per week" in str(refused.value)
    assert refused.value.details["used"] == "200.00"
    _audit_passes(storage)


def test_a_deposit_over_a_monthly_deposit_limit_is_refused_counting_30_days(
    storage: SqlStorage, clock: Clock, cashier: Cashier, protection: Protection, alice: str
) -> None:
    """A month limit counts the deposits of the last 30 days, not only this day's or week's."""
    cashier.deposit(alice, "USD", "200.00", "early")  # 20 days ago: outside the day and week
    clock.now += 20 * DAY
    protection.set_limits(
        alice,
        [
            _limit("deposit", "day", "300.00"),
            _limit("deposit", "week", "300.00"),
            _limit("deposit", "month", "300.00"),
        ],
    )
    cashier.deposit(alice, "USD", "60.00", "today")
    with pytest.raises(ProtectionRefused) as refused:
        cashier.deposit(alice, "USD", "50.00", "more")
    assert "deposit limit is 300.00 USD per month" in str(refused.value)
    assert "over the last 30 days are 260.00 USD" in str(refused.value)
    details = refused.value.details
    assert (details["period"], details["used"], details["allowed"]) == ("month", "260.00", "40.00")
    assert _balance(cashier, alice) == "1260.00"  # nothing changed
    cashier.deposit(alice, "USD", "40.00", "more")
    used = {row["period"]: row["used"] for row in protection.view(alice)["limits"]}
    assert used == {"day": "100.00", "week": "100.00", "month": "300.00"}
    clock.now += 10 * DAY + 1  # the early deposit leaves the rolling month
    cashier.deposit(alice, "USD", "50.00", "later")
    _audit_passes(storage)


@pytest.mark.parametrize(("period", "days_ago"), [("week", 3), ("month", 10)])
def test_a_buy_in_over_a_weekly_or_monthly_loss_limit_counts_earlier_losses(
    storage: SqlStorage,
    clock: Clock,
    cashier: Cashier,
    settlement: Settlement,
    protection: Protection,
    alice: str,
    period: str,
    days_ago: int,
) -> None:
    """A buy-in made ``days_ago`` days ago (its chips still at the table: a net loss) counts
    against the week or month loss limit, not against the day's (nor, 10 days on, the week's)."""
    settlement.open_table("usd1", "USD")
    settlement.open_table("usd2", "USD")
    settlement.buy_in("usd1", alice, 1, 3000)
    clock.now += days_ago * DAY
    # the day's limit (and, 10 days on, the week's) would allow the buy-in; only the
    # period's own limit counts the earlier loss
    limits = {"day": "40.00", "week": "50.00"}
    if period == "month":
        limits = {"day": "40.00", "week": "40.00", "month": "50.00"}
    protection.set_limits(alice, [_limit("loss", p, a) for p, a in limits.items()])
    with pytest.raises(ProtectionRefused) as refused:
        settlement.buy_in("usd2", alice, 1, 3000)
    text = PERIOD_TEXT[period]
    assert f"loss limit is 50.00 USD per {period}" in str(refused.value)
    assert f"net losses over the last {text} are 30.00 USD" in str(refused.value)
    details = refused.value.details
    assert (details["period"], details["used"], details["allowed"]) == (period, "30.00", "20.00")
    with pytest.raises(ProtectionRefused):
        TournamentBooks(storage, "sunday", "USD", clock=clock).verify_entry(alice, 2000, 100)
    assert _balance(cashier, alice) == "970.00"  # nothing changed
    used = {row["period"]: row["used"] for row in protection.view(alice)["limits"]}
    assert used["day"] == "0.00"
    assert used[period] == "30.00"
    settlement.buy_in("usd2", alice, 1, 2000)  # what is left under the limit
    with pytest.raises(ProtectionRefused):
        settlement.pend_chips("usd2", alice, 1)
    _audit_passes(storage)


def test_lowering_is_at_once_raising_waits_24_hours_and_is_shown(
    storage: SqlStorage, clock: Clock, cashier: Cashier, protection: Protection, alice: str
) -> None:
    protection.set_limits(alice, [_limit("deposit", "month", "100.00")])
    result = protection.set_limits(alice, [_limit("deposit", "month", "500.00")])
    assert result["changes"][0]["effect"] == "pending"
    (limit,) = result["limits"]
    assert limit["amount"] == "100.00"
    assert limit["pending"]["amount"] == "500.00"
    assert limit["pending"]["at"] == clock.now + DAY
    with pytest.raises(ProtectionRefused):
        cashier.deposit(alice, "USD", "150.00", "big")
    # asking again for the same raise does not restart its clock
    clock.now += 3600
    again = protection.set_limits(alice, [_limit("deposit", "month", "500.00")])
    assert again["limits"][0]["pending"]["at"] == clock.now - 3600 + DAY
    clock.now += DAY - 3600
    assert protection.view(alice)["limits"][0]["amount"] == "500.00"
    assert protection.view(alice)["limits"][0]["pending"] is None
    cashier.deposit(alice, "USD", "150.00", "big")
    # lowering takes effect at once; removing waits like a raise
    lowered = protection.set_limits(alice, [_limit("deposit", "month", "200.00")])
    assert lowered["limits"][0]["amount"] == "200.00"
    removed = protection.set_limits(alice, [_limit("deposit", "month", None)])
    assert removed["changes"][0]["effect"] == "pending"
    assert removed["limits"][0]["pending"]["amount"] is None
    with pytest.raises(ProtectionRefused):
        cashier.deposit(alice, "USD", "60.00", "more")
    clock.now += DAY
    assert protection.view(alice)["limits"] == []
    cashier.deposit(alice, "USD", "60.00", "more")
    actions = [e["action"] for e in _log(storage) if e["target"] == alice]
    assert actions.count("limits") == 5
    _audit_passes(storage)


def test_a_buy_in_chips_added_or_an_entry_over_a_loss_limit_is_refused(
    storage: SqlStorage,
    clock: Clock,
    cashier: Cashier,
    settlement: Settlement,
    protection: Protection,
    alice: str,
) -> None:
    settlement.open_table("usd1", "USD")
    protection.set_limits(alice, [_limit("loss", "day", "50.00")])
    settlement.buy_in("usd1", alice, 1, 3000)
    with pytest.raises(ProtectionRefused) as refused:
        settlement.buy_in("usd1", alice, 1, 3000)
    assert "loss limit is 50.00 USD per day" in str(refused.value)
    assert "at most 20.00 USD more" in str(refused.value)
    with pytest.raises(ProtectionRefused):
        settlement.pend_chips("usd1", alice, 2001)
    assert _balance(cashier, alice) == "970.00"
    settlement.leave("usd1", alice)  # 30.00 back: net losses 0.00
    settlement.buy_in("usd1", alice, 1, 5000)
    books = TournamentBooks(storage, "sunday", "USD", clock=clock)
    with pytest.raises(ProtectionRefused) as refused:
        books.verify_entry(alice, 100, 10)
    assert "at most 0.00 USD more" in str(refused.value)
    settlement.leave("usd1", alice)
    books.verify_entry(alice, 100, 10)
    # play money has no loss limits
    cashier.grant(alice, 1000, "play")
    settlement.open_table("play1", "PLAY")
    settlement.buy_in("play1", alice, 1, 1000)
    _audit_passes(storage)


def test_unverified_accounts_are_refused_at_real_money_only(
    storage: SqlStorage,
    accounts: Accounts,
    cashier: Cashier,
    settlement: Settlement,
    clock: Clock,
) -> None:
    accounts.sign_up("bob", "correct horse")
    cashier.deposit("bob", "USD", "100.00", "bob")
    cashier.grant("bob", 1000, "bob-play")
    settlement.require_verified = True
    settlement.open_table("usd1", "USD")
    settlement.open_table("play1", "PLAY")
    with pytest.raises(ProtectionRefused, match="bob is not verified"):
        settlement.buy_in("usd1", "bob", 2, 1000)
    with pytest.raises(ProtectionRefused, match="not verified"):
        TournamentBooks(storage, "sunday", "USD", clock=clock).verify_entry("bob", 100, 10)
    TournamentBooks(storage, "free", "PLAY", clock=clock).verify_entry("bob", 100, 10)
    settlement.buy_in("play1", "bob", 2, 500)
    assert _balance(cashier, "bob") == "100.00"
    operators = Operators(accounts)
    result = operators.verify("bob", "carol", "documents checked", "P-1234-5678")
    assert result["verified"] is True
    with pytest.raises(RoomError, match="verified already"):
        operators.verify("bob", "carol", "again", "P-1234-5678")
    settlement.buy_in("usd1", "bob", 2, 1000)
    (entry,) = [e for e in _log(storage) if e["action"] == "verify" and e["target"] == "bob"]
    assert entry["operator"] == "carol"
    assert entry["reason"] == "documents checked"
    _audit_passes(storage)


def test_a_cool_off_stops_deposits_and_play_but_not_withdrawals_and_cannot_be_shortened(
    storage: SqlStorage,
    clock: Clock,
    cashier: Cashier,
    settlement: Settlement,
    protection: Protection,
    alice: str,
) -> None:
    settlement.open_table("play1", "PLAY")
    cashier.grant(alice, 1000, "play")
    result = protection.cool_off(alice, 48)
    assert result["blocked"] == "cool-off"
    assert result["cool_off_until"] == clock.now + 48 * 3600
    with pytest.raises(ProtectionRefused, match=r"cool-off until .*no deposit"):
        cashier.deposit(alice, "USD", "10.00", "d")
    with pytest.raises(ProtectionRefused, match="no buy-in"):
        settlement.buy_in("play1", alice, 1, 100)
    with pytest.raises(ProtectionRefused, match="no tournament entry"):
        TournamentBooks(storage, "t", "PLAY", clock=clock).verify_entry(alice, 10, 1)
    cashier.withdraw(alice, "USD", "100.00", "w")  # withdrawals stay possible
    with pytest.raises(RoomError, match="cannot be shortened"):
        protection.cool_off(alice, 24)
    longer = protection.cool_off(alice, 72)
    assert longer["cool_off_until"] == clock.now + 72 * 3600
    clock.now += 72 * 3600
    assert protection.view(alice)["blocked"] is None
    cashier.deposit(alice, "USD", "10.00", "d")
    settlement.buy_in("play1", alice, 1, 100)
    actions = [e["action"] for e in _log(storage) if e["target"] == alice]
    assert actions.count("cool-off") == 2
    _audit_passes(storage)


def test_a_self_exclusion_outlives_the_account_and_cannot_be_shortened(
    storage: SqlStorage,
    clock: Clock,
    accounts: Accounts,
    cashier: Cashier,
    protection: Protection,
    alice: str,
) -> None:
    result = protection.exclude(alice, 6)
    assert result["blocked"] == "self-exclusion"
    assert result["excluded_time"].startswith("1970-08-12")  # six calendar months on
    assert protection.exclude(alice, 12)["excluded_time"].startswith("1971-02-12")
    with pytest.raises(RoomError, match="cannot be shortened"):
        protection.exclude(alice, 6)
    with pytest.raises(RoomError, match="self-excluded already"):
        protection.cool_off(alice, 24)
    permanent = protection.exclude(alice, None)
    assert permanent["excluded_permanently"] is True
    with pytest.raises(RoomError, match="permanently already"):
        protection.exclude(alice, 120)
    clock.now += 20 * 365 * DAY
    with pytest.raises(ProtectionRefused, match="permanently"):
        cashier.deposit(alice, "USD", "10.00", "d")
    cashier.withdraw(alice, "USD", "1000.00", "all")
    # an account with nothing on the books, removed: its name stays excluded
    accounts.sign_up("zed", "correct horse")
    protection.exclude("zed", 12)
    with storage.transaction() as tx:
        tx.c.execute(delete(users).where(users.c.name == "zed"))  # type: ignore[attr-defined]
    for name in ("zed", "ZED"):
        with pytest.raises(RoomError, match="under a self-exclusion"):
            accounts.sign_up(name, "correct horse")
    _audit_passes(storage)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"limits": [_limit("deposit", "day", "10.00", "PLAY")]}, "real-money currencies"),
        ({"limits": [_limit("bets", "day", "10.00")]}, "kind must be one of deposit, loss"),
        ({"limits": [_limit("loss", "year", "10.00")]}, "period must be one of day, week, month"),
        ({"limits": [_limit("loss", "day", "10.001")]}, "multiples of 0.01"),
        ({"limits": [_limit("loss", "day", "-1.00")]}, "cannot be negative"),
        ({"limits": [_limit("loss", "day", 10)]}, "a string in major units"),
        ({"limits": [{"currency": "USD"}]}, "missing 'kind'"),
        ({"limits": [_limit("loss", "day", "1.00")], "reminder_minutes": 5}, r"0 \(no reminder\)"),
        ({"limits": []}, "nothing to change"),
    ],
)
def test_bad_limits_are_refused_with_what_is_valid_and_change_nothing(
    storage: SqlStorage, protection: Protection, alice: str, change: Any, message: str
) -> None:
    protection.set_limits(alice, [_limit("loss", "week", "500.00")], 30)
    before = protection.view(alice), len(_log(storage))
    with pytest.raises(RoomError, match=message):
        protection.set_limits(alice, change["limits"], change.get("reminder_minutes"))
    assert (protection.view(alice), len(_log(storage))) == before


def test_bad_cool_offs_and_exclusions_are_refused(
    storage: SqlStorage, protection: Protection, alice: str
) -> None:
    before = protection.view(alice), len(_log(storage))
    for hours in (23, 1009):
        with pytest.raises(RoomError, match="from 24 hours to 1008 hours"):
            protection.cool_off(alice, hours)
    for months in (5, 121):
        with pytest.raises(RoomError, match="from 6 to 120 months, or is permanent"):
            protection.exclude(alice, months)
    assert (protection.view(alice), len(_log(storage))) == before
