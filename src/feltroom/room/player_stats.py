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
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from feltroom.errors import FeltroomError
from feltroom.integrity import StatsTally, played
from feltroom.money import Currency, format_units
from feltroom.room.errors import NotAvailable
from feltroom.room.integrity import stored_of
from feltroom.room.storage import HandRow, PlayerSettingsRow, Storage

__all__ = ["SETTINGS", "PlayerStatistics"]

SETTINGS = ("share_stats", "findable")
"""The names of a player's own settings, each a boolean, default false."""
_PAGE = 500
_TURN = 0.001  # seconds of replay between two turns of the interpreter's lock to other threads
_COUNTS = ("hands", "vpip", "pfr", "bets", "raises", "calls", "saw_flop", "showdowns")


class PlayerStatistics:
    """Statistics and settings of the room's players, read from ``storage``."""

    def __init__(self, storage: Storage, max_hands: int = 5000, max_kept: int = 50_000) -> None:
        if max_hands < 1:
            raise ValueError(f"max_hands must be 1 or more, not {max_hands}")
        self.storage = storage
        self.max_hands = max_hands
        self.max_kept = max_kept
        # (hand id, account id) -> that hand's share of the account's figures
        self._kept: OrderedDict[tuple[int, int | None], Any] = OrderedDict()
        self._lock = threading.Lock()

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
        for start in range(0, len(ids), _PAGE):
            page = ids[start : start + _PAGE]
            kept = self._kept_figures(page, me, player)
            for hand_id in page:
                figures = kept.get(hand_id)
                if figures is None:
                    continue
                counts, result = figures
                if counts is None:
                    unreadable.append(hand_id)
                else:
                    for name, value in zip(_COUNTS, counts, strict=True):
                        setattr(tally, name, getattr(tally, name) + value)
                if result is not None:
                    code, exponent, net = result
                    line = totals.setdefault(
                        code,
                        {
                            "currency": code,
                            "exponent": exponent,
                            "hands": 0,
                            "won": 0,
                            "net_units": 0,
                        },
                    )
                    line["hands"] += 1
                    line["won"] += net > 0
                    line["net_units"] += net
        return {
            "player": player,
            "since": _iso(since),
            "until": _iso(until),
            **tally.figures(),
            "results": _results(totals),
            "limited": limited,
            "unreadable": unreadable,
        }

    def _kept_figures(self, page: Sequence[int], me: int | None, player: str) -> dict[int, Any]:
        """Each hand's share of the figures of the account ``me`` (a settled hand never
        changes: each is counted once, then kept, ``max_kept`` at the most, so that asking again,
        for any period, replays nothing). A hand is replayed a page at a time, giving the
        interpreter's lock up every millisecond or so: a long replay must not hold up the
        room's connections."""
        with self._lock:
            kept = {h: self._kept.get((h, me)) for h in page}
        missing = [h for h, figures in kept.items() if figures is None]
        if not missing:
            return kept
        with self.storage.transaction(write=False) as tx:
            found = tx.get_hands(missing)
            players = tx.hand_players_of(missing)
        rows = [found[hand_id] for hand_id in missing if hand_id in found]
        # Each hand counts under the name the account played it under (it may be renamed).
        mine = {p.hand_id: p for p in players if p.account_id == me}
        new: dict[int, Any] = {}
        turn = time.perf_counter() + _TURN
        for stored, row in zip(stored_of(rows, players), rows, strict=True):
            seat = mine.get(stored.hand_id)
            result = None
            if seat is not None:
                exponent = int(_settings_of(row).get("exponent") or 0)
                result = (row.currency, exponent, seat.payout - seat.contribution)
            tally = StatsTally(seat.player if seat is not None else player)
            counts: tuple[int, ...] | None
            try:
                tally.add(played(stored))
                counts = tuple(getattr(tally, name) for name in _COUNTS)
            except (FeltroomError, ValueError, KeyError, TypeError, IndexError):
                counts = None  # unreadable (and so it stays: a settled hand never changes)
            new[stored.hand_id] = (counts, result)
            if time.perf_counter() >= turn:
                time.sleep(0)
                turn = time.perf_counter() + _TURN
        with self._lock:
            for hand_id, figures in new.items():
                self._kept[(hand_id, me)] = figures
            while len(self._kept) > self.max_kept:
                self._kept.popitem(last=False)
        kept.update(new)
        return kept

    def _account_id(self, player: str) -> int | None:
        with self.storage.transaction(write=False) as tx:
            user = tx.get_user(player)
        return None if user is None else user.account_id

    def latest_hand(self, player: str) -> int | None:
        """The id of the player's newest settled hand (None before their first): what makes a
        kept answer of their figures current."""
        with self.storage.transaction(write=False) as tx:
            ids = tx.hands_of_player(player, 1, None)
        return ids[0] if ids else None

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
