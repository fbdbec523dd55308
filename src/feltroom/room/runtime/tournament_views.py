"""What a tournament shows (R-TOURN-14): its lobby entry, ranks, payouts, where it stands, the
whole tournament and each player's view. ``TournamentViews`` is a read-only part of
``TournamentRunner``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from feltroom.room.runtime.clocked import TournamentTableRef
from feltroom.room.storage import TournamentRow
from feltroom.room.tournaments_config import TournamentSpec
from feltroom.table import Level
from feltroom.tournament import Director, EntryState, TournamentSettings
from feltroom.tournament.payouts import payout_table, prize_pool

__all__ = ["TournamentViews", "blinds"]


def blinds(level: Level) -> list[int]:
    """A level as the lobby gives it: small blind, big blind, ante."""
    return [level.small_blind, level.big_blind, level.ante]


def _rounded(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds, 1)


class TournamentViews:
    """The read-only views of ``TournamentRunner`` (which gives the attributes named here)."""

    tournament_id: str
    spec: TournamentSpec
    row: TournamentRow
    settings: TournamentSettings
    director: Director
    tables: dict[int, TournamentTableRef]
    error: str | None

    if TYPE_CHECKING:  # (TournamentRunner's)

        def waiting(self, now: float) -> dict[str, Any] | None: ...

    def lobby(self, now: float) -> dict[str, Any]:
        """The tournament as the lobby shows it (R-TOURN-14)."""
        director = self.director
        cfg = self.settings
        places = sorted(
            (e for e in director.entries if e.place is not None), key=lambda e: e.place or 0
        )
        in_play = sorted(
            (e for e in director.entries if e.table is not None and not e.out),
            key=lambda e: -e.stack,
        )
        ranks = self.ranks()
        return {
            "id": self.tournament_id,
            "tournament": self.spec.tournament_id,
            "state": director.state,
            "format": cfg.format,
            "game": cfg.game,
            "currency": self.row.currency,
            "buy_in": cfg.buy_in,
            "fee": cfg.fee,
            "starting_stack": cfg.starting_stack,
            "max_entries": cfg.max_entries,
            "entries": director.entry_count,
            "registered": [e.account for e in director.entries if not e.unregistered],
            "start_at": self.row.start_at,
            "prize_pool": director.pool,
            "prizes": list(director.prizes),
            "waiting": self.waiting(now),
            **self.status_fields(now),
            "tables": [
                {
                    "table": number,
                    "table_id": tab.table_id,
                    "in_hand": tab.table.in_hand,
                    "players": [
                        {"seat": seat, "account": p.account, "chips": p.stack}
                        for seat, p in sorted(tab.table.seats.items())
                    ],
                }
                for number, tab in sorted(self.tables.items())
            ],
            "chips": [
                {"account": e.account, "chips": e.stack, "rank": ranks[e.number]} for e in in_play
            ],
            "places": [
                {
                    "place": e.place,
                    "account": e.account,
                    "prize": e.prize,
                    "shared": e.shared,
                    "disqualified": e.disqualified,
                }
                for e in places
            ],
            "error": self.error,
        }

    def ranks(self) -> dict[int, int]:
        """Entry -> rank: in play by chips (equal stacks share a rank), then those out by
        their place (R-TOURN-14)."""
        director = self.director
        playing = [e for e in director.entries if e.table is not None and not e.out]
        stacks = sorted((e.stack for e in playing), reverse=True)
        first: dict[int, int] = {}
        for k, stack in enumerate(stacks, start=1):
            first.setdefault(stack, k)  # 1 + the players with more chips
        ranks = {e.number: first[e.stack] for e in playing}
        for entry in director.entries:
            if entry.place is not None:
                ranks[entry.number] = entry.place
        return ranks

    def payouts(self) -> tuple[list[dict[str, int]], bool]:
        """The prize of each place and whether the table is final (registration closed); while
        registration is open, the table the entries so far would make."""
        director = self.director
        cfg = self.settings
        prizes = director.prizes
        final = bool(prizes) and not director.registration_open
        if not final:
            count = max(1, director.entry_count)
            pool, _ = prize_pool(director.entry_count, cfg.buy_in, cfg.guarantee)
            prizes = payout_table(count, pool, cfg.buy_in, cfg.payouts)
        return [{"place": k, "prize": p} for k, p in enumerate(prizes, start=1)], final

    def _entry(self, entry: EntryState, ranks: dict[int, int]) -> dict[str, Any]:
        if entry.out or entry.place is not None:
            status = "out"
        elif entry.table is not None:
            status = "playing"
        else:
            status = "registered"
        return {
            "entry": entry.number,
            "account": entry.account,
            "status": status,
            "chips": entry.stack,
            "rank": ranks.get(entry.number),
            "table": entry.table,
            "seat": entry.seat,
            "place": entry.place,
            "prize": entry.prize,
        }

    def status_fields(self, now: float) -> dict[str, Any]:
        """Where the tournament stands: the level and the next, the clock, players left, the
        average stack, places paid, the break and hand-for-hand (R-TOURN-14)."""
        director = self.director
        schedule = self.settings.blind_schedule
        number = max(1, director.level_number)
        left = director.remaining
        chips = sum(director.stacks().values())
        ends = director.break_ends
        payouts, _ = self.payouts()
        return {
            "state": director.state,
            "level": director.level_number,
            "blinds": blinds(schedule.level(number)),
            "next_blinds": blinds(schedule.level(number + 1)),
            "next_level_in": _rounded(director.next_level_in(now)),
            "players_left": left,
            "average_stack": chips // left if left else 0,
            "places_paid": len(payouts),
            "on_break": ends is not None,
            "break_ends_in": None if ends is None else _rounded(max(0.0, ends - now)),
            "hand_for_hand": director.hand_for_hand,
        }

    def detail(self, now: float) -> dict[str, Any]:
        """The whole tournament (``GET /api/tournaments/{id}``): the lobby entry with its
        structure, the payout table, every entry with chips and rank (R-TOURN-14)."""
        cfg = self.settings
        schedule = cfg.blind_schedule
        policy = cfg.break_policy
        payouts, final = self.payouts()
        ranks = self.ranks()
        shown = max(len(schedule.levels), self.director.level_number + 1)
        return {
            **self.lobby(now),
            "structure": {
                "schedule": cfg.schedule,
                "level_minutes": schedule.level_minutes,
                "levels": [
                    {"level": k, "blinds": blinds(schedule.level(k))} for k in range(1, shown + 1)
                ],
                "seats_per_table": cfg.seats_per_table,
                "min_players": cfg.min_players,
                "late_registration_levels": cfg.late_registration_levels,
                "re_entries": cfg.re_entries,
                "guarantee": cfg.guarantee,
                "breaks": None
                if policy is None
                else {"at_minute": policy.at_minute, "minutes": policy.minutes},
            },
            "payouts": payouts,
            "payouts_final": final,
            "players": [
                self._entry(e, ranks)
                for e in sorted(
                    (e for e in self.director.entries if not e.unregistered),
                    key=lambda e: (ranks.get(e.number, 10**9), e.number),
                )
            ],
        }

    def player_view(self, account: str, now: float) -> dict[str, Any] | None:
        """What one player sees of the tournament (the protocol's ``tournament`` message):
        where it stands and their entry (chips, rank, table, place and prize), or ``None``
        when the account has no entry."""
        return self.player_views([account], now).get(account)

    def player_views(self, accounts: Sequence[str], now: float) -> dict[str, dict[str, Any]]:
        """``player_view`` of each of ``accounts`` that has an entry (the standing and the
        ranks worked out once for all)."""
        latest: dict[str, EntryState] = {}
        for entry in self.director.entries:
            if not entry.unregistered:
                latest[entry.account] = entry
        wanted = [a for a in accounts if a in latest]
        if not wanted:
            return {}
        standing = {
            "tournament": self.tournament_id,
            **self.status_fields(now),
            "entries": self.director.entry_count,
        }
        ranks = self.ranks()
        views = {}
        for account in wanted:
            entry = latest[account]
            table = None if entry.table is None else self.tables.get(entry.table)
            views[account] = {
                **standing,
                "you": self._entry(entry, ranks),
                "table_id": None if table is None else table.table_id,
            }
        return views
