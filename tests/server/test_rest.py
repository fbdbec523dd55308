"""The HTTP API (feltroom.server.rest): accounts, the sign-in throttle, balances, play-money grants,
hand histories (JSON and PHH), the origin check and bad input."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from fakeclock import Clock
from feltroom.cards import parse_cards
from feltroom.history import phh
from feltroom.history.record import ActionKind
from feltroom.history.replay import replay
from feltroom.room import Accounts, Cashier, HandHistories, Settlement
from feltroom.room.ledger import player_owner
from feltroom.room.runtime import RoomRuntime, RuntimeSettings
from feltroom.room.tables_config import parse_tables
from feltroom.rules import Action as EngineAction
from feltroom.rules import Call, Check, Fold, LegalActions
from feltroom.server import create_app
from feltroom.server.rest import RestLimits
from feltroom.store import SqlStorage

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
        settings=RuntimeSettings(
            house_bots=3, bot_think=(0.2, 0.2), between_hands=0.5, selftest_first=10**9
        ),
        clock=clock,
    )


@pytest.fixture
def limits(clock: Clock) -> RestLimits:
    return RestLimits(clock=clock)


@pytest.fixture
def client(room: RoomRuntime, limits: RestLimits) -> Iterator[TestClient]:
    with TestClient(create_app(room, drive=False, limits=limits)) as test_client:
        yield test_client


def _error(response: Any, status: int, code: str) -> str:
    """The response is the one error shape with this status and code; returns the message."""
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"code", "message", "details"}
    assert isinstance(body["error"]["details"], dict)
    assert body["error"]["code"] == code
    message = body["error"]["message"]
    assert isinstance(message, str)
    assert message
    return message


def _sign_in(client: TestClient, name: str, password: str = PASSWORD) -> dict[str, str]:
    response = client.post("/api/signin", json={"name": name, "password": password})
    assert response.status_code == 200, response.text
    return {"Authorization": f"Bearer {response.json()['token']}"}


# ----------------------------------------------------------------------- accounts


def test_sign_up_then_sign_in_and_out(client: TestClient, accounts: Accounts, clock: Clock) -> None:
    response = client.post("/api/signup", json={"name": "zoe", "password": "p" * 8})
    assert response.status_code == 201
    assert response.json() == {"player": "zoe"}
    response = client.post("/api/signin", json={"name": "zoe", "password": "p" * 8})
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"token", "player", "expires"}
    assert body["player"] == "zoe"
    assert body["expires"] == clock.now + accounts.session_seconds
    headers = {"Authorization": f"Bearer {body['token']}"}
    assert client.get("/api/me", headers=headers).json() == {"player": "zoe", "balances": {}}
    response = client.post("/api/signout", headers=headers)
    assert response.status_code == 200
    assert response.json() == {"player": "zoe", "signed_out": True}
    refused = client.get("/api/me", headers=headers)
    _error(refused, 401, "unauthenticated")
    assert refused.headers["www-authenticate"].startswith("Bearer")


def test_sign_up_refusals_say_what_is_valid(client: TestClient) -> None:
    assert client.post("/api/signup", json={"name": "zoe", "password": PASSWORD}).status_code == 201
    taken = client.post("/api/signup", json={"name": "zoe", "password": PASSWORD})
    assert "taken" in _error(taken, 409, "refused")
    reserved = client.post("/api/signup", json={"name": "House", "password": PASSWORD})
    assert "reserved" in _error(reserved, 400, "invalid_field")
    for name in ("", "-zoe", "a" * 33, "zoë", "two words"):
        bad = client.post("/api/signup", json={"name": name, "password": PASSWORD})
        assert "1 to 32 letters" in _error(bad, 400, "invalid_field")
    short = client.post("/api/signup", json={"name": "yan", "password": "x" * 7})
    assert "8 to 128" in _error(short, 400, "invalid_field")
    long = client.post("/api/signup", json={"name": "yan", "password": "x" * 129})
    assert "8 to 128" in _error(long, 400, "invalid_field")
    # nothing changed: the refused names can still be taken
    ok = client.post("/api/signup", json={"name": "yan", "password": "x" * 128})
    assert ok.status_code == 201


def test_sign_in_refuses_a_wrong_name_and_a_wrong_password_alike(
    client: TestClient, players: tuple[str, ...]
) -> None:
    wrong_password = client.post("/api/signin", json={"name": "alice", "password": "nope" * 3})
    unknown = client.post("/api/signin", json={"name": "nobody", "password": PASSWORD})
    assert _error(wrong_password, 401, "unauthenticated") == _error(unknown, 401, "unauthenticated")
    assert wrong_password.json() == unknown.json()
    assert wrong_password.headers["www-authenticate"] == unknown.headers["www-authenticate"]


def test_hashing_runs_off_the_event_loop(
    client: TestClient, accounts: Accounts, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []

    def spy(original: Callable[..., Any], name: str) -> Callable[..., Any]:
        def call(*args: Any) -> Any:
            with pytest.raises(RuntimeError):
                asyncio.get_running_loop()  # a worker thread has no running loop
            calls.append(name)
            return original(*args)

        return call

    for name in ("sign_up", "sign_in", "authenticate", "sign_out"):
        monkeypatch.setattr(accounts, name, spy(getattr(accounts, name), name))
    client.post("/api/signup", json={"name": "zoe", "password": PASSWORD})
    headers = _sign_in(client, "zoe")
    client.get("/api/me", headers=headers)
    client.post("/api/signout", headers=headers)
    assert calls == ["sign_up", "sign_in", "authenticate", "authenticate", "sign_out"]


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/api/signout"),
        ("GET", "/api/me"),
        ("GET", "/api/balance"),
        ("POST", "/api/grant"),
        ("GET", "/api/hands"),
        ("GET", "/api/hands/1"),
        ("GET", "/api/hands/1.phh"),
    ],
)
def test_every_player_endpoint_needs_a_valid_bearer_token(
    client: TestClient, accounts: Accounts, clock: Clock, method: str, path: str
) -> None:
    accounts.sign_up("zoe", PASSWORD)
    for headers in (
        {},
        {"Authorization": "Basic em9lOnBhc3M="},
        {"Authorization": "Bearer"},
        {"Authorization": "Bearer not-a-token"},
    ):
        response = client.request(method, path, headers=headers)
        _error(response, 401, "unauthenticated")
        assert response.headers["www-authenticate"].startswith("Bearer")
    session = accounts.sign_in("zoe", PASSWORD)
    clock.now = session.expires_at  # expired
    response = client.request(method, path, headers={"Authorization": f"Bearer {session.token}"})
    assert "expired" in _error(response, 401, "unauthenticated")
    assert response.headers["www-authenticate"].startswith("Bearer")


# ----------------------------------------------------------------------- the throttle


def test_failed_sign_ins_are_throttled_per_account(
    client: TestClient, players: tuple[str, ...], clock: Clock
) -> None:
    for _ in range(5):
        wrong = client.post("/api/signin", json={"name": "alice", "password": "wrong password"})
        _error(wrong, 401, "unauthenticated")
    clock.now += 10
    # beyond the limit: refused even with the right password, until the window passes
    refused = client.post("/api/signin", json={"name": "alice", "password": PASSWORD})
    assert "try again in 290 s" in _error(refused, 429, "rate_limited")
    assert refused.headers["retry-after"] == "290"
    # another account from the same address is not affected
    _sign_in(client, "bob")
    clock.now += 289
    refused = client.post("/api/signin", json={"name": "alice", "password": PASSWORD})
    assert refused.headers["retry-after"] == "1"
    clock.now += 1
    _sign_in(client, "alice")


def test_failed_sign_ins_are_throttled_per_address(
    room: RoomRuntime, limits: RestLimits, players: tuple[str, ...], clock: Clock
) -> None:
    app = create_app(room, drive=False, limits=limits)
    attacker = TestClient(app, client=("203.0.113.7", 40000))
    neighbour = TestClient(app, client=("198.51.100.2", 40000))
    for k in range(20):  # 4 failures for each of 5 names: no account reaches its limit
        name = ("alice", "bob", "carol", "dave", "erin")[k % 5]
        wrong = attacker.post("/api/signin", json={"name": name, "password": "wrong password"})
        _error(wrong, 401, "unauthenticated")
    refused = attacker.post("/api/signin", json={"name": "alice", "password": PASSWORD})
    _error(refused, 429, "rate_limited")
    assert refused.headers["retry-after"] == "300"
    _sign_in(neighbour, "alice")  # the account itself is not locked: 4 failures only
    clock.now += 300
    _sign_in(attacker, "alice")


def test_a_successful_sign_in_clears_the_accounts_failures(
    client: TestClient, players: tuple[str, ...]
) -> None:
    for _ in range(4):
        client.post("/api/signin", json={"name": "alice", "password": "wrong password"})
    _sign_in(client, "alice")
    for _ in range(4):
        client.post("/api/signin", json={"name": "alice", "password": "wrong password"})
    _sign_in(client, "alice")


def test_the_throttle_settings_are_the_rooms(
    room: RoomRuntime, players: tuple[str, ...], clock: Clock
) -> None:
    limits = RestLimits(account_failures=2, address_failures=50, failure_window=60, clock=clock)
    client = TestClient(create_app(room, drive=False, limits=limits))
    for _ in range(2):
        client.post("/api/signin", json={"name": "alice", "password": "wrong password"})
    refused = client.post("/api/signin", json={"name": "alice", "password": PASSWORD})
    assert refused.headers["retry-after"] == "60"
    clock.now += 60
    _sign_in(client, "alice")
    with pytest.raises(ValueError, match="account_failures"):
        RestLimits(account_failures=0)


# ----------------------------------------------------------------------- balances and grants


def test_me_and_balance_show_every_currency(
    client: TestClient, players: tuple[str, ...], cashier: Cashier
) -> None:
    cashier.deposit("alice", "USD", "12.34", "deposit-1")
    headers = _sign_in(client, "alice")
    assert client.get("/api/me", headers=headers).json() == {
        "player": "alice",
        "balances": {"PLAY": "1000", "USD": "12.34"},
    }
    assert client.get("/api/balance", headers=headers).json() == cashier.balance("alice")


# Rules: R-GAME-6
def test_R_GAME_6_a_grant_tops_up_play_chips_only_once_a_period(
    client: TestClient, players: tuple[str, ...], cashier: Cashier, clock: Clock
) -> None:
    clock.now = 3600.0 * 1000 + 100  # 100 s into a period
    cashier.deposit("alice", "USD", "50.00", "deposit-1")
    headers = _sign_in(client, "alice")
    response = client.post("/api/grant", headers=headers)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["currency"] == "PLAY"
    assert body["granted"] == "9000"
    assert body["balance"] == "10000"
    assert body["repeated"] is False
    assert body["next_grant_at"] == 3600.0 * 1001
    assert body["key"] == "play-grant:alice:1000"
    assert cashier.balance("alice")["balances"] == {"PLAY": "10000", "USD": "50.00"}
    # once per period: the refusal says when the next grant is possible
    cashier.withdraw("alice", "PLAY", 6000, "spent")
    again = client.post("/api/grant", headers=headers)
    message = _error(again, 429, "rate_limited")
    assert "next is possible" in message
    assert "3500 s" in message
    assert again.headers["retry-after"] == "3500"
    assert cashier.balance("alice")["balances"]["PLAY"] == "4000"
    clock.now += 3500  # the next period
    response = client.post("/api/grant", headers=headers)
    assert response.json()["granted"] == "6000"
    assert cashier.balance("alice")["balances"] == {"PLAY": "10000", "USD": "50.00"}
    # at the level already: nothing to grant, and the period's grant is not used up
    clock.now += 3600
    full = client.post("/api/grant", headers=headers)
    assert "10000" in _error(full, 409, "refused")
    cashier.withdraw("alice", "PLAY", 1, "spent-2")
    assert client.post("/api/grant", headers=headers).json()["granted"] == "1"


# Rules: R-GAME-6
def test_the_grant_status_says_when_the_next_grant_comes(
    client: TestClient, players: tuple[str, ...], cashier: Cashier, clock: Clock
) -> None:
    """Issue 42, point 6: a player out of play chips is told when the next grant comes."""
    clock.now = 3600.0 * 1000 + 100
    headers = _sign_in(client, "alice")
    status = client.get("/api/grant", headers=headers).json()
    assert status["available"] is True
    assert status["next_grant_at"] == clock.now
    assert (status["held"], status["grant_to"], status["every"]) == (1000, 10_000, 3600.0)
    client.post("/api/grant", headers=headers)
    cashier.withdraw("alice", "PLAY", 10_000, "lost")
    status = client.get("/api/grant", headers=headers).json()
    assert status["available"] is False
    assert status["next_grant_at"] == 3600.0 * 1001
    assert status["held"] == 0


def test_R_GAME_6_a_double_click_cannot_grant_twice(
    room: RoomRuntime,
    limits: RestLimits,
    players: tuple[str, ...],
    cashier: Cashier,
    storage: SqlStorage,
) -> None:
    app = create_app(room, drive=False, limits=limits)
    with TestClient(app) as client:
        headers = _sign_in(client, "bob")

        def click(_: int) -> int:
            status: int = client.post("/api/grant", headers=headers).status_code
            return status

        with ThreadPoolExecutor(8) as pool:
            statuses = list(pool.map(click, range(8)))
    assert 200 in statuses
    # the others: the period's grant is taken (429), or the wallet is already full (409)
    assert set(statuses) <= {200, 409, 429}
    assert cashier.balance("bob")["balances"]["PLAY"] == "10000"
    with storage.transaction(write=False) as tx:
        plays = tx.accounts_of(player_owner(tx, "bob"))
    assert [row.balance for row in plays if row.currency == "PLAY"] == [10_000]


def test_a_grant_takes_no_body_fields(
    client: TestClient, players: tuple[str, ...], cashier: Cashier
) -> None:
    headers = _sign_in(client, "alice")
    response = client.post("/api/grant", headers=headers, json={"amount": 1_000_000})
    assert "unknown field 'amount'" in _error(response, 400, "invalid_field")
    assert cashier.balance("alice")["balances"]["PLAY"] == "1000"
    assert client.post("/api/grant", headers=headers, json={}).status_code == 200


# ----------------------------------------------------------------------- hand histories


def _alice(legal: LegalActions, hand_number: int) -> EngineAction:
    """Alice folds every third hand when she may, else checks or calls small bets (showdowns)."""
    if legal.check:
        return Check()
    if hand_number % 3 == 0 or legal.call is None or legal.call > 10:
        return Fold()
    return Call()


def _bob(legal: LegalActions, hand_number: int) -> EngineAction:
    """Bob folds whenever he faces a bet."""
    return Fold() if legal.fold else Check()


def _truth(storage: SqlStorage, hand_id: int) -> dict[str, Any]:
    """The whole truth the store keeps of a hand: every player's row."""
    with storage.transaction(write=False) as tx:
        return {row.player: row for row in tx.hand_players(hand_id)}


def _covered(storage: SqlStorage, hand_ids: list[int]) -> bool:
    """Whether the hands hold every case the test needs: alice folded; a showdown of others;
    a player whose cards alice may not see."""
    folded = showdown = hidden = False
    for hand_id in hand_ids:
        rows = _truth(storage, hand_id)
        alice = rows["alice"]
        folded |= not alice.showdown
        showdown |= any(r.showdown for name, r in rows.items() if name != "alice")
        hidden |= any(not r.showdown and not r.shown for n, r in rows.items() if n != "alice")
    return folded and showdown and hidden and len(hand_ids) >= 6


@pytest.fixture
def played(
    room: RoomRuntime, players: tuple[str, ...], storage: SqlStorage, clock: Clock
) -> Iterator[list[int]]:
    """Hands at a table of three house bots, alice and bob; carol never sits down. Returns the
    ids of the hands alice was dealt into."""
    policies = {"alice": _alice, "bob": _bob}
    histories = HandHistories(storage)
    before: list[int] = []

    async def play() -> list[int]:
        await room.start()
        runner = room.runners["t"]
        for _ in range(1000):
            if room.hands_settled >= 3:
                break
            clock.now += 0.5
            await room.advance(clock.now)
        for bot in runner.bots:  # hands before alice sat down
            before.extend(histories.hands_of(bot, 200))
        table = runner.table
        free = [seat for seat in range(1, 7) if seat not in table.seats]
        await room.join("t", "alice", free[0])
        await room.join("t", "bob", free[1])
        settled = room.hands_settled
        for _ in range(20_000):
            clock.now += 0.5
            await room.advance(clock.now)
            for name in policies:
                seat = table.seat_of(name)
                assert seat is not None, f"{name} left the table"
                assert table.seats[seat].stack > 0, f"{name} went broke"
            hand = table.hand
            if hand is not None and not hand.is_over and hand.to_act is not None:
                account = table.seats[hand.to_act].account
                if account in policies:
                    legal = hand.legal_actions()
                    assert legal is not None
                    await room.act("t", account, policies[account](legal, table.hand_number))
            if room.hands_settled != settled:
                settled = room.hands_settled
                ids = histories.hands_of("alice", 200)
                if _covered(storage, ids):
                    return ids
        raise AssertionError("the hands never covered every case")

    try:
        ids = asyncio.run(play())
        assert before
        assert not set(before) & set(ids)
        yield ids
    finally:
        asyncio.run(room.stop())


def _allowed(rows: dict[str, Any], player: str) -> dict[str, str | None]:
    """R-HIST-2: the hole cards ``player`` may see: their own and every showdown hand."""
    return {
        name: row.hole if name == player or row.showdown else None for name, row in rows.items()
    }


# Rules: R-HIST-1
def test_R_HIST_1_the_hand_list_holds_only_hands_the_player_was_dealt_into(
    client: TestClient, played: list[int], storage: SqlStorage
) -> None:
    headers = _sign_in(client, "alice")
    body = client.get("/api/hands", headers=headers).json()
    assert body["player"] == "alice"
    assert body["hands"] == played[:50]
    assert body["hands"] == sorted(body["hands"], reverse=True)
    assert body["limit"] == 50
    assert set(body["formats"]) == {"json", "phh", "pokerstars", "ohh"}
    assert body["formats"]["phh"]["url"] == "/api/hands/{id}.phh"
    for hand_id in body["hands"]:
        assert "alice" in _truth(storage, hand_id)
    # pages: limit and before
    page = client.get("/api/hands?limit=2", headers=headers).json()
    assert page["hands"] == played[:2]
    assert page["next_before"] == played[1]
    rest = client.get(f"/api/hands?limit=200&before={page['next_before']}", headers=headers)
    assert rest.json()["hands"] == played[2:]
    assert rest.json()["next_before"] is None
    # carol never sat down
    carol = _sign_in(client, "carol")
    assert client.get("/api/hands", headers=carol).json()["hands"] == []


# Rules: R-HIST-1
def test_R_HIST_1_a_hand_the_player_was_not_dealt_into_is_not_found(
    client: TestClient, played: list[int], storage: SqlStorage
) -> None:
    carol = _sign_in(client, "carol")
    hand_id = played[0]
    for path in (f"/api/hands/{hand_id}", f"/api/hands/{hand_id}.phh"):
        refused = client.get(path, headers=carol)
        message = _error(refused, 404, "not_found")
        assert "R-HIST-1" in message
        assert "alice" not in refused.text
    missing = client.get(f"/api/hands/{hand_id + 10_000}", headers=carol)
    # the same answer as for a hand that does not exist: nothing tells them apart
    other = _error(missing, 404, "not_found").replace(str(hand_id + 10_000), "N")
    assert other == message.replace(str(hand_id), "N")


# Rules: R-HIST-2
def test_R_HIST_2_the_json_history_shows_own_and_showdown_cards_only(
    client: TestClient, played: list[int], storage: SqlStorage
) -> None:
    for player in ("alice", "bob"):
        headers = _sign_in(client, player)
        for hand_id in played:
            rows = _truth(storage, hand_id)
            if player not in rows:
                continue
            response = client.get(f"/api/hands/{hand_id}", headers=headers)
            assert response.status_code == 200
            view = response.json()
            assert view["hand_id"] == hand_id
            holes = {p["player"]: p["hole"] for p in view["players"]}
            assert holes == _allowed(rows, player)
            assert holes[player] == rows[player].hole  # the requester's own cards
            # a folded player's cards appear nowhere in the download
            hidden = [
                card
                for name, row in rows.items()
                if holes[name] is None and not row.shown
                for card in parse_cards(row.hole)
            ]
            shown = " ".join(view["record"]["shown"].values())
            public = parse_cards(view["record"]["board"] + " " + shown)
            assert not set(hidden) & set(public)
            assert client.get(f"/api/hands/{hand_id}.json", headers=headers).json() == view


# Rules: R-HIST-2
def test_R_HIST_2_the_phh_history_writes_hidden_cards_as_unknown(
    client: TestClient, played: list[int], storage: SqlStorage
) -> None:
    headers = _sign_in(client, "alice")
    unknown = 0
    for hand_id in played:
        rows = _truth(storage, hand_id)
        allowed = _allowed(rows, "alice")
        response = client.get(f"/api/hands/{hand_id}.phh", headers=headers)
        assert response.status_code == 200, response.text
        assert response.headers["content-type"].startswith("text/plain")
        text = response.text
        assert client.get(f"/api/hands/{hand_id}?format=phh", headers=headers).text == text
        record = phh.loads(text)
        assert record.hand_id == hand_id
        assert record.metadata["table"] == "Holdem"  # the table by its name (id "t")
        seen: set[Any] = set()
        for player in record.players:
            expected = allowed[player.name]
            if expected is None and not rows[player.name].shown:
                assert player.hole == (None, None)
                unknown += 1
            else:
                assert player.hole == parse_cards(rows[player.name].hole)
            seen.update(card for card in player.hole if card is not None)
        for action in record.actions:
            seen.update(card for card in action.cards if card is not None)
            if action.kind is ActionKind.SHOW:
                assert action.seat is not None
        hidden = {
            card
            for name, row in rows.items()
            if allowed[name] is None and not row.shown
            for card in parse_cards(row.hole)
        }
        assert not seen & hidden
        assert "????" in text or not hidden
        # the export replays through the engine to the stacks the room settled
        hand = replay(record)
        assert hand.is_over
        assert record.finishing_stacks is not None
        for player, final in zip(record.players, record.finishing_stacks, strict=True):
            row = rows[player.name]
            assert final == row.start_stack - row.contribution + row.payout + row.tax
    assert unknown > 0


def test_hand_requests_refuse_bad_parameters(client: TestClient, players: tuple[str, ...]) -> None:
    headers = _sign_in(client, "alice")
    for query in ("limit=0", "limit=201", "limit=ten", "before=0", "before=-3", "sort=asc"):
        _error(client.get(f"/api/hands?{query}", headers=headers), 400, "invalid_field")
    assert client.get("/api/hands?limit=200", headers=headers).status_code == 200
    for path in ("/api/hands/abc", "/api/hands/0", "/api/hands/1.xml", "/api/hands/1?format=xml"):
        _error(client.get(path, headers=headers), 400, "invalid_field")


# ----------------------------------------------------------------------- origin and bad input


def test_browser_requests_must_come_from_the_served_origin(
    client: TestClient, players: tuple[str, ...]
) -> None:
    body = {"name": "alice", "password": PASSWORD}
    for origin in ("http://testserver", "http://TESTSERVER:80"):
        response = client.post("/api/signin", json=body, headers={"Origin": origin})
        assert response.status_code == 200
    headers = _sign_in(client, "alice")
    for origin in (
        "https://evil.example",
        "http://testserver.evil.example",
        "https://testserver",
        "http://testserver:8080",
        "null",
        "http://testserver/path",
    ):
        refused = client.post("/api/signin", json=body, headers={"Origin": origin})
        assert "origin" in _error(refused, 403, "forbidden_origin")
        grant = client.post("/api/grant", headers={**headers, "Origin": origin})
        _error(grant, 403, "forbidden_origin")
        _error(
            client.get("/api/me", headers={**headers, "Origin": origin}), 403, "forbidden_origin"
        )
    assert client.get("/api/balance", headers=headers).json()["balances"]["PLAY"] == "1000"
    https = TestClient(client.app, base_url="https://room.example")
    ok = https.post("/api/signin", json=body, headers={"Origin": "https://room.example"})
    assert ok.status_code == 200


def test_bodies_over_4_kib_are_refused(client: TestClient, accounts: Accounts) -> None:
    padding = "x" * 4096
    big = client.post("/api/signup", json={"name": "zoe", "password": padding})
    assert "4096" in _error(big, 413, "too_large")

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it arrives
        yield b'{"name": "zoe", "password": "'
        for _ in range(10):
            yield b"y" * 1000
        yield b'"}'

    streamed = client.post("/api/signup", content=chunks())
    _error(streamed, 413, "too_large")
    assert client.post("/api/signin", json={"name": "zoe", "password": padding}).status_code == 413
    # nothing changed
    assert client.post("/api/signup", json={"name": "zoe", "password": PASSWORD}).status_code == 201


@pytest.mark.parametrize(
    ("content", "code", "says"),
    [
        (b"name=zoe&password=correct+horse", "malformed", "not valid JSON"),
        (b'{"name": "zoe", "password": ', "malformed", "not valid JSON"),
        (b"\xff\xfe", "malformed", "not valid JSON"),
        (b'["zoe", "correct horse"]', "malformed", "JSON object"),
        (b'"zoe"', "malformed", "JSON object"),
        (b'{"name": "zoe", "name": "eve", "password": "correct horse"}', "malformed", "twice"),
        (b'{"name": "zoe", "password": NaN}', "malformed", "not valid JSON"),
        (b'{"name": "zoe"}', "invalid_field", "'password' is missing"),
        (b'{"password": "correct horse"}', "invalid_field", "'name' is missing"),
        (b'{"name": "zoe", "password": "correct horse", "admin": true}', "invalid_field", "admin"),
        (b'{"name": true, "password": "correct horse"}', "invalid_field", "not a JSON boolean"),
        (b'{"name": "zoe", "password": 12345678}', "invalid_field", "not a JSON number"),
        (b'{"name": null, "password": "correct horse"}', "invalid_field", "not a JSON null"),
        (b'{"name": ["zoe"], "password": "correct horse"}', "invalid_field", "not a JSON array"),
    ],
)
def test_malformed_bodies_are_refused_and_change_nothing(
    client: TestClient, accounts: Accounts, content: bytes, code: str, says: str
) -> None:
    for path in ("/api/signup", "/api/signin"):
        response = client.post(path, content=content, headers={"Content-Type": "application/json"})
        assert says in _error(response, 400, code)
    with pytest.raises(Exception, match="wrong name or password"):
        accounts.sign_in("zoe", PASSWORD)


def test_unknown_paths_and_methods_answer_in_the_error_shape(client: TestClient) -> None:
    _error(client.get("/api/nothing-here"), 404, "not_found")
    refused = client.get("/api/signup")
    assert "POST" in _error(refused, 405, "method_not_allowed")
    _error(client.delete("/api/me"), 405, "method_not_allowed")


def test_the_lobby_still_answers(client: TestClient) -> None:
    body = client.get("/api/lobby").json()
    assert [table["id"] for table in body["tables"]] == ["t"]
    assert json.loads(client.get("/api/status").text)["tables"] == 1


# ----------------------------------------------------------------------- the documented examples

DOC = Path(__file__).parents[2] / "docs" / "protocol.md"
_HTTP_BLOCK = re.compile(r"^```http\n(.*?)^```\n", re.M | re.S)


def _matches(expected: Any, actual: Any) -> bool:
    """``actual`` is ``expected`` where ``"..."`` stands for any value."""
    if expected == "...":
        return True
    if isinstance(expected, dict):
        return (
            isinstance(actual, dict)
            and set(expected) == set(actual)
            and all(_matches(value, actual[key]) for key, value in expected.items())
        )
    return bool(expected == actual)


def test_the_documented_http_examples(client: TestClient) -> None:
    blocks = _HTTP_BLOCK.findall(DOC.read_text(encoding="utf-8"))
    assert len(blocks) >= 10
    token = ""
    for block in blocks:
        lines = block.rstrip("\n").split("\n")
        method, path = lines[0].split(" ")
        answer = lines[-1]
        assert answer.startswith("→ "), block
        status_text, _, expected_text = answer[2:].partition(" ")
        headers: dict[str, str] = {}
        body: str | None = None
        for line in lines[1:-1]:
            if line.startswith("{"):
                body = line
            else:
                name, _, value = line.partition(": ")
                headers[name] = value.replace("<token>", token)
        response = client.request(method, path, headers=headers, content=body)
        assert response.status_code == int(status_text), (block, response.text)
        if not expected_text.startswith("{"):  # a file: its media type
            assert response.headers["content-type"] == expected_text, block
            continue
        expected = json.loads(expected_text)
        assert _matches(expected, response.json()), (block, response.text)
        if path == "/api/signin" and response.status_code == 200:
            token = response.json()["token"]
