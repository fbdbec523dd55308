"""Three fixed hands of alice (button), bob (small blind) and carol (big blind) at a 1/2
No-Limit table, for the statistics tests, with the figures counted by hand; and a helper that
stores hands in the room's database as settlement does."""

from __future__ import annotations

import json
from collections.abc import Sequence

from feltroom.integrity import StoredHand
from feltroom.room.storage import HandPlayerRow, TableRow
from feltroom.rules import Call, Check, Fold, RaiseTo
from feltroom.store import SqlStorage

from .build import stored_hand
from .scenes import BOARD, MIDDLE, STRONG, WEAK, check_down, raise_fold


def three_bet_pot(hand_id: int) -> StoredHand:
    """alice raises, bob re-raises, carol folds, alice calls; bob bets the flop, alice raises,
    bob calls; alice bets the turn, bob calls; bob bets the river, alice calls: a showdown."""
    alice, bob, carol = "alice", "bob", "carol"
    return stored_hand(
        hand_id,
        [(alice, 200, MIDDLE), (bob, 200, STRONG), (carol, 200, WEAK)],
        BOARD,
        [
            (alice, RaiseTo(6)),
            (bob, RaiseTo(18)),
            (carol, Fold()),
            (alice, Call()),
            (bob, RaiseTo(20)),
            (alice, RaiseTo(60)),
            (bob, Call()),
            (bob, Check()),
            (alice, RaiseTo(40)),
            (bob, Call()),
            (bob, RaiseTo(30)),
            (alice, Call()),
        ],
    )


def stats_hands() -> list[StoredHand]:
    """Hand 1: alice raises, carol calls from the big blind and folds to alice's flop bet (bob
    folds first); hand 2: everybody limps and checks it down; hand 3: ``three_bet_pot``."""
    return [
        raise_fold(1, "alice", "bob", "carol"),
        check_down(2, "alice", "bob", "carol"),
        three_bet_pot(3),
    ]


# Counted by hand from the three hands above (docs/web.md, "Statistics"):
# alice: VPIP in 1, 2, 3; PFR in 1, 3; after the flop bets 2 (flop of 1, turn of 3), raises 1
#   (flop of 3), calls 1 (river of 3); saw every flop, showdowns in 2 and 3.
# bob: folds in 1; VPIP in 2 (completes) and 3; PFR in 3; bets 2 (flop and river of 3), calls 2;
#   saw the flops of 2 and 3, showdowns in both.
# carol: VPIP in 1 (calls from the big blind); never raises; no bet, raise or call after the flop;
#   saw the flops of 1 and 2, a showdown in 2.
EXPECTED = {
    "alice": {"hands": 3, "vpip": 100.0, "pfr": 66.7, "af": 3.0, "wtsd": 66.7,
              "counts": {"vpip": 3, "pfr": 2, "bets": 2, "raises": 1, "calls": 1,
                         "saw_flop": 3, "showdowns": 2}},
    "bob": {"hands": 3, "vpip": 66.7, "pfr": 33.3, "af": 1.0, "wtsd": 100.0,
            "counts": {"vpip": 2, "pfr": 1, "bets": 2, "raises": 0, "calls": 2,
                       "saw_flop": 2, "showdowns": 2}},
    "carol": {"hands": 3, "vpip": 33.3, "pfr": 0.0, "af": None, "wtsd": 50.0,
              "counts": {"vpip": 1, "pfr": 0, "bets": 0, "raises": 0, "calls": 0,
                         "saw_flop": 2, "showdowns": 1}},
}  # fmt: skip


def store_hands(storage: SqlStorage, hands: Sequence[StoredHand]) -> list[int]:
    """Write settled hands (and their table) as the room's settlement does; their new ids."""
    ids = []
    with storage.transaction() as tx:
        for table in sorted({hand.table_id for hand in hands}):
            if tx.get_table(table) is None:
                tx.add_table(TableRow(table, "PLAY"))
        for hand in hands:
            hand_id = tx.new_hand(hand.table_id, "PLAY", hand.started_at)
            tx.finish_hand(
                hand_id,
                "settled",
                hand.started_at + 30,
                0,
                0,
                0,
                json.dumps(hand.settings),
                json.dumps(hand.record),
            )
            tx.add_hand_players(
                [
                    HandPlayerRow(
                        hand_id,
                        s.account,
                        s.seat,
                        s.start_stack,
                        s.contribution,
                        s.payout,
                        0,
                        s.hole,
                        s.showdown,
                        False,
                    )
                    for s in hand.seats
                ]
            )
            ids.append(hand_id)
    return ids
