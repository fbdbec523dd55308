"""A tournament in the browser client through a cluster's gateways behind nginx (docs/cluster.md,
"Tournaments"): the tournament lobby lists the instance a worker runs, a person registers on
its page, the start takes her page to her table without a click (the owner's ``moved``
through a gateway and nginx), she is dealt her cards, plays to her result and sees the
results page; the books pass the audit."""

from __future__ import annotations

import asyncio
import re
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from cluster.support import TABLES, Workers, leases, until_ok, wait_for
from feltroom.cluster.client import TableClient
from feltroom.room import Accounts, Argon2Settings, Cashier, audit
from feltroom.store import open_storage
from services import NginxServer, RedisServer

from .helpers import sign_up

pytestmark = pytest.mark.slow  # (a cluster and a whole tournament: about a minute)

DUO = """
[[tournament]]
id = "duo"
format = "sng"
seats_per_table = 2
max_entries = 2
starting_stack = 200
buy_in = 1000
fee = 100
"""


async def _register(url: str, name: str) -> None:
    client = TableClient(url, timeout=5.0)
    await client.start()
    try:
        await until_ok(lambda: client.call("duo-1", "register", name), 30)
    finally:
        await client.close()


def test_R_TOURN_14_a_tournament_through_nginx_and_the_gateways(
    browser: Any, pg_url: str, redis_server: RedisServer, tmp_path: Path
) -> None:
    """R-TOURN-14 (the lobby and the tournament's page), R-TOURN-2 (registration): the
    browser client through nginx, the tournament run by a worker process."""
    store = open_storage(pg_url)
    accounts = Accounts(store, argon2=Argon2Settings.cheap())
    accounts.ensure_bot("duobot")  # the other entry: a house bot's account, played by the owner
    Cashier(store).grant("duobot", 1100, "duobot-grant")
    cluster = Workers(
        tmp_path,
        pg_url,
        redis_server.url,
        lease=3.0,
        think=0.3,
        tables=TABLES + DUO,
        house_bots=0,
        env={"FELTROOM_ROOM__BETWEEN_HANDS": "0.3", "FELTROOM_ROOM__AFTER_SHOWDOWN": "0.5"},
    )
    nginx = None
    try:
        cluster.start("worker-a", load_tables=True)
        cluster.start("worker-b")
        ports = [cluster.start_gateway("gateway-A"), cluster.start_gateway("gateway-B")]
        nginx = NginxServer(ports)
        wait_for("a worker to own duo-1", lambda: leases(store).get("duo-1"), 60)
        page = sign_up(browser, nginx.url, "tia")
        row = page.locator('#tournaments tr[data-tournament="duo-1"]')
        expect(row).to_contain_text("1,000 + 100 play chips", timeout=20_000)
        row.get_by_role("link", name="Details of Duo #1").click()
        expect(page.locator("#tournament-summary")).to_contain_text("Sit & Go")
        page.get_by_role("button", name="Register for Duo #1").click()
        expect(page.locator('#entrants tr[data-account="tia"]')).to_be_visible()
        with ThreadPoolExecutor(1) as pool:  # (playwright's loop runs in this thread)
            pool.submit(asyncio.run, _register(cluster.broker, "duobot")).result()
        # The start takes the page to its table unasked; the owner deals her cards.
        expect(page).to_have_url(re.compile(r"#table/duo-1\.1$"), timeout=40_000)
        expect(page.locator(".seat.mine")).to_have_count(1)
        expect(page.locator(".my-hand [data-card]")).to_have_count(2, timeout=30_000)
        deadline = time.monotonic() + 150
        while time.monotonic() < deadline and "#results/" not in page.url:
            _shove(page)
            page.wait_for_timeout(200)
        expect(page).to_have_url(re.compile(r"#results/duo-1$"))
        expect(page.locator("#my-result")).to_contain_text(
            re.compile(r"You finished (1st|2nd) of 2 in Duo #1")
        )
        assert page.errors == []  # type: ignore[attr-defined]
    except BaseException:
        print(cluster.tails())
        raise
    finally:
        if nginx is not None:
            nginx.stop()
        cluster.stop_all()
    report = audit(store, shuffles=0)
    assert report["pass"], report["problems"]
    store.close()


def _shove(page: Any) -> None:
    """At the player's turn: all in, else call, else check."""
    if page.locator("#actions .row button").count() == 0:
        return
    try:
        if page.locator("#preset-allin").count():
            page.click("#preset-allin", timeout=2_000)
            page.click("#act-raise, #act-bet", timeout=2_000)
        elif page.locator("#act-call").count():
            page.click("#act-call", timeout=2_000)
        elif page.locator("#act-check").count():
            page.click("#act-check", timeout=2_000)
    except Exception:  # the turn went on meanwhile: looked for again
        return
