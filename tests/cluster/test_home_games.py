"""Home games in a cluster (issue 45, docs/home-games.md "In a cluster", docs/cluster.md), on a
real PostgreSQL and Redis, with worker and gateway processes: a game created through one gateway
is stored and its table taken by a worker under its lease; a guest signs up and asks for a seat
through the other gateway; the host admits, approves a rebuy, and the news reaches each of them
through their own gateway; a hand is played; the ledger read through either gateway is the
books'; the game ends and its table retires; it is never in a lobby; the audit balances. A
worker killed with a game running: another takes the table over and runs the game as stored."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from feltroom.room import Cashier, audit
from feltroom.room.storage import Storage
from feltroom.store import open_storage
from server.live import Client
from services import RedisServer

from .support import (
    PASSWORD,
    Workers,
    leases,
    play_along,
    players,
    sign_in,
    until,
    until_ok,
    wait_for,
    ws_client,
)

pytestmark = pytest.mark.slow  # (processes: half a minute or more each)

TABLE = "home-g-1"


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _stored_state(store: Storage, game_id: str) -> dict[str, Any]:
    with store.transaction(write=False) as tx:
        row = next(r for r in tx.home_games() if r.game_id == game_id)
    state: dict[str, Any] = json.loads(row.state)
    state["status"] = row.status
    return state


def _defined(store: Storage) -> set[str]:
    with store.transaction(write=False) as tx:
        return set(tx.table_definitions())


async def _create(base: str, token: str, **fields: Any) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=base) as http:
        created = await http.post("/api/games", json=fields, headers=_auth(token))
        assert created.status_code == 201, created.text
        game: dict[str, Any] = created.json()["game"]
    return game


async def _control(client: Client, control: str, **fields: Any) -> dict[str, Any]:
    """A host's control over the websocket: its answer (``game``) or the error (while no task
    reads the client's messages)."""
    ref = await client.send({"type": "game", "game": "g-1", "control": control, **fields})
    return await client.wait_for(lambda m: m.get("ref") == ref and m["type"] in ("game", "error"))


async def _seen(client: Client, check: Any, seconds: float = 30.0) -> dict[str, Any]:
    """The first message in the client's log that ``check`` accepts (its log grows while a
    ``play_along`` task reads its messages)."""
    found: dict[str, Any] = await until(
        f"{client.name}'s message", lambda: next((m for m in client.log if check(m)), None), seconds
    )
    return found


def test_R_HOME_1_R_HOME_2_R_HOME_5_a_home_game_through_two_gateways(
    pg_url: str, redis_server: RedisServer, tmp_path: Path
) -> None:
    store = open_storage(pg_url)
    players(store, "alice")
    workers = Workers(tmp_path, pg_url, redis_server.url, lease=2.0, house_bots=0, think=0.3)
    try:
        workers.start("worker-a", load_tables=True)
        workers.start("worker-b")
        ports = {"A": workers.start_gateway("gateway-A"), "B": workers.start_gateway("gateway-B")}
        book_a, book_b = asyncio.run(_scenario(store, ports))
        # the game ended: its table leaves the room for good (no worker takes it again)
        wait_for("the game's table to retire", lambda: TABLE not in _defined(store), 30)
        wait_for("the game's lease to go", lambda: TABLE not in leases(store), 30)
    except BaseException:
        print(workers.tails())
        raise
    finally:
        workers.stop_all()
    # the ledger through either gateway is one and the same, and is the books'
    assert book_a == book_b
    rows = {r["player"]: r for r in book_a["players"]}
    assert set(rows) == {"alice", "gus"}
    assert (rows["alice"]["buy_ins"], rows["alice"]["added"]) == (100, 0)
    assert (rows["gus"]["buy_ins"], rows["gus"]["added"]) == (80, 20)
    assert sum(r["net"] for r in rows.values()) == 0
    assert book_a["totals"]["net"] == 0
    cashier = Cashier(store)
    for name, row in rows.items():
        assert row["at_table"] == 0  # (everyone left with their chips when the game ended)
        assert row["cash_outs"] == int(cashier.balance(name)["balances"].get("g-1", "0"))
        assert row["net"] == row["cash_outs"] - row["buy_ins"] - row["added"]
    assert rows["alice"]["cash_outs"] + rows["gus"]["cash_outs"] == 200  # (no rake, no chip lost)
    state = _stored_state(store, "g-1")
    assert state["status"] == "ended"
    assert state["signups"] == 1  # (gus's sign-up counted against the game's seats)
    report = audit(store, shuffles=0)
    assert report["pass"], report["problems"]
    store.close()


async def _scenario(store: Storage, ports: dict[str, int]) -> tuple[dict[str, Any], dict[str, Any]]:
    base = {name: f"http://127.0.0.1:{port}" for name, port in ports.items()}
    alice = await sign_in(ports["A"], "alice")
    # created through gateway A: stored, its table defined, then taken by a worker
    game = await _create(base["A"], alice, name="Friday game", big_blind=2, min_buy_in=20)
    assert (game["id"], game["table"], game["you"]) == ("g-1", TABLE, "host")
    secret = game["invite"].removeprefix("/g/")
    await until("a worker to own the game's table", lambda: TABLE in leases(store), 30)
    async with httpx.AsyncClient(base_url=base["B"]) as http:
        shown = (await http.get(f"/api/invites/{secret}")).json()["game"]
        assert (shown["id"], shown["host"], shown["table"]) == ("g-1", "alice", TABLE)
        assert (await http.get("/api/invites/wrong-secret")).status_code == 404
    async with ws_client(ports["A"], "alice", alice) as (host, _):
        async with httpx.AsyncClient(base_url=base["A"]) as http:
            sat = await http.post(
                f"/api/invites/{secret}/join", json={"buy_in": 100, "seat": 1}, headers=_auth(alice)
            )
            assert sat.status_code == 200, sat.text
            assert (sat.json()["seat"], sat.json()["stack"]) == (1, 100)
        watching = await host.request({"type": "observe", "table": TABLE})
        assert watching["type"] == "ok", watching
        # the host runs the game over the websocket too: paused until her guest sits
        paused = await _control(host, "pause")
        assert (paused["type"], paused["game"]["status"]) == ("game", "paused"), paused
        # a guest signs up through gateway B, asking for a seat (with admission: a request)
        async with httpx.AsyncClient(base_url=base["B"]) as http:
            signed = await http.post(
                f"/api/invites/{secret}/signup",
                json={"name": "gus", "password": PASSWORD, "buy_in": 80, "seat": 2},
            )
            assert signed.status_code == 201, signed.text
            request = signed.json()["request"]
            assert (signed.json()["player"], request["kind"]) == ("gus", "seat")
        # the host hears of it through her own gateway
        news = await host.wait_for(
            lambda m: (
                m["type"] == "game" and any(r["player"] == "gus" for r in m["game"]["requests"])
            ),
            20,
        )
        assert news["game"]["you"] == "host"
        gus = await sign_in(ports["B"], "gus")
        async with ws_client(ports["B"], "gus", gus) as (guest, _):
            # gus withdraws his request over the websocket (at the owner, through gateway B),
            # then asks again over HTTP: the host's list holds the new one alone
            ref = await guest.send(
                {"type": "game_request", "game": "g-1", "request": request["id"],
                 "action": "withdraw"}
            )  # fmt: skip
            withdrawn = await guest.wait_for(lambda m: m.get("ref") == ref, 20)
            assert (withdrawn["type"], withdrawn["game"]["id"]) == ("game", "g-1"), withdrawn
            note = await guest.wait_for(lambda m: m["type"] == "game_request", 20)
            assert note["request"]["status"] == "withdrawn"
            await host.wait_for(lambda m: m["type"] == "game" and m["game"]["requests"] == [], 20)
            async with httpx.AsyncClient(base_url=base["B"]) as http:
                again = await http.post(
                    f"/api/invites/{secret}/join", json={"buy_in": 80, "seat": 2},
                    headers=_auth(gus),
                )  # fmt: skip
                assert again.status_code == 200, again.text
                request = again.json()["request"]
                twice = await http.post(
                    "/api/games/g-1/withdraw", json={"request": 999}, headers=_auth(gus)
                )
                assert twice.status_code == 409, twice.text
                assert "no pending request 999 of yours" in twice.json()["error"]["message"]
                mine = (await http.get("/api/games", headers=_auth(gus))).json()["games"]
                assert [(g["id"], g["you"]) for g in mine] == [("g-1", "pending")]
                # the host admits through gateway B (her answer is the owner's)
                admitted = await http.post(
                    "/api/games/g-1/admit",
                    json={"request": request["id"], "admit": True},
                    headers=_auth(alice),
                )
                assert admitted.status_code == 200, admitted.text
                assert admitted.json()["game"]["requests"] == []
                refused = await http.post(
                    "/api/games/g-1/admit",
                    json={"request": request["id"], "admit": True},
                    headers=_auth(alice),
                )
                assert refused.status_code == 409, refused.text
                assert "pending" in refused.json()["error"]["message"]
                not_host = await http.post("/api/games/g-1/pause", json={}, headers=_auth(gus))
                assert not_host.status_code == 409, not_host.text
            answered = await guest.wait_for(lambda m: m["type"] == "game_request", 20)
            assert answered["request"]["status"] == "admitted"
            # seated now: gus's connection watches the table from his seat
            snap = await guest.wait_for(
                lambda m: m["type"] == "snapshot" and m["table"] == TABLE and m.get("you") == 2,
                20,
            )
            assert snap["you"] == 2
            # a hand is played
            tasks = [
                asyncio.create_task(play_along(host, TABLE, 1)),
                asyncio.create_task(play_along(guest, TABLE, 2)),
            ]
            try:
                ref = await host.send({"type": "game", "game": "g-1", "control": "resume"})
                resumed = await _seen(host, lambda m: m.get("ref") == ref)
                assert resumed["game"]["status"] == "open", resumed
                said = await _seen(  # (a line at the table, through gus's own gateway)
                    guest,
                    lambda m: (
                        m["type"] == "chat" and m["player"] == "room" and "resumed" in m["text"]
                    ),
                )
                assert said["table"] == TABLE
                await _seen(guest, lambda m: m["type"] == "hand_result" and m["table"] == TABLE)
                # gus asks for chips at the table (his stack is at most 180 of the 180 in
                # play: 20 more stay within the buy-in maximum, 200); the host approves them
                # over the websocket
                ref = await guest.send({"type": "add_chips", "table": TABLE, "amount": 20})
                asked = await _seen(guest, lambda m: m.get("ref") == ref)
                assert (asked["type"], asked.get("pending")) == ("ok", True), asked
                rebuy = asked["request"]
                ref = await host.send(
                    {
                        "type": "game",
                        "game": "g-1",
                        "control": "approve",
                        "request": rebuy["id"],
                        "approve": True,
                    }
                )
                approved = await _seen(host, lambda m: m.get("ref") == ref)
                assert approved["type"] == "game", approved
                note = await _seen(
                    guest,
                    lambda m: m["type"] == "game_request" and m["request"]["kind"] == "rebuy",
                )
                assert note["request"]["status"] == "approved"
                # the game is in no lobby, through either gateway
                for name in ("A", "B"):
                    async with httpx.AsyncClient(base_url=base[name]) as http:
                        lobby = (await http.get("/api/lobby")).json()
                        assert TABLE not in [t["id"] for t in lobby["tables"]], lobby
                        assert [t["id"] for t in lobby["tables"]] == ["c1", "c2"], lobby
                # the host ends the game (after the hand in progress)
                async with httpx.AsyncClient(base_url=base["A"]) as http:
                    ended = await http.post("/api/games/g-1/end", json={}, headers=_auth(alice))
                    assert ended.status_code == 200, ended.text
                    assert ended.json()["game"]["status"] == "ended"
                await until("the game's table to empty", lambda: _empty(store), 60)
            finally:
                await _stop(tasks)
    books = []
    for name in ("A", "B"):
        async with httpx.AsyncClient(base_url=base[name]) as http:
            book = await http.get("/api/games/g-1/ledger", headers=_auth("x"))
            assert book.status_code == 401
            book = await http.get("/api/games/g-1/ledger", headers=_auth(gus))
            assert book.status_code == 200, book.text
            books.append(book.json())
            text = await http.get("/api/games/g-1/ledger?format=csv", headers=_auth(alice))
            assert text.text.splitlines()[0] == "player,buy_ins,added,cash_outs,at_table,net"
            assert (await http.get(f"/api/invites/{secret}")).status_code == 404  # (link dead)
            page = await http.get(f"/g/{secret}")  # (the browser client, which says so)
            assert (page.status_code, page.headers["content-type"][:9]) == (200, "text/html")
            mine = (await http.get("/api/games", headers=_auth(gus))).json()["games"]
            assert [(g["id"], g["status"], g["you"]) for g in mine] == [("g-1", "ended", "player")]
            late = await http.post("/api/games/g-1/pause", json={}, headers=_auth(alice))
            assert late.status_code == 409, late.text
            assert "ended" in late.json()["error"]["message"]
    return books[0], books[1]


async def _stop(tasks: list[asyncio.Task[None]]) -> None:
    """Cancel the players' tasks, again until each ends (Python 3.11's ``wait_for`` in their
    reads may swallow a cancellation that arrives as a message does)."""
    for task in tasks:
        while not task.done():
            task.cancel()
            await asyncio.wait({task}, timeout=0.5)


def _empty(store: Storage) -> bool:
    with store.transaction(write=False) as tx:
        return not tx.seats_at(TABLE)


def test_R_HOME_2_a_killed_workers_home_game_goes_on_at_another(
    pg_url: str, redis_server: RedisServer, tmp_path: Path
) -> None:
    """SIGKILL of the worker that runs a home game: another worker takes its table over as any
    table (the hand in play void, stacks at their start-of-hand values) and runs the game as
    stored: the request left pending is answered there, hands are dealt again, the ledger's
    nets add up to zero and the audit balances."""
    store = open_storage(pg_url)
    players(store, "alice", "bob", "cid")
    workers = Workers(tmp_path, pg_url, redis_server.url, lease=1.0, house_bots=0, think=0.3)
    try:
        workers.start("worker-a", load_tables=True)
        workers.start("worker-b")
        ports = {"A": workers.start_gateway("gateway-A"), "B": workers.start_gateway("gateway-B")}
        book = asyncio.run(_failover(store, workers, ports))
        wait_for("the game's table to retire", lambda: TABLE not in _defined(store), 30)
    except BaseException:
        print(workers.tails())
        raise
    finally:
        workers.stop_all()
    rows = {r["player"]: r for r in book["players"]}
    assert set(rows) == {"alice", "bob", "cid"}
    assert sum(r["net"] for r in rows.values()) == 0
    assert sum(r["cash_outs"] for r in rows.values()) == 100 + 100 + 60
    state = _stored_state(store, "g-1")
    assert state["status"] == "ended"
    assert any(line["line"] == "alice admitted cid with 60" for line in state["log"])
    report = audit(store, shuffles=0)
    assert report["pass"], report["problems"]
    store.close()


async def _failover(store: Storage, workers: Workers, ports: dict[str, int]) -> dict[str, Any]:
    base = {name: f"http://127.0.0.1:{port}" for name, port in ports.items()}
    tokens = {name: await sign_in(ports["A"], name) for name in ("alice", "bob", "cid")}
    game = await _create(base["A"], tokens["alice"], big_blind=2, min_buy_in=20)
    secret = game["invite"].removeprefix("/g/")
    await until("a worker to own the game's table", lambda: TABLE in leases(store), 30)
    async with (
        ws_client(ports["A"], "alice", tokens["alice"]) as (host, _),
        ws_client(ports["B"], "bob", tokens["bob"]) as (bob, _),
        ws_client(ports["A"], "cid", tokens["cid"]) as (cid, _),
        httpx.AsyncClient(base_url=base["B"]) as http,
    ):

        async def join(name: str, buy_in: int, seat: int) -> dict[str, Any]:
            asked = await http.post(
                f"/api/invites/{secret}/join",
                json={"buy_in": buy_in, "seat": seat},
                headers=_auth(tokens[name]),
            )
            assert asked.status_code == 200, asked.text
            answer: dict[str, Any] = asked.json()
            return answer

        await join("alice", 100, 1)
        watching = await host.request({"type": "observe", "table": TABLE})
        assert watching["type"] == "ok", watching
        asked = await join("bob", 100, 2)
        admitted = await _control(host, "admit", request=asked["request"]["id"], admit=True)
        assert admitted["type"] == "game", admitted
        await bob.wait_for(lambda m: m["type"] == "snapshot" and m.get("you") == 2, 20)
        # cid asks at the table (the websocket's sit): a request, left pending across the kill
        asked = await cid.request({"type": "sit", "table": TABLE, "seat": 3, "buy_in": 60})
        assert (asked["type"], asked.get("pending")) == ("ok", True), asked
        waiting = asked["request"]
        tasks = [
            asyncio.create_task(play_along(host, TABLE, 1)),
            asyncio.create_task(play_along(bob, TABLE, 2)),
        ]
        try:
            await _seen(bob, lambda m: m["type"] == "hand_result")
            before = leases(store)[TABLE]
            victim = workers.owners({TABLE: before})[TABLE]
            workers.kill(victim)
            after = await until(
                "another worker to take the game's table",
                lambda: (row := leases(store).get(TABLE)) and row.owner != before.owner and row,
                30,
            )
            assert after.epoch > before.epoch
            # the game runs at its new owner as stored: the pending request is answered there
            answered = await until_ok(
                lambda: _admit(http, tokens["alice"], waiting["id"]),
                20,
            )
            assert answered["game"]["requests"] == []
            # the answer reaches cid through his gateway, and he plays from his seat
            note = await cid.wait_for(lambda m: m["type"] == "game_request", 20)
            assert note["request"]["status"] == "admitted"
            tasks.append(asyncio.create_task(play_along(cid, TABLE, 3)))
            # hands are dealt again at the new owner
            dealt = sum(1 for m in bob.log if m["type"] == "hand_result")
            await until(
                "a hand at the new owner",
                lambda: sum(1 for m in bob.log if m["type"] == "hand_result") > dealt,
                60,
            )
            ended = await http.post("/api/games/g-1/end", json={}, headers=_auth(tokens["alice"]))
            assert ended.status_code == 200, ended.text
            await until("the game's table to empty", lambda: _empty(store), 60)
        finally:
            await _stop(tasks)
        ledger = await http.get("/api/games/g-1/ledger", headers=_auth(tokens["cid"]))
        assert ledger.status_code == 200, ledger.text
        book: dict[str, Any] = ledger.json()
    return book


async def _admit(http: httpx.AsyncClient, token: str, request: int) -> dict[str, Any]:
    """Admit the request: the game as the answer shows it (one sent while the table changed
    hands may have been answered by its new owner meanwhile: the game then shows it)."""
    response = await http.post(
        "/api/games/g-1/admit", json={"request": request, "admit": True}, headers=_auth(token)
    )
    if response.status_code == 409:
        shown: dict[str, Any] = (await http.get("/api/games/g-1", headers=_auth(token))).json()
        if any(line["line"] == "alice admitted cid with 60" for line in shown["game"]["log"]):
            return shown
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def test_R_HOME_1_a_worker_ends_an_idle_game_and_retires_its_table(
    pg_url: str, redis_server: RedisServer, tmp_path: Path
) -> None:
    """A game with no hand dealt for ``idle_hours`` (here 0.002, about 7 s) ends at the worker
    that runs it: the host leaves with her chips, the link dies, the table retires cluster-wide
    (no worker takes it again), the ledger still reads it and the audit balances."""
    store = open_storage(pg_url)
    players(store, "alice")
    idle = {"FELTROOM_HOME__IDLE_HOURS": "0.002"}
    workers = Workers(tmp_path, pg_url, redis_server.url, lease=1.0, house_bots=0, env=idle)
    try:
        workers.start("worker-a", load_tables=True)
        workers.start("worker-b")
        port = workers.start_gateway("gateway-A")
        book = asyncio.run(_idle(store, port))
        wait_for("the game's table to retire", lambda: TABLE not in _defined(store), 30)
        assert TABLE not in leases(store)
    except BaseException:
        print(workers.tails())
        raise
    finally:
        workers.stop_all()
    assert [(r["player"], r["buy_ins"], r["cash_outs"], r["net"]) for r in book["players"]] == [
        ("alice", 100, 100, 0)
    ]
    assert _stored_state(store, "g-1")["status"] == "ended"
    report = audit(store, shuffles=0)
    assert report["pass"], report["problems"]
    store.close()


async def _idle(store: Storage, port: int) -> dict[str, Any]:
    alice = await sign_in(port, "alice")
    base = f"http://127.0.0.1:{port}"
    game = await _create(base, alice, big_blind=2, min_buy_in=20)
    secret = game["invite"].removeprefix("/g/")
    await until("a worker to own the game's table", lambda: TABLE in leases(store), 30)
    async with httpx.AsyncClient(base_url=base) as http:
        sat = await http.post(
            f"/api/invites/{secret}/join", json={"buy_in": 100}, headers=_auth(alice)
        )
        assert sat.status_code == 200, sat.text

        async def ended() -> dict[str, Any] | None:
            # (the end is stored as the table closes, then again with its line in the log)
            shown: dict[str, Any] = (await http.get("/api/games/g-1", headers=_auth(alice))).json()
            logged = any("no hand for" in line["line"] for line in shown["game"]["log"])
            return shown if shown["game"]["status"] == "ended" and logged else None

        found = None
        for _ in range(300):  # (up to a minute: 7 s idle, then the next lease round)
            found = await ended()
            if found:
                break
            await asyncio.sleep(0.2)
        assert found is not None, "the idle game never ended with its line in the log"
        await until("the host to leave with her chips", lambda: _empty(store), 30)
        assert (await http.get(f"/api/invites/{secret}")).status_code == 404
        book: dict[str, Any] = (
            await http.get("/api/games/g-1/ledger", headers=_auth(alice))
        ).json()
    return book
