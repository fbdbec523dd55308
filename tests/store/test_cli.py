"""The operator's commands: `feltroom cashier`, `feltroom admin`, `feltroom audit`."""

from __future__ import annotations

import getpass
import json
from pathlib import Path
from typing import Any

import pytest

from feltroom.cli import main
from feltroom.room import Accounts, Argon2Settings
from feltroom.room.storage import TournamentRow
from feltroom.room.tournament_journal import replay, settings_json, write_input
from feltroom.room.tournaments import TournamentBooks
from feltroom.store import open_storage
from feltroom.tournament import TournamentSettings


@pytest.fixture
def db(db_url: str) -> str:
    store = open_storage(db_url)
    Accounts(store, argon2=Argon2Settings.cheap()).sign_up("alice", "correct horse")
    store.close()
    return db_url


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cashier_deposit_withdraw_and_balance(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    args = ("--account", "alice", "--currency", "USD")
    code, out, _ = run(
        capsys, "cashier", "--db", db, "deposit", *args, "--amount", "12.34", "--key", "k1"
    )
    assert code == 0
    assert json.loads(out)["balance"] == "12.34"
    code, out, _ = run(
        capsys, "cashier", "--db", db, "deposit", *args, "--amount", "12.34", "--key", "k1"
    )
    assert code == 0
    assert json.loads(out)["repeated"] is True
    code, out, _ = run(
        capsys, "cashier", "--db", db, "withdraw", *args, "--amount", "2", "--key", "k2"
    )
    assert code == 0
    code, out, _ = run(capsys, "cashier", "--db", db, "balance", "--account", "alice")
    assert code == 0
    assert json.loads(out) == {"account": "alice", "balances": {"USD": "10.34"}}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["deposit", "--account", "bob", "--currency", "USD", "--amount", "1", "--key", "x"],
            "no player account named 'bob'",
        ),
        (
            ["deposit", "--account", "alice", "--currency", "XYZ", "--amount", "1", "--key", "x"],
            "unknown currency 'XYZ'; valid: PLAY, USD, EUR",
        ),
        (
            [
                "deposit",
                "--account",
                "alice",
                "--currency",
                "USD",
                "--amount",
                "1.005",
                "--key",
                "x",
            ],
            "finer than the smallest unit 0.01",
        ),
        (
            [
                "withdraw",
                "--account",
                "alice",
                "--currency",
                "USD",
                "--amount",
                "5.01",
                "--key",
                "x",
            ],
            "at most 5.00",
        ),
        (
            ["deposit", "--account", "alice", "--currency", "USD", "--amount", "6", "--key", "k0"],
            "already used for a deposit with different details",
        ),
        (["balance", "--account", "bob"], "no player account named 'bob'"),
    ],
)
def test_bad_input_exits_2_names_what_is_valid_and_changes_nothing(
    db: str, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    base = ["--account", "alice", "--currency", "USD"]
    assert (
        run(capsys, "cashier", "--db", db, "deposit", *base, "--amount", "5", "--key", "k0")[0] == 0
    )
    code, out, err = run(capsys, "cashier", "--db", db, *argv)
    assert code == 2
    assert out == ""
    assert message in err
    _, out, _ = run(capsys, "cashier", "--db", db, "balance", "--account", "alice")
    assert json.loads(out)["balances"] == {"USD": "5.00"}


def test_admin_resets_protections(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    store = open_storage(db)
    accounts = Accounts(store, argon2=Argon2Settings.cheap())
    assert accounts.consume_protection("alice", "t1")
    assert accounts.consume_protection("alice", "t2")
    assert accounts.protections_left("alice") == 0
    code, out, _ = run(capsys, "admin", "--db", db, "reset-protections", "--account", "alice")
    assert code == 0
    assert json.loads(out)["protections_left"] == 2
    assert accounts.protections_left("alice") == 2
    store.close()
    code, _, err = run(capsys, "admin", "--db", db, "reset-protections", "--account", "zed")
    assert code == 2
    assert "no player account named 'zed'" in err


def test_audit_prints_one_json_object_and_exits_0_when_the_books_balance(
    db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    run(
        capsys,
        "cashier",
        "--db",
        db,
        "deposit",
        "--account",
        "alice",
        "--currency",
        "PLAY",
        "--amount",
        "100",
        "--key",
        "p",
    )
    code, out, _ = run(capsys, "audit", "--db", db, "--shuffles", "0")
    report = json.loads(out)
    assert code == 0
    assert set(report) == {
        "currencies",
        "hands_checked",
        "operator_transfers_checked",
        "tournaments",
        "problems",
        "selftest",
        "pass",
    }
    assert report["pass"] is True
    assert report["currencies"]["PLAY"]["balances"] == {"external": "-100", "wallet": "100"}


def test_audit_exits_1_when_the_books_do_not_balance(
    db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    import sqlite3

    run(
        capsys,
        "cashier",
        "--db",
        db,
        "deposit",
        "--account",
        "alice",
        "--currency",
        "PLAY",
        "--amount",
        "100",
        "--key",
        "p",
    )
    with sqlite3.connect(db.removeprefix("sqlite:///")) as raw:
        raw.execute("UPDATE accounts SET balance = 99 WHERE key LIKE 'wallet:%:PLAY'")
    code, out, _ = run(capsys, "audit", "--db", db, "--shuffles", "0")
    assert code == 1
    assert json.loads(out)["pass"] is False


def test_audit_runs_the_shuffle_self_test(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "audit", "--db", db, "--shuffles", "1000")
    report = json.loads(out)
    assert report["selftest"]["shuffles"] == 1000
    assert code == (0 if report["selftest"]["pass"] else 1)


def test_a_bad_database_url_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "audit", "--db", "nosuchdb://x", "--shuffles", "0")
    assert code == 2
    assert "cannot open the database" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["audit", "--shuffles", "0"],
        ["cashier", "balance", "--account", "alice"],
        ["integrity"],
        ["admin", "log"],
    ],
)
def test_a_missing_sqlite_file_is_an_error_not_a_new_empty_room(
    fast_tmp: Path, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """A mistyped path must not pass the audit on a new, empty room."""
    missing = fast_tmp / "typo" / "room.sqlite3"
    code, out, err = run(capsys, *argv[:1], "--db", f"sqlite:///{missing}", *argv[1:])
    assert code == 2
    assert f"there is no SQLite database at {missing}" in err
    assert out == ""
    assert not missing.exists()


def _serve_options(
    monkeypatch: pytest.MonkeyPatch, db_url: str, *argv: str
) -> tuple[Any, tuple[str, ...]]:
    """What ``feltroom serve`` hands the application and uvicorn (neither is started)."""
    import feltroom.server

    seen: dict[str, Any] = {}

    def create_app(runtime: object, **options: Any) -> str:
        seen["limits"] = options.get("limits")
        return "app"

    def serve(app: object, host: str, port: int, **options: Any) -> None:
        seen["forwarded"] = options["forwarded_allow_ips"]

    monkeypatch.setattr(feltroom.server, "create_app", create_app)
    monkeypatch.setattr(feltroom.server, "serve", serve)
    assert main(["serve", "--db", db_url, *argv]) == 0
    return seen["limits"], seen["forwarded"]


def test_serve_exempts_exactly_this_machine_from_the_sign_up_limit_by_default(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 27, point 4: ``--signup-exempt`` defaults to exactly 127.0.0.1 and ::1; hashing
    pool 2; five sign-ups an address; and (point 5) no proxy is trusted by default."""
    limits, forwarded = _serve_options(monkeypatch, db_url)
    assert limits.signup_exempt == frozenset({"127.0.0.1", "::1"})
    assert "127.0.0.2" not in limits.signup_exempt
    assert limits.hash_pool == 2
    assert (limits.signups, limits.signup_window) == (5, 600.0)
    assert forwarded == ()
    limits, forwarded = _serve_options(
        monkeypatch,
        db_url,
        "--signup-exempt",
        "10.0.0.7, ::1",
        "--forwarded-allow-ips",
        "10.0.0.1,192.168.0.0/16",
        "--hash-pool",
        "3",
        "--signups",
        "9",
    )
    assert limits.signup_exempt == frozenset({"10.0.0.7", "::1"})
    assert (limits.hash_pool, limits.signups) == (3, 9)
    assert forwarded == ("10.0.0.1", "192.168.0.0/16")
    limits, _ = _serve_options(monkeypatch, db_url, "--signup-exempt", "")
    assert limits.signup_exempt == frozenset()


@pytest.mark.parametrize(
    ("option", "value"),
    [("--signup-exempt", "localhost"), ("--forwarded-allow-ips", "proxy"), ("--hash-pool", "0")],
)
def test_serve_refuses_bad_addresses_and_pools(
    db_url: str, capsys: pytest.CaptureFixture[str], option: str, value: str
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["serve", "--db", db_url, option, value])
    assert exited.value.code == 2
    assert value in capsys.readouterr().err


def _registered(db: str, capsys: pytest.CaptureFixture[str], tournament_id: str) -> None:
    """A sit-and-go ``tournament_id`` in PLAY, registering, with alice's entry (buy-in 1000 and
    fee 100 paid from a deposit of 5000 or from what she holds)."""
    run(capsys, "cashier", "--db", db, "deposit", "--account", "alice", "--currency", "PLAY",
        "--amount", "5000", "--key", f"d-{tournament_id}")  # fmt: skip
    store = open_storage(db)
    try:
        row = TournamentRow(
            tournament_id, "sng", 1, "PLAY", settings_json(TournamentSettings()), "7", None,
            "registering", 0.0, 0.0,
        )  # fmt: skip
        with store.transaction() as tx:
            tx.add_tournament(row)
            outputs = replay(row, []).director.register("alice", 1.0)
            books = TournamentBooks(store, tournament_id, "PLAY")
            write_input(tx, row, 1, "register", {"account": "alice"}, 1.0, outputs,
                        books=books, status="registering")  # fmt: skip
    finally:
        store.close()


def _references(db: str, tournament_id: str) -> list[str]:
    """The references of the transfers that moved money out of the tournament's prize pool or
    back to its entries (refunds and prizes)."""
    store = open_storage(db)
    try:
        with store.transaction(write=False) as tx:
            return sorted(ref for _, ref in tx.operator_transfers() if tournament_id in ref)
    finally:
        store.close()


def test_admin_cancel_tournament_refunds_the_entries_and_refuses_an_unknown_id(
    db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``feltroom admin cancel-tournament --id ID`` (R-TOURN-13) before the start: buy-in and fee
    back; an unknown or already cancelled id exits 2 saying why, changing nothing. Given only
    ``--id``, the cancellation is still an operator action on record: operator
    ``cli:<OS user>``, reason ``cancelled from the command line``, its refunds naming the
    entry, so the audit counts them among the operator transfers it checks."""
    _registered(db, capsys, "sng-1")
    code, out, _ = run(capsys, "cashier", "--db", db, "balance", "--account", "alice")
    assert json.loads(out)["balances"]["PLAY"] == "3900"
    code, out, err = run(capsys, "admin", "--db", db, "cancel-tournament", "--id", "sng-1")
    assert code == 0, err
    result = json.loads(out)
    assert result["status"] == "cancelled"
    assert result["refunded"] == {"alice": 1100}
    operator = f"cli:{getpass.getuser()}"
    assert result["operator"] == operator
    entry = result["entry"]
    code, out, _ = run(capsys, "cashier", "--db", db, "balance", "--account", "alice")
    assert json.loads(out)["balances"]["PLAY"] == "5000"
    code, out, err = run(capsys, "admin", "--db", db, "cancel-tournament", "--id", "sng-1")
    assert code == 2
    assert out == ""
    assert "tournament sng-1 is already cancelled: nothing to cancel" in err
    code, out, err = run(capsys, "admin", "--db", db, "cancel-tournament", "--id", "x-1")
    assert code == 2
    assert "no tournament 'x-1'; tournaments that can be cancelled: none" in err
    code, out, _ = run(capsys, "admin", "--db", db, "log")
    assert code == 0
    (logged,) = json.loads(out)["entries"]  # the refusals wrote nothing
    assert logged["id"] == entry
    assert (logged["operator"], logged["action"], logged["target"], logged["reason"]) == (
        operator,
        "cancel-tournament",
        "sng-1",
        "cancelled from the command line",
    )
    # the buy-in back from the prize pool and the fee from the house: both name the entry
    assert _references(db, "sng-1") == [f"tournament:sng-1:refund:1:operator:{entry}"] * 2
    code, out, _ = run(capsys, "audit", "--db", db, "--shuffles", "0")
    assert code == 0
    report = json.loads(out)
    assert report["problems"] == []
    assert report["operator_transfers_checked"] == 2
    assert report["tournaments"]["sng-1"]["pool_left"] == 0
    assert report["tournaments"]["sng-1"]["status"] == "cancelled"


def test_admin_cancel_tournament_is_on_record_as_the_operator_with_the_reason(
    db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """R-TOURN-13 and the operator log: ``feltroom admin --operator NAME --reason TEXT
    cancel-tournament --id ID`` writes one entry (operator, action, target, time, reason) in the
    cancellation's transaction; ``admin log [--since DATE]`` lists it and the audit checks the
    refunds against it. An ``--operator`` that is no operator account (or an empty reason) is
    refused, changing nothing: no refund, no entry, the tournament still registering."""
    _registered(db, capsys, "sng-2")
    store = open_storage(db)
    try:
        Accounts(store, argon2=Argon2Settings.cheap()).sign_up("carol", "correct horse")
    finally:
        store.close()
    cancel = ("cancel-tournament", "--id", "sng-2")
    code, out, err = run(
        capsys, "admin", "--db", db, "--operator", "carol", "--reason", "x", *cancel
    )
    assert code == 2
    assert out == ""
    assert "'carol' is not an operator" in err
    code, out, err = run(
        capsys, "admin", "--db", db, "--operator", "nobody", "--reason", "x", *cancel
    )
    assert code == 2
    assert "'nobody' is not an operator" in err
    code, out, _ = run(capsys, "admin", "--db", db, "--operator", "root", "--reason", "trust",
                       "grant-operator", "carol")  # fmt: skip
    assert code == 0
    code, out, err = run(
        capsys, "admin", "--db", db, "--operator", "carol", "--reason", "", *cancel
    )
    assert code == 2
    assert "reason" in err
    code, out, _ = run(capsys, "cashier", "--db", db, "balance", "--account", "alice")
    assert json.loads(out)["balances"]["PLAY"] == "3900"
    code, out, _ = run(capsys, "admin", "--db", db, "log")
    assert [e["action"] for e in json.loads(out)["entries"]] == ["grant-operator"]

    reason = "the venue lost power"
    code, out, err = run(
        capsys, "admin", "--db", db, "--operator", "carol", "--reason", reason, *cancel
    )
    assert code == 0, err
    result = json.loads(out)
    assert (result["operator"], result["status"]) == ("carol", "cancelled")
    assert result["refunded"] == {"alice": 1100}
    code, out, _ = run(capsys, "cashier", "--db", db, "balance", "--account", "alice")
    assert json.loads(out)["balances"]["PLAY"] == "5000"
    code, out, _ = run(capsys, "admin", "--db", db, "log", "--since", "2000-01-01")
    assert code == 0
    grant, logged = json.loads(out)["entries"]
    assert logged["id"] == result["entry"] > grant["id"]
    assert (logged["operator"], logged["action"], logged["target"], logged["reason"]) == (
        "carol",
        "cancel-tournament",
        "sng-2",
        reason,
    )
    assert logged["time"].startswith("20")
    code, out, _ = run(capsys, "admin", "--db", db, "log", "--since", "2999-01-01")
    assert json.loads(out)["entries"] == []
    assert _references(db, "sng-2") == [f"tournament:sng-2:refund:1:operator:{result['entry']}"] * 2
    code, out, _ = run(capsys, "audit", "--db", db, "--shuffles", "0")
    assert code == 0
    report = json.loads(out)
    assert report["problems"] == []
    assert report["operator_transfers_checked"] == 2
    assert report["tournaments"]["sng-2"]["status"] == "cancelled"
