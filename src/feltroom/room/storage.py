"""What the room needs from a store: the rows it keeps and one transaction interface.

The room never imports a store; a store (``feltroom.store``) implements these protocols and the
composition root (the command line, later the server) hands one to the room's services. Every
service call runs inside one ``Storage.transaction()``: all of it is written, or none of it.

Rules a store must keep (the room relies on them):

- ``post_transfer`` applies both sides of a transfer and refuses, with ``InsufficientFunds``, to
  take an account other than an ``external`` one below zero; transfer ids are unique.
- ``add_operation``, ``add_user`` and ``add_session`` raise ``DuplicateKey`` when the key, name or
  token is taken (the unique constraint is the database's, so it holds across processes).
- ``new_hand`` returns an id never returned before, even after a crash or a deletion.
- ``finish_hand`` changes a hand only while it is ``started`` and says whether it did.
- ``lease_for_write`` reads a table's lease row so that no other transaction can change it until
  this one ends (``FOR SHARE`` on PostgreSQL), with the database's clock; ``acquire_lease`` takes
  a free or lapsed lease with the next epoch (docs/cluster.md).
- A write transaction serialises with other writers where the database needs it (SQLite), and
  ``get_user(lock=True)`` locks the row until the end of the transaction (PostgreSQL).
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Protocol

from feltroom.room.ledger import Transfer

__all__ = [
    "AccountRow",
    "HandDealRow",
    "HandPlayerRow",
    "HandRow",
    "HomeGameRow",
    "JournalRow",
    "LeaseRow",
    "LimitRow",
    "OperationRow",
    "OperatorEntryRow",
    "PlayerSettingsRow",
    "ProtectionRow",
    "SeatRow",
    "SessionRow",
    "SignInRow",
    "Storage",
    "TableRow",
    "TournamentRow",
    "Transaction",
    "UserRow",
]


@dataclass(frozen=True, slots=True)
class AccountRow:
    """A ledger account and its running balance (units)."""

    key: str
    kind: str
    currency: str
    owner: str
    balance: int


@dataclass(frozen=True, slots=True)
class OperationRow:
    """A completed idempotent operation: its details and its result, both JSON text."""

    operation: str
    key: str
    details: str
    result: str


@dataclass(frozen=True, slots=True)
class UserRow:
    """A player account: name, Argon2id hash, when protections were last reset (epoch seconds);
    ``bot`` marks a house bot (an account the room plays itself); ``operator`` an account that
    may use the operator API, from ``operator_addresses`` only when that (comma-separated) list
    is not empty; ``suspended`` an account that cannot sign in; ``verified`` an account whose
    holder the operator verified (real-money play needs it, docs/operator.md); ``account_id``
    the account's stable id (issued by the store on ``add_user``; the books and the hand
    records name the account by it, so that a rename keeps them)."""

    name: str
    password_hash: str
    created_at: float
    protections_reset_at: float
    bot: bool = False
    operator: bool = False
    suspended: bool = False
    operator_addresses: str = ""
    verified: bool = False
    account_id: int = 0


@dataclass(frozen=True, slots=True)
class ProtectionRow:
    """A player's own protection (issue 25), kept under the account's name in lower case apart
    from the account, so that removing the account lifts nothing: the session-time reminder
    (minutes, 0: none), a cool-off and a self-exclusion until a time (epoch seconds)."""

    name: str
    reminder_minutes: int = 0
    cool_off_until: float | None = None
    excluded_until: float | None = None
    excluded_permanently: bool = False


@dataclass(frozen=True, slots=True)
class LimitRow:
    """A deposit or loss limit (``kind``) of a player in one currency per ``period`` (``day``,
    ``week``, ``month``): ``amount`` in force (units; None: none), and a raise waiting until
    ``pending_at`` (``pending`` None then: the limit goes)."""

    name: str
    currency: str
    kind: str
    period: str
    amount: int | None
    pending: int | None = None
    pending_at: float | None = None


@dataclass(frozen=True, slots=True)
class OperatorEntryRow:
    """One entry of the operator log: who (``operator``) did what (``action``) to what
    (``target``: an account, a table, ``room``), when (epoch seconds), why (``reason``), with
    ``details`` (JSON text: what the action found and did). ``entry_id`` is 0 until stored."""

    entry_id: int
    at: float
    operator: str
    action: str
    target: str
    reason: str
    details: str


@dataclass(frozen=True, slots=True)
class PlayerSettingsRow:
    """A player's own settings, default off: ``share_stats`` lets other players read their
    statistics; ``findable`` lets other players find the tables they sit at."""

    player: str
    share_stats: bool = False
    findable: bool = False


@dataclass(frozen=True, slots=True)
class SessionRow:
    """A session: only the SHA-256 of its token is stored."""

    token_hash: str
    user: str
    created_at: float
    expires_at: float


@dataclass(frozen=True, slots=True)
class SignInRow:
    """One sign-in: the account, the client's address and user agent, the time (epoch
    seconds). Kept for the integrity report for a set retention (``feltroom.room.signins``)."""

    account: str
    address: str
    user_agent: str
    at: float


@dataclass(frozen=True, slots=True)
class TableRow:
    """A table known to the ledger: its escrow plays one currency."""

    table_id: str
    currency: str


@dataclass(frozen=True, slots=True)
class SeatRow:
    """A player's stack at a table, as of the last settlement or seat change."""

    table_id: str
    player: str
    seat: int
    stack: int


@dataclass(frozen=True, slots=True)
class TournamentRow:
    """A tournament instance (docs/tournaments.md): its configured tournament (``spec_id``),
    its instance ``number``, its settings (JSON text), the seed of its director's draws, its
    scheduled start, its status (``registering``, ``running``, ``finished``, ``cancelled``) and
    the last time the room that runs it was seen alive (``seen_at``)."""

    tournament_id: str
    spec_id: str
    number: int
    currency: str
    settings: str
    seed: str
    start_at: float | None
    status: str
    created_at: float
    seen_at: float


@dataclass(frozen=True, slots=True)
class JournalRow:
    """One input of a tournament's director, in order (``seq`` from 1); ``payload`` is JSON."""

    tournament_id: str
    seq: int
    at: float
    kind: str
    payload: str


@dataclass(frozen=True, slots=True)
class HandRow:
    """A hand: ``status`` is ``started``, ``settled`` or ``void``; ``settings`` and ``record``
    are JSON text (the table settings the hand was played under, and its public record)."""

    hand_id: int
    table_id: str
    currency: str
    status: str
    started_at: float
    finished_at: float | None
    rake: int
    fee: int
    tax: int
    settings: str
    record: str


@dataclass(frozen=True, slots=True)
class HandPlayerRow:
    """One player dealt into a hand: the full truth, filtered on read (R-HIST-2).

    ``hole`` is the hole cards as text ("As Kd"); ``showdown``: stayed to the showdown (cards are
    revealed to the players of the hand even if mucked); ``shown``: the cards were shown face up
    at the table (observers see them). ``payout`` is what the player was paid, after tax.
    ``player`` is the name the account had when the hand was played (what the hand's history
    shows); ``account_id`` the account (the store fills it in from the name when 0).
    """

    hand_id: int
    player: str
    seat: int
    start_stack: int
    contribution: int
    payout: int
    tax: int
    hole: str
    showdown: bool
    shown: bool
    account_id: int = 0


@dataclass(frozen=True, slots=True)
class HandDealRow:
    """A settled hand's committed deck (verifiable deals, ``feltroom.deal_proof``): the scheme,
    the commitment published before the first card, the deck in dealing order as card text
    ("As Kd ...") and the 52 salts as hex. Secret: read only to build a player's proof."""

    hand_id: int
    scheme: str
    commitment: str
    deck: str
    salts: str


@dataclass(frozen=True, slots=True)
class LeaseRow:
    """A table's lease (docs/cluster.md): the worker that owns it, the fencing ``epoch`` (one
    more for each new owner) and when the lease lapses (the database's clock, epoch seconds)."""

    table_id: str
    owner: str
    epoch: int
    expires_at: float


@dataclass(frozen=True, slots=True)
class HomeGameRow:
    """A home game (issue 45): its host, its invite link's secret, its status, when it was
    created and ended, and the rest of it as JSON (``feltroom.room.runtime.home_games``)."""

    game_id: str
    host: str
    secret: str
    status: str
    created_at: float
    ended_at: float | None
    state: str


class Transaction(Protocol):
    """One database transaction; every method reads or writes inside it."""

    def savepoint(self) -> AbstractContextManager[object]:
        """A nested transaction: if the block raises, only its own writes are undone."""
        ...

    # -- home games (issue 45)
    def put_home_game(self, row: HomeGameRow) -> None:
        """Store the game (a new one, or its new state)."""
        ...

    def home_games(
        self, *, game_id: str | None = None, secret: str | None = None, host: str | None = None
    ) -> list[HomeGameRow]:
        """Every home game, oldest first (or those with this id, secret or host)."""
        ...

    def home_game_count(self) -> int: ...
    def issued_chips(self, code: str, external: str) -> list[tuple[str, str, str, int]]:
        """(debit, credit, reference, amount) of every transfer in ``code`` out of or into
        ``external``."""
        ...

    def account_flows(self, code: str, keys: Sequence[str]) -> list[tuple[str, str, str, int, str]]:
        """(debit, credit, reference, amount, kind) of every transfer in ``code`` out of or
        into any of the accounts ``keys``."""
        ...

    def raked_contributions(self, table_id: str) -> list[tuple[int, int, int, int, int]]:
        """(hand id, its rake, account id, seat, contribution) of every player of each settled
        hand with a rake at the table, by hand then seat."""
        ...

    # -- ledger accounts and transfers
    def get_account(self, key: str) -> AccountRow | None: ...
    def create_account(self, key: str, kind: str, currency: str, owner: str) -> AccountRow:
        """Create the account, or return it if it exists."""
        ...

    def accounts_of(self, owner: str) -> list[AccountRow]: ...
    def post_transfer(self, transfer: Transfer) -> None: ...
    def post_transfers(self, transfers: Sequence[Transfer]) -> None:
        """Several transfers at once (a group commit's): the same rules as ``post_transfer``,
        checked on each account's total."""
        ...

    # -- idempotent operations
    def get_operation(self, operation: str, key: str) -> OperationRow | None: ...
    def add_operation(self, row: OperationRow) -> None: ...

    # -- players, sessions, protections (R-TIME-3)
    def get_user(self, name: str, *, lock: bool = False, nocase: bool = False) -> UserRow | None:
        """The account named ``name``; with ``nocase``, the one whose name is ``name`` in any
        letter case (names are unique regardless of case)."""

    def add_user(self, row: UserRow) -> None: ...
    def set_password_hash(self, name: str, password_hash: str) -> None: ...
    def add_session(self, row: SessionRow) -> None: ...
    def get_player_settings(self, players: Sequence[str]) -> dict[str, PlayerSettingsRow]:
        """The settings of those of ``players`` who saved any (the others have the defaults)."""
        ...

    def put_player_settings(self, row: PlayerSettingsRow) -> None: ...
    def get_session(self, token_hash: str) -> SessionRow | None: ...
    def delete_session(self, token_hash: str) -> None: ...
    def delete_expired_sessions(self, now: float) -> int: ...
    def count_protections(self, user: str, since: float) -> int: ...
    def add_protection(self, user: str, at: float, table_id: str, hand_id: int | None) -> None: ...
    def set_protections_reset(self, user: str, at: float) -> None: ...

    # -- tables and seats
    def get_table(self, table_id: str) -> TableRow | None: ...
    def add_table(self, row: TableRow) -> None: ...
    def get_seat(self, table_id: str, player: str) -> SeatRow | None: ...
    def put_seat(self, row: SeatRow) -> None: ...
    def delete_seat(self, table_id: str, player: str) -> None: ...
    def seats_at(self, table_id: str) -> list[SeatRow]: ...
    def seats_at_tables(self, table_ids: Sequence[str]) -> list[SeatRow]: ...
    def seats_of_player(self, player: str) -> list[SeatRow]:
        """Every seat ``player`` holds, at any table (by the ``ix_seats_player`` index)."""
        ...

    def update_seats(self, rows: Sequence[SeatRow]) -> None:
        """Change the seat and stack of seats that exist (one statement for many)."""
        ...

    # -- hands
    def new_hand(self, table_id: str, currency: str, started_at: float) -> int: ...
    def new_hands(self, tables: Sequence[tuple[str, str]], started_at: float) -> list[int]:
        """``new_hand`` for each (table id, currency), in order."""
        ...

    def get_hand(self, hand_id: int) -> HandRow | None: ...
    def get_hands(self, hand_ids: Sequence[int]) -> dict[int, HandRow]: ...
    def finish_hand(
        self,
        hand_id: int,
        status: str,
        finished_at: float,
        rake: int,
        fee: int,
        tax: int,
        settings: str,
        record: str,
    ) -> bool: ...
    def finish_hands(self, rows: Sequence[tuple[int, str, float, int, int, int, str, str]]) -> int:
        """``finish_hand`` for each (hand id, status, finished_at, rake, fee, tax, settings,
        record); returns how many hands changed."""
        ...

    def discard_hand(self, hand_id: int) -> bool:
        """Delete a hand that was never dealt (still started, with no players and no deal);
        its id is never given out again. False (nothing changed) for any other hand."""
        ...

    def add_hand_players(self, rows: Sequence[HandPlayerRow]) -> None: ...
    def add_hand_deals(self, rows: Sequence[HandDealRow]) -> None:
        """Keep the committed decks of hands (one row per hand, at settlement)."""
        ...

    def get_hand_deal(self, hand_id: int) -> HandDealRow | None: ...
    def hand_players(self, hand_id: int) -> list[HandPlayerRow]: ...
    def hands_of_player(self, player: str, limit: int, before: int | None) -> list[int]: ...
    def unsettled_hands(self, table_id: str | None) -> list[int]: ...

    # -- the sign-in log and the integrity report's reads
    def add_sign_in(self, row: SignInRow) -> None: ...
    def sign_ins(self, since: float) -> list[SignInRow]:
        """Sign-ins at or after ``since``, oldest first."""
        ...

    def delete_sign_ins_before(self, before: float) -> int:
        """Delete the sign-ins older than ``before``; returns how many."""
        ...

    def settled_hands(self, since: float, after: int, limit: int) -> list[HandRow]:
        """Up to ``limit`` settled hands started at or after ``since`` with ids above
        ``after``, by id (a page of the integrity report's read)."""
        ...

    def hand_players_of(self, hand_ids: Sequence[int]) -> list[HandPlayerRow]:
        """The players of each of ``hand_ids``, by hand id and seat."""
        ...

    # -- table leases (a cluster's workers; docs/cluster.md)
    def database_time(self) -> float:
        """The database's clock, epoch seconds (the one clock all hosts share)."""
        ...

    def limit_statements(self, seconds: float) -> None:
        """Cut off each of this transaction's later statements after ``seconds`` (PostgreSQL's
        ``statement_timeout``; SQLite has none): a lease's renewal and a fenced write fail
        rather than hang past half the lease."""
        ...

    def lease_for_write(self, table_id: str) -> tuple[LeaseRow | None, float]:
        """The table's lease, locked against changes until the transaction ends, and the
        database's clock as it was read (one statement: a fenced write's check)."""
        ...

    def leases_for_write(self, table_ids: list[str]) -> tuple[dict[str, LeaseRow], float]:
        """``lease_for_write`` for several tables in one statement: the leases found, by table
        id (locked in the order of their ids), and the database's clock."""
        ...

    def acquire_lease(self, table_id: str, owner: str, seconds: float) -> LeaseRow | None:
        """Take the table's lease for ``seconds`` if it is free or lapsed, with the next epoch;
        ``None`` while another owner's lease runs."""
        ...

    def renew_lease(self, table_id: str, owner: str, epoch: int, seconds: float) -> bool:
        """Extend a running lease held by ``owner`` at ``epoch``; False if it lapsed or moved."""
        ...

    def renew_leases(
        self, owner: str, held: list[tuple[str, int]], seconds: float
    ) -> dict[str, bool]:
        """``renew_lease`` for many (table, epoch) pairs at once, without waiting for a row
        another transaction holds locked (renewed next time); returns the tables still held,
        each with whether it was renewed now (not: its row was locked)."""
        ...

    def release_lease(self, table_id: str, owner: str, epoch: int) -> bool:
        """Let the lease lapse now (a worker giving a table up between hands)."""
        ...

    def all_leases(self) -> list[LeaseRow]: ...
    def put_table_definition(self, table_id: str, definition: str) -> None:
        """Add or replace a table's definition (a tables file's entry, as JSON text)."""
        ...

    def table_definitions(self) -> dict[str, str]: ...
    def add_table_definition(self, table_id: str, definition: str) -> bool:
        """Add a table's definition unless one exists; returns whether it was added."""
        ...

    def table_statuses(self) -> dict[str, str]:
        """Each defined table's status: ``open``, ``closed`` or ``retired``."""
        ...

    def set_table_status(self, table_id: str, status: str) -> bool:
        """Set a defined table's status; False if the table has no definition."""
        ...

    # -- operators (issue 23)
    def set_operator(self, name: str, operator: bool, addresses: str) -> None: ...
    def set_suspended(self, name: str, suspended: bool) -> None: ...
    def delete_sessions_of(self, user: str) -> int:
        """End every session of ``user``; returns how many."""
        ...

    def seats_of(self, player: str) -> list[str]:
        """The tables where ``player`` holds a cash seat in the books."""
        ...

    def rename_user(self, name: str, new_name: str) -> None:
        """Rename the account ``name``: its id stays, and every row that names it (sessions,
        protections, seats, sign-ins, settings) follows it; its books (keyed by the id) and its
        hand records (the id beside the name it played under) need no change."""
        ...

    def remove_user(self, name: str, at: float) -> None:
        """Remove the account ``name``: its id is marked removed at ``at`` (and never issued
        again); the rows that name it go. The books and hand records under the id stay."""
        ...

    def add_operator_entry(self, row: OperatorEntryRow) -> int:
        """Store an entry of the operator log; returns its id (never reused)."""
        ...

    def operator_entries(self, since: float, limit: int) -> list[OperatorEntryRow]:
        """The newest ``limit`` entries at or after ``since``, oldest first."""
        ...

    def operator_entry_ids(self) -> set[int]: ...
    def operator_transfers(self) -> list[tuple[str, str]]:
        """(transfer id, reference) of every transfer whose reference names an operator log
        entry (``...:operator:<id>``)."""
        ...

    # -- tournaments (docs/tournaments.md)
    def add_tournament(self, row: TournamentRow) -> None:
        """A new instance (``DuplicateKey`` if the id is taken)."""
        ...

    def get_tournament(self, tournament_id: str, *, lock: bool = False) -> TournamentRow | None: ...

    def tournaments(self, statuses: Sequence[str] | None = None) -> list[TournamentRow]:
        """Every instance (with one of ``statuses``), by creation."""
        ...

    def set_tournament(
        self, tournament_id: str, *, status: str | None = None, seen_at: float | None = None
    ) -> None: ...
    def append_journal(self, row: JournalRow) -> None:
        """Add one input (``DuplicateKey`` if ``seq`` is taken: someone else wrote first)."""
        ...

    def journal(self, tournament_id: str) -> list[JournalRow]:
        """The instance's inputs in order."""
        ...

    def last_journal_seq(self, tournament_id: str) -> int:
        """The ``seq`` of the instance's last input (0 for none)."""
        ...

    def prizepool_flows(self) -> list[tuple[str, str, str, int]]:
        """(prize pool account, transfer kind, ``in`` or ``out``, total) for every prize pool."""
        ...

    # -- the cluster's shared state: the gateways' throttles, the tables' states
    def add_failure(self, scope: str, key: str, at: float) -> None:
        """Count a failure (a sign-in, a sign-up) of ``key`` in ``scope`` at ``at``."""
        ...

    def failure_times(self, scope: str, key: str, since: float) -> list[float]:
        """The times of the failures of ``key`` in ``scope`` after ``since``, oldest first."""
        ...

    def delete_failure(self, scope: str, key: str, at: float) -> None:
        """Take back one failure counted at ``at``."""
        ...

    def clear_failures(self, scope: str, key: str) -> None: ...
    def delete_failures_before(self, scope: str, before: float) -> int: ...
    def table_state(self, table_id: str) -> str | None:
        """What the table's owner keeps beyond the books (JSON), if anything."""
        ...

    def put_table_states(self, states: dict[str, str]) -> None:
        """Store tables' states (JSON, by table id), each replacing the table's last one, in
        one statement."""
        ...

    # -- player protection (issue 25)
    def set_verified(self, name: str, verified: bool) -> None: ...
    def room_secret(self, name: str, new: str) -> str:
        """The room's secret ``name``; stored as ``new`` first when the room has none yet
        (whoever stores it first, every caller gets the same)."""
        ...

    def add_identity(self, identity: str, name: str, at: float) -> None:
        """Link a verified identity's keyed hash to the account ``name`` (kept in lower
        case)."""
        ...

    def names_of_identity(self, identity: str) -> list[str]:
        """The names (lower case) the identity's keyed hash was verified for."""
        ...

    def get_protection(self, name: str) -> ProtectionRow | None:
        """The protection kept under ``name`` in any letter case."""
        ...

    def put_protection(self, row: ProtectionRow) -> None:
        """Add or replace the protection of ``row.name`` (stored in lower case)."""
        ...

    def limits_of(self, name: str) -> list[LimitRow]:
        """The limits of ``name`` (any letter case), by currency, kind and period."""
        ...

    def put_limit(self, row: LimitRow) -> None:
        """Add or replace a limit (a row with neither an amount nor a raise is deleted)."""
        ...

    def wallet_flows(self, wallet: str, since: float) -> dict[tuple[str, str], int]:
        """The units that left (``"out"``) and entered (``"in"``) the account ``wallet`` at
        or after ``since``, summed per (transfer kind, direction)."""
        ...

    # -- the audit's reads
    def all_accounts(self) -> list[AccountRow]: ...
    def derived_balances(self) -> dict[str, int]:
        """Credits minus debits per account key, from the transfers alone."""
        ...

    def transfers_between_currencies(self) -> list[tuple[str, str, str, str]]:
        """Transfers whose currency differs from one of their accounts', or that name an account
        that does not exist: (transfer id, currency, debit currency, credit currency)."""
        ...

    def bad_amounts(self) -> list[tuple[str, int]]:
        """Transfers whose amount is not positive: (transfer id, amount)."""
        ...

    def duplicate_transfer_ids(self) -> list[tuple[str, int]]:
        """Transfer ids that occur more than once, with their counts."""
        ...

    def hand_imbalances(self) -> list[tuple[int, int, int]]:
        """Settled hands whose contributions differ from payouts + rake + fees + tax:
        (hand id, contributions, payouts + rake + fee + tax)."""
        ...

    def settled_hand_count(self) -> int: ...
    def all_tables(self) -> list[TableRow]: ...
    def stack_totals(self) -> dict[str, int]:
        """The sum of the stored stacks per table id."""
        ...


class Storage(Protocol):
    """A database the room keeps its books in."""

    def transaction(self, *, write: bool = True) -> AbstractContextManager[Transaction]:
        """A transaction: committed when the block ends normally, rolled back on an exception.
        ``write=False`` promises only reads and gives a consistent snapshot."""
        ...

    def close(self) -> None: ...
