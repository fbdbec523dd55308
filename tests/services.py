"""Throwaway PostgreSQL and Redis servers for the tests (the store's PostgreSQL tests and the
cluster's tests share them through fixtures in ``tests/conftest.py``): the servers of
``feltroom.ops.services`` (Debian's packages, installed with ``apt-get`` when missing and we are
root), which ``scripts/cluster`` and ``feltroom bench cluster`` start too.

Where a server cannot be had the tests are skipped, except in CI (``CI`` set), where a missing
server is a failure: the cluster and PostgreSQL tests must run there.

PostgreSQL: ``FELTROOM_TEST_POSTGRES_URL`` names a server to use instead (one on which the tests
may create databases).
"""

from __future__ import annotations

import os

import pytest

from feltroom.ops import services
from feltroom.ops.services import ServiceUnavailable, free_port

__all__ = ["NginxServer", "PostgresServer", "RedisServer", "free_port", "unavailable"]


def unavailable(reason: str) -> None:
    """Skip, or fail in CI where the services must be there."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI must run the PostgreSQL and cluster tests)")
    pytest.skip(reason)


class RedisServer(services.RedisServer):
    """A password-protected Redis on loopback, in memory only, that can be stopped, killed and
    started again on the same port (the broker-restart tests)."""

    def __init__(self) -> None:
        try:
            super().__init__()
        except ServiceUnavailable as error:
            unavailable(str(error))

    def start(self) -> None:
        try:
            super().start()
        except ServiceUnavailable as error:
            unavailable(str(error))


class PostgresServer(services.PostgresServer):
    """A throwaway PostgreSQL cluster on loopback (as the ``postgres`` user when we are root),
    trust authentication, ``fsync=off``; it can be restarted on the same port."""

    def __init__(self) -> None:
        try:
            super().__init__()
        except ServiceUnavailable as error:
            unavailable(str(error))

    def start(self) -> None:
        try:
            super().start()
        except ServiceUnavailable as error:
            unavailable(str(error))


class NginxServer(services.NginxServer):
    """nginx on loopback in front of some gateways, with the configuration docs/cluster.md
    gives (websockets upgraded, the client's Host kept), from Debian's package."""

    def __init__(self, upstreams: list[int]) -> None:
        try:
            super().__init__(upstreams)
        except ServiceUnavailable as error:
            unavailable(str(error))
