"""The HTTP API under abuse (issue 27): query values and headers that ``int()`` refuses, the
security headers and the origin rule on every ``/api`` path, the sign-up throttle per address
and its exempt addresses, the sign-in throttle per account and address together, and the
hashing pool's bound."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from argon2 import PasswordHasher
from starlette.testclient import TestClient

from fakeclock import Clock
from feltroom.room import Accounts, Cashier, Settlement
from feltroom.room.runtime import RoomRuntime, RuntimeSettings
from feltroom.room.tables_config import parse_tables
from feltroom.server import create_app
from feltroom.server.app import server_config
from feltroom.server.rest import RestLimits

PASSWORD = "correct horse"
TABLE = """
[[table]]
id = "t"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 6
"""


@pytest.fixture
def room(settlement: Settlement, accounts: Accounts, cashier: Cashier, clock: Clock) -> RoomRuntime:
    return RoomRuntime(
        settlement,
        accounts,
        cashier,
        parse_tables(TABLE),
        settings=RuntimeSettings(house_bots=0, selftest_first=10**9),
        clock=clock,
    )


@pytest.fixture
def client(room: RoomRuntime, clock: Clock) -> Iterator[TestClient]:
    app = create_app(room, drive=False, limits=RestLimits(clock=clock))
    with TestClient(app) as test_client:
        yield test_client


def _error(response: Any, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    assert response.json()["error"]["code"] == code
    message: str = response.json()["error"]["message"]
    return message


def _token(client: TestClient, name: str, password: str = PASSWORD) -> dict[str, str]:
    response = client.post("/api/signin", json={"name": name, "password": password})
    assert response.status_code == 200, response.text
    return {"Authorization": f"Bearer {response.json()['token']}"}


# ------------------------------------------------------------------ point 7: bad query values


@pytest.mark.parametrize("value", ["²", "١٢", "٣", "1²", "+5", " 5", "5 ", "-1", "0x10", "1e3"])
def test_query_values_int_refuses_are_a_400_not_a_500(
    client: TestClient, accounts: Accounts, value: str
) -> None:
    accounts.sign_up("alice", PASSWORD)
    headers = _token(client, "alice")
    for name in ("limit", "before"):
        response = client.get("/api/hands", params={name: value}, headers=headers)
        assert "whole number" in _error(response, 400, "invalid_field")


@pytest.mark.parametrize("length", [b"\xb2", b"\xb9", b"12\xb3", b"-1", b"1.0", b"", b"9" * 30])
def test_a_content_length_int_refuses_is_a_400(client: TestClient, length: bytes) -> None:
    """Header bytes are read as Latin-1: b"\\xb2" is "²", which str.isdigit() accepted."""
    response = client.post("/api/signup", content=b"{}", headers={"Content-Length": length})
    if length == b"9" * 30:
        assert response.status_code in (400, 413), response.text
    else:
        assert "Content-Length" in _error(response, 400, "malformed")


@pytest.mark.parametrize("length", [b"\xb2", b"\xb9", b"12\xb3", b"\xd9\xa3"])
def test_a_content_length_of_latin1_digits_str_isdigit_accepts_is_a_400(length: bytes) -> None:
    """The same, below the HTTP client (which re-encodes such bytes): the header's raw bytes in
    the ASGI scope, read as Latin-1 by the request ("²", "¹", "12³"), are refused as malformed,
    not turned into a 500 by ``int()``."""
    from starlette.requests import Request

    from feltroom.server.rest import ApiError, _read_json

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"{}", "more_body": False}

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/api/signup",
        "headers": [(b"content-length", length), (b"content-type", b"application/json")],
    }
    with pytest.raises(ApiError) as refused:
        asyncio.run(_read_json(Request(scope, receive), 1024))
    assert (refused.value.status, refused.value.code) == (400, "malformed")
    assert "Content-Length" in str(refused.value)


# ------------------------------------------------------------------ point 8: headers, origins


@pytest.mark.parametrize(
    "path", ["/", "/status", "/static/app.js", "/api/lobby", "/api/status", "/api/nothing"]
)
def test_the_page_and_the_api_send_the_security_headers(client: TestClient, path: str) -> None:
    response = client.get(path)
    policy = response.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in policy
    assert "default-src 'self'" in policy
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "no-referrer"


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/api/lobby"),
        ("GET", "/api/status"),
        ("GET", "/api/nothing"),
        ("POST", "/api/signup"),
        ("GET", "/api/hands"),
    ],
)
def test_the_api_origin_rule_holds_on_every_api_path(
    client: TestClient, method: str, path: str
) -> None:
    for origin in ("https://evil.example", "null", "http://testserver:8080"):
        response = client.request(method, path, headers={"Origin": origin})
        assert "origin" in _error(response, 403, "forbidden_origin")
        assert response.headers["x-content-type-options"] == "nosniff"
    same = client.request(method, path, headers={"Origin": "http://testserver"})
    assert same.status_code != 403


# ------------------------------------------------------------------ point 4: sign-up throttle


def test_sign_ups_are_limited_per_address_with_retry_after(room: RoomRuntime, clock: Clock) -> None:
    app = create_app(room, drive=False, limits=RestLimits(clock=clock))
    stranger = TestClient(app, client=("203.0.113.7", 40000))
    other = TestClient(app, client=("198.51.100.2", 40000))
    for k in range(5):
        response = stranger.post("/api/signup", json={"name": f"u{k}", "password": PASSWORD})
        assert response.status_code == 201, response.text
    refused = stranger.post("/api/signup", json={"name": "u5", "password": PASSWORD})
    assert "at most 5 sign-ups" in _error(refused, 429, "rate_limited")
    assert refused.headers["retry-after"] == "600"
    assert other.post("/api/signup", json={"name": "v0", "password": PASSWORD}).status_code == 201
    clock.now += 599
    assert (
        stranger.post("/api/signup", json={"name": "u5", "password": PASSWORD}).status_code == 429
    )
    clock.now += 1
    assert (
        stranger.post("/api/signup", json={"name": "u5", "password": PASSWORD}).status_code == 201
    )


def test_only_the_listed_addresses_are_exempt_from_the_sign_up_limit(
    room: RoomRuntime, clock: Clock
) -> None:
    limits = RestLimits(clock=clock)
    assert limits.signup_exempt == frozenset({"127.0.0.1", "::1"})
    app = create_app(room, drive=False, limits=limits)
    for host in ("127.0.0.1", "::1"):
        local = TestClient(app, client=(host, 40000))
        for k in range(8):
            name = f"l{k}-{len(host)}"
            assert (
                local.post("/api/signup", json={"name": name, "password": PASSWORD}).status_code
                == 201
            )
    loopback = TestClient(app, client=("127.0.0.2", 40000))
    codes = [
        loopback.post("/api/signup", json={"name": f"m{k}", "password": PASSWORD}).status_code
        for k in range(6)
    ]
    assert codes == [201] * 5 + [429]
    listed = create_app(
        room, drive=False, limits=RestLimits(clock=clock, signup_exempt=frozenset({"10.0.0.5"}))
    )
    assert (
        TestClient(listed, client=("10.0.0.5", 1))
        .post("/api/signup", json={"name": "n0", "password": PASSWORD})
        .status_code
        == 201
    )


# ------------------------------------------------------------------ point 5: sign-in throttle


def test_a_strangers_wrong_passwords_do_not_lock_the_owner_out(
    room: RoomRuntime, accounts: Accounts, clock: Clock
) -> None:
    accounts.sign_up("alice", PASSWORD)
    app = create_app(room, drive=False, limits=RestLimits(clock=clock))
    attacker = TestClient(app, client=("203.0.113.7", 40000))
    owner = TestClient(app, client=("198.51.100.2", 40000))
    for name in ("alice", "ALICE", "alice", "Alice", "alice"):  # one account in any case
        wrong = attacker.post("/api/signin", json={"name": name, "password": "wrong password"})
        _error(wrong, 401, "unauthenticated")
    refused = attacker.post("/api/signin", json={"name": "alice", "password": PASSWORD})
    _error(refused, 429, "rate_limited")
    assert refused.headers["retry-after"] == "300"
    _token(owner, "alice")  # the owner, elsewhere, is not locked out
    for _ in range(4):  # nor by their own few mistakes
        owner.post("/api/signin", json={"name": "alice", "password": "typo typo"})
    _token(owner, "alice")


def test_x_forwarded_for_is_not_believed_unless_the_operator_names_the_proxy(
    room: RoomRuntime, clock: Clock
) -> None:
    config = server_config(create_app(room, drive=False))
    assert config.proxy_headers is False
    trusting = server_config(create_app(room, drive=False), forwarded_allow_ips=["10.0.0.1"])
    assert trusting.proxy_headers is True
    assert trusting.forwarded_allow_ips == ["10.0.0.1"]


# ------------------------------------------------------------------ point 4: the hashing pool


class _CountingHasher(PasswordHasher):
    """A real Argon2 hasher (cheap parameters) that records how many hashes run at once."""

    def __init__(self, base: PasswordHasher) -> None:
        super().__init__(
            time_cost=base.time_cost,
            memory_cost=base.memory_cost,
            parallelism=base.parallelism,
            type=base.type,
        )
        self.lock = threading.Lock()
        self.running = 0
        self.most = 0

    def hash(self, password: str | bytes, *, salt: bytes | None = None) -> str:
        with self.lock:
            self.running += 1
            self.most = max(self.most, self.running)
        try:
            time.sleep(0.05)  # long enough for every request to be waiting at once
            return super().hash(password, salt=salt)
        finally:
            with self.lock:
                self.running -= 1


@pytest.mark.parametrize("pool", [1, 2, 3])
def test_at_most_pool_passwords_are_hashed_at_once(
    room: RoomRuntime, accounts: Accounts, clock: Clock, pool: int
) -> None:
    counting = _CountingHasher(accounts.hasher)
    accounts.hasher = counting
    app = create_app(room, drive=False, limits=RestLimits(clock=clock, hash_pool=pool))

    async def crowd() -> list[int]:
        transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 1))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            responses = await asyncio.gather(
                *(
                    http.post("/api/signup", json={"name": f"c{k}", "password": PASSWORD})
                    for k in range(12)
                )
            )
        return [r.status_code for r in responses]

    assert asyncio.run(crowd()) == [201] * 12
    assert counting.most == pool
