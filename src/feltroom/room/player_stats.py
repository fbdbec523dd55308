"""Players' statistics and their own settings (issue 21; docs/web.md, "Statistics").

``PlayerStatistics`` reads a player's settled hands over a period through the storage protocols,
replays them (``feltroom.integrity.played``) and counts the figures of
``feltroom.integrity.player_stats``; it also sums the player's results per currency. The
newest ``max_hands`` hands of the period are read at most (``limited`` says when older ones were
left out). A player's settings are off until they turn them on: ``share_stats`` (others may read
their statistics) and ``findable`` (others may find the tables they sit at).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from feltroom.errors import FeltroomError
from feltroom.integrity import StatsTally, played
from feltroom.money import Currency, format_units
from feltroom.room.errors import NotAvailable
from feltroom.room.integrity import stored_of
from feltroom.room.storage import HandPlayerRow, HandRow, PlayerSettingsRow, Storage

__all__ = ["SETTINGS", "PlayerStatistics"]

SETTINGS = ("share_stats", "findable")
"""The names of a player's own settings, each a boolean, default false."""
_PAGE = 500
_TURN = 0.001  # seconds of replay between two turns of the interpreter's lock to other threads


class PlayerStatistics:
    """Statistics and settings of the room's players, read from ``storage``."""

    def __init__(self, storage: Storage, max_hands: int = 5000) -> None:
        if max_hands < 1:
            raise ValueError(f"max_hands must be 1 or more, not {max_hands}")
        self.storage = storage
        self.max_hands = max_hands

    # -- settings

    def settings(self, player: str) -> dict[str, Any]:
        """``{"player", "share_stats", "findable"}``."""
        return _settings_view(self._settings_row(player))

    def update_settings(self, player: str, changes: dict[str, bool]) -> dict[str, Any]:
        """Set some of the player's settings (names of ``SETTINGS``); returns them all."""
        unknown = sorted(set(changes) - set(SETTINGS))
        if unknown:
            raise ValueError(
                f"unknown setting {unknown[0]!r}; the settings are {', '.join(SETTINGS)}"
            )
        with self.storage.transaction() as tx:
            row = tx.get_player_settings([player]).get(player) or PlayerSettingsRow(player)
            row = PlayerSettingsRow(
                player,
                changes.get("share_stats", row.share_stats),
                changes.get("findable", row.findable),
            )
            tx.put_player_settings(row)
        return _settings_view(row)

    def sharing(self, players: Sequence[str], setting: str = "share_stats") -> set[str]:
        """Those of ``players`` who turned ``setting`` on."""
        with self.storage.transaction(write=False) as tx:
            rows = tx.get_player_settings(list(players))
        return {name for name, row in rows.items() if getattr(row, setting)}

    def canonical(self, name: str) -> str:
        """The account's name as signed up (names are one whatever their letter case);
        ``NotAvailable`` when there is no such player."""
        with self.storage.transaction(write=False) as tx:
            user = tx.get_user(name, nocase=True)
        if user is None:
            raise NotAvailable(f"there is no player named {name!r}")
        return user.name

    def signed_in_at(self, token_hash: str) -> float | None:
        """When the session of ``token_hash`` began (its sign-in), or ``None``."""
        with self.storage.transaction(write=False) as tx:
            row = tx.get_session(token_hash)
        return None if row is None else row.created_at

    def _settings_row(self, player: str) -> PlayerSettingsRow:
        with self.storage.transaction(write=False) as tx:
            return tx.get_player_settings([player]).get(player) or PlayerSettingsRow(player)

    # -- statistics

    def stats(
        self, player: str, since: float | None = None, until: float | None = None
    ) -> dict[str, Any]:
        """The player's figures over hands started in ``[since, until)`` (epoch seconds, each
        optional) and their results per currency: ``{"player", "since", "until", "hands",
        "vpip", "pfr", "af", "wtsd", "counts", "results", "limited", "unreadable"}``."""
        ids, limited = self._hands(player, since, until)
        me = self._account_id(player)
        tally = StatsTally(player)
        unreadable: list[int] = []
        totals: dict[str, dict[str, Any]] = {}
        turn = time.perf_counter() + _TURN
        # A page of hands at a time: what one call holds in memory stays small (issue 40).
        for start in range(0, len(ids), _PAGE):
            page = ids[start : start + _PAGE]
            with self.storage.transaction(write=False) as tx:
                found = tx.get_hands(page)
                players = tx.hand_players_of(page)
            rows = [found[hand_id] for hand_id in page if hand_id in found]
            mine = [p for p in players if p.account_id == me]
            # Each hand counts under the name the account played it under (it may be renamed).
            played_as = {p.hand_id: p.player for p in mine}
            for stored in stored_of(rows, players):
                tally.account = played_as.get(stored.hand_id, player)
                try:
                    tally.add(played(stored))
                except (FeltroomError, ValueError, KeyError, TypeError, IndexError):
                    unreadable.append(stored.hand_id)
                # The interpreter's lock to the event loop's thread between two hands, every
                # millisecond or so: a long replay must not hold up the room's connections.
                if time.perf_counter() >= turn:
                    time.sleep(0)
                    turn = time.perf_counter() + _TURN
            _add_results(totals, rows, mine)
        return {
            "player": player,
            "since": _iso(since),
            "until": _iso(until),
            **tally.figures(),
            "results": _results(totals),
            "limited": limited,
            "unreadable": unreadable,
        }

    def _account_id(self, player: str) -> int | None:
        with self.storage.transaction(write=False) as tx:
            user = tx.get_user(player)
        return None if user is None else user.account_id

    def _hands(
        self, player: str, since: float | None, until: float | None
    ) -> tuple[list[int], bool]:
        """The ids of the player's settled hands of the period (at most ``max_hands``, the
        newest; oldest first), and whether older hands of the period were left out."""
        chosen: list[int] = []
        before: int | None = None
        limited = False
        with self.storage.transaction(write=False) as tx:
            while True:
                ids = tx.hands_of_player(player, _PAGE, before)
                rows = tx.get_hands(ids)
                done = len(ids) < _PAGE
                for hand_id in ids:
                    row = rows.get(hand_id)
                    if row is None or (until is not None and row.started_at >= until):
                        continue
                    if since is not None and row.started_at < since:
                        done = True  # hand ids grow with time: every older hand is out too
                        break
                    if len(chosen) == self.max_hands:
                        limited = done = True
                        break
                    chosen.append(hand_id)
                if done:
                    break
                before = ids[-1]
        chosen.reverse()
        return chosen, limited


def _settings_view(row: PlayerSettingsRow) -> dict[str, Any]:
    return {"player": row.player, "share_stats": row.share_stats, "findable": row.findable}


def _add_results(
    totals: dict[str, dict[str, Any]], rows: Sequence[HandRow], mine: Sequence[HandPlayerRow]
) -> None:
    """Add the player's hands of ``rows`` to ``totals`` (per currency, see ``_results``)."""
    by_hand = {row.hand_id: row for row in rows}
    for p in mine:
        hand = by_hand[p.hand_id]
        exponent = int(_settings_of(hand).get("exponent") or 0)
        line = totals.setdefault(
            hand.currency,
            {"currency": hand.currency, "exponent": exponent, "hands": 0, "won": 0, "net_units": 0},
        )
        line["hands"] += 1
        line["won"] += p.payout > p.contribution
        line["net_units"] += p.payout - p.contribution


def _results(totals: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Per currency: hands, hands won (paid more than put in), the net result (what the pots
    paid after tax, less what the player put in) in units and as an amount."""
    for line in totals.values():
        line["net"] = format_units(line["net_units"], Currency(line["currency"], line["exponent"]))
    return sorted(totals.values(), key=lambda line: str(line["currency"]))


def _settings_of(hand: HandRow) -> dict[str, Any]:
    value = json.loads(hand.settings)
    return value if isinstance(value, dict) else {}


def _iso(seconds: float | None) -> str | None:
    if seconds is None:
        return None
    return datetime.fromtimestamp(seconds, UTC).isoformat().replace("+00:00", "Z")
