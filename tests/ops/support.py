"""``feltroom serve`` as an operator runs it: a process of its own on a free loopback port, its
log in a file, stopped with SIGINT as a service manager stops it."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from services import free_port


class Room:
    """``feltroom serve ARGS`` until ``stop``; ``url`` is its address, ``log`` its stderr."""

    def __init__(self, folder: Path, *args: str, env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = folder / f"serve-{self.port}.log"
        command = [sys.executable, "-m", "feltroom.cli", "serve", "--port", str(self.port), *args]
        environment = dict(os.environ, PYTHONUNBUFFERED="1", **(env or {}))
        with self.log_path.open("wb") as log:
            self.process = subprocess.Popen(
                command, stdout=subprocess.PIPE, stderr=log, env=environment
            )
        self.ready_line = self._wait_ready(60.0)

    def _wait_ready(self, timeout: float) -> str:
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        os.set_blocking(fd, False)
        seen = b""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(BlockingIOError):
                seen += os.read(fd, 4096)
            if b"http://" in seen:
                return seen.decode()
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        self.process.kill()
        raise AssertionError(f"feltroom serve did not start: {seen!r} {self.log()}")

    def get(self, path: str, port: int | None = None) -> httpx.Response:
        return httpx.get(f"http://127.0.0.1:{port or self.port}{path}", timeout=10)

    def status(self) -> dict[str, Any]:
        answer: dict[str, Any] = self.get("/api/status").json()
        return answer

    def wait_hands(self, count: int, timeout: float = 60.0) -> int:
        """Wait until ``count`` hands are settled; returns how many are."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            settled = int(self.status()["hands_settled"])
            if settled >= count:
                return settled
            time.sleep(0.1)
        raise AssertionError(f"fewer than {count} hands settled in {timeout} s: {self.log()}")

    def stop(self, signum: int = signal.SIGINT) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signum)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        assert self.process.stdout is not None
        self.process.stdout.close()
        return self.process.returncode

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def json_lines(self) -> list[dict[str, Any]]:
        """The log's lines (``--log-format json``)."""
        return [json.loads(line) for line in self.log().splitlines() if line.startswith("{")]
