"""``feltroom backup`` and ``feltroom restore`` (docs/operations.md, "Backups").

- SQLite: the online backup API of SQLite (``sqlite3.Connection.backup``): a consistent copy of
  the whole database while the room runs and writes, into a temporary file renamed to ``FILE``
  once complete (a backup cut short never looks like one). Restore copies the file back the same
  way into the database (the room stopped).
- PostgreSQL: ``pg_dump --format=custom`` and ``pg_restore``; the command is printed before it
  runs (the password is never on the command line: it goes in ``PGPASSWORD``).

A restore refuses a database that already holds a room unless ``force`` is given, and refuses a
file that is not a backup of the kind the database needs. Each function yields the lines it
reports (the command, the figures).
"""

from __future__ import annotations

import contextlib
import glob
import os
import shlex
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

from sqlalchemy import create_engine, inspect
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

__all__ = ["BackupError", "backup", "restore"]

SQLITE_MAGIC = b"SQLite format 3\x00"
PGDUMP_MAGIC = b"PGDMP"


class BackupError(Exception):
    """A backup or restore that cannot be done: the message says why and what would work."""


def _url(text: str) -> URL:
    try:
        url = make_url(text)
    except ArgumentError:
        raise BackupError(
            f"{text!r} is not a database URL; give sqlite:///PATH or "
            "postgresql+psycopg://USER:PASSWORD@HOST:PORT/NAME"
        ) from None
    backend = url.get_backend_name()
    if backend not in ("sqlite", "postgresql"):
        raise BackupError(f"backups are for SQLite and PostgreSQL databases, not {backend}")
    if backend == "sqlite" and (not url.database or url.database == ":memory:"):
        raise BackupError("an SQLite backup needs a database file: sqlite:///PATH")
    return url


def backup(db: str, to: Path) -> Iterator[str]:
    """Back ``db`` up to the file ``to``."""
    url = _url(db)
    if to.exists() and to.is_dir():
        raise BackupError(f"{to} is a folder; give the backup file's path")
    if not to.parent.is_dir():
        raise BackupError(f"the folder {to.parent} does not exist")
    if url.get_backend_name() == "sqlite":
        yield from _sqlite_backup(Path(str(url.database)), to)
    else:
        yield from _pg_backup(url, to)


def restore(source: Path, db: str, *, force: bool = False) -> Iterator[str]:
    """Restore the backup file ``source`` into ``db`` (the room must not be running on it)."""
    url = _url(db)
    try:
        with source.open("rb") as file:
            head = file.read(16)
    except OSError as error:
        raise BackupError(f"cannot read the backup file {source}: {error}") from None
    sqlite = url.get_backend_name() == "sqlite"
    wanted, kind = (SQLITE_MAGIC, "an SQLite") if sqlite else (PGDUMP_MAGIC, "a pg_dump")
    if not head.startswith(wanted):
        raise BackupError(
            f"{source} is not {kind} backup (feltroom backup --db {url.get_backend_name()}...)"
        )
    if _holds_a_room(url) and not force:
        raise BackupError(
            f"{url.render_as_string(hide_password=True)} already holds a room; restore into an "
            "empty database, or give --force to replace it (stop the room first)"
        )
    if sqlite:
        yield from _sqlite_restore(source, Path(str(url.database)))
    else:
        yield from _pg_restore(source, url)


def _holds_a_room(url: URL) -> bool:
    if url.get_backend_name() == "sqlite":
        path = Path(str(url.database))
        if not path.exists() or path.stat().st_size == 0:
            return False
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            return bool(inspect(connection).get_table_names())
    except SQLAlchemyError as error:
        raise BackupError(
            f"cannot open {url.render_as_string(hide_password=True)}: {error}"
        ) from None
    finally:
        engine.dispose()


# ----------------------------------------------------------------------------------- SQLite


def _copy(source: sqlite3.Connection, target: sqlite3.Connection) -> int:
    """The online backup of ``source`` into ``target``; the pages copied."""
    # In one step: the source stays readable and (in WAL mode) writable by the room meanwhile;
    # copying in steps would start over each time the room writes.
    source.backup(target, pages=-1)
    return int(target.execute("PRAGMA page_count").fetchone()[0])


def _sqlite_backup(path: Path, to: Path) -> Iterator[str]:
    if not path.is_file():
        raise BackupError(f"there is no SQLite database at {path}")
    partial = to.with_name(f".{to.name}.partial")
    yield f"SQLite online backup of {path} to {to}"
    try:
        source = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
        target = sqlite3.connect(partial)
        try:
            pages = _copy(source, target)
            check = target.execute("PRAGMA integrity_check").fetchone()[0]
        finally:
            target.close()
            source.close()
        if check != "ok":
            raise BackupError(f"the copy of {path} failed SQLite's integrity check: {check}")
        os.replace(partial, to)
    except sqlite3.Error as error:
        raise BackupError(f"the backup of {path} failed: {error}") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()
    yield f"backed up {pages} pages ({to.stat().st_size} bytes) to {to}"


def _sqlite_restore(source: Path, path: Path) -> Iterator[str]:
    yield f"SQLite restore of {source} into {path}"
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        origin = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
        target = sqlite3.connect(path, timeout=30)
        try:
            check = origin.execute("PRAGMA integrity_check").fetchone()[0]
            if check != "ok":
                raise BackupError(f"{source} fails SQLite's integrity check: {check}")
            pages = _copy(origin, target)
        finally:
            target.close()
            origin.close()
    except sqlite3.Error as error:
        raise BackupError(f"the restore into {path} failed: {error}") from None
    yield f"restored {pages} pages into {path}; check it with: feltroom audit --db sqlite:///{path}"


# ----------------------------------------------------------------------------------- PostgreSQL


def _tool(name: str) -> str:
    """``pg_dump`` or ``pg_restore``: on the PATH, else the newest of Debian's installs."""
    found = shutil.which(name)
    if found is None:
        candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
        found = candidates[-1] if candidates else None
    if found is None:
        raise BackupError(
            f"{name} was not found; install PostgreSQL's client tools (postgresql-client)"
        )
    return found


def _libpq(url: URL) -> tuple[str, dict[str, str]]:
    """The libpq URL (no driver, no password) and the environment that carries the password."""
    env = dict(os.environ)
    if url.password is not None:
        env["PGPASSWORD"] = str(url.password)
    plain = url.set(drivername="postgresql", password=None)
    return plain.render_as_string(hide_password=False), env


def _run(command: list[str], env: dict[str, str]) -> Iterator[str]:
    yield "running: " + shlex.join(command)
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    except OSError as error:
        raise BackupError(f"{command[0]} could not run: {error}") from None
    if done.returncode != 0:
        raise BackupError(
            f"{Path(command[0]).name} failed (exit {done.returncode}): {done.stderr.strip()}"
        )


def _pg_backup(url: URL, to: Path) -> Iterator[str]:
    target, env = _libpq(url)
    partial = to.with_name(f".{to.name}.partial")
    command = [
        _tool("pg_dump"),
        "--format=custom",
        "--no-owner",
        "--no-privileges",
        f"--file={partial}",
        f"--dbname={target}",
    ]
    try:
        yield from _run(command, env)
        os.replace(partial, to)
    finally:
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()
    shown = url.render_as_string(hide_password=True)
    yield f"backed up {shown} ({to.stat().st_size} bytes) to {to}"


def _pg_restore(source: Path, url: URL) -> Iterator[str]:
    target, env = _libpq(url)
    command = [
        _tool("pg_restore"),
        "--clean",
        "--if-exists",
        "--no-owner",
        "--no-privileges",
        "--exit-on-error",
        "--single-transaction",
        f"--dbname={target}",
        str(source),
    ]
    yield from _run(command, env)
    shown = url.render_as_string(hide_password=True)
    yield f"restored {source} into {shown}; check it with: feltroom audit --db {shown}"
