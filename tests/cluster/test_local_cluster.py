"""``scripts/cluster`` run for real (issue 17): PostgreSQL and Redis as throwaway instances, two
workers and two gateways behind nginx, the demo tables with house bots; network bots play
through the address it prints, and a Ctrl-C (SIGINT) stops every process it started."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

from services import unavailable

ROOT = Path(__file__).resolve().parents[2]
BOTS = ["--count", "2", "--hands", "1", "--think", "0"]


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state == "Z"  # a zombie has ended; its parent reaps it


def test_scripts_cluster_serves_the_demo_tables_and_a_ctrl_c_stops_everything() -> None:
    process = subprocess.Popen(
        [str(ROOT / "scripts" / "cluster"), "--house-bots", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    reader = threading.Thread(
        target=lambda: lines.extend(iter(process.stdout.readline, "")),  # type: ignore[union-attr]
        daemon=True,
    )
    reader.start()
    try:
        deadline = time.monotonic() + 300
        url = None
        while url is None and time.monotonic() < deadline and process.poll() is None:
            found = [re.search(r"open (http://\S+)/ ", line) for line in lines]
            url = next((m.group(1) for m in found if m), None)
            time.sleep(0.2)
        if url is None and "error:" in "".join(lines) and "install" in "".join(lines):
            unavailable("".join(lines)[-300:])
        assert url is not None, "".join(lines)
        output = "".join(lines)
        pids = [int(p) for p in re.findall(r"\(pid (\d+)\)", output)]
        # PostgreSQL, Redis, two workers, two gateways and nginx
        assert len(pids) == 7, output
        assert all(not _gone(pid) for pid in pids)
        for started in ("nginx on", "worker-2", "gateway-2"):
            assert started in output
        folder = Path(re.search(r"files in (\S+)", output).group(1))  # type: ignore[union-attr]
        assert folder.is_dir()

        lobby = httpx.get(f"{url}/api/lobby", timeout=10).json()
        demo = (ROOT / "src/feltroom/data/tables.toml").read_text().count("[[table]]")
        assert len(lobby["tables"]) == demo
        assert all(entry["house_bots"] == 2 for entry in lobby["tables"])

        bots = subprocess.run(
            [sys.executable, "-m", "feltroom.cli", "bots", "--url", url, *BOTS],
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert bots.returncode == 0, bots.stdout + bots.stderr
        assert re.search(r"at least [1-9]\d* each", bots.stdout + bots.stderr), bots.stdout

        process.send_signal(signal.SIGINT)
        assert process.wait(120) == 0
        reader.join(10)
        assert "stopped" in lines[-1]
        time.sleep(0.5)
        assert [pid for pid in pids if not _gone(pid)] == []
        assert not folder.exists()
    finally:
        if process.poll() is None:  # a failed check: Ctrl-C stops what it started, as above
            process.send_signal(signal.SIGINT)
            try:
                process.wait(120)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
