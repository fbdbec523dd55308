"""The database schema (SQLAlchemy 2 Core tables), shared by SQLite and PostgreSQL.

The Alembic revisions in ``migrations/versions`` create and change these tables; a change here
needs a new revision (``alembic revision --autogenerate``, see docs/room.md).
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    false,
    func,
)

__all__ = [
    "account_ids",
    "accounts",
    "hand_deals",
    "hand_players",
    "hands",
    "metadata",
    "operations",
    "operator_log",
    "player_limits",
    "player_protection",
    "player_settings",
    "protections",
    "seats",
    "sessions",
    "sign_ins",
    "table_definitions",
    "table_leases",
    "table_states",
    "tables",
    "throttle_failures",
    "tournament_journal",
    "tournaments",
    "transfers",
    "users",
]

metadata = MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "ck": "ck_%(table_name)s_%(constraint_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)

# An auto-incrementing 64-bit key; SQLite needs INTEGER for its rowid alias.
Serial = BigInteger().with_variant(Integer(), "sqlite")

NAME = 32
ACCOUNT_KEY = 80

# Stable account ids (issue 23): every id ever issued, never reused (an account removed keeps its
# row, with ``removed_at``), under the account's last name. The books' wallets and pending
# accounts and the hand records name the account by this id; the name is an attribute of the
# account that an operator may change (``feltroom admin rename``).
account_ids = Table(
    "account_ids",
    metadata,
    Column("account_id", Serial, primary_key=True, autoincrement=True),
    Column("name", String(NAME), nullable=False),
    Column("created_at", Float, nullable=False),
    Column("removed_at", Float, nullable=True),
    sqlite_autoincrement=True,
)

users = Table(
    "users",
    metadata,
    Column("name", String(NAME), primary_key=True),
    Column("password_hash", String(255), nullable=False),
    Column("created_at", Float, nullable=False),
    Column("protections_reset_at", Float, nullable=False, server_default="0"),
    # House bots (issue 5): accounts the room plays itself, marked so that nobody mistakes them
    # for people (the lobby and the hand histories can say so).
    Column("bot", Boolean, nullable=False, server_default=false()),
    # Operators (issue 23): accounts that may use the operator API and console, optionally only
    # from the addresses listed (comma-separated; empty: any); suspended accounts cannot sign in.
    Column("operator", Boolean, nullable=False, server_default=false()),
    Column("suspended", Boolean, nullable=False, server_default=false()),
    Column("operator_addresses", String(255), nullable=False, server_default=""),
    # Player protection (issue 25): an operator verified who holds the account; real-money
    # tables and tournaments refuse unverified accounts (a setting, default on).
    Column("verified", Boolean, nullable=False, server_default=false()),
    # The account's stable id (``account_ids``; 0 names no account).
    Column("account_id", BigInteger, nullable=False, server_default="0"),
)
Index("uq_users_account_id", users.c.account_id, unique=True)
# Names are one whatever their letter case (issue 27): alice, Alice and alIce cannot all be
# accounts, so nobody can pass for another player or squat a house bot's name.
Index("uq_users_name_nocase", func.lower(users.c.name), unique=True)

sessions = Table(
    "sessions",
    metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("user", String(NAME), ForeignKey("users.name"), nullable=False),
    Column("created_at", Float, nullable=False),
    Column("expires_at", Float, nullable=False, index=True),
)

protections = Table(
    "protections",
    metadata,
    Column("protection_id", Serial, primary_key=True, autoincrement=True),
    Column("user", String(NAME), ForeignKey("users.name"), nullable=False),
    Column("at", Float, nullable=False),
    Column("table_id", String(NAME), nullable=False),
    Column("hand_id", BigInteger, nullable=True),
    Index("ix_protections_user_at", "user", "at"),
    sqlite_autoincrement=True,
)

accounts = Table(
    "accounts",
    metadata,
    Column("key", String(ACCOUNT_KEY), primary_key=True),
    Column("kind", String(16), nullable=False),
    Column("currency", String(8), nullable=False),
    Column("owner", String(NAME), nullable=False, index=True),
    Column("balance", BigInteger, nullable=False, server_default="0"),
    CheckConstraint("balance >= 0 OR kind = 'external'", name="nonnegative"),
)

transfers = Table(
    "transfers",
    metadata,
    Column("seq", Serial, primary_key=True, autoincrement=True),
    Column("transfer_id", String(32), nullable=False),
    Column("currency", String(8), nullable=False),
    Column("debit", String(ACCOUNT_KEY), ForeignKey("accounts.key"), nullable=False),
    Column("credit", String(ACCOUNT_KEY), ForeignKey("accounts.key"), nullable=False),
    Column("amount", BigInteger, nullable=False),
    Column("kind", String(16), nullable=False),
    Column("reference", String(255), nullable=False),
    Column("created_at", Float, nullable=False),
    Index("uq_transfers_transfer_id", "transfer_id", unique=True),
    CheckConstraint("amount > 0", name="positive"),
    sqlite_autoincrement=True,
)

operations = Table(
    "operations",
    metadata,
    Column("operation", String(32), primary_key=True),
    Column("key", String(200), primary_key=True),
    Column("details", Text, nullable=False),
    Column("result", Text, nullable=False),
)

tables = Table(
    "tables",
    metadata,
    Column("table_id", String(NAME), primary_key=True),
    Column("currency", String(8), nullable=False),
)

seats = Table(
    "seats",
    metadata,
    Column("table_id", String(NAME), ForeignKey("tables.table_id"), primary_key=True),
    Column("player", String(NAME), ForeignKey("users.name"), primary_key=True),
    Column("seat", Integer, nullable=False),
    Column("stack", BigInteger, nullable=False),
    CheckConstraint("stack >= 0", name="nonnegative"),
    Index("ix_seats_player", "player"),
)

hands = Table(
    "hands",
    metadata,
    Column("hand_id", Serial, primary_key=True, autoincrement=True),
    Column("table_id", String(NAME), ForeignKey("tables.table_id"), nullable=False),
    Column("currency", String(8), nullable=False),
    Column("status", String(8), nullable=False),
    Column("started_at", Float, nullable=False),
    Column("finished_at", Float, nullable=True),
    Column("rake", BigInteger, nullable=False, server_default="0"),
    Column("fee", BigInteger, nullable=False, server_default="0"),
    Column("tax", BigInteger, nullable=False, server_default="0"),
    Column("settings", Text, nullable=False, server_default="{}"),
    Column("record", Text, nullable=False, server_default="{}"),
    Index("ix_hands_status_table_id", "status", "table_id"),
    sqlite_autoincrement=True,
)

hand_players = Table(
    "hand_players",
    metadata,
    Column(
        "hand_id", BigInteger, ForeignKey("hands.hand_id"), primary_key=True, autoincrement=False
    ),
    Column("player", String(NAME), primary_key=True),
    Column("seat", Integer, nullable=False),
    Column("start_stack", BigInteger, nullable=False),
    Column("contribution", BigInteger, nullable=False),
    Column("payout", BigInteger, nullable=False),
    Column("tax", BigInteger, nullable=False),
    Column("hole", String(64), nullable=False),
    Column("showdown", Boolean, nullable=False),
    Column("shown", Boolean, nullable=False),
    # ``player`` is the name the account had when the hand was played (what its hand
    # histories show); ``account_id`` the account, whatever its name now.
    Column("account_id", BigInteger, nullable=False, server_default="0"),
    Index("ix_hand_players_player_hand_id", "player", "hand_id"),
    Index("ix_hand_players_account_id_hand_id", "account_id", "hand_id"),
)

# Verifiable deals (issue 7): each settled hand's deck in dealing order and its salts, which open
# the commitment published before the first card. Secret: read only to build a player's proof of
# the cards they may see (R-HIST-2). ``deck`` is card text ("As Kd ..."), ``salts`` 52 x 16 bytes
# in hex.
hand_deals = Table(
    "hand_deals",
    metadata,
    Column(
        "hand_id", BigInteger, ForeignKey("hands.hand_id"), primary_key=True, autoincrement=False
    ),
    Column("scheme", String(32), nullable=False),
    Column("commitment", String(64), nullable=False),
    Column("deck", String(160), nullable=False),
    Column("salts", Text, nullable=False),
)

# The sign-in log (issue 24): who signed in from which address and user agent, when; kept for the
# integrity report (shared addresses) for a retention the room sets (default 90 days) and purged.
sign_ins = Table(
    "sign_ins",
    metadata,
    Column("sign_in_id", Serial, primary_key=True, autoincrement=True),
    Column("account", String(NAME), ForeignKey("users.name"), nullable=False),
    Column("address", String(64), nullable=False),
    Column("user_agent", String(255), nullable=False),
    Column("at", Float, nullable=False, index=True),
    Index("ix_sign_ins_address", "address"),
    sqlite_autoincrement=True,
)

# The cluster (issue 16, docs/cluster.md): which worker owns each table, under which fencing epoch
# (one more for each new owner), until when (the database's clock, epoch seconds). Every write a
# worker makes about a table checks this row in the same transaction.
table_leases = Table(
    "table_leases",
    metadata,
    Column("table_id", String(NAME), primary_key=True),
    Column("owner", String(64), nullable=False),
    Column("epoch", BigInteger, nullable=False),
    Column("expires_at", Float, nullable=False),
    CheckConstraint("epoch > 0", name="positive_epoch"),
)

# The cluster's table definitions (`feltroom serve --role worker --tables FILE` loads them): one
# `[[table]]` entry of a tables file per row, as JSON; the workers take their tables from here.
table_definitions = Table(
    "table_definitions",
    metadata,
    Column("table_id", String(NAME), primary_key=True),
    Column("definition", Text, nullable=False),
    # ``open``, ``closed`` (no new hands, issue 23) or ``retired`` (no longer loaded)
    Column("status", String(8), nullable=False, server_default="open"),
)

# The operator log (issue 23): every operator action on record (who, what, on what, when, why);
# a transfer an operator's action makes names its entry in its reference (``...:operator:<id>``),
# and ``feltroom audit`` checks that the entry exists.
operator_log = Table(
    "operator_log",
    metadata,
    Column("entry_id", Serial, primary_key=True, autoincrement=True),
    Column("at", Float, nullable=False, index=True),
    Column("operator", String(NAME), nullable=False),
    Column("action", String(32), nullable=False),
    Column("target", String(80), nullable=False),
    Column("reason", String(500), nullable=False),
    Column("details", Text, nullable=False, server_default="{}"),
    sqlite_autoincrement=True,
)

# Tournaments (issue 18, docs/tournaments.md): each instance with its settings (JSON) and the seed
# of its director's draws; the journal is every input its director took, in order (registrations,
# the hands its tables started and finished, the clock's decisions, a cancellation), so that a
# restart rebuilds the director exactly by replaying it.
tournaments = Table(
    "tournaments",
    metadata,
    Column("tournament_id", String(NAME), primary_key=True),
    Column("spec_id", String(NAME), nullable=False),
    Column("number", Integer, nullable=False),
    Column("currency", String(8), nullable=False),
    Column("settings", Text, nullable=False),
    Column("seed", String(40), nullable=False),
    Column("start_at", Float, nullable=True),
    Column("status", String(20), nullable=False, index=True),
    Column("created_at", Float, nullable=False),
    Column("seen_at", Float, nullable=False),
)

tournament_journal = Table(
    "tournament_journal",
    metadata,
    Column(
        "tournament_id",
        String(NAME),
        ForeignKey("tournaments.tournament_id"),
        primary_key=True,
    ),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("at", Float, nullable=False),
    Column("kind", String(16), nullable=False),
    Column("payload", Text, nullable=False),
)

# The sign-in and sign-up throttles of a cluster's gateways (`feltroom.room.throttles`): one row
# per failure counted, by scope (`signup`, `address`, `account`) and key, so that every gateway
# counts the same failures.
throttle_failures = Table(
    "throttle_failures",
    metadata,
    Column("failure_id", Serial, primary_key=True, autoincrement=True),
    Column("scope", String(16), nullable=False),
    Column("key", String(160), nullable=False),
    Column("at", Float, nullable=False),
    Index("ix_throttle_failures_scope_key_at", "scope", "key", "at"),
    sqlite_autoincrement=True,
)

# What a table's owner keeps beyond the books so that a takeover keeps it too: its waiting list
# and who sits in (JSON, `feltroom.room.worker`).
table_states = Table(
    "table_states",
    metadata,
    Column("table_id", String(NAME), primary_key=True),
    Column("state", Text, nullable=False),
)

# A player's own settings (issue 21), default off: ``share_stats`` lets other players read the
# player's statistics (``GET /api/players/{name}/stats``, the figures beside them at a table);
# ``findable`` lets them find the tables the player sits at (the lobby's player search).
player_settings = Table(
    "player_settings",
    metadata,
    Column("player", String(NAME), ForeignKey("users.name"), primary_key=True),
    Column("share_stats", Boolean, nullable=False, server_default=false()),
    Column("findable", Boolean, nullable=False, server_default=false()),
)
# Player protection (issue 25). Keyed by the account's name in lower case and not tied to the
# users table, so that removing an account does not lift a self-exclusion: a sign-up under the
# name is refused while it runs.
player_protection = Table(
    "player_protection",
    metadata,
    Column("name", String(NAME), primary_key=True),
    Column("reminder_minutes", Integer, nullable=False, server_default="0"),
    Column("cool_off_until", Float, nullable=True),
    Column("excluded_until", Float, nullable=True),
    Column("excluded_permanently", Boolean, nullable=False, server_default=false()),
)

# The identities the operator checked at verification (issue 40): only their keyed hash
# (``feltroom.room.operators.identity_hash``), with the account's name in lower case (not tied
# to the users table: a removed account's identity stays linked to its self-exclusion).
verified_identities = Table(
    "verified_identities",
    metadata,
    Column("identity", String(64), primary_key=True),
    Column("name", String(NAME), primary_key=True),
    Column("verified_at", Float, nullable=False),
)

# The room's own secrets, made once at random (``identity_key``: the identities' hash key).
room_secrets = Table(
    "room_secrets",
    metadata,
    Column("name", String(32), primary_key=True),
    Column("value", String(128), nullable=False),
)

# A player's deposit and loss limits per currency and period. ``amount`` is in force (NULL: no
# limit); a raise waits in ``pending`` (NULL with ``pending_at`` set: the limit is removed)
# until ``pending_at``.
player_limits = Table(
    "player_limits",
    metadata,
    Column("name", String(NAME), primary_key=True),
    Column("currency", String(8), primary_key=True),
    Column("kind", String(8), primary_key=True),
    Column("period", String(8), primary_key=True),
    Column("amount", BigInteger, nullable=True),
    Column("pending", BigInteger, nullable=True),
    Column("pending_at", Float, nullable=True),
)
# The home games (issue 45, docs/home-games.md): who hosts each, its invite link's secret, its
# status and, as JSON, the rest of the game (settings, co-hosts, players, requests, its log).
# Its table is a table definition like any other; its chips are a currency of the books.
home_games = Table(
    "home_games",
    metadata,
    Column("game_id", String(NAME), primary_key=True),
    Column("host", String(NAME), nullable=False, index=True),
    Column("secret", String(64), nullable=False),
    Column("status", String(8), nullable=False),
    Column("created_at", Float, nullable=False),
    Column("ended_at", Float, nullable=True),
    Column("state", Text, nullable=False),
    Index("uq_home_games_secret", "secret", unique=True),
)

Index("ix_transfers_credit_created_at", transfers.c.credit, transfers.c.created_at)
Index("ix_transfers_debit_created_at", transfers.c.debit, transfers.c.created_at)
