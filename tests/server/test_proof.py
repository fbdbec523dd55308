"""Verifiable deals end to end: real hands through the room runtime, the commitment published
before the first card (events and wire messages), the proof file of ``GET /api/hands/{id}/proof``
for each player (R-HIST-2: never a card the player may not see) and ``feltroom verify``."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient

from fakeclock import Clock
from feltroom import cli
from feltroom.cards import parse_cards
from feltroom.deal_proof import verify
from feltroom.room import Accounts, Cashier, HandHistories, NotAvailable, Settlement
from feltroom.room.runtime import RoomRuntime, RuntimeSettings, TableRunner
from feltroom.room.tables_config import parse_tables
from feltroom.rules import Action, Check, Fold, HoleCardsDealt, LegalActions
from feltroom.rules import Call as CallAction
from feltroom.server import create_app, wire
from feltroom.shuffle import SeededDeckSource
from feltroom.store import SqlStorage
from feltroom.table import HandStarted, Table, preset

from .live import HEADS_UP, live_server, room_for

PASSWORD = "correct horse"
# Three people: alice (seat 1, seated first) has the first button.
TABLE = """
[[table]]
id = "t"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 3
first_button = "first_seated"
act_seconds = 300
"""
HANDS = 4


@dataclass
class Played:
    """The hands played: their ids, each hand's ``HandStarted``, and for each hand the order of
    the first events of its deal."""

    hands: list[int] = field(default_factory=list)
    started: dict[int, HandStarted] = field(default_factory=dict)
    deal_order: dict[int, list[str]] = field(default_factory=dict)
    wire_order: dict[int, list[dict[str, Any]]] = field(default_factory=dict)


class Recorder:
    """A listener: the deal of each hand, and what the wire sends alice of it."""

    def __init__(self, played: Played) -> None:
        self.played = played

    def __call__(self, runner: TableRunner, events: Sequence[object]) -> None:
        for event in events:
            if isinstance(event, HandStarted):
                hand_id = runner.playing
                assert hand_id is not None
                self.played.started[hand_id] = event
                self.played.deal_order[hand_id] = [type(e).__name__ for e in events]
                seat = runner.table.seat_of("alice")
                self.played.wire_order[hand_id] = wire.messages_for(
                    "t", hand_id, events, seat, "alice", runner.table.hand
                )


def _policy(name: str, legal: LegalActions) -> Action:
    """alice and bob check or call down; carol folds whenever she faces a bet."""
    if name == "carol":
        return Check() if legal.check else Fold()
    return Check() if legal.check else CallAction()


@pytest.fixture
def room(settlement: Settlement, accounts: Accounts, cashier: Cashier, clock: Clock) -> RoomRuntime:
    return RoomRuntime(
        settlement,
        accounts,
        cashier,
        parse_tables(TABLE),
        settings=RuntimeSettings(house_bots=0, between_hands=0.5, selftest_first=10**9),
        clock=clock,
    )


@pytest.fixture
def client(room: RoomRuntime) -> Iterator[TestClient]:
    with TestClient(create_app(room, drive=False)) as test_client:
        yield test_client


@pytest.fixture
def played(
    room: RoomRuntime, players: tuple[str, ...], storage: SqlStorage, clock: Clock
) -> Iterator[Played]:
    result = Played()
    room.add_listener(Recorder(result))
    histories = HandHistories(storage)

    async def play() -> None:
        await room.start()
        for seat, name in enumerate(players, start=1):
            await room.join("t", name, seat, 100)
        runner = room.runners["t"]
        table = runner.table
        for _ in range(2000):
            clock.now += 0.5
            await room.advance(clock.now)
            hand = table.hand
            if hand is not None and not hand.is_over and hand.to_act is not None:
                hand_id = runner.playing
                assert hand_id is not None
                # no proof while the hand is in progress: the salts are still secret
                with pytest.raises(NotAvailable):
                    histories.proof_for_player(hand_id, "alice")
                name = table.seats[hand.to_act].account
                legal = hand.legal_actions()
                assert legal is not None
                await room.act("t", name, _policy(name, legal), hand_id)
            if room.hands_settled >= HANDS:
                break
        result.hands = histories.hands_of("alice", 50)

    try:
        asyncio.run(play())
        assert len(result.hands) >= HANDS
        yield result
    finally:
        asyncio.run(room.stop())


def _sign_in(client: TestClient, name: str) -> dict[str, str]:
    response = client.post("/api/signin", json={"name": name, "password": PASSWORD})
    assert response.status_code == 200, response.text
    return {"Authorization": f"Bearer {response.json()['token']}"}


def _truth(storage: SqlStorage, hand_id: int) -> dict[str, Any]:
    with storage.transaction(write=False) as tx:
        return {row.player: row for row in tx.hand_players(hand_id)}


def _record(storage: SqlStorage, hand_id: int) -> dict[str, Any]:
    with storage.transaction(write=False) as tx:
        hand = tx.get_hand(hand_id)
    assert hand is not None
    record: dict[str, Any] = json.loads(hand.record)
    return record


def _proof(client: TestClient, headers: dict[str, str], hand_id: int) -> dict[str, Any]:
    response = client.get(f"/api/hands/{hand_id}/proof", headers=headers)
    assert response.status_code == 200, response.text
    assert "attachment" in response.headers["content-disposition"]
    proof: dict[str, Any] = response.json()
    return proof


# ------------------------------------------------------------------------- the commitment


def test_the_commitment_is_published_before_the_first_hole_card(played: Played) -> None:
    for hand_id in played.hands:
        order = played.deal_order[hand_id]
        assert order.index("HandStarted") < order.index("HoleCardsDealt")
        assert len(played.started[hand_id].commitment) == 64
        messages = played.wire_order[hand_id]
        kinds = [m.get("kind", m["type"]) for m in messages]
        start, hole = kinds.index("hand_started"), kinds.index("hole_cards")
        assert start < hole  # alice is sent the commitment before her cards
        assert messages[start]["commitment"] == played.started[hand_id].commitment
        assert kinds.index("hole_cards_dealt") < hole
    assert len({s.commitment for s in played.started.values()}) == len(played.started)


def test_the_books_keep_the_committed_deck_of_each_settled_hand(
    played: Played, storage: SqlStorage
) -> None:
    for hand_id in played.hands:
        with storage.transaction(write=False) as tx:
            deal = tx.get_hand_deal(hand_id)
        assert deal is not None
        assert deal.commitment == played.started[hand_id].commitment
        # every card each player was dealt is in the stored deck where the dealing order says
        record = _record(storage, hand_id)
        seats = [seat for seat, _, _ in record["players"]]  # from the button's left
        n = len(seats)
        deck = deal.deck.split()
        for name, row in _truth(storage, hand_id).items():
            i = seats.index(row.seat)
            assert row.hole.split() == [deck[i], deck[n + i]], name


# ------------------------------------------------------------------------- proofs


# Rules: R-HIST-2
def test_R_HIST_2_a_players_proof_opens_exactly_the_cards_they_may_see(
    client: TestClient, played: Played, storage: SqlStorage
) -> None:
    hidden_seen = False
    for name in ("alice", "bob", "carol"):
        headers = _sign_in(client, name)
        for hand_id in played.hands:
            rows = _truth(storage, hand_id)
            if name not in rows:
                continue
            proof = _proof(client, headers, hand_id)
            assert verify(proof) == []
            assert proof["hand_id"] == hand_id
            assert proof["table"] == "t"
            assert proof["commitment"] == played.started[hand_id].commitment
            record = _record(storage, hand_id)
            allowed = {
                (card, f"hole:{row.seat}")
                for who, row in rows.items()
                if who == name or row.showdown
                for card in row.hole.split()
            } | {(card, "board") for card in record["board"].split()}
            opened = {(c["card"], c["role"]) for c in proof["cards"]}
            assert opened == allowed
            hidden = {
                str(card)
                for who, row in rows.items()
                if who != name and not row.showdown
                for card in parse_cards(row.hole)
            }
            hidden_seen |= bool(hidden)
            assert not hidden & {c["card"] for c in proof["cards"]}
            # the board and hole positions follow the dealing order (R-DEAL-1..3)
            n = len(record["players"])
            board = [c["position"] for c in proof["cards"] if c["role"] == "board"]
            assert board == [2 * n + 1, 2 * n + 2, 2 * n + 3, 2 * n + 5, 2 * n + 7][: len(board)]
    assert hidden_seen  # carol folded: her cards were hidden from the others somewhere


# Rules: R-HIST-1
def test_R_HIST_1_no_proof_of_a_hand_the_player_was_not_dealt_into(
    client: TestClient, played: Played, accounts: Accounts
) -> None:
    accounts.sign_up("dave", PASSWORD)
    dave = _sign_in(client, "dave")
    hand_id = played.hands[0]
    refused = client.get(f"/api/hands/{hand_id}/proof", headers=dave)
    assert refused.status_code == 404
    assert refused.json()["error"]["code"] == "not_found"
    assert "commitment" not in refused.text
    alice = _sign_in(client, "alice")
    assert client.get(f"/api/hands/{hand_id + 999}/proof", headers=alice).status_code == 404
    assert client.get(f"/api/hands/{hand_id}/proof").status_code == 401
    assert client.get(f"/api/hands/{hand_id}.phh/proof", headers=alice).status_code == 400


def test_feltroom_verify_checks_a_downloaded_proof(
    client: TestClient, played: Played, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    headers = _sign_in(client, "alice")
    hand_id = played.hands[0]
    path = tmp_path / f"hand-{hand_id}-proof.json"
    path.write_text(json.dumps(_proof(client, headers, hand_id)), encoding="utf-8")
    assert cli.main(["verify", str(path)]) == 0
    assert f"hand {hand_id}" in capsys.readouterr().out
    proof = json.loads(path.read_text(encoding="utf-8"))
    proof["cards"][0]["position"] = (proof["cards"][0]["position"] + 26) % 52
    path.write_text(json.dumps(proof), encoding="utf-8")
    assert cli.main(["verify", str(path)]) == 1


def test_the_table_commits_to_the_deck_it_deals_before_any_card() -> None:
    """``HandStarted`` comes before every event of the hand and carries the commitment of the
    deck the hand is dealt from (the seeded source's first committed deck)."""
    table = Table(
        preset(
            "dead_nl_1_2",
            money="play",
            exponent=0,
            min_buy_in=40,
            max_buy_in=1000,
            first_button="first_seated",
        ),
        deck_source=SeededDeckSource(11),
    )
    table.sit("a", 1, 100, 0.0)
    table.sit("b", 2, 100, 0.0)
    events = table.start_hand(0.0)
    kinds = [type(e) for e in events]
    started = events[kinds.index(HandStarted)]
    assert kinds.index(HandStarted) < kinds.index(HoleCardsDealt)
    expected = SeededDeckSource(11).next_committed()
    assert isinstance(started, HandStarted)
    assert started.commitment == expected.commitment
    hand = table.hand
    assert hand is not None
    assert hand.hole_cards(hand.seats[0]) == (expected.deck[0], expected.deck[2])


# ------------------------------------------------------------------------- over the wire


def _options_of(hand_id: int) -> Callable[[dict[str, Any]], bool]:
    """Matches the turn message that carries the actor's options in hand ``hand_id``."""
    return lambda m: m["type"] == "turn" and m["hand"] == hand_id and m["legal"] is not None


async def _live_hands(storage: SqlStorage) -> dict[str, Any]:
    """Heads-up on a live server: in the first hand the first player to act folds at once; the
    second hand is checked and called down to the showdown. Returns what each client received,
    the hand ids and each player's proof of each hand (downloaded over HTTP)."""
    room = room_for(storage, HEADS_UP)
    async with live_server(room) as live:
        tokens = {name: await live.account(name) for name in ("alice", "bob")}
        async with (
            live.client("alice", tokens["alice"]) as alice,
            live.client("bob", tokens["bob"]) as bob,
        ):
            clients = {1: alice, 2: bob}
            for seat, client in clients.items():
                reply = await client.request(
                    {"type": "sit", "table": "hu", "seat": seat, "buy_in": 200}
                )
                assert reply["type"] == "ok", reply
            hands: list[int] = []
            for fold in (True, False):
                hand_id: int | None = None
                while True:  # alice sees every turn and the result; the actor gets the options
                    message = await alice.wait_for(
                        lambda m: m["type"] in ("turn", "hand_result") and m["hand"] not in hands
                    )
                    if message["type"] == "hand_result":
                        break
                    hand_id = message["hand"]
                    actor = clients[message["seat"]]
                    mine = message
                    if actor is not alice:  # alice's own turn came with her options
                        mine = await actor.wait_for(_options_of(message["hand"]))
                    legal = mine["legal"]
                    action = "fold" if fold else "check" if legal["check"] else "call"
                    reply = await actor.request(
                        {"type": "act", "table": "hu", "hand": hand_id, "action": action}
                    )
                    assert reply["type"] == "ok", reply
                assert hand_id is not None
                hands.append(hand_id)
            await bob.wait_for(lambda m: m["type"] == "hand_result" and m["hand"] == hands[-1])
            proofs: dict[str, dict[int, Any]] = {}
            async with httpx.AsyncClient(base_url=live.http) as http:
                for name, token in tokens.items():
                    headers = {"Authorization": f"Bearer {token}"}
                    for hand_id in hands:
                        for _ in range(200):  # the settlement may still be on its way
                            response = await http.get(
                                f"/api/hands/{hand_id}/proof", headers=headers
                            )
                            if response.status_code != 404:
                                break
                            await asyncio.sleep(0.05)
                        assert response.status_code == 200, response.text
                        proofs.setdefault(name, {})[hand_id] = response.json()
            return {
                "hands": hands,
                "logs": {"alice": list(alice.log), "bob": list(bob.log)},
                "proofs": proofs,
                "leaks": list(live.tap.leaks),
            }


def _messages_of(log: list[dict[str, Any]], hand_id: int) -> list[dict[str, Any]]:
    return [m for m in log if m.get("hand") == hand_id]


# Rules: R-HIST-2
def test_R_HIST_2_live_the_commitment_comes_first_and_the_proof_matches_what_was_seen(
    storage: SqlStorage,
) -> None:
    seen = asyncio.run(asyncio.wait_for(_live_hands(storage), 120))
    assert seen["leaks"] == []
    folded, showdown = seen["hands"]
    for name, seat in (("alice", 1), ("bob", 2)):
        for hand_id in (folded, showdown):
            messages = _messages_of(seen["logs"][name], hand_id)
            kinds = [m.get("kind", m["type"]) for m in messages]
            first_card = kinds.index("hole_cards")
            start = messages[kinds.index("hand_started")]
            assert kinds.index("hand_started") < first_card  # the commitment before any card
            proof = seen["proofs"][name][hand_id]
            assert verify(proof) == []
            assert proof["commitment"] == start["commitment"]
            # the cards this client saw in the hand are exactly the cards the proof opens
            saw = {(c, f"hole:{seat}") for c in messages[first_card]["cards"]}
            for m in messages:
                if m.get("kind") == "board_dealt":
                    saw |= {(c, "board") for c in m["cards"]}
                if m["type"] == "hand_result":
                    saw |= {(c, f"hole:{s}") for s, cards in m["shown"].items() for c in cards}
            opened = {(c["card"], c["role"]) for c in proof["cards"]}
            assert saw <= opened
            if hand_id == folded:
                # nobody showed: each proof opens the player's own two cards, no board
                assert opened == saw
                assert len(opened) == 2
            else:
                # the showdown: both hands (the loser's mucked cards too) and the five board cards
                assert len(opened) == 9
                assert {role for _, role in opened} == {"hole:1", "hole:2", "board"}
