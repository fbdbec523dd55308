"""The room's Prometheus metrics (``GET /metrics``; docs/operations.md, "Metrics").

Two kinds, both through the official ``prometheus-client`` library, every name ``feltroom_*``:

- counters and histograms of what happens in the server (errors by code, rate-limit refusals,
  sign-ins, players' actions and how long each took to reach the watchers), kept in this
  module's ``REGISTRY`` for the process;
- figures read from the running room at each scrape (``RoomCollector``): connections, players
  seated, tables running, hands dealt and settled, the settlement latency, the shuffle self-test,
  the writer's queue depth.

``exposition(collector)`` is the text a scrape gets. ``allowed(address, networks)`` decides who may
read it on the main port (``[server] metrics_allow``, loopback by default).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Histogram,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector

from feltroom import __version__
from feltroom.room.runtime import SETTLEMENT_BUCKETS

if TYPE_CHECKING:
    from feltroom.room.runtime import RoomRuntime
    from feltroom.server.session import Hub

__all__ = [
    "ACTIONS",
    "ACTION_BROADCAST",
    "ERRORS",
    "RATE_LIMITED",
    "REGISTRY",
    "SIGN_INS",
    "RoomCollector",
    "allowed",
    "count_error",
    "exposition",
]

# no ``*_created`` series: the room's start is feltroom_uptime_seconds (the function is untyped)
disable_created_metrics()  # type: ignore[no-untyped-call]
REGISTRY = CollectorRegistry(auto_describe=True)

ERRORS = Counter(
    "feltroom_errors",
    "Errors answered to clients, by code (HTTP API and websocket protocol)",
    ["code", "channel"],
    registry=REGISTRY,
)
RATE_LIMITED = Counter(
    "feltroom_rate_limited",
    "Requests refused by a rate limit (sign-up, sign-in, grant, protocol messages, chat)",
    ["channel"],
    registry=REGISTRY,
)
SIGN_INS = Counter(
    "feltroom_sign_ins",
    "Sign-ins by result: ok, failed (wrong name or password), refused (throttled)",
    ["result"],
    registry=REGISTRY,
)
ACTIONS = Counter(
    "feltroom_actions",
    "Players' actions over the protocol, by result: accepted or refused",
    ["result"],
    registry=REGISTRY,
)
ACTION_BROADCAST = Histogram(
    "feltroom_action_broadcast_seconds",
    "From a player's action frame received to its events queued for every watcher",
    # Fine around the 100 ms objective (the alert's and the benchmarks' p99 read from these).
    buckets=(
        0.0005,
        0.001,
        0.0025,
        0.005,
        0.01,
        0.025,
        0.05,
        0.075,
        0.1,
        0.125,
        0.15,
        0.2,
        0.25,
        0.5,
        1.0,
        2.5,
    ),
    registry=REGISTRY,
)

for _channel in ("http", "websocket"):  # the series alerts are written on exist from the start
    RATE_LIMITED.labels(_channel)
for _result in ("ok", "failed", "refused"):
    SIGN_INS.labels(_result)


def count_error(code: str, channel: str) -> None:
    """One error answered on ``channel`` (``http`` or ``websocket``)."""
    ERRORS.labels(code, channel).inc()
    if code == "rate_limited":
        RATE_LIMITED.labels(channel).inc()


class RoomCollector(Collector):
    """The running room's figures, read at each scrape."""

    def __init__(self, runtime: RoomRuntime, hub: Hub | None = None) -> None:
        self.runtime = runtime
        self.hub = hub

    def collect(self) -> Iterator[Metric]:
        runtime = self.runtime
        info = GaugeMetricFamily("feltroom_info", "The room's version", labels=["version"])
        info.add_metric([__version__], 1)
        yield info
        yield GaugeMetricFamily(
            "feltroom_uptime_seconds", "Seconds since the room started", value=_uptime(runtime)
        )
        if self.hub is not None:
            yield GaugeMetricFamily(
                "feltroom_connections",
                "Open websocket connections",
                value=len(self.hub.connections),
            )
        running = sum(1 for r in runtime.runners.values() if r.status == "running")
        yield GaugeMetricFamily("feltroom_tables_running", "Tables dealing hands", value=running)
        yield GaugeMetricFamily(
            "feltroom_tables_paused",
            "Tables paused (an error or the operator)",
            value=len(runtime.runners) - running,
        )
        seated = GaugeMetricFamily(
            "feltroom_players_seated", "Players in a seat, people and house bots", labels=["kind"]
        )
        bots = sum(len(r.bots) for r in runtime.runners.values())
        everyone = sum(len(r.table.seats) for r in runtime.runners.values())
        seated.add_metric(["person"], everyone - bots)
        seated.add_metric(["bot"], bots)
        yield seated
        yield CounterMetricFamily(
            "feltroom_hands_dealt", "Hands dealt since start", value=runtime.hands_dealt
        )
        yield CounterMetricFamily(
            "feltroom_hands_settled",
            "Hands settled in the books since start",
            value=runtime.hands_settled,
        )
        yield CounterMetricFamily(
            "feltroom_writer_commits",
            "Transactions the books' writer committed",
            value=runtime.writer.commits,
        )
        yield GaugeMetricFamily(
            "feltroom_writer_queue_depth",
            "Requests waiting for the books' writer",
            value=runtime.writer.depth(),
        )
        yield _histogram(
            "feltroom_settlement_seconds",
            "From a hand's end to its settlement committed in the books",
            runtime.settle_seconds,
        )
        last = runtime.selftests[-1] if runtime.selftests else None
        selftest = GaugeMetricFamily(
            "feltroom_shuffle_selftest_pass",
            "The last shuffle self-test: 1 passed, 0 failed, -1 not run yet (R-RNG-2)",
            value=-1 if last is None else (1 if last.get("pass") else 0),
        )
        yield selftest
        if last is not None:
            yield GaugeMetricFamily(
                "feltroom_shuffle_selftest_timestamp_seconds",
                "When the last shuffle self-test ran (epoch seconds)",
                value=float(last["at"]),
            )


def _uptime(runtime: RoomRuntime) -> float:
    return max(0.0, runtime.clock() - runtime.started_at)


def _histogram(name: str, documentation: str, seconds: Sequence[float]) -> HistogramMetricFamily:
    """A histogram family from the room's own bucket counts (``SETTLEMENT_BUCKETS`` plus +Inf
    and the sum, as ``RoomRuntime.settle_seconds`` keeps them)."""
    counts, total = seconds[:-1], seconds[-1]
    buckets: list[tuple[str, float]] = []
    running = 0.0
    for bound, count in zip((*SETTLEMENT_BUCKETS, float("inf")), counts, strict=True):
        running += count
        buckets.append(("+Inf" if bound == float("inf") else repr(bound), running))
    family = HistogramMetricFamily(name, documentation)
    family.add_metric([], buckets, sum_value=total)
    return family


class _Both:
    """The process's metrics and one room's, as one registry for ``generate_latest``."""

    def __init__(self, collectors: Iterable[Collector]) -> None:
        self.collectors = tuple(collectors)

    def collect(self) -> Iterator[Metric]:
        for collector in self.collectors:
            yield from collector.collect()


def exposition(room: Collector | None) -> bytes:
    """The Prometheus text of the process's metrics and ``room``'s."""
    collectors: list[Any] = [REGISTRY] if room is None else [REGISTRY, room]
    return generate_latest(_Both(collectors))


def allowed(address: str | None, networks: Sequence[str]) -> bool:
    """Whether a client at ``address`` may read the metrics (``*`` allows any)."""
    if "*" in networks:
        return True
    if not address:
        return False
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in ipaddress.ip_network(network, strict=False) for network in networks)
