"""The operator API on a live room (docs/operator.md) and `feltroom admin --url` using it: operator
accounts only, from their addresses only; every action on record; every refusal changes nothing;
the books balance after every scenario."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from feltroom.cli import main
from feltroom.room import audit
from feltroom.room.operators import OperatorLog, Operators
from feltroom.store import SqlStorage

from .live import HEADS_UP, Live, live_server, room_for
from .test_ws import _audit_passes, _drain, _run


def _entries(storage: SqlStorage) -> list[dict[str, Any]]:
    return OperatorLog(storage).entries()


async def _operator(live: Live, name: str = "op", addresses: str = "") -> str:
    """An operator account, signed in; returns the token."""
    token = await live.account(name)
    operators = Operators(live.runtime.accounts)
    await asyncio.to_thread(operators.grant, name, addresses, "root", "test operator")
    return token


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _error(response: httpx.Response, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == code
    message: str = error["message"]
    return message


def test_only_operators_from_their_addresses_may_use_the_api(storage: SqlStorage) -> None:
    runtime = room_for(storage, HEADS_UP)

    async def scenario() -> None:
        async with live_server(runtime) as live:
            player = await live.account("alice")
            op = await _operator(live, "op")
            far = await _operator(live, "far", "10.0.0.0/8")
            before = len(_entries(storage))
            async with httpx.AsyncClient(base_url=live.http) as http:
                for method, path in (
                    ("GET", "/api/operator/online"),
                    ("GET", "/api/operator/tables"),
                    ("GET", "/api/operator/log"),
                    ("POST", "/api/operator/suspend"),
                ):
                    body = {"account": "alice", "reason": "x"} if method == "POST" else None
                    response = await http.request(method, path, json=body)
                    _error(response, 401, "unauthenticated")
                    response = await http.request(method, path, json=body, headers=_bearer(player))
                    assert "is not an operator" in _error(response, 403, "not_operator")
                    response = await http.request(method, path, json=body, headers=_bearer(far))
                    message = _error(response, 403, "not_operator")
                    assert "only from 10.0.0.0/8, not from 127.0.0.1" in message
                me = await http.get("/api/operator/me", headers=_bearer(op))
                assert me.json() == {"operator": "op", "addresses": ""}
                page = await http.get("/admin")
                assert page.status_code == 200
                assert "operator console" in page.text
            assert len(_entries(storage)) == before  # the refusals wrote nothing
            assert await asyncio.to_thread(runtime.accounts.authenticate, player) == "alice"

    _run(scenario())
    _audit_passes(storage)


def test_bad_input_is_refused_with_what_is_valid_and_changes_nothing(storage: SqlStorage) -> None:
    runtime = room_for(storage, HEADS_UP)

    async def scenario() -> None:
        async with live_server(runtime) as live:
            op = await _operator(live)
            await live.account("alice")
            before = _entries(storage)
            async with httpx.AsyncClient(base_url=live.http, headers=_bearer(op)) as http:

                async def post(action: str, body: Any) -> httpx.Response:
                    return await http.post(f"/api/operator/{action}", json=body)

                message = _error(await post("explode", {}), 404, "not_found")
                assert "suspend" in message
                assert "broadcast" in message
                message = _error(await post("suspend", {"account": "alice"}), 400, "invalid_field")
                assert "'reason' is missing" in message
                message = _error(
                    await post("suspend", {"account": "alice", "reason": "  "}),
                    400,
                    "invalid_field",
                )
                assert "give a reason" in message
                body = {"account": "alice", "reason": "x", "extra": 1}
                assert "unknown field 'extra'" in _error(
                    await post("suspend", body), 400, "invalid_field"
                )
                body = {"account": 7, "reason": "x"}
                assert "must be a string" in _error(
                    await post("suspend", body), 400, "invalid_field"
                )
                body = {"account": "zed", "reason": "x"}
                assert "no player account named 'zed'" in _error(
                    await post("suspend", body), 404, "not_found"
                )
                body = {"table": "nowhere", "reason": "x"}
                assert "the tables are hu" in _error(
                    await post("close-table", body), 404, "not_found"
                )
                body = {"table": "hu", "player": "zed", "reason": "x"}
                assert "'zed' has no seat" in _error(await post("kick", body), 404, "not_found")
                body = {"table": "hu", "reason": "x"}
                assert "close table hu first" in _error(
                    await post("retire-table", body), 409, "refused"
                )
                assert "is open" in _error(await post("reopen-table", body), 409, "refused")
                body = {"account": "alice", "reason": "x"}
                assert "not suspended" in _error(await post("reinstate", body), 409, "refused")
                body = {"definition": {"id": "hu", "structure": "no_limit"}, "reason": "x"}
                _error(await post("add-table", body), 400, "invalid_field")
                body = {"definition": {"id": "x", "big_blind": "lots"}, "reason": "x"}
                _error(await post("add-table", body), 400, "invalid_field")
                body = {"text": "", "reason": "x"}
                assert "1 to 500 characters" in _error(
                    await post("broadcast", body), 400, "invalid_field"
                )
                response = await http.get("/api/operator/log?since=yesterday")
                assert "ISO 8601" in _error(response, 400, "invalid_field")
            assert _entries(storage) == before
            assert runtime.runners["hu"].closed is None
            assert list(runtime.runners) == ["hu"]

    _run(scenario())
    _audit_passes(storage)


def test_suspend_closes_connections_leaves_seats_and_refuses_sign_in_until_reinstated(
    storage: SqlStorage,
) -> None:
    runtime = room_for(storage, HEADS_UP, between_hands=30.0)

    async def scenario() -> None:
        async with live_server(runtime) as live:
            op = await _operator(live)
            alice = await live.account("alice")
            async with live.client("alice", alice) as client:
                reply = await client.request(
                    {"type": "sit", "table": "hu", "seat": 1, "buy_in": 200}
                )
                assert reply["type"] == "ok", reply
                async with httpx.AsyncClient(base_url=live.http, headers=_bearer(op)) as http:
                    online = (await http.get("/api/operator/online")).json()
                    (entry,) = online["players"]
                    assert entry["player"] == "alice"
                    assert entry["addresses"] == ["127.0.0.1"]
                    assert entry["seats"] == [{"table": "hu", "seat": 1}]
                    tables = (await http.get("/api/operator/tables")).json()["tables"]
                    assert [p["player"] for p in tables[0]["players"]] == ["alice"]
                    response = await http.post(
                        "/api/operator/suspend", json={"account": "alice", "reason": "chargeback"}
                    )
                    assert response.status_code == 200, response.text
                    result = response.json()
                    assert result["suspended"] is True
                    assert result["connections_closed"] == 1
                    assert result["tables_left"] == ["hu"]
                    assert result["sessions_ended"] == 1
                    with pytest.raises(websockets.ConnectionClosed) as closed:
                        await _drain(client)
                    assert closed.value.rcvd is not None
                    assert closed.value.rcvd.code == 1008
                    assert closed.value.rcvd.reason == "this account is suspended by the room"
                    assert runtime.runners["hu"].table.seats == {}
                    assert runtime.stored_stacks("hu") == {}
                    wallet = runtime.cashier.balance("alice")["balances"]["PLAY"]
                    assert wallet == "10000"
                    signin = await http.post(
                        "/api/signin", json={"name": "alice", "password": "password-alice"}
                    )
                    assert "suspended" in _error(signin, 403, "suspended")
                    wrong = await http.post(
                        "/api/signin", json={"name": "alice", "password": "wrong-password"}
                    )
                    _error(wrong, 401, "unauthenticated")  # no word of the suspension
                    body = {"account": "alice", "reason": "twice"}
                    response = await http.post("/api/operator/suspend", json=body)
                    assert "already suspended" in _error(response, 409, "refused")
                    body = {"account": "alice", "reason": "paid"}
                    response = await http.post("/api/operator/reinstate", json=body)
                    assert response.json()["suspended"] is False
                    signin = await http.post(
                        "/api/signin", json={"name": "alice", "password": "password-alice"}
                    )
                    assert signin.status_code == 200
            entries = _entries(storage)
            assert [(e["action"], e["target"], e["operator"]) for e in entries] == [
                ("grant-operator", "op", "root"),
                ("suspend", "alice", "op"),
                ("reinstate", "alice", "op"),
            ]

    _run(scenario())
    _audit_passes(storage)
    report = audit(storage, shuffles=0)
    assert report["operator_transfers_checked"] == 1


def test_reset_password_kick_broadcast_and_tables(storage: SqlStorage) -> None:
    runtime = room_for(storage, HEADS_UP, between_hands=30.0)

    async def scenario() -> None:
        async with live_server(runtime) as live:
            op = await _operator(live)
            bob = await live.account("bob")
            async with live.client("bob", bob) as client:
                reply = await client.request(
                    {"type": "sit", "table": "hu", "seat": 2, "buy_in": 100}
                )
                assert reply["type"] == "ok"
                async with httpx.AsyncClient(base_url=live.http, headers=_bearer(op)) as http:
                    body = {"text": "the room closes at midnight", "reason": "maintenance"}
                    answer = (await http.post("/api/operator/broadcast", json=body)).json()
                    assert answer["connections"] == 1
                    line = await client.wait_for(lambda m: m["type"] == "chat")
                    assert line["player"] == "room"
                    assert line["text"] == "the room closes at midnight"
                    note = await client.wait_for(lambda m: m["type"] == "announcement")
                    assert note["text"] == "the room closes at midnight"  # wherever bob is
                    body = {"table": "hu", "player": "bob", "reason": "angle shooting"}
                    answer = (await http.post("/api/operator/kick", json=body)).json()
                    assert answer["seat"] == 2
                    assert runtime.runners["hu"].table.seat_of("bob") is None
                    body = {"account": "bob", "reason": "forgot it"}
                    answer = (await http.post("/api/operator/reset-password", json=body)).json()
                    password = answer["password"]
                    assert len(password) >= 12
                    old = await http.post(
                        "/api/signin", json={"name": "bob", "password": "password-bob"}
                    )
                    _error(old, 401, "unauthenticated")
                    new = await http.post("/api/signin", json={"name": "bob", "password": password})
                    assert new.status_code == 200
                    definition = {
                        "id": "late",
                        "structure": "no_limit",
                        "big_blind": 2,
                        "small_blind": 1,
                        "max_seats": 6,
                    }
                    body = {"definition": definition, "reason": "busy night"}
                    answer = (await http.post("/api/operator/add-table", json=body)).json()
                    assert answer["status"] == "open"
                    lobby = (await http.get("/api/lobby")).json()["tables"]
                    assert [t["id"] for t in lobby] == ["hu", "late"]
                    for action in ("close-table", "retire-table"):
                        body = {"table": "late", "reason": "quiet again"}
                        response = await http.post(f"/api/operator/{action}", json=body)
                        assert response.status_code == 200, response.text
                    lobby = (await http.get("/api/lobby")).json()["tables"]
                    assert [t["id"] for t in lobby] == ["hu"]
                    log = (await http.get("/api/operator/log?since=2020-01-01")).json()
                    actions = [e["action"] for e in log["entries"]]
                    assert actions == [
                        "grant-operator",
                        "broadcast",
                        "kick",
                        "reset-password",
                        "add-table",
                        "close-table",
                        "retire-table",
                    ]
                    future = (await http.get("/api/operator/log?since=2999-01-01")).json()
                    assert future["entries"] == []
            assert runtime.cashier.balance("bob")["balances"]["PLAY"] == "10000"

    _run(scenario())
    _audit_passes(storage)


def _cli(*argv: str) -> tuple[int, str]:
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exit_:  # argparse refused the command line
            code = int(exit_.code or 0)
    return code, out.getvalue() + err.getvalue()


def test_feltroom_admin_url_acts_through_the_api(
    storage: SqlStorage, db_url: str, monkeypatch: pytest.MonkeyPatch, fast_tmp: Path
) -> None:
    runtime = room_for(storage, HEADS_UP)

    async def scenario() -> None:
        async with live_server(runtime) as live:
            await live.account("alice")
            await live.account("op")
            url = live.http
            monkeypatch.setenv("FELTROOM_OPERATOR_PASSWORD", "password-op")
            code, text = await asyncio.to_thread(
                _cli, "admin", "--url", url, "--operator", "op", "online"
            )
            assert code == 2
            assert "'op' is not an operator" in text
            code, text = await asyncio.to_thread(
                _cli,
                "admin",
                "--db",
                db_url,
                "--operator",
                "root",
                "--reason",
                "hired",
                "grant-operator",
                "op",
            )
            assert code == 0, text
            assert json.loads(text)["operator"] is True
            code, text = await asyncio.to_thread(
                _cli, "admin", "--url", url, "--operator", "op", "suspend", "alice"
            )
            assert code == 2
            assert "suspend needs --reason TEXT" in text
            code, text = await asyncio.to_thread(
                _cli,
                "admin",
                "--db",
                db_url,
                "--operator",
                "op",
                "--reason",
                "r",
                "suspend",
                "alice",
            )
            assert code == 2
            assert "give --url URL" in text
            code, text = await asyncio.to_thread(
                _cli,
                "admin",
                "--url",
                url,
                "--operator",
                "op",
                "--reason",
                "fraud",
                "suspend",
                "alice",
            )
            assert code == 0, text
            assert json.loads(text)["suspended"] is True
            code, text = await asyncio.to_thread(
                _cli,
                "admin",
                "--url",
                url,
                "--operator",
                "op",
                "--reason",
                "again",
                "suspend",
                "alice",
            )
            assert code == 2
            assert "already suspended; reinstate it first (409)" in text
            code, text = await asyncio.to_thread(
                _cli, "admin", "--url", url, "--operator", "op", "log", "--since", "2020-01-01"
            )
            assert code == 0, text
            assert [e["action"] for e in json.loads(text)["entries"]] == [
                "grant-operator",
                "suspend",
            ]
            one = fast_tmp / "one.toml"
            one.write_text(HEADS_UP.replace('id = "hu"', 'id = "late"'), "utf-8")
            two = fast_tmp / "two.toml"
            two.write_text(one.read_text("utf-8") + HEADS_UP, "utf-8")
            add = ("admin", "--url", url, "--operator", "op", "--reason", "busy", "add-table")
            code, text = await asyncio.to_thread(_cli, *add, "--definition", str(one))
            assert code == 0, text
            assert json.loads(text)["table"] == "late"
            assert "late" in runtime.runners
            code, text = await asyncio.to_thread(_cli, *add, "--definition", str(two))
            assert code == 2
            assert "must hold exactly one [[table]], not 2" in text
            code, text = await asyncio.to_thread(_cli, *add, "--definition", str(one))
            assert code == 2
            assert "there is a table 'late' already" in text
            monkeypatch.setenv("FELTROOM_OPERATOR_PASSWORD", "wrong password")
            code, text = await asyncio.to_thread(
                _cli, "admin", "--url", url, "--operator", "op", "online"
            )
            assert code == 2
            assert "wrong name or password" in text

    _run(scenario())
    code, text = _cli("admin", "--db", db_url, "log", "--since", "2020-01-01")
    assert code == 0
    assert [e["target"] for e in json.loads(text)["entries"]] == ["op", "alice", "late"]
    code, text = _cli("admin", "--db", db_url, "log", "--since", "soon")
    assert code == 2
    _audit_passes(storage)


def test_rename_and_remove_on_the_live_room_and_through_feltroom_admin(
    storage: SqlStorage, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rename closes the player's connections telling the new name, and the player signs in
    under it with the same balance; a seated player is neither renamed nor removed; a removal
    needs a zero balance; `feltroom admin --url` and `--db` do the same; every refusal changes
    nothing."""
    runtime = room_for(storage, HEADS_UP, between_hands=30.0)

    async def scenario() -> None:
        async with live_server(runtime) as live:
            op = await _operator(live)
            alice = await live.account("alice")
            bob = await live.account("bob")
            async with (
                live.client("alice", alice) as alice_client,
                live.client("bob", bob) as bob_client,
                httpx.AsyncClient(base_url=live.http, headers=_bearer(op)) as http,
            ):
                reply = await bob_client.request(
                    {"type": "sit", "table": "hu", "seat": 2, "buy_in": 200}
                )
                assert reply["type"] == "ok", reply
                for action, body in (
                    ("rename", {"account": "bob", "to": "robert", "reason": "r"}),
                    ("remove", {"account": "bob", "reason": "r"}),
                ):
                    response = await http.post(f"/api/operator/{action}", json=body)
                    assert "'bob' sits at hu" in _error(response, 409, "refused")
                body = {"account": "alice", "to": "house", "reason": "r"}
                response = await http.post("/api/operator/rename", json=body)
                assert "is reserved" in _error(response, 409, "refused")
                body = {"account": "alice", "to": "BOB", "reason": "r"}
                response = await http.post("/api/operator/rename", json=body)
                assert "is taken (as 'bob'" in _error(response, 409, "refused")
                response = await http.post(
                    "/api/operator/rename", json={"account": "alice", "reason": "r"}
                )
                assert "'to' is missing" in _error(response, 400, "invalid_field")
                response = await http.post(
                    "/api/operator/remove", json={"account": "alice", "reason": "r"}
                )
                assert "still holds 10000 PLAY" in _error(response, 409, "refused")
                assert [e["action"] for e in _entries(storage)] == ["grant-operator"]
                body = {"account": "alice", "to": "alicia", "reason": "asked by the player"}
                response = await http.post("/api/operator/rename", json=body)
                assert response.status_code == 200, response.text
                result = response.json()
                assert (result["renamed_to"], result["connections_closed"]) == ("alicia", 1)
                with pytest.raises(websockets.ConnectionClosed) as closed:
                    await _drain(alice_client)
                assert closed.value.rcvd is not None
                assert closed.value.rcvd.reason == (
                    "the room renamed this account to alicia; sign in as alicia"
                )
                signin = await http.post(
                    "/api/signin", json={"name": "alicia", "password": "password-alice"}
                )
                assert signin.status_code == 200
                assert runtime.cashier.balance("alicia")["balances"] == {"PLAY": "10000"}
            monkeypatch.setenv("FELTROOM_OPERATOR_PASSWORD", "password-op")
            admin = ("admin", "--url", live.http, "--operator", "op", "--reason", "closing")
            code, text = await asyncio.to_thread(_cli, *admin, "remove", "alicia")
            assert code == 2
            assert "'alicia' still holds 10000 PLAY" in text
            await asyncio.to_thread(
                runtime.cashier.withdraw, "alicia", "PLAY", 10_000, "cash-out-alicia"
            )
            code, text = await asyncio.to_thread(_cli, *admin, "rename", "alicia", "--to", "alice")
            assert code == 0, text
            assert json.loads(text)["renamed_to"] == "alice"
            code, text = await asyncio.to_thread(_cli, *admin, "remove", "alice")
            assert code == 0, text
            assert json.loads(text)["removed"] is True
            offline = ("admin", "--db", db_url, "--operator", "op", "--reason", "typo")
            code, text = await asyncio.to_thread(_cli, *offline, "rename", "bob")
            assert code == 2
            assert "--to" in text
            code, text = await asyncio.to_thread(
                _cli, *offline, "rename", "op", "--to", "operator1"
            )
            assert code == 0, text
            assert json.loads(text)["renamed_to"] == "operator1"

    _run(scenario())
    entries = _entries(storage)
    assert [(e["action"], e["target"]) for e in entries] == [
        ("grant-operator", "op"),
        ("rename", "alice"),
        ("rename", "alicia"),
        ("remove", "alice"),
        ("rename", "op"),
    ]
    _audit_passes(storage)
