"""What a table's runner may ask of the room (``RoomHost``), what the room's listeners see of a
table (``WatchedTable``) and the listeners' types.

The runners of the room's tables (``cash_table.TableRunner``, ``tournament.TournamentRunner``)
depend on this protocol, never on ``room.RoomRuntime``, which implements it (as a cluster's
worker runtime does, by subclassing it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from feltroom.room.accounts import Accounts
from feltroom.room.cashier import Cashier
from feltroom.room.events import TournamentEvent
from feltroom.room.runtime.settings import Randomness, RuntimeSettings
from feltroom.room.runtime.writer import GroupStorage, Writer
from feltroom.room.settlement import Settlement
from feltroom.room.tournaments_config import TournamentSpec
from feltroom.table import Table

__all__ = ["HostedTournament", "Listener", "RoomHost", "TournamentListener", "WatchedTable"]


class WatchedTable(Protocol):
    """What a listener sees of a table: a cash table's ``TableRunner``, or a tournament's table
    (``TournamentTableRef``)."""

    @property
    def table_id(self) -> str: ...

    @property
    def table(self) -> Table: ...

    @property
    def playing(self) -> int | None: ...

    @property
    def last_hand_id(self) -> int | None: ...

    def check_turn(self, turn_id: int | None) -> None: ...


Listener = Callable[[WatchedTable, Sequence[object]], None]
"""``listener(runner, events)``: a batch of events of ``runner``'s table (``TableEvent`` and
``RoomEvent`` values), in the order they happened."""

TournamentListener = Callable[[Sequence[TournamentEvent]], None]
"""``listener(events)``: tournament news (``PlayerMoved``, ``TournamentNews``)."""


class HostedTournament(Protocol):
    """What a tournament's runner tells the room of itself and of the room's other instances."""

    @property
    def spec(self) -> TournamentSpec: ...

    @property
    def status(self) -> str: ...


class RoomHost(Protocol):
    """What a table's runner may ask of the room: its settings and chance, its clock, the single
    writer and the services it runs (``books_*``: call them through ``writer`` only), the
    listeners, the house bots' accounts and the room's counters."""

    settings: RuntimeSettings
    randomness: Randomness
    writer: Writer
    books: GroupStorage
    books_settlement: Settlement
    settlement: Settlement
    """The room's own settlement, on the room's storage (the API's threads; a read outside the
    writer: a wallet's balance). ``books_settlement`` is the writer's."""
    accounts: Accounts
    cashier: Cashier
    """The room's own cashier (a wallet's balances)."""
    listeners: list[Listener]
    tournament_listeners: list[TournamentListener]
    stopping: bool
    hands_dealt: int
    hands_settled: int

    @property
    def clock(self) -> Callable[[], float]: ...

    @property
    def tournaments(self) -> Mapping[str, HostedTournament]: ...

    def publish(self, runner: WatchedTable, events: Sequence[object]) -> None: ...

    def publish_tournament(self, events: Sequence[TournamentEvent]) -> None: ...

    def time_settlement(self, seconds: float) -> None: ...

    async def kept_state(self, table_id: str) -> dict[str, Any]: ...

    async def before_deal(self, table_id: str) -> None: ...

    async def tournament_started(self, runner: HostedTournament, now: float) -> None: ...

    def may_run(self, lease_id: str) -> bool:
        """Whether what runs under ``lease_id`` (a tournament) may move now: always in a
        single process; in a cluster's worker, while it can show the lease valid."""
        ...

    # (writer thread)
    def bot_accounts(self, names: Sequence[str]) -> set[str]: ...

    def bot_buy_in(self, table_id: str, account: str, seat: int, amount: int) -> None: ...

    def reset_stack(
        self, table_id: str, account: str, before: int, after: int, bot: bool = False
    ) -> None: ...

    def fund_bot(self, account: str, cost: int) -> None: ...

    def check_may_play(self, player: str, what: str) -> None: ...
