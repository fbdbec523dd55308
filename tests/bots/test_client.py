"""The protocol client against a live server: accounts over HTTP, the websocket handshake,
requests and their replies, and a client-side table state that stays true to the server's."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from feltroom.bots.client import (
    Client,
    ClientError,
    ConnectionLost,
    RequestRefused,
    endpoints,
)
from feltroom.rules import Call, Check, Fold, RaiseTo
from feltroom.store import SqlStorage
from feltroom.strategy import RandomBrain
from server.live import HEADS_UP, live_server, room_for


def _run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 60))


def test_endpoints_of_http_and_ws_addresses() -> None:
    assert endpoints("http://127.0.0.1:8000") == ("http://127.0.0.1:8000", "ws://127.0.0.1:8000/ws")
    assert endpoints("https://room.example/") == ("https://room.example", "wss://room.example/ws")
    assert endpoints("ws://h:1/ws") == ("http://h:1", "ws://h:1/ws")
    with pytest.raises(ClientError, match="http://host:port"):
        endpoints("ftp://h")
    with pytest.raises(ClientError):
        endpoints("127.0.0.1:8000")


def test_client_plays_hands_and_its_state_matches_the_server(storage: SqlStorage) -> None:
    async def scenario() -> None:
        room = room_for(storage, HEADS_UP)
        async with live_server(room) as live:
            clients = [Client(live.http), Client(live.ws_url)]
            for k, client in enumerate(clients):
                name = f"player{k}"
                assert await client.sign_up(name, "password-" + name) is True
                assert await client.sign_up(name, "password-" + name) is False
                await client.sign_in(name, "password-" + name)
                assert await client.grant() == 10_000
                assert await client.grant() is None
                assert (await client.balances())["PLAY"] == "10000"
                welcome = await client.connect()
                assert welcome["player"] == name
                assert (await client.ping())["type"] == "pong"
            lobby = await clients[0].lobby_tables()
            assert [t["id"] for t in lobby] == ["hu"]
            with pytest.raises(RequestRefused) as refused:
                await clients[0].observe("nowhere")
            assert refused.value.code == "not_found"
            await clients[0].sit("hu", 1, buy_in=200)
            await clients[1].sit("hu", 2, buy_in=200)
            with pytest.raises(RequestRefused) as taken:
                await clients[1].sit("hu", 1, buy_in=200)
            assert taken.value.code == "illegal_action"

            brains = [RandomBrain(1), RandomBrain(2)]
            actions: list[str] = []

            async def play(k: int) -> None:
                client = clients[k]
                async for message in client.messages():
                    state = client.tables["hu"]
                    if message["type"] == "turn" and state.my_turn:
                        legal = state.legal_actions()
                        view = state.hand_view()
                        assert legal is not None
                        assert view.viewer == state.you
                        mine = next(p for p in view.players if p.seat == state.you)
                        assert mine.cards is not None  # one's own cards, from hole_cards
                        action = brains[k].choose(view, legal)
                        assert isinstance(action, (Fold, Check, Call, RaiseTo))
                        actions.append(str(action))
                        await client.act("hu", action)
                    if message["type"] == "hand_result" and state.hands_played >= 6:
                        return

            await asyncio.gather(play(0), play(1))
            table = room.runners["hu"].table
            for client in clients:
                state = client.tables["hu"]
                assert state.you in (1, 2)
                assert {s: st.stack for s, st in state.seats.items()} == {
                    s: p.stack for s, p in table.seats.items()
                } or state.in_progress
            assert len(actions) >= 6
            await clients[0].close()
            assert not clients[0].connected
            with pytest.raises(ConnectionLost):
                await clients[0].ping()
            welcome = await clients[0].connect()  # resume: the seat is still held
            assert welcome["seats"] == [{"table": "hu", "seat": 1}]
            for client in clients:
                await client.close()

    _run(scenario())
