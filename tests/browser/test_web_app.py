"""The room as an installable web app (issue 43, docs/web.md), in Debian's chromium: the
manifest parses and names its icons, the service worker registers and controls the page, and it
keeps the static client only: no API answer is cached or served by it."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Response, expect

from .helpers import sign_up

pytestmark = pytest.mark.browser

CACHED = """async () => {
  const found = [];
  for (const name of await caches.keys()) {
    const cache = await caches.open(name);
    for (const request of await cache.keys()) found.push(new URL(request.url).pathname);
  }
  return found;
}"""


def test_the_manifest_the_icons_and_a_worker_that_keeps_the_client_only(
    room: Any, browser: Any
) -> None:
    page = sign_up(browser, room.url, "phone")
    href = page.locator('link[rel="manifest"]').get_attribute("href")
    assert href == "/static/manifest.webmanifest"
    manifest = page.evaluate("(href) => fetch(href).then((r) => r.json())", href)
    assert manifest["name"] == "feltroom"
    assert manifest["display"] == "standalone"
    assert manifest["start_url"].startswith("/")
    sizes = {icon["sizes"] for icon in manifest["icons"]}
    assert {"192x192", "512x512"} <= sizes
    for icon in manifest["icons"]:
        answer = page.request.get(room.url + icon["src"])
        assert answer.status == 200
        assert answer.headers["content-type"] == "image/png"
        assert answer.body()[:8] == b"\x89PNG\r\n\x1a\n"
    worker = page.request.get(room.url + "/sw.js")
    assert worker.status == 200
    assert "javascript" in worker.headers["content-type"]

    # the worker registers with the whole client in its scope, and controls the page reloaded
    scope = page.evaluate("() => navigator.serviceWorker.ready.then((r) => r.scope)")
    assert scope == room.url + "/"
    answers: list[Response] = []
    page.on("response", lambda answer: answers.append(answer))
    page.reload()
    expect(page.locator("nav .who")).to_have_text("phone")
    controller = page.evaluate(
        "() => navigator.serviceWorker.controller && navigator.serviceWorker.controller.scriptURL"
    )
    assert controller == room.url + "/sw.js"
    page.evaluate("() => fetch('/api/lobby').then((r) => r.json())")
    expect(page.locator(".lobby tbody tr[data-table]").first).to_be_visible()

    # the client through the worker; every API answer from the network, none kept
    by_path = {a.url.removeprefix(room.url).split("?")[0]: a for a in answers}
    assert by_path["/static/app.js"].from_service_worker
    api = [a for a in answers if a.url.removeprefix(room.url).startswith("/api/")]
    assert api, "the page asked the API"
    assert not any(a.from_service_worker for a in api)
    kept = page.evaluate(CACHED)
    assert "/" in kept
    assert "/static/app.js" in kept
    assert all(path == "/" or path.startswith("/static/") for path in kept), kept
    assert not any(path.startswith(("/api", "/ws")) for path in kept), kept
    assert page.errors == []  # type: ignore[attr-defined]
