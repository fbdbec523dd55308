"""The room's storage on SQLAlchemy 2: SQLite by default, PostgreSQL by URL.

SQLite runs in WAL mode with ``synchronous=FULL`` (a committed settlement survives a power cut),
a busy timeout (so the cashier and the audit can run beside the server) and foreign keys on; all
set on every new connection. Write transactions start with ``BEGIN IMMEDIATE``: writers queue for
the lock up front instead of failing when a reader tries to upgrade. PostgreSQL read transactions
run at REPEATABLE READ, so the audit reads one snapshot.

Opening a database upgrades it to the newest Alembic revision shipped in ``migrations``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import (
    Connection,
    Engine,
    bindparam,
    create_engine,
    delete,
    event,
    exists,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError

from feltroom.room.errors import CurrencyMismatch, DuplicateKey, InsufficientFunds, UnknownAccount
from feltroom.room.ledger import Transfer
from feltroom.room.storage import (
    AccountRow,
    HandDealRow,
    HandPlayerRow,
    HandRow,
    OperationRow,
    SeatRow,
    SessionRow,
    SignInRow,
    TableRow,
    UserRow,
)
from feltroom.store.cluster_state import ClusterStateQueries
from feltroom.store.home_games import HomeGameQueries
from feltroom.store.leases import LeaseQueries
from feltroom.store.models import (
    account_ids,
    accounts,
    hand_deals,
    hand_players,
    hands,
    operations,
    protections,
    seats,
    sessions,
    sign_ins,
    tables,
    transfers,
    users,
)
from feltroom.store.operators import OperatorQueries
from feltroom.store.player_settings import PlayerSettingsQueries
from feltroom.store.protection import ProtectionQueries
from feltroom.store.tournaments import TournamentQueries

__all__ = ["DEFAULT_URL", "SqlStorage", "SqlTransaction", "downgrade", "migrate"]

DEFAULT_URL = "sqlite:///data/feltroom.sqlite3"
"""The embedded default: an SQLite file in ./data, created on demand."""

MIGRATIONS = Path(__file__).resolve().parent / "migrations"


def _alembic_config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


def migrate(engine: Engine, revision: str = "head") -> None:
    """Upgrade the database to ``revision`` (the newest by default) in one transaction."""
    config = _alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)


def downgrade(engine: Engine, revision: str) -> None:
    """Downgrade the database to ``revision`` (``"base"``: no tables), in one transaction."""
    config = _alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, revision)


class SqlStorage:
    """A ``feltroom.room.storage.Storage`` on an SQLAlchemy engine."""

    def __init__(
        self,
        url: str | None = None,
        *,
        busy_timeout_ms: int = 30_000,
        upgrade: bool = True,
        create: bool = True,
        engine_options: dict[str, Any] | None = None,
    ) -> None:
        parsed = make_url(url or DEFAULT_URL)
        self.url = parsed
        self.is_sqlite = parsed.get_backend_name() == "sqlite"
        options = dict(engine_options or {})
        if self.is_sqlite:
            database = parsed.database or ""
            if database and database != ":memory:" and not database.startswith("file:"):
                if not create and not Path(database).is_file():
                    raise FileNotFoundError(
                        f"there is no SQLite database at {database} (the room creates it when "
                        "it first starts; give the room's --db URL)"
                    )
                Path(database).parent.mkdir(parents=True, exist_ok=True)
            options.setdefault("connect_args", {}).setdefault("timeout", busy_timeout_ms / 1000)
        self.engine = create_engine(parsed, **options)
        if self.is_sqlite:
            _configure_sqlite(self.engine, busy_timeout_ms)
        if upgrade:
            migrate(self.engine)

    @contextmanager
    def transaction(self, *, write: bool = True) -> Iterator[SqlTransaction]:
        with self.engine.connect() as connection:
            if self.is_sqlite:
                connection.execution_options(feltroom_write=write)
            elif not write:
                connection.execution_options(isolation_level="REPEATABLE READ")
            with connection.begin():
                yield SqlTransaction(connection, self.is_sqlite)

    def close(self) -> None:
        self.engine.dispose()


def _configure_sqlite(engine: Engine, busy_timeout_ms: int) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy's begin event issue BEGIN, not the sqlite3 module.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = FULL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        write = connection.get_execution_options().get("feltroom_write", True)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


def _by(table: Any, *names: str) -> Any:
    """``table.c.a == :a AND ...``: a WHERE clause on bound parameters."""
    return [table.c[name] == bindparam(name) for name in names]


# Statements built once: building a statement costs ten times executing a cached one.
_ACCOUNT = select(accounts).where(*_by(accounts, "key"))
_ACCOUNTS_OF = select(accounts).where(*_by(accounts, "owner"))
_TAKE = (
    update(accounts)
    .where(
        accounts.c.key == bindparam("account"),
        accounts.c.currency == bindparam("code"),
        or_(accounts.c.kind == "external", accounts.c.balance >= bindparam("amount")),
    )
    .values(balance=accounts.c.balance - bindparam("amount"))
)
_GIVE = (
    update(accounts)
    .where(accounts.c.key == bindparam("account"), accounts.c.currency == bindparam("code"))
    .values(balance=accounts.c.balance + bindparam("amount"))
)
_INSERT_TRANSFER = insert(transfers)
_OPERATION = select(operations).where(*_by(operations, "operation", "key"))
_USER = select(users).where(*_by(users, "name"))
_USER_LOCKED = _USER.with_for_update()
_USER_NOCASE = select(users).where(func.lower(users.c.name) == func.lower(bindparam("name")))
_SESSION = select(sessions).where(*_by(sessions, "token_hash"))
_PROTECTIONS = (
    select(func.count())
    .select_from(protections)
    .where(protections.c.user == bindparam("user"), protections.c.at > bindparam("since"))
)
_TABLE = select(tables).where(*_by(tables, "table_id"))
_SEAT = select(seats).where(*_by(seats, "table_id", "player"))
_SEATS_AT = select(seats).where(*_by(seats, "table_id")).order_by(seats.c.seat)
_UPDATE_SEAT = (
    update(seats)
    .where(seats.c.table_id == bindparam("t"), seats.c.player == bindparam("p"))
    .values(seat=bindparam("seat"), stack=bindparam("stack"))
)
_HAND = select(hands).where(*_by(hands, "hand_id"))
_FINISH_HAND = (
    update(hands)
    .where(hands.c.hand_id == bindparam("h"), hands.c.status == "started")
    .values(
        status=bindparam("status"),
        finished_at=bindparam("finished_at"),
        rake=bindparam("rake"),
        fee=bindparam("fee"),
        tax=bindparam("tax"),
        settings=bindparam("settings"),
        record=bindparam("record"),
    )
)
_NEW_HAND = insert(hands)
_NEW_HANDS = insert(hands).returning(hands.c.hand_id, sort_by_parameter_order=True)
_HANDS_IN = select(hands).where(hands.c.hand_id.in_(bindparam("ids", expanding=True)))
_SEATS_IN = select(seats).where(seats.c.table_id.in_(bindparam("ids", expanding=True)))
_SEATS_OF = select(seats).where(*_by(seats, "player")).order_by(seats.c.table_id)
_INSERT_HAND_PLAYERS = insert(hand_players)
_INSERT_HAND_DEALS = insert(hand_deals)
_HAND_DEAL = select(hand_deals).where(*_by(hand_deals, "hand_id"))
_HAND_PLAYERS = (
    select(hand_players).where(*_by(hand_players, "hand_id")).order_by(hand_players.c.seat)
)


_Compiled = tuple[str, tuple[str, ...] | None, dict[str, Any]]
_COMPILED: dict[tuple[int, str, tuple[str, ...]], _Compiled] = {}


def _compiled(statement: Any, connection: Connection, columns: tuple[str, ...]) -> _Compiled:
    """A statement's SQL text in the connection's dialect, its positional parameter order
    (``None`` for a named paramstyle) and the values of its literal parameters; compiled once
    per dialect (an INSERT for ``columns``)."""
    dialect = connection.dialect
    key = (id(statement), dialect.name, columns)
    found = _COMPILED.get(key)
    if found is None:
        is_insert = getattr(statement, "is_insert", False)
        compiled = statement.compile(
            dialect=dialect, column_keys=list(columns) if is_insert else None
        )
        names = compiled.positiontup
        literals = {k: v for k, v in compiled.params.items() if k not in columns}
        found = _COMPILED[key] = (
            str(compiled),
            tuple(names) if dialect.positional else None,
            literals,
        )
    return found


class SqlTransaction(
    LeaseQueries,
    OperatorQueries,
    TournamentQueries,
    ClusterStateQueries,
    PlayerSettingsQueries,
    ProtectionQueries,
    HomeGameQueries,
):
    """A ``feltroom.room.storage.Transaction`` on one SQLAlchemy connection (the table leases'
    methods come from ``feltroom.store.leases``, the operators' from ``feltroom.store.operators``,
    the tournaments' from ``feltroom.store.tournaments``, the cluster's shared state from
    ``feltroom.store.cluster_state``, the players' settings from
    ``feltroom.store.player_settings``, player protection's from ``feltroom.store.protection``)."""

    def __init__(self, connection: Connection, is_sqlite: bool) -> None:
        self.c = connection
        self.is_sqlite = is_sqlite

    @contextmanager
    def savepoint(self) -> Iterator[object]:
        with self.c.begin_nested() as nested:
            yield nested

    def _many(self, statement: Any, rows: list[dict[str, Any]]) -> int:
        """Execute ``statement`` once per row through the driver's executemany, without
        SQLAlchemy's per-row parameter processing (the hot path of group commits: plain ints,
        floats, strings and booleans only). Returns the rowcount (summed by the driver)."""
        sql_text, names, literals = _compiled(statement, self.c, tuple(rows[0]))
        if literals:
            rows = [{**literals, **row} for row in rows]
        if names is None:
            result = self.c.exec_driver_sql(sql_text, rows)
        else:
            result = self.c.exec_driver_sql(
                sql_text, [tuple([row[n] for n in names]) for row in rows]
            )
        return int(result.rowcount)

    def _insert_ignore(self, table: Any) -> Any:
        dialect = sqlite if self.is_sqlite else postgresql
        return dialect.insert(table).on_conflict_do_nothing()

    def _insert_unique(self, statement: Any, what: str, values: Any = None) -> None:
        try:
            self.c.execute(statement, values)
        except IntegrityError as error:  # the whole transaction is rolled back by the caller
            raise DuplicateKey(f"{what} is taken") from error

    def _insert_unique_many(self, statement: Any, what: str, rows: list[dict[str, Any]]) -> None:
        try:
            self._many(statement, rows)
        except IntegrityError as error:
            raise DuplicateKey(f"{what} is taken") from error

    def _one(self, statement: Any, **values: Any) -> Any:
        return self.c.execute(statement, values).first()

    # -- ledger

    def get_account(self, key: str) -> AccountRow | None:
        row = self._one(_ACCOUNT, key=key)
        return None if row is None else AccountRow(*row)

    def create_account(self, key: str, kind: str, currency: str, owner: str) -> AccountRow:
        existing = self.get_account(key)
        if existing is not None:
            return existing
        self.c.execute(
            self._insert_ignore(accounts).values(
                key=key, kind=kind, currency=currency, owner=owner, balance=0
            )
        )
        created = self.get_account(key)
        assert created is not None
        return created

    def accounts_of(self, owner: str) -> list[AccountRow]:
        return [AccountRow(*row) for row in self.c.execute(_ACCOUNTS_OF, {"owner": owner})]

    def post_transfer(self, transfer: Transfer) -> None:
        amount, code = transfer.amount, transfer.currency
        taken = self.c.execute(_TAKE, {"account": transfer.debit, "code": code, "amount": amount})
        if taken.rowcount != 1:
            self._refuse(transfer.debit, code, amount)
        given = self.c.execute(_GIVE, {"account": transfer.credit, "code": code, "amount": amount})
        if given.rowcount != 1:
            self._refuse(transfer.credit, code, None)
        self._insert_unique(
            _INSERT_TRANSFER,
            f"transfer id {transfer.transfer_id}",
            {
                "transfer_id": transfer.transfer_id,
                "currency": code,
                "debit": transfer.debit,
                "credit": transfer.credit,
                "amount": amount,
                "kind": transfer.kind.value,
                "reference": transfer.reference,
                "created_at": transfer.created_at,
            },
        )

    def post_transfers(self, transfers: Sequence[Transfer]) -> None:
        """Many transfers in a few statements: each account's total is taken or given once
        (the same running balances as one at a time), and every transfer row is inserted."""
        if not transfers:
            return
        taken: dict[tuple[str, str], int] = {}
        given: dict[tuple[str, str], int] = {}
        for t in transfers:
            taken[t.debit, t.currency] = taken.get((t.debit, t.currency), 0) + t.amount
            given[t.credit, t.currency] = given.get((t.credit, t.currency), 0) + t.amount
        # In key order: concurrent group commits (a cluster's workers) lock rows in one order.
        self._apply_many(_TAKE, dict(sorted(taken.items())), debit=True)
        self._apply_many(_GIVE, dict(sorted(given.items())), debit=False)
        self._insert_unique_many(
            _INSERT_TRANSFER,
            "a transfer id",
            [
                {
                    "transfer_id": t.transfer_id,
                    "currency": t.currency,
                    "debit": t.debit,
                    "credit": t.credit,
                    "amount": t.amount,
                    "kind": t.kind.value,
                    "reference": t.reference,
                    "created_at": t.created_at,
                }
                for t in transfers
            ],
        )

    def _apply_many(
        self, statement: Any, totals: dict[tuple[str, str], int], *, debit: bool
    ) -> None:
        params: list[dict[str, Any]] = [
            {"account": key, "code": code, "amount": amount}
            for (key, code), amount in totals.items()
        ]
        if self.c.dialect.supports_sane_multi_rowcount:
            if self._many(statement, params) == len(params):
                return
            # A row was refused (the caller rolls the transaction back): name an account that
            # is missing, in another currency or, for a debit, short of its total.
            for (key, code), amount in totals.items():
                row = self.get_account(key)
                if row is None or row.currency != code:
                    self._refuse(key, code, None)
                elif debit and row.kind != "external" and row.balance < amount:
                    self._refuse(key, code, amount)
            key, code = next(iter(totals))
            raise InsufficientFunds(key, 0, totals[key, code])
        for (key, code), amount in totals.items():
            if (
                self.c.execute(statement, {"account": key, "code": code, "amount": amount}).rowcount
                != 1
            ):
                self._refuse(key, code, amount if debit else None)

    def _refuse(self, key: str, currency: str, amount: int | None) -> None:
        row = self.get_account(key)
        if row is None:
            raise UnknownAccount(f"no ledger account {key}")
        if row.currency != currency:
            raise CurrencyMismatch(
                f"account {key} holds {row.currency}; a {currency} transfer cannot touch it"
            )
        raise InsufficientFunds(key, row.balance, amount or 0)

    # -- idempotent operations

    def get_operation(self, operation: str, key: str) -> OperationRow | None:
        row = self._one(_OPERATION, operation=operation, key=key)
        return None if row is None else OperationRow(*row)

    def add_operation(self, row: OperationRow) -> None:
        self._insert_unique(
            insert(operations).values(
                operation=row.operation, key=row.key, details=row.details, result=row.result
            ),
            f"the {row.operation} key {row.key!r}",
        )

    # -- users, sessions, protections

    def get_user(self, name: str, *, lock: bool = False, nocase: bool = False) -> UserRow | None:
        if nocase:
            row = self._one(_USER_NOCASE, name=name)
            return None if row is None else UserRow(*row)
        row = self._one(_USER_LOCKED if lock and not self.is_sqlite else _USER, name=name)
        return None if row is None else UserRow(*row)

    def add_user(self, row: UserRow) -> None:
        # A fresh id, never issued before (the caller's transaction rolls it back with the
        # account when the name is taken).
        issued = self.c.execute(
            insert(account_ids).values(name=row.name, created_at=row.created_at)
        ).inserted_primary_key
        assert issued is not None
        self._insert_unique(
            insert(users).values(
                name=row.name,
                password_hash=row.password_hash,
                created_at=row.created_at,
                protections_reset_at=row.protections_reset_at,
                bot=row.bot,
                account_id=int(issued[0]),
            ),
            f"the name {row.name!r}",
        )

    def set_password_hash(self, name: str, password_hash: str) -> None:
        self.c.execute(
            update(users).where(users.c.name == name).values(password_hash=password_hash)
        )

    def add_session(self, row: SessionRow) -> None:
        self._insert_unique(
            insert(sessions).values(
                token_hash=row.token_hash,
                user=row.user,
                created_at=row.created_at,
                expires_at=row.expires_at,
            ),
            "the session token",
        )

    def get_session(self, token_hash: str) -> SessionRow | None:
        row = self._one(_SESSION, token_hash=token_hash)
        return None if row is None else SessionRow(*row)

    def delete_session(self, token_hash: str) -> None:
        self.c.execute(delete(sessions).where(sessions.c.token_hash == token_hash))

    def delete_expired_sessions(self, now: float) -> int:
        return self.c.execute(delete(sessions).where(sessions.c.expires_at <= now)).rowcount

    def count_protections(self, user: str, since: float) -> int:
        return int(self.c.execute(_PROTECTIONS, {"user": user, "since": since}).scalar_one())

    def add_protection(self, user: str, at: float, table_id: str, hand_id: int | None) -> None:
        self.c.execute(
            insert(protections).values(user=user, at=at, table_id=table_id, hand_id=hand_id)
        )

    def set_protections_reset(self, user: str, at: float) -> None:
        self.c.execute(update(users).where(users.c.name == user).values(protections_reset_at=at))

    # -- tables and seats

    def get_table(self, table_id: str) -> TableRow | None:
        row = self._one(_TABLE, table_id=table_id)
        return None if row is None else TableRow(*row)

    def add_table(self, row: TableRow) -> None:
        self._insert_unique(
            insert(tables).values(table_id=row.table_id, currency=row.currency),
            f"the table id {row.table_id!r}",
        )

    def get_seat(self, table_id: str, player: str) -> SeatRow | None:
        row = self._one(_SEAT, table_id=table_id, player=player)
        return None if row is None else SeatRow(*row)

    def put_seat(self, row: SeatRow) -> None:
        changed = self.c.execute(
            _UPDATE_SEAT, {"t": row.table_id, "p": row.player, "seat": row.seat, "stack": row.stack}
        )
        if changed.rowcount == 0:
            self.c.execute(
                insert(seats).values(
                    table_id=row.table_id, player=row.player, seat=row.seat, stack=row.stack
                )
            )

    def delete_seat(self, table_id: str, player: str) -> None:
        self.c.execute(delete(seats).where(seats.c.table_id == table_id, seats.c.player == player))

    def seats_at(self, table_id: str) -> list[SeatRow]:
        return [SeatRow(*row) for row in self.c.execute(_SEATS_AT, {"table_id": table_id})]

    def seats_at_tables(self, table_ids: Sequence[str]) -> list[SeatRow]:
        if not table_ids:
            return []
        return [SeatRow(*row) for row in self.c.execute(_SEATS_IN, {"ids": list(table_ids)})]

    def seats_of_player(self, player: str) -> list[SeatRow]:
        return [SeatRow(*row) for row in self.c.execute(_SEATS_OF, {"player": player})]

    def update_seats(self, rows: Sequence[SeatRow]) -> None:
        if not rows:
            return
        params = [{"t": r.table_id, "p": r.player, "seat": r.seat, "stack": r.stack} for r in rows]
        changed = self._many(_UPDATE_SEAT, params)
        if self.c.dialect.supports_sane_multi_rowcount and changed != len(rows):
            raise UnknownAccount(f"{len(rows) - changed} of the seats to update are gone")

    # -- hands

    def new_hand(self, table_id: str, currency: str, started_at: float) -> int:
        result = self.c.execute(
            _NEW_HAND,
            {
                "table_id": table_id,
                "currency": currency,
                "status": "started",
                "started_at": started_at,
                "settings": "{}",
                "record": "{}",
            },
        )
        key = result.inserted_primary_key
        assert key is not None
        return int(key[0])

    def new_hands(self, tables: Sequence[tuple[str, str]], started_at: float) -> list[int]:
        if not tables:
            return []
        rows = self.c.execute(
            _NEW_HANDS,
            [
                {
                    "table_id": table_id,
                    "currency": code,
                    "status": "started",
                    "started_at": started_at,
                    "settings": "{}",
                    "record": "{}",
                }
                for table_id, code in tables
            ],
        )
        return [int(row[0]) for row in rows]

    def get_hand(self, hand_id: int) -> HandRow | None:
        row = self._one(_HAND, hand_id=hand_id)
        return None if row is None else HandRow(*row)

    def get_hands(self, hand_ids: Sequence[int]) -> dict[int, HandRow]:
        if not hand_ids:
            return {}
        rows = self.c.execute(_HANDS_IN, {"ids": list(hand_ids)})
        return {int(row[0]): HandRow(*row) for row in rows}

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
    ) -> bool:
        result = self.c.execute(
            _FINISH_HAND,
            {
                "h": hand_id,
                "status": status,
                "finished_at": finished_at,
                "rake": rake,
                "fee": fee,
                "tax": tax,
                "settings": settings,
                "record": record,
            },
        )
        return result.rowcount == 1

    def finish_hands(self, rows: Sequence[tuple[int, str, float, int, int, int, str, str]]) -> int:
        if not rows:
            return 0
        params = [
            {
                "h": h,
                "status": status,
                "finished_at": at,
                "rake": rake,
                "fee": fee,
                "tax": tax,
                "settings": settings,
                "record": record,
            }
            for h, status, at, rake, fee, tax, settings, record in rows
        ]
        if self.c.dialect.supports_sane_multi_rowcount:
            return self._many(_FINISH_HAND, params)
        return sum(self.c.execute(_FINISH_HAND, p).rowcount for p in params)

    def discard_hand(self, hand_id: int) -> bool:
        query = delete(hands).where(
            hands.c.hand_id == hand_id,
            hands.c.status == "started",
            ~exists().where(hand_players.c.hand_id == hand_id),
            ~exists().where(hand_deals.c.hand_id == hand_id),
        )
        return bool(self.c.execute(query).rowcount == 1)

    def add_hand_players(self, rows: Sequence[HandPlayerRow]) -> None:
        if rows:
            names = sorted({r.player for r in rows if not r.account_id})
            ids = dict(
                self.c.execute(
                    select(users.c.name, users.c.account_id).where(users.c.name.in_(names))
                ).all()
                if names
                else []
            )
            self._many(
                _INSERT_HAND_PLAYERS,
                [
                    {
                        "hand_id": r.hand_id,
                        "player": r.player,
                        "seat": r.seat,
                        "start_stack": r.start_stack,
                        "contribution": r.contribution,
                        "payout": r.payout,
                        "tax": r.tax,
                        "hole": r.hole,
                        "showdown": r.showdown,
                        "shown": r.shown,
                        "account_id": r.account_id or ids.get(r.player, 0),
                    }
                    for r in rows
                ],
            )

    def add_hand_deals(self, rows: Sequence[HandDealRow]) -> None:
        if rows:
            self._many(
                _INSERT_HAND_DEALS,
                [
                    {
                        "hand_id": r.hand_id,
                        "scheme": r.scheme,
                        "commitment": r.commitment,
                        "deck": r.deck,
                        "salts": r.salts,
                    }
                    for r in rows
                ],
            )

    def get_hand_deal(self, hand_id: int) -> HandDealRow | None:
        row = self._one(_HAND_DEAL, hand_id=hand_id)
        return None if row is None else HandDealRow(*row)

    def hand_players(self, hand_id: int) -> list[HandPlayerRow]:
        rows = self.c.execute(_HAND_PLAYERS, {"hand_id": hand_id})
        return [HandPlayerRow(*row) for row in rows]

    def hands_of_player(self, player: str, limit: int, before: int | None) -> list[int]:
        # By the account, whatever name it played each hand under.
        account = select(users.c.account_id).where(users.c.name == player).scalar_subquery()
        query = (
            select(hand_players.c.hand_id)
            .join(hands, hands.c.hand_id == hand_players.c.hand_id)
            .where(hand_players.c.account_id == account, hands.c.status == "settled")
        )
        if before is not None:
            query = query.where(hand_players.c.hand_id < before)
        query = query.order_by(hand_players.c.hand_id.desc()).limit(limit)
        return [int(row[0]) for row in self.c.execute(query)]

    def unsettled_hands(self, table_id: str | None) -> list[int]:
        query = select(hands.c.hand_id).where(hands.c.status == "started")
        if table_id is not None:
            query = query.where(hands.c.table_id == table_id)
        return [int(row[0]) for row in self.c.execute(query.order_by(hands.c.hand_id))]

    # -- the sign-in log and the integrity report's reads

    def add_sign_in(self, row: SignInRow) -> None:
        self.c.execute(
            insert(sign_ins).values(
                account=row.account, address=row.address, user_agent=row.user_agent, at=row.at
            )
        )

    def sign_ins(self, since: float) -> list[SignInRow]:
        query = (
            select(sign_ins.c.account, sign_ins.c.address, sign_ins.c.user_agent, sign_ins.c.at)
            .where(sign_ins.c.at >= since)
            .order_by(sign_ins.c.at, sign_ins.c.sign_in_id)
        )
        return [SignInRow(*row) for row in self.c.execute(query)]

    def delete_sign_ins_before(self, before: float) -> int:
        return int(self.c.execute(delete(sign_ins).where(sign_ins.c.at < before)).rowcount)

    def settled_hands(self, since: float, after: int, limit: int) -> list[HandRow]:
        query = (
            select(hands)
            .where(
                hands.c.status == "settled", hands.c.started_at >= since, hands.c.hand_id > after
            )
            .order_by(hands.c.hand_id)
            .limit(limit)
        )
        return [HandRow(*row) for row in self.c.execute(query)]

    def hand_players_of(self, hand_ids: Sequence[int]) -> list[HandPlayerRow]:
        if not hand_ids:
            return []
        query = (
            select(hand_players)
            .where(hand_players.c.hand_id.in_(list(hand_ids)))
            .order_by(hand_players.c.hand_id, hand_players.c.seat)
        )
        return [HandPlayerRow(*row) for row in self.c.execute(query)]

    # -- audit reads

    def all_accounts(self) -> list[AccountRow]:
        return [AccountRow(*row) for row in self.c.execute(select(accounts))]

    def derived_balances(self) -> dict[str, int]:
        balances: dict[str, int] = {}
        for column, sign in ((transfers.c.credit, 1), (transfers.c.debit, -1)):
            rows = self.c.execute(select(column, func.sum(transfers.c.amount)).group_by(column))
            for key, total in rows:
                balances[key] = balances.get(key, 0) + sign * int(total)
        return balances

    def transfers_between_currencies(self) -> list[tuple[str, str, str, str]]:
        debit = accounts.alias("debit_account")
        credit = accounts.alias("credit_account")
        query = (
            select(
                transfers.c.transfer_id, transfers.c.currency, debit.c.currency, credit.c.currency
            )
            .select_from(
                transfers.outerjoin(debit, debit.c.key == transfers.c.debit).outerjoin(
                    credit, credit.c.key == transfers.c.credit
                )
            )
            .where(
                or_(
                    debit.c.currency.is_(None),
                    credit.c.currency.is_(None),
                    debit.c.currency != transfers.c.currency,
                    credit.c.currency != transfers.c.currency,
                )
            )
            .order_by(transfers.c.seq)
        )
        return [(t, c, d or "none", k or "none") for t, c, d, k in self.c.execute(query)]

    def bad_amounts(self) -> list[tuple[str, int]]:
        query = select(transfers.c.transfer_id, transfers.c.amount).where(transfers.c.amount <= 0)
        return [(str(t), int(a)) for t, a in self.c.execute(query)]

    def duplicate_transfer_ids(self) -> list[tuple[str, int]]:
        count = func.count()
        query = (
            select(transfers.c.transfer_id, count)
            .group_by(transfers.c.transfer_id)
            .having(count > 1)
        )
        return [(str(t), int(n)) for t, n in self.c.execute(query)]

    def hand_imbalances(self) -> list[tuple[int, int, int]]:
        paid_in = func.coalesce(func.sum(hand_players.c.contribution), 0)
        paid_out = (
            func.coalesce(func.sum(hand_players.c.payout + hand_players.c.tax), 0)
            + hands.c.rake
            + hands.c.fee
        )
        query = (
            select(hands.c.hand_id, paid_in, paid_out)
            .select_from(hands.outerjoin(hand_players, hand_players.c.hand_id == hands.c.hand_id))
            .where(hands.c.status == "settled")
            .group_by(hands.c.hand_id, hands.c.rake, hands.c.fee)
            .having(paid_in != paid_out)
            .order_by(hands.c.hand_id)
        )
        return [(int(h), int(i), int(o)) for h, i, o in self.c.execute(query)]

    def settled_hand_count(self) -> int:
        query = select(func.count()).select_from(hands).where(hands.c.status == "settled")
        return int(self.c.execute(query).scalar_one())

    def all_tables(self) -> list[TableRow]:
        return [TableRow(*row) for row in self.c.execute(select(tables))]

    def stack_totals(self) -> dict[str, int]:
        query = select(seats.c.table_id, func.sum(seats.c.stack)).group_by(seats.c.table_id)
        return {str(t): int(s) for t, s in self.c.execute(query)}
