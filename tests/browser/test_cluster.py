"""The browser client through a cluster's gateways behind nginx (docs/cluster.md): two workers,
two gateways, nginx in front of them with the configuration the docs give. A player signs up,
finds every worker's tables in the lobby, sits down and is dealt her cards, all through the one
address of the load balancer. The operator console through the same address: the live tables of
both workers, and a kick that reaches the table's owner."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from cluster.support import Workers, leases, wait_for
from feltroom.room import Accounts, Argon2Settings
from feltroom.room.operators import OperatorLog, Operators
from feltroom.store import open_storage
from services import NginxServer, RedisServer

from .helpers import sign_up
from .test_operator_console import console


def test_the_browser_client_plays_through_nginx_and_the_gateways(
    browser: Any, pg_url: str, redis_server: RedisServer, tmp_path: Path
) -> None:
    store = open_storage(pg_url)
    cluster = Workers(tmp_path, pg_url, redis_server.url, lease=3.0)
    nginx = None
    try:
        cluster.start("worker-a", load_tables=True)
        cluster.start("worker-b")
        ports = [cluster.start_gateway("gateway-A"), cluster.start_gateway("gateway-B")]
        nginx = NginxServer(ports)
        wait_for(
            "each worker to own a table",
            lambda: len({row.owner for row in leases(store).values()}) == 2,
            60,
        )
        page = sign_up(browser, nginx.url, "alice")
        # The lobby is the union of both workers' tables.
        expect(page.locator('tr[data-table="c1"]')).to_be_visible(timeout=20_000)
        expect(page.locator('tr[data-table="c2"]')).to_be_visible()
        page.goto(nginx.url + "/#table/c2")
        free = page.locator(".seat.empty button").first
        expect(free).to_be_visible()
        free.click()
        page.fill("#buy-in", "2000")
        page.click("#buy-in-sit")
        expect(page.locator(".seat.mine")).to_be_visible()
        # Dealt in by the table's owner, the frames through a gateway and nginx's websocket.
        expect(page.locator(".my-hand [data-card]")).to_have_count(2, timeout=30_000)

        # The operator console, served by whichever gateway nginx picks.
        accounts = Accounts(store, argon2=Argon2Settings.cheap())
        accounts.sign_up("boss", "password-boss")
        Operators(accounts).grant("boss", "", "root", "head of the floor")
        admin = console(browser, nginx.url, "boss")
        expect(admin.locator("#who")).to_have_text("Operator: boss")
        expect(admin.locator('#tables tr[data-table="c1"]')).to_be_visible()
        row = admin.locator('#tables tr[data-table="c2"]')
        expect(row.locator('li[data-player="alice"]')).to_be_visible()
        admin.fill("#reason", "slow play")
        admin.once("dialog", lambda dialog: dialog.accept())  # Kick asks first
        row.locator('li[data-player="alice"] button[data-action="kick"]').click()
        expect(admin.locator("#result")).to_contain_text("kick done (log entry")
        [kick] = [e for e in OperatorLog(store).entries() if e["action"] == "kick"]
        assert (kick["operator"], kick["target"]) == ("boss", "c2/alice")
        assert admin.errors == []  # type: ignore[attr-defined]
    finally:
        if nginx is not None:
            nginx.stop()
        cluster.stop_all()
        store.close()
