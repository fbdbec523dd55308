"""POST /api/signin writes the sign-in log (issue 24): the client's address and user agent."""

from __future__ import annotations

from starlette.testclient import TestClient

from fakeclock import Clock
from feltroom.room import Accounts, Settlement
from feltroom.room.runtime import RoomRuntime, RuntimeSettings
from feltroom.room.signins import SignInLog
from feltroom.room.tables_config import parse_tables
from feltroom.server import create_app
from feltroom.server.rest import RestLimits

TABLE = """
[[table]]
id = "t"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 6
"""


def test_a_successful_sign_in_is_logged_and_a_failed_one_is_not(
    settlement: Settlement, accounts: Accounts, cashier: object, clock: Clock
) -> None:
    room = RoomRuntime(
        settlement,
        accounts,
        cashier,  # type: ignore[arg-type]
        parse_tables(TABLE),
        settings=RuntimeSettings(house_bots=0, selftest_first=10**9),
        clock=clock,
    )
    accounts.sign_up("alice", "correct horse")
    log = SignInLog(settlement.storage, clock=clock, retention_days=30)
    app = create_app(room, drive=False, limits=RestLimits(clock=clock), sign_ins=log)
    client = TestClient(app, client=("203.0.113.7", 40000))
    wrong = client.post("/api/signin", json={"name": "alice", "password": "wrong password"})
    assert wrong.status_code == 401
    assert log.since(0.0) == []
    right = client.post(
        "/api/signin",
        json={"name": "alice", "password": "correct horse"},
        headers={"User-Agent": "feltroom-test/1.0"},
    )
    assert right.status_code == 200, right.text
    [row] = log.since(0.0)
    assert (row.account, row.address, row.user_agent, row.at) == (
        "alice",
        "203.0.113.7",
        "feltroom-test/1.0",
        clock.now,
    )
