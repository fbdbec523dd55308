"""Requested hand histories (R-HIST-1, R-HIST-2): the full record is stored, filtered on read."""

from __future__ import annotations

import pytest

from feltroom.room import (
    Accounts,
    Cashier,
    HandHistories,
    HandOutcome,
    NotAvailable,
    PlayerOutcome,
    Settlement,
)
from feltroom.store import SqlStorage


@pytest.fixture
def hand(
    settlement: Settlement, players: tuple[str, ...], accounts: Accounts, cashier: Cashier
) -> int:
    """Four players: dave folds preflop; at the showdown alice shows and wins, bob mucks; carol
    folds on the river. Board cards and alice's shown cards are in the public record."""
    accounts.sign_up("dave", "correct horse")
    accounts.sign_up("erin", "correct horse")  # never sits down
    cashier.grant("dave", 1000, "welcome-dave")
    settlement.open_table("t1", "PLAY")
    for seat, name in enumerate(("alice", "bob", "carol", "dave"), start=1):
        settlement.buy_in("t1", name, seat, 200)
    hand_id = settlement.begin_hand("t1")
    settlement.settle_hand(
        HandOutcome(
            hand_id,
            "t1",
            (
                PlayerOutcome("alice", 1, 200, 50, 122, "As Ah", showdown=True, shown=True),
                PlayerOutcome("bob", 2, 200, 50, 0, "Kc Kd", showdown=True, shown=False),
                PlayerOutcome("carol", 3, 200, 20, 0, "Qs Jh"),
                PlayerOutcome("dave", 4, 200, 2, 0, "7c 2d"),
            ),
            fee=0,
            rake=0,
            settings={"structure": "no-limit", "blinds": [1, 2]},
            record={
                "board": "Ts 9s 3d 4c 8h",
                "actions": ["dave folds", "carol folds", "alice shows As Ah", "bob mucks"],
            },
        )
    )
    return hand_id


def _holes(view: dict[str, object]) -> dict[str, object]:
    players = view["players"]
    assert isinstance(players, list)
    return {p["player"]: p["hole"] for p in players}


# Rules: R-HIST-1
def test_R_HIST_1_a_player_gets_only_hands_they_were_dealt_into(
    storage: SqlStorage, hand: int
) -> None:
    histories = HandHistories(storage)
    assert histories.hands_of("dave") == [hand]
    assert histories.hands_of("erin") == []
    with pytest.raises(NotAvailable, match="R-HIST-1"):
        histories.for_player(hand, "erin")
    with pytest.raises(NotAvailable):
        histories.for_player(hand + 1, "alice")


# Rules: R-HIST-2
def test_R_HIST_2_own_cards_and_every_showdown_hand_including_mucked_ones(
    storage: SqlStorage, hand: int
) -> None:
    histories = HandHistories(storage)
    # carol folded: she sees her own cards and both showdown hands (bob's mucked ones too)
    assert _holes(histories.for_player(hand, "carol")) == {
        "alice": "As Ah",
        "bob": "Kc Kd",
        "carol": "Qs Jh",
        "dave": None,
    }
    # bob mucked: he sees the showdown hands, never the folded players' cards
    assert _holes(histories.for_player(hand, "bob")) == {
        "alice": "As Ah",
        "bob": "Kc Kd",
        "carol": None,
        "dave": None,
    }
    view = histories.for_player(hand, "dave")
    assert _holes(view) == {"alice": "As Ah", "bob": "Kc Kd", "carol": None, "dave": "7c 2d"}
    assert view["settings"] == {"structure": "no-limit", "blinds": [1, 2]}
    assert "Qs" not in str(view)


# Rules: R-HIST-2
def test_R_HIST_2_observers_see_only_cards_shown_at_the_table(
    storage: SqlStorage, hand: int
) -> None:
    view = HandHistories(storage).for_observer(hand)
    assert _holes(view) == {"alice": "As Ah", "bob": None, "carol": None, "dave": None}
    text = str(view)
    for hidden in ("Kc", "Kd", "Qs", "Jh", "7c", "2d"):
        assert hidden not in text


# Rules: R-HIST-2
def test_R_HIST_2_the_store_keeps_the_whole_truth(storage: SqlStorage, hand: int) -> None:
    with storage.transaction(write=False) as tx:
        rows = {row.player: row.hole for row in tx.hand_players(hand)}
    assert rows == {"alice": "As Ah", "bob": "Kc Kd", "carol": "Qs Jh", "dave": "7c 2d"}
