"""Issue 40, items 1-3: an operator cannot take another over through the operator API (no new
password, suspension, new name, removal or verification of an operator's account), nor verify
themself; add-table takes no tournament table's id. Every refusal changes nothing and the
books balance."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from feltroom.room.errors import RoomError
from feltroom.room.operators import Operators
from feltroom.store import SqlStorage

from .live import HEADS_UP, live_server, room_for
from .test_operator_api import _bearer, _entries, _error, _operator
from .test_ws import _audit_passes, _run


def test_the_operator_api_takes_no_action_on_an_operator_account(storage: SqlStorage) -> None:
    runtime = room_for(storage, HEADS_UP)

    async def scenario() -> None:
        async with live_server(runtime) as live:
            near = await _operator(live, "near", "127.0.0.1")
            boss = await _operator(live, "boss")
            before = _entries(storage)
            async with httpx.AsyncClient(base_url=live.http, headers=_bearer(near)) as http:
                for action, extra in (
                    ("reset-password", {}),
                    ("suspend", {}),
                    ("reinstate", {}),
                    ("verify", {"identity": "boss@example.org"}),
                    ("rename", {"to": "bossy"}),
                    ("remove", {}),
                ):
                    body = {"account": "boss", "reason": "take over", **extra}
                    response = await http.post(f"/api/operator/{action}", json=body)
                    message = _error(response, 409, "refused")
                    assert "'boss' is an operator" in message, action
                    assert "grant-operator" in message
            assert _entries(storage) == before  # nothing on record: nothing done
            # boss keeps their password, session and name
            assert await asyncio.to_thread(runtime.accounts.authenticate, boss) == "boss"
            assert await asyncio.to_thread(runtime.accounts.authenticate, near) == "near"
            flags = Operators(runtime.accounts).describe(["boss"])
            assert flags["boss"]["operator"] is True
            assert flags["boss"]["suspended"] is False
            assert flags["boss"]["verified"] is False

    _run(scenario())
    _audit_passes(storage)


def test_an_operator_cannot_verify_their_own_account(storage: SqlStorage) -> None:
    runtime = room_for(storage, HEADS_UP)
    operators = Operators(runtime.accounts)  # as on the database (feltroom admin --db)
    runtime.accounts.sign_up("op", "password-op")
    operators.grant("op", "", "root", "test operator")
    with pytest.raises(RoomError, match="cannot verify their own account"):
        operators.verify("op", "op", "I am who I say", "op@example.org")
    assert operators.describe(["op"])["op"]["verified"] is False
    assert [e["action"] for e in operators.log.entries()] == ["grant-operator"]

    async def scenario() -> None:
        async with live_server(runtime) as live:
            token = await live.account("self")
            await asyncio.to_thread(operators.grant, "self", "", "root", "test operator")
            async with httpx.AsyncClient(base_url=live.http, headers=_bearer(token)) as http:
                body = {"account": "self", "reason": "me", "identity": "self@example.org"}
                response = await http.post("/api/operator/verify", json=body)
                assert "cannot verify their own account" in _error(response, 409, "refused")
            assert operators.describe(["self"])["self"]["verified"] is False

    _run(scenario())
    _audit_passes(storage)


def test_add_table_refuses_an_id_with_a_dot(storage: SqlStorage) -> None:
    runtime = room_for(storage, HEADS_UP)

    async def scenario() -> None:
        async with live_server(runtime) as live:
            op = await _operator(live)
            before = _entries(storage)
            async with httpx.AsyncClient(base_url=live.http, headers=_bearer(op)) as http:
                for table_id in ("t9-1.1", "cash.table", "nl.2"):
                    definition = {
                        "id": table_id,
                        "structure": "no_limit",
                        "big_blind": 2,
                        "small_blind": 1,
                    }
                    body = {"definition": definition, "reason": "a table like theirs"}
                    response = await http.post("/api/operator/add-table", json=body)
                    message = _error(response, 400, "invalid_field")
                    assert "may not contain '.'" in message
                    assert "{instance}.{n}" in message
                lobby = (await http.get("/api/lobby")).json()["tables"]
                assert [t["id"] for t in lobby] == ["hu"]
            assert _entries(storage) == before
            assert "t9-1.1" not in runtime.runners

    _run(scenario())
    _audit_passes(storage)
