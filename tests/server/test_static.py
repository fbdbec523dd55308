"""The browser client's files are served by the app: the page at ``/`` and its modules and
stylesheet under ``/static`` (package data); the status page lives at ``/status``."""

from __future__ import annotations

from starlette.testclient import TestClient

from feltroom.server import create_app
from feltroom.server.app import STATIC
from feltroom.store import SqlStorage

from .live import room_for

TABLE = """
[[table]]
id = "t"
structure = "no_limit"
big_blind = 2
small_blind = 1
max_seats = 2
"""


def test_the_client_page_and_its_modules_are_served(storage: SqlStorage) -> None:
    room = room_for(storage, TABLE)
    with TestClient(create_app(room, drive=False)) as client:
        page = client.get("/")
        assert page.status_code == 200
        assert page.headers["content-type"].startswith("text/html")
        assert '<script type="module" src="/static/app.js">' in page.text
        for name in sorted(p.name for p in STATIC.iterdir() if p.suffix in (".js", ".css")):
            answer = client.get(f"/static/{name}")
            assert answer.status_code == 200, name
            assert answer.text == (STATIC / name).read_text(encoding="utf-8")
        assert client.get("/static/nothing.js").status_code == 404
        assert "/api/lobby" in client.get("/status").text
