"""Hand history downloads for trackers: ``GET /api/hands/{id}.txt`` (PokerStars text),
``/api/hands/{id}.ohh`` (OHH) and ``/api/hands/export`` (many hands in one file), each with the
visibility of R-HIST-2 and the authentication of the other hand requests (R-HIST-1)."""

from __future__ import annotations

import asyncio
import json
import re
import warnings
from collections.abc import Iterator
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest
from starlette.testclient import TestClient

from fakeclock import Clock
from feltroom.cards import parse_cards
from feltroom.history import ohh, ohh_import, phh, pokerstars, pokerstars_import
from feltroom.history.replay import replay
from feltroom.room import Accounts, Cashier, HandHistories, Settlement
from feltroom.room.runtime import RoomRuntime, RuntimeSettings
from feltroom.room.tables_config import parse_tables
from feltroom.server import create_app
from feltroom.server.rest import RestLimits
from feltroom.store import SqlStorage

from .test_rest import _alice, _allowed, _bob, _error, _sign_in, _truth

TABLE = """
[[table]]
id = "t"
name = "Birch"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 6
rake_percent = 0
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
def client(room: RoomRuntime, clock: Clock) -> Iterator[TestClient]:
    with TestClient(create_app(room, drive=False, limits=RestLimits(clock=clock))) as test_client:
        yield test_client


def _covered(storage: SqlStorage, hand_ids: list[int]) -> bool:
    """alice folded in one hand, someone mucked at a showdown, someone's cards stay hidden."""
    folded = mucked = hidden = False
    for hand_id in hand_ids:
        rows = _truth(storage, hand_id)
        folded |= not rows["alice"].showdown
        mucked |= any(r.showdown and not r.shown for r in rows.values())
        hidden |= any(not r.showdown and not r.shown for n, r in rows.items() if n != "alice")
    return folded and mucked and hidden and len(hand_ids) >= 8


@pytest.fixture
def played(
    room: RoomRuntime, players: tuple[str, ...], storage: SqlStorage, clock: Clock
) -> Iterator[list[int]]:
    """alice and bob play at a table of house bots; the ids of alice's hands, newest first."""
    policies = {"alice": _alice, "bob": _bob}
    histories = HandHistories(storage)

    async def play() -> list[int]:
        await room.start()
        runner = room.runners["t"]
        table = runner.table
        free = [seat for seat in range(1, 7) if seat not in table.seats]
        await room.join("t", "alice", free[0])
        await room.join("t", "bob", free[1])
        settled = room.hands_settled
        for _ in range(40_000):
            clock.now += 0.5
            await room.advance(clock.now)
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
        yield asyncio.run(play())
    finally:
        asyncio.run(room.stop())


def _started(storage: SqlStorage, hand_id: int) -> datetime:
    with storage.transaction(write=False) as tx:
        row = tx.get_hand(hand_id)
    assert row is not None
    return datetime.fromtimestamp(row.started_at, UTC).replace(microsecond=0)


def _hidden(rows: dict[str, Any], player: str) -> set[str]:
    """The cards ``player`` may not see (R-HIST-2): hole cards neither theirs, nor of the
    showdown, nor shown at the table."""
    allowed = _allowed(rows, player)
    return {
        str(card)
        for name, row in rows.items()
        if allowed[name] is None and not row.shown
        for card in parse_cards(row.hole)
    }


def _cards_in(text: str) -> set[str]:
    return {card for group in re.findall(r"\[([^\]]*)\]", text) for card in group.split()}


def _final_stacks(rows: dict[str, Any]) -> dict[str, int]:
    return {
        name: row.start_stack - row.contribution + row.payout + row.tax
        for name, row in rows.items()
    }


# Rules: R-HIST-1, R-HIST-2, R-SHOW-5
def test_R_HIST_2_the_pokerstars_download_is_the_players_view_for_a_tracker(
    client: TestClient, played: list[int], storage: SqlStorage
) -> None:
    headers = _sign_in(client, "alice")
    muck_seen = 0
    for hand_id in played:
        rows = _truth(storage, hand_id)
        response = client.get(f"/api/hands/{hand_id}.txt", headers=headers)
        assert response.status_code == 200, response.text
        assert response.headers["content-type"].startswith("text/plain")
        assert f'filename="hand-{hand_id}.txt"' in response.headers["content-disposition"]
        text = response.text
        lines = text.splitlines()
        eastern = _started(storage, hand_id).astimezone(pokerstars.EASTERN)
        assert lines[0].startswith(f"PokerStars Hand #{hand_id}:  Hold'em No Limit (1/2) - ")
        assert lines[0].endswith(f"{eastern:%Y/%m/%d} {eastern.hour}:{eastern:%M:%S} ET")
        assert lines[1].startswith("Table 'Birch' 6-max (Play Money) Seat #")
        # one hero: alice's own Dealt to line is the only one with cards
        assert re.findall(r"^Dealt to (.*) \[", text, re.M) == ["alice"]
        assert f"Dealt to alice [{rows['alice'].hole}]" in lines
        assert not _cards_in(text) & _hidden(rows, "alice")
        for name, row in rows.items():  # every mucked hand of the showdown (R-SHOW-5)
            if row.showdown and not row.shown:
                assert re.search(
                    rf"^Seat \d+: {re.escape(name)}.* mucked \[{row.hole}\]$", text, re.M
                )
                muck_seen += 1
        (record,) = pokerstars_import.loads(text).records
        assert record.metadata["hero"] == "alice"
        final = replay(record)
        stacks = dict(zip((s for s, _ in final.setup.players), final.final_stacks, strict=True))
        names = {p.seat: p.name for p in record.players}
        assert {names[s]: stack for s, stack in stacks.items()} == _final_stacks(rows)
    assert muck_seen > 0


# Rules: R-HIST-2
def test_R_HIST_2_the_ohh_download_validates_and_names_the_hero_and_table(
    client: TestClient, played: list[int], storage: SqlStorage
) -> None:
    headers = _sign_in(client, "bob")
    for hand_id in played:
        rows = _truth(storage, hand_id)
        if "bob" not in rows:
            continue
        response = client.get(f"/api/hands/{hand_id}.ohh", headers=headers)
        assert response.status_code == 200, response.text
        assert response.headers["content-type"].startswith("application/json")
        document = json.loads(response.text, parse_float=Decimal)
        assert ohh.validate(document) == []
        hand = document["ohh"]
        assert hand["game_number"] == str(hand_id)
        assert hand["table_name"] == "Birch"
        started = _started(storage, hand_id)
        assert hand["start_date_utc"] == started.strftime("%Y-%m-%dT%H:%M:%SZ")
        ids = {p["name"]: p["id"] for p in hand["players"]}
        assert hand["hero_player_id"] == ids["bob"]
        dealt = [a for r in hand["rounds"] for a in r["actions"] if a["action"] == "Dealt Cards"]
        assert [(a["player_id"], " ".join(a["cards"])) for a in dealt] == [
            (ids["bob"], rows["bob"].hole)
        ]
        seen = {c for r in hand["rounds"] for a in r["actions"] for c in a.get("cards") or []}
        assert not seen & _hidden(rows, "bob")
        (record,) = ohh_import.loads(response.text).records
        assert record.metadata["hero"] == "bob"


# Rules: R-HIST-1, R-HIST-2
def test_R_HIST_1_the_export_holds_the_players_hands_newest_last_in_every_format(
    client: TestClient, played: list[int], storage: SqlStorage
) -> None:
    headers = _sign_in(client, "alice")
    newest = played[:5]
    response = client.get("/api/hands/export?format=pokerstars&limit=5", headers=headers)
    assert response.status_code == 200, response.text
    assert response.headers["x-hands"] == "5"
    assert 'filename="hands.txt"' in response.headers["content-disposition"]
    text = response.text
    numbers = [int(n) for n in re.findall(r"^PokerStars Hand #(\d+):", text, re.M)]
    assert numbers == list(reversed(newest))  # newest last
    assert text.count("\n\n\nPokerStars Hand #") == 4  # two blank lines between hands
    for hand_id, part in zip(reversed(newest), pokerstars_import.loads(text).records, strict=True):
        assert part.hand_id == hand_id
    for hand_id, part_text in zip(reversed(newest), text.split("\n\n\n"), strict=True):
        assert part_text.startswith(f"PokerStars Hand #{hand_id}:")
        assert not _cards_in(part_text) & _hidden(_truth(storage, hand_id), "alice")
    from pokerkit import HandHistory

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        histories = list(HandHistory.from_pokerstars(text, parse_value=Decimal, error_status=True))
    assert len(histories) == 5
    # OHH: one document per line; PHH: one .phhs
    response = client.get("/api/hands/export?format=ohh&limit=5", headers=headers)
    assert response.headers["content-type"].startswith("application/x-ndjson")
    lines = response.text.splitlines()
    assert [json.loads(line)["ohh"]["game_number"] for line in lines] == [
        str(h) for h in reversed(newest)
    ]
    assert all(ohh.validate(json.loads(line, parse_float=Decimal)) == [] for line in lines)
    assert [r.hand_id for r in ohh_import.loads(response.text).records] == list(reversed(newest))
    response = client.get("/api/hands/export?format=phh&limit=5", headers=headers)
    records = phh.loads_all(response.text)
    assert [r.hand_id for r in records] == list(reversed(newest))
    assert {r.metadata["table"] for r in records} == {"Birch"}
    # without a limit: the default page (50), all of alice's hands here
    everything = client.get("/api/hands/export?format=pokerstars", headers=headers)
    assert everything.headers["x-hands"] == str(len(played))


def test_the_export_by_time_range(
    client: TestClient, played: list[int], storage: SqlStorage
) -> None:
    headers = _sign_in(client, "alice")
    oldest_first = list(reversed(played))
    since = datetime.fromtimestamp(_start_seconds(storage, oldest_first[2]), UTC)
    until = datetime.fromtimestamp(_start_seconds(storage, oldest_first[5]), UTC)
    query = f"since={since.isoformat()}&until={until.isoformat()}".replace("+", "%2B")
    response = client.get(f"/api/hands/export?format=ohh&{query}", headers=headers)
    assert response.status_code == 200, response.text
    games = [int(json.loads(line)["ohh"]["game_number"]) for line in response.text.splitlines()]
    assert games == oldest_first[2:5]  # started at or after since, before until; newest last
    assert "x-more-hands-until" not in response.headers
    # more hands in the range than the limit: the newest, and where the next request starts
    response = client.get(f"/api/hands/export?format=ohh&{query}&limit=2", headers=headers)
    games = [int(json.loads(line)["ohh"]["game_number"]) for line in response.text.splitlines()]
    assert games == oldest_first[3:5]
    more = datetime.fromisoformat(response.headers["x-more-hands-until"])
    assert more.timestamp() == _start_seconds(storage, oldest_first[3])
    # a naive time is UTC, and Z is accepted
    naive = f"since={since.replace(tzinfo=None).isoformat()}"
    zulu = f"since={since.isoformat().replace('+00:00', 'Z')}"
    a = client.get(f"/api/hands/export?format=phh&{naive}", headers=headers).text
    b = client.get(f"/api/hands/export?format=phh&{zulu}", headers=headers).text
    assert a == b
    assert len(phh.loads_all(a)) == len(played) - 2


def _start_seconds(storage: SqlStorage, hand_id: int) -> float:
    with storage.transaction(write=False) as tx:
        row = tx.get_hand(hand_id)
    assert row is not None
    return row.started_at


# Rules: R-HIST-1
def test_R_HIST_1_downloads_need_a_hand_the_player_was_dealt_into(
    client: TestClient, played: list[int]
) -> None:
    carol = _sign_in(client, "carol")
    for path in (f"/api/hands/{played[0]}.txt", f"/api/hands/{played[0]}.ohh"):
        assert "R-HIST-1" in _error(client.get(path, headers=carol), 404, "not_found")
        _error(client.get(path), 401, "unauthenticated")
    empty = client.get("/api/hands/export?format=pokerstars", headers=carol)
    assert (empty.status_code, empty.text, empty.headers["x-hands"]) == (200, "", "0")
    _error(client.get("/api/hands/export?format=ohh"), 401, "unauthenticated")


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ("", "format must be one of pokerstars, ohh, phh"),
        ("format=csv", "format must be one of pokerstars, ohh, phh, not 'csv'"),
        ("format=ohh&limit=0", "limit must be a whole number from 1 to 200"),
        ("format=ohh&limit=201", "limit must be a whole number from 1 to 200"),
        ("format=ohh&since=yesterday", "since must be an ISO 8601 time"),
        ("format=ohh&until=2026-13-01", "until must be an ISO 8601 time"),
        ("format=ohh&since=2026-12-02&until=2026-12-01", "since must be earlier than until"),
        ("format=ohh&sort=asc", "unknown query parameter 'sort'"),
    ],
)
def test_bad_export_requests_say_what_is_valid(
    client: TestClient, players: tuple[str, ...], query: str, words: str
) -> None:
    headers = _sign_in(client, "alice")
    message = _error(
        client.get(f"/api/hands/export?{query}", headers=headers), 400, "invalid_field"
    )
    assert words in message


def test_bad_download_paths_say_what_is_valid(client: TestClient, players: tuple[str, ...]) -> None:
    headers = _sign_in(client, "alice")
    for path in ("/api/hands/abc.txt", "/api/hands/0.ohh", "/api/hands/1.phh.txt"):
        message = _error(client.get(path, headers=headers), 400, "invalid_field")
        assert "/api/hands/<id>.txt" in message
    _error(client.get("/api/hands/1.txt?format=ohh", headers=headers), 400, "invalid_field")
