"""The room's configuration: one TOML file, environment variables and flags (docs/operations.md).

Every setting lives in a section (``[server]``, ``[log]``, ``[room]``, ``[accounts]``,
``[protocol]``, ``[home]``) and is validated by pydantic-settings: a TOML file (``feltroom serve
--config FILE``), environment variables ``FELTROOM_<SECTION>__<KEY>``
(``FELTROOM_SERVER__PORT=8080``), and the flags of ``feltroom serve`` for the common ones.
Precedence: flag > environment > file > default. An unknown or invalid setting stops the start
with a message naming it and saying what is valid (``ConfigError``). Table configurations keep
their own file and validation (``feltroom.room.tables_config``).

``load_settings`` returns the settings and, for each one, where its value came from
(``feltroom config show``); ``masked`` hides the secrets (passwords in database and broker URLs).
"""

from __future__ import annotations

import ipaddress
import os
import tomllib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    InitSettingsSource,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)
from pydantic_settings.sources.utils import parse_env_vars

__all__ = [
    "ENV_PREFIX",
    "SIGNUP_EXEMPT",
    "ConfigError",
    "Settings",
    "default_of",
    "env_name",
    "flag_name",
    "load_settings",
    "masked",
    "parse_addresses",
    "parse_networks",
    "setting_names",
    "shown",
    "shown_value",
]

ENV_PREFIX = "FELTROOM_"
SIGNUP_EXEMPT = "127.0.0.1,::1"
"""``--signup-exempt``'s default: the machine itself, so that ``feltroom bots`` keeps working
there; no other loopback address (127.0.0.2 is not exempt)."""
LOOPBACK = "127.0.0.1,::1"


class ConfigError(ValueError):
    """An unknown or invalid setting: the message names it and says what is valid."""


# ----------------------------------------------------------------------------- address lists


def parse_addresses(text: str) -> frozenset[str]:
    """Comma-separated IP addresses, each written as the server sees a client's."""
    found = set()
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        try:
            found.add(str(ipaddress.ip_address(part)))
        except ValueError:
            raise ValueError(
                f"{part!r} is not an IP address; give addresses such as 127.0.0.1,::1"
            ) from None
    return frozenset(found)


def parse_networks(text: str) -> tuple[str, ...]:
    """Comma-separated IP addresses or networks (``10.0.0.0/8``), or ``*`` for any."""
    found: list[str] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if part != "*":
            try:
                ipaddress.ip_network(part, strict=False)
            except ValueError:
                raise ValueError(
                    f"{part!r} is not an IP address or network; give addresses or networks "
                    "such as 10.0.0.1,192.168.0.0/16 (or * for any: only behind a proxy)"
                ) from None
        found.append(part)
    return tuple(found)


def _joined(value: Any) -> Any:
    """A list (TOML) or a comma-separated string (environment, flags) as one string."""
    if isinstance(value, list | tuple | set | frozenset):
        return ",".join(str(part) for part in value)
    return value


Addresses = Annotated[
    frozenset[str], NoDecode, BeforeValidator(lambda v: parse_addresses(_joined(v)))
]
Networks = Annotated[
    tuple[str, ...], NoDecode, BeforeValidator(lambda v: parse_networks(_joined(v)))
]
Port = Annotated[int, Field(ge=0, le=65535)]


def parse_currencies(text: str) -> tuple[str, ...]:
    """Comma-separated wallet currency codes the room keeps (``PLAY``, ``USD`` ...)."""
    from feltroom.room.ledger import CURRENCIES

    found: list[str] = []
    for part in text.split(","):
        code = part.strip().upper()
        if not code:
            continue
        if code not in CURRENCIES:
            raise ValueError(
                f"{part.strip()!r} is not a wallet currency of the room; valid: "
                f"{', '.join(CURRENCIES)}"
            )
        if code not in found:
            found.append(code)
    return tuple(found)


HomeCurrencies = Annotated[
    tuple[str, ...], NoDecode, BeforeValidator(lambda v: parse_currencies(_joined(v)))
]


def _direct_address(value: Any) -> Any:
    """A worker's direct-link address: ``HOST:PORT`` or ``unix:PATH`` (ValueError else)."""
    if value is not None and value != "":
        from feltroom.cluster.direct import parse_address

        parse_address(str(value))
    return value or None


DirectAddress = Annotated[str | None, BeforeValidator(_direct_address)]
Seconds = Annotated[float, Field(ge=0, le=86400 * 7)]


# ----------------------------------------------------------------------------- the sections


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ServerSection(_Section):
    """Where and how the room listens; its database; its role in a cluster."""

    host: str = Field("127.0.0.1", description="address to listen on")
    port: Port = Field(8000, description="port to listen on")
    db: str | None = Field(
        None, description="database URL (default: sqlite:///data/feltroom.sqlite3)"
    )
    tables: Path | None = Field(None, description="tables file (default: the demo tables)")
    forwarded_allow_ips: Networks = Field(
        (),
        description="addresses or networks of the reverse proxies whose X-Forwarded-For is "
        "believed (docs/room.md)",
    )
    metrics_allow: Networks = Field(
        parse_networks(LOOPBACK),
        description="client addresses or networks allowed GET /metrics on the main port",
    )
    metrics_port: Port | None = Field(
        None, description="serve GET /metrics on a listener of its own on this port"
    )
    role: Literal["all", "gateway", "worker"] = Field(
        "all",
        description="all: the whole room in this process; worker: a cluster's worker owns "
        "tables under leases; gateway: a cluster's connections, HTTP API and browser client "
        "(docs/cluster.md)",
    )
    broker: str | None = Field(
        None,
        description="the cluster's broker, redis://:PASSWORD@host:6379/0 (worker and gateway "
        "roles)",
    )
    direct: DirectAddress = Field(
        None,
        description="where a worker's direct links listen, HOST:PORT (PORT 0: any free one) "
        "or unix:PATH: a gateway then sends the worker's tables' commands, and gets their "
        "replies and batches, on one connection of its own rather than through the broker "
        "(docs/cluster.md)",
    )
    lease_seconds: Annotated[float, Field(ge=0.5, le=60)] = Field(
        3.0, description="how long a worker's table lease runs without renewal"
    )
    header_seconds: Annotated[float, Field(gt=0, le=3600)] = Field(
        10.0,
        description="how long an HTTP request's headers may take to arrive (from the "
        "connection's opening or the previous response); past it: 408, connection closed",
    )
    body_seconds: Annotated[float, Field(gt=0, le=3600)] = Field(
        30.0,
        description="how long an HTTP request's body may take to arrive after its headers; "
        "past it: 408, connection closed",
    )


class LogSection(_Section):
    """What the room logs, and how."""

    level: Literal["debug", "info", "warning", "error", "critical"] = Field(
        "info", description="debug adds each hand and settlement"
    )
    format: Literal["text", "json"] = Field("text", description="text lines or one JSON a line")
    access: bool = Field(True, description="log each HTTP request and websocket connection")


class RoomSection(_Section):
    """How the tables run."""

    house_bots: Annotated[int, Field(ge=0)] = Field(3, description="house bots per table")
    bot_think: Annotated[float, Field(ge=0, le=60)] = Field(
        2.0,
        description="a house bot's longest thinking time (0: bots act at once, hands follow "
        "at once)",
    )
    bot_style: Literal["random", "station", "tag"] = Field(
        "tag", description="how house bots play (docs/bots.md)"
    )
    allow_unverified: bool = Field(
        False,
        description="let accounts the operator has not verified play real money (default: "
        "refused; feltroom admin verify NAME, docs/operator.md)",
    )
    between_hands: Seconds | None = Field(
        None, description="pause after a hand before the next deal (default: 2, 0 if bot_think 0)"
    )
    after_showdown: Seconds | None = Field(
        None, description="pause after a showdown (default: 4, 0 if bot_think 0)"
    )
    disconnect_grace: Annotated[float, Field(gt=0, le=3600)] = Field(
        60.0, description="how long a disconnected player keeps playing before sitting out"
    )
    bot_bankroll: Annotated[int, Field(ge=1)] = Field(
        100_000_000, description="play chips granted to a house bot's wallet when it runs low"
    )
    selftest_interval: Annotated[float, Field(ge=60)] = Field(
        86400.0, description="seconds between two shuffle self-tests (R-RNG-2)"
    )
    selftest_shuffles: Annotated[int, Field(ge=1000)] = Field(
        100_000, description="decks each shuffle self-test draws"
    )


class AccountsSection(_Section):
    """Sign-up, sign-in, passwords and play chips."""

    signups: Annotated[int, Field(ge=1)] = Field(
        5, description="sign-ups allowed per client address in signup_window"
    )
    signup_window: Annotated[float, Field(gt=0)] = Field(
        600.0, description="seconds of the sign-up limit's window"
    )
    signup_exempt: Addresses = Field(
        parse_addresses(SIGNUP_EXEMPT),
        description="client addresses without the sign-up limit ('' for none)",
    )
    account_failures: Annotated[int, Field(ge=1)] = Field(
        5, description="failed sign-ins per account and address in failure_window"
    )
    address_failures: Annotated[int, Field(ge=1)] = Field(
        20, description="failed sign-ins per address in failure_window"
    )
    failure_window: Annotated[float, Field(gt=0)] = Field(
        300.0, description="seconds of the sign-in failure window"
    )
    hash_pool: Annotated[int, Field(ge=1)] = Field(
        2, description="passwords hashed at once, each argon2_memory_kib"
    )
    argon2_time_cost: Annotated[int, Field(ge=1)] = Field(3, description="Argon2id passes")
    argon2_memory_kib: Annotated[int, Field(ge=8)] = Field(
        65536, description="Argon2id memory per hash, KiB"
    )
    argon2_parallelism: Annotated[int, Field(ge=1)] = Field(4, description="Argon2id lanes")
    password_min: Annotated[int, Field(ge=1, le=128)] = Field(
        8, description="shortest password sign-up accepts"
    )
    sign_in_retention_days: Annotated[float, Field(gt=0, le=36500)] = Field(
        90.0, description="how long the sign-in log keeps each sign-in (docs/integrity.md)"
    )
    grant_to: Annotated[int, Field(ge=1)] = Field(
        10_000, description="the play chips a grant tops the PLAY balance up to"
    )
    grant_every: Annotated[float, Field(gt=0)] = Field(
        3600.0, description="seconds of a grant period (one grant a period)"
    )
    heavy_reads: Annotated[int, Field(ge=1)] = Field(
        10,
        description="statistics and exports computed per account in heavy_window, per server "
        "or gateway (429 beyond; a repeat within 30 s comes from a cache)",
    )
    heavy_window: Annotated[float, Field(gt=0)] = Field(
        60.0, description="seconds of the statistics and exports limit's window"
    )


class ProtocolSection(_Section):
    """The websocket protocol's limits."""

    rate: Annotated[float, Field(gt=0)] = Field(20.0, description="messages a second")
    burst: Annotated[float, Field(ge=1)] = Field(40.0, description="messages above the rate")
    strikes: Annotated[int, Field(ge=1)] = Field(
        20, description="rate-limit refusals before a connection is closed"
    )
    chat_rate: Annotated[float, Field(gt=0)] = Field(1.0, description="chat lines a second")
    chat_burst: Annotated[float, Field(ge=1)] = Field(5.0, description="chat lines above it")
    outbox: Annotated[int, Field(ge=10)] = Field(
        2000, description="frames queued for a slow reader before it is dropped"
    )
    hello_seconds: Annotated[float, Field(gt=0)] = Field(
        10.0, description="how long a new connection has to say hello"
    )
    connections_per_address: Annotated[int, Field(ge=1)] = Field(
        64,
        description="websocket connections held at once from one client address, per server "
        "or gateway (players behind one router share one: keep it 32 or more)",
    )
    connections_per_session: Annotated[int, Field(ge=1)] = Field(
        16, description="websocket connections held at once with one sign-in's token"
    )


class HomeSection(_Section):
    """Home games (docs/home-games.md): the bounds within which players host private tables."""

    games_at_once: Annotated[int, Field(ge=0)] = Field(
        3, description="games a player may host at once (0: no home games)"
    )
    games_per_day: Annotated[int, Field(ge=0)] = Field(
        10, description="games a player may create in 24 hours"
    )
    max_seats: Annotated[int, Field(ge=2, le=10)] = Field(10, description="most seats a game has")
    min_big_blind: Annotated[int, Field(ge=1)] = Field(
        2, description="the smallest big blind a game may have (its own chips)"
    )
    max_big_blind: Annotated[int, Field(ge=1)] = Field(
        1_000_000, description="the largest big blind a game may have (its own chips)"
    )
    idle_hours: Annotated[float, Field(gt=0, le=8760)] = Field(
        12.0, description="a game ends after this many hours with no hand dealt"
    )
    currencies: HomeCurrencies = Field(
        (),
        description="wallet currencies a host may choose besides the game's own chips "
        "(none: own chips only), such as PLAY or USD",
    )
    rake_percent: Annotated[int, Field(ge=0, le=100)] = Field(
        5, description="the rake of a game in a wallet currency, in percent of each hand's pots"
    )
    rake_cap: Annotated[int, Field(ge=0)] = Field(
        6, description="the rake's cap per hand of a game in a wallet currency, in big blinds"
    )
    no_flop_no_drop: bool = Field(
        False, description="no rake at a game in a wallet currency when a hand ends preflop"
    )


class Settings(BaseSettings):
    """Every setting of ``feltroom serve``, by section."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX, env_nested_delimiter="__", extra="forbid", frozen=True
    )

    server: ServerSection = ServerSection()
    log: LogSection = LogSection()
    room: RoomSection = RoomSection()
    accounts: AccountsSection = AccountsSection()
    protocol: ProtocolSection = ProtocolSection()
    home: HomeSection = HomeSection()

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # ``load_settings`` builds its sources itself (the file is an argument)
        return (init_settings,)


SECTIONS: dict[str, type[_Section]] = {
    name: field.annotation  # type: ignore[misc]
    for name, field in Settings.model_fields.items()
}
SECRET_URLS = {("server", "db"), ("server", "broker")}


def setting_names() -> Iterator[tuple[str, str]]:
    """Every (section, key), in order."""
    for section, model in SECTIONS.items():
        for key in model.model_fields:
            yield section, key


def default_of(section: str, key: str) -> Any:
    return SECTIONS[section].model_fields[key].default


def env_name(section: str, key: str) -> str:
    return f"{ENV_PREFIX}{section.upper()}__{key.upper()}"


def _valid_keys(section: str) -> str:
    return ", ".join(SECTIONS[section].model_fields)


def _check_names(found: Mapping[str, Any], where: str, name_of: Any) -> None:
    """Unknown sections and keys, named with what is valid."""
    for section, values in found.items():
        if section not in SECTIONS:
            raise ConfigError(
                f"{where}: unknown section {name_of(section, None)}; sections are "
                f"{', '.join(SECTIONS)}"
            )
        if not isinstance(values, Mapping):
            raise ConfigError(f"{where}: {name_of(section, None)} must be a table of settings")
        for key in values:
            if key not in SECTIONS[section].model_fields:
                raise ConfigError(
                    f"{where}: unknown setting {name_of(section, key)}; the settings of "
                    f"[{section}] are {_valid_keys(section)}"
                )


def _read_file(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as file:
            data = tomllib.load(file)
    except OSError as error:
        raise ConfigError(f"cannot read the configuration file {path}: {error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path} is not valid TOML: {error}") from None
    _check_names(data, str(path), lambda s, k: f"[{s}]" if k is None else f"[{s}] {k}")
    # pydantic-settings' own reader gives what the file holds to the model
    values: dict[str, Any] = TomlConfigSettingsSource(Settings, toml_file=path)()
    return values


class _Environment(EnvSettingsSource):
    """pydantic-settings' reader of ``FELTROOM_<SECTION>__<KEY>`` over a given environment."""

    def __init__(self, environ: Mapping[str, str]) -> None:
        self.given = dict(environ)
        super().__init__(
            Settings, env_prefix=ENV_PREFIX, env_nested_delimiter="__", case_sensitive=False
        )

    def _load_env_vars(self) -> Mapping[str, str | None]:
        return parse_env_vars(self.given, False, self.env_ignore_empty, self.env_parse_none_str)


def _read_env(environ: Mapping[str, str]) -> dict[str, Any]:
    """``FELTROOM_<SECTION>__<KEY>`` variables. Variables of the prefix without ``__`` are the
    other commands' (``FELTROOM_PASSWORD`` for ``feltroom acpc``) and are left alone."""
    names: dict[str, dict[str, str]] = {}
    for name in environ:
        upper = name.upper()
        if not upper.startswith(ENV_PREFIX) or "__" not in upper:
            continue
        section, _, key = upper[len(ENV_PREFIX) :].partition("__")
        names.setdefault(section.lower(), {})[key.lower()] = name
    _check_names(
        names,
        "environment",
        lambda s, k: f"{ENV_PREFIX}{s.upper()}__*" if k is None else env_name(s, k),
    )
    values: dict[str, Any] = _Environment(environ)()
    return values


def _merge(*layers: Mapping[str, Any]) -> dict[str, Any]:
    """Later layers win, key by key within a section."""
    merged: dict[str, dict[str, Any]] = {}
    for layer in layers:
        for section, values in layer.items():
            merged.setdefault(section, {}).update(values)
    return merged


_FLAGS_NAMED = {("log", "level"): "--log-level", ("log", "format"): "--log-format"}
"""The flags of ``feltroom serve`` whose name is not the key's (``--KEY`` with dashes)."""


def flag_name(section: str, key: str) -> str:
    """The flag of ``feltroom serve`` that sets this setting (where there is one)."""
    return _FLAGS_NAMED.get((section, key), f"--{key.replace('_', '-')}")


def load_settings(
    flags: Mapping[str, Mapping[str, Any]] | None = None,
    file: Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> tuple[Settings, dict[tuple[str, str], str]]:
    """The effective settings and each one's source (``flag --port``, ``env FELTROOM_...``,
    ``file PATH``, ``default``). ``flags``: ``{section: {key: value}}`` of the flags given."""
    flags = flags or {}
    file_values = _read_file(file) if file is not None else {}
    env_values = _read_env(os.environ if environ is None else environ)
    merged = _merge(file_values, env_values, flags)
    try:
        settings = Settings(**InitSettingsSource(Settings, init_kwargs=merged)())
    except ValidationError as error:
        raise ConfigError(_explain(error, flags, env_values, file)) from None
    sources: dict[tuple[str, str], str] = {}
    for section, key in setting_names():
        if key in flags.get(section, {}):
            sources[section, key] = f"flag {flag_name(section, key)}"
        elif key in env_values.get(section, {}):
            sources[section, key] = f"env {env_name(section, key)}"
        elif key in file_values.get(section, {}):
            sources[section, key] = f"file {file}"
        else:
            sources[section, key] = "default"
    return settings, sources


def _explain(
    error: ValidationError,
    flags: Mapping[str, Mapping[str, Any]],
    env_values: Mapping[str, Mapping[str, Any]],
    file: Path | None,
) -> str:
    lines = []
    for problem in error.errors():
        location = [str(part) for part in problem["loc"]]
        section, key = [*location, "", ""][:2]
        if key in flags.get(section, {}):
            where = f"flag {flag_name(section, key)}"
        elif key in env_values.get(section, {}):
            where = f"environment {env_name(section, key)}"
        else:
            where = f"[{section}] {key} in {file}"
        message = problem["msg"]
        if problem["type"] == "literal_error":
            message = f"expected one of {problem['ctx']['expected']}"
        lines.append(
            f"invalid setting {where} = {problem.get('input')!r}: {message} "
            f"(default {default_of(section, key)!r})"
            if section in SECTIONS and key in SECTIONS[section].model_fields
            else f"invalid setting {'.'.join(location)}: {message}"
        )
    return "; ".join(lines)


def shown_value(value: Any) -> str:
    """A value as a person writes it on a command line (``--help``, ``config show``)."""
    if value is None:
        return "none"
    if isinstance(value, list | tuple | set | frozenset):
        return ",".join(sorted(str(part) for part in value)) or "''"
    return str(value)


def masked(section: str, key: str, value: Any) -> Any:
    """The value as shown to people: the password of a database or broker URL replaced."""
    if (section, key) not in SECRET_URLS or not isinstance(value, str):
        return value
    parts = urlsplit(value)
    if parts.password is None:
        return value
    user = parts.username or ""
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


def shown(settings: Settings) -> dict[str, dict[str, Any]]:
    """The settings as plain JSON values, secrets masked (the start-up line, config show)."""
    plain = settings.model_dump(mode="json")
    return {
        section: {
            key: sorted(value) if isinstance(value, list) else masked(section, key, value)
            for key, value in values.items()
        }
        for section, values in plain.items()
    }
