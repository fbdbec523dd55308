"""``GET /readyz`` (issue 22): 200 when the database and, in a cluster, the broker answer; 503
with what failed otherwise."""

from __future__ import annotations

from starlette.testclient import TestClient

from feltroom.cluster.broker import broker_check
from feltroom.server import create_app
from feltroom.store import SqlStorage
from server.live import HEADS_UP, room_for
from services import RedisServer, free_port


def test_ready_when_the_database_and_the_broker_answer(
    storage: SqlStorage, redis_server: RedisServer
) -> None:
    app = create_app(
        room_for(storage, HEADS_UP),
        drive=False,
        ready_checks={"broker": broker_check(redis_server.url)},
    )
    with TestClient(app) as client:
        answer = client.get("/readyz")
    assert answer.status_code == 200
    assert answer.json() == {"status": "ready", "checks": {"database": "ok", "broker": "ok"}}


def test_not_ready_while_the_broker_does_not_answer(storage: SqlStorage) -> None:
    nobody = f"redis://:secret@127.0.0.1:{free_port()}/0"
    app = create_app(
        room_for(storage, HEADS_UP), drive=False, ready_checks={"broker": broker_check(nobody)}
    )
    with TestClient(app) as client:
        answer = client.get("/readyz")
        alive = client.get("/healthz")
    assert answer.status_code == 503
    body = answer.json()
    assert body["status"] == "not ready"
    assert body["checks"]["database"] == "ok"
    assert "ConnectionError" in body["checks"]["broker"]
    assert alive.status_code == 200


def test_metrics_are_refused_to_a_client_outside_the_allowed_addresses(storage: SqlStorage) -> None:
    app = create_app(room_for(storage, HEADS_UP), drive=False)
    with TestClient(app) as client:  # the test client's address is "testclient", not loopback
        refused = client.get("/metrics")
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "forbidden"
    app = create_app(room_for(storage, HEADS_UP), drive=False, metrics_allow=("*",))
    with TestClient(app) as client:
        served = client.get("/metrics")
    assert served.status_code == 200
    assert "feltroom_tables_running 1.0" in served.text
