"""``feltroom backup`` and ``feltroom restore`` (issue 22): a backup taken while house bots play
restores to a database that passes ``feltroom audit`` and that the room starts on; SQLite through
the online backup API, PostgreSQL through pg_dump and pg_restore (the command printed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from feltroom.cli import main

from .support import Room


def _audit(url: str, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    code = main(["audit", "--db", url, "--shuffles", "0"])
    report: dict[str, object] = json.loads(capsys.readouterr().out)
    assert code == 0, report
    assert report["pass"] is True
    return report


def _databases(kind: str, folder: Path, request: pytest.FixtureRequest) -> tuple[str, str, Path]:
    if kind == "sqlite":
        return (
            f"sqlite:///{folder / 'room.sqlite3'}",
            f"sqlite:///{folder / 'restored' / 'room.sqlite3'}",
            folder / "room.backup.sqlite3",
        )
    return (
        request.getfixturevalue("pg_url"),
        request.getfixturevalue("other_pg_url"),
        folder / "room.pgdump",
    )


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_a_backup_taken_while_bots_play_restores_to_audited_books_the_room_starts_on(
    kind: str,
    fast_tmp: Path,
    capsys: pytest.CaptureFixture[str],
    request: pytest.FixtureRequest,
) -> None:
    source, target, file = _databases(kind, fast_tmp, request)
    room = Room(fast_tmp, "--db", source, "--house-bots", "3", "--bot-think", "0.05")
    try:
        before = room.wait_hands(5)
        assert main(["backup", "--db", source, "--to", str(file)]) == 0
        printed = capsys.readouterr().out
        after = room.wait_hands(before + 5)  # the room played on through the backup
    finally:
        assert room.stop() == 0
    assert after > before
    if kind == "sqlite":
        assert "SQLite online backup" in printed
    else:
        assert "running: " in printed
        assert "pg_dump --format=custom" in printed
    assert file.read_bytes()[:5] in (b"SQLit", b"PGDMP")

    assert main(["restore", "--from", str(file), "--db", target]) == 0
    restored = capsys.readouterr().out
    assert "feltroom audit --db" in restored
    if kind == "postgresql":
        assert "pg_restore --clean --if-exists" in restored
    report = _audit(target, capsys)
    assert report["hands_checked"] >= before  # type: ignore[operator]

    again = Room(fast_tmp, "--db", target, "--house-bots", "3", "--bot-think", "0.05")
    try:
        assert again.get("/readyz").status_code == 200
        again.wait_hands(3)
    finally:
        assert again.stop() == 0
    _audit(target, capsys)


def test_a_restore_refuses_to_replace_a_room_or_to_read_a_foreign_file(
    fast_tmp: Path, capsys: pytest.CaptureFixture[str], db_url: str
) -> None:
    from feltroom.store import open_storage

    open_storage(db_url).close()  # a room's database
    backup = fast_tmp / "backup.sqlite3"
    assert main(["backup", "--db", db_url, "--to", str(backup)]) == 0
    capsys.readouterr()
    assert main(["restore", "--from", str(backup), "--db", db_url]) == 2
    err = capsys.readouterr().err
    assert "already holds a room" in err
    assert "--force" in err
    assert main(["restore", "--from", str(backup), "--db", db_url, "--force"]) == 0
    capsys.readouterr()
    _audit(db_url, capsys)

    foreign = fast_tmp / "notes.txt"
    foreign.write_text("not a backup")
    empty = f"sqlite:///{fast_tmp / 'empty.sqlite3'}"
    assert main(["restore", "--from", str(foreign), "--db", empty]) == 2
    assert "is not an SQLite backup" in capsys.readouterr().err
    assert not (fast_tmp / "empty.sqlite3").exists()
    assert main(["backup", "--db", "mysql://x/y", "--to", str(backup)]) == 2
    assert "SQLite and PostgreSQL" in capsys.readouterr().err
    assert (
        main(["backup", "--db", f"sqlite:///{fast_tmp / 'none.sqlite3'}", "--to", str(backup)]) == 2
    )
    assert "there is no SQLite database" in capsys.readouterr().err
