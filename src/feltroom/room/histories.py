"""Hand histories on request (R-HIST-1, R-HIST-2).

The store keeps the whole truth of each settled hand: every dealt player's hole cards. What a
requester sees is filtered here, on read:

- a player may request only hands they were dealt into (R-HIST-1);
- they see their own hole cards and those of every player who stayed to the showdown, mucked
  cards included; never the cards of a player who folded, and never burned or undealt cards
  (the record holds none of those);
- an observer sees only cards shown face up at the table.

Verifiable deals: ``proof_for_player`` opens, against the commitment published before the first
card, exactly the cards of the player's filtered view (their own hole cards, the board, the hole
cards of the showdown) and no other: it is built from ``for_player``'s view alone.
"""

from __future__ import annotations

import json
from typing import Any

from feltroom.cards import Card
from feltroom.deal_proof import SCHEME, CommittedDeck, proof_document
from feltroom.room.errors import NotAvailable
from feltroom.room.storage import HandPlayerRow, HandRow, Storage, Transaction

__all__ = ["HandHistories"]


class HandHistories:
    """Read access to stored hands, filtered for whoever asks."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    def hands_of(self, player: str, limit: int = 50, before: int | None = None) -> list[int]:
        """Ids of settled hands the player was dealt into, newest first."""
        with self.storage.transaction(write=False) as tx:
            return tx.hands_of_player(player, limit, before)

    def summaries(self, player: str, hand_ids: list[int]) -> list[dict[str, Any]]:
        """One line per hand of ``hand_ids`` the player was dealt into, in that order: its
        table, currency, start, the player's own hole cards and net result (what the pots paid,
        after tax, less what the player put in), for the history list."""
        with self.storage.transaction(write=False) as tx:
            me = _account_id(tx, player)
            rows = tx.get_hands(hand_ids)
            mine = {p.hand_id: p for p in tx.hand_players_of(hand_ids) if p.account_id == me}
        lines = []
        for hand_id in hand_ids:
            hand, row = rows.get(hand_id), mine.get(hand_id)
            if hand is None or row is None or hand.status != "settled":
                continue
            lines.append(
                {
                    "hand_id": hand_id,
                    "table_id": hand.table_id,
                    "currency": hand.currency,
                    "started_at": hand.started_at,
                    "seat": row.seat,
                    "hole": row.hole or None,
                    "net": row.payout - row.contribution,
                }
            )
        return lines

    def export_for_player(
        self,
        player: str,
        limit: int,
        since: float | None = None,
        until: float | None = None,
    ) -> tuple[list[dict[str, Any]], bool]:
        """The views (``for_player``, R-HIST-1/2) of the player's newest ``limit`` settled hands
        that started at or after ``since`` and before ``until`` (epoch seconds, each optional),
        oldest first; and whether the range holds more hands than were given (older ones)."""
        chosen: list[int] = []
        more = False
        before: int | None = None
        with self.storage.transaction(write=False) as tx:
            while not more:
                ids = tx.hands_of_player(player, 500, before)
                for hand_id in ids:
                    row = tx.get_hand(hand_id)
                    if row is None:
                        continue
                    if until is not None and row.started_at >= until:
                        continue
                    if since is not None and row.started_at < since:
                        ids = []  # hand ids grow with time: every older hand is out too
                        break
                    if len(chosen) == limit:
                        more = True
                        break
                    chosen.append(hand_id)
                if len(ids) < 500:
                    break
                before = ids[-1]
        return [self.for_player(hand_id, player) for hand_id in reversed(chosen)], more

    def for_player(self, hand_id: int, player: str) -> dict[str, Any]:
        """The hand as the account named ``player`` may see it; ``NotAvailable`` unless it was
        dealt in (under whatever name it had then: ``viewer`` is that name)."""
        hand, rows = self._load(hand_id)
        with self.storage.transaction(write=False) as tx:
            me = _account_id(tx, player)
        played = next((row.player for row in rows if row.account_id == me), None)
        if played is None:
            raise NotAvailable(
                f"hand {hand_id} is not available to {player}: a player may request only hands "
                "they were dealt into (R-HIST-1)"
            )
        view = _view(hand, rows, lambda row: row.account_id == me or row.showdown)
        return {**view, "viewer": played}

    def proof_for_player(self, hand_id: int, player: str) -> dict[str, Any]:
        """The proof file of the hand for ``player`` (``feltroom.deal_proof``): every card their
        view of the hand shows (R-HIST-2) opened against the hand's commitment, with its role
        (``hole:<seat>``, ``board``, or ``board2`` for the second run of a board run twice).
        ``NotAvailable`` as ``for_player``, or when the hand was
        dealt before its deck was committed."""
        view = self.for_player(hand_id, player)
        with self.storage.transaction(write=False) as tx:
            deal = tx.get_hand_deal(hand_id)
        if deal is None or deal.scheme != SCHEME:
            raise NotAvailable(
                f"hand {hand_id} has no proof: it was dealt before the room committed to its decks"
            )
        committed = CommittedDeck.from_stored(deal.deck, deal.salts, deal.commitment)
        seen = [
            (text, f"hole:{row['seat']}")
            for row in view["players"]
            if row["hole"] is not None
            for text in row["hole"].split()
        ]
        board = view["record"].get("board", "").split()
        seen += [(text, "board") for text in board]
        # a board run twice (R-HOME-4): the second run's own cards, after those both runs share
        seen += [
            (text, "board2")
            for text in view["record"].get("second_board", "").split()
            if text not in board
        ]
        return proof_document(
            committed,
            hand_id,
            view["table_id"],
            [(committed.position_of(Card.parse(text)), role) for text, role in seen],
        )

    def for_observer(self, hand_id: int) -> dict[str, Any]:
        """The hand as an observer of the table may see it: only cards shown at the table."""
        hand, rows = self._load(hand_id)
        return _view(hand, rows, lambda row: row.shown)

    def _load(self, hand_id: int) -> tuple[HandRow, list[HandPlayerRow]]:
        with self.storage.transaction(write=False) as tx:
            hand = tx.get_hand(hand_id)
            rows = tx.hand_players(hand_id) if hand is not None else []
        if hand is None or hand.status != "settled":
            raise NotAvailable(f"no settled hand {hand_id}")
        return hand, rows


def _account_id(tx: Transaction, player: str) -> int | None:
    """The id of the account named ``player`` (None: no such account, which was dealt into
    nothing)."""
    user = tx.get_user(player)
    return None if user is None else user.account_id


def _view(hand: HandRow, rows: list[HandPlayerRow], reveal: Any) -> dict[str, Any]:
    return {
        "hand_id": hand.hand_id,
        "table_id": hand.table_id,
        "currency": hand.currency,
        "started_at": hand.started_at,
        "finished_at": hand.finished_at,
        "rake": hand.rake,
        "fee": hand.fee,
        "tax": hand.tax,
        "settings": json.loads(hand.settings),
        "record": json.loads(hand.record),
        "players": [
            {
                "player": row.player,
                "seat": row.seat,
                "start_stack": row.start_stack,
                "contribution": row.contribution,
                "payout": row.payout,
                "tax": row.tax,
                "showdown": row.showdown,
                "hole": row.hole if reveal(row) else None,
            }
            for row in sorted(rows, key=lambda row: row.seat)
        ],
    }
