"""Throwaway PostgreSQL, Redis and nginx servers on loopback, for trying a cluster on one machine
(``scripts/cluster``, ``feltroom bench cluster``; ``feltroom.ops.localcluster``) and for the
tests (``tests/services.py``).

Each is started from Debian's package, installed with ``apt-get`` when missing and we are root
(as ``scripts/env.sh`` does for chromium); a server that cannot be had raises
``ServiceUnavailable`` saying what to install. Their files live in a folder of their own under
the system's temporary folder, removed when they stop. The servers run in sessions of their own,
so a Ctrl-C at the terminal reaches only the program that started them, which stops them after
the processes that use them.
"""

from __future__ import annotations

import glob
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

__all__ = [
    "NginxServer",
    "PostgresServer",
    "RedisServer",
    "ServiceUnavailable",
    "free_port",
    "wait_port",
]


class ServiceUnavailable(RuntimeError):
    """A server could not be had (not installed and not installable, or it did not start)."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _apt_install(package: str) -> bool:
    if os.geteuid() != 0:
        return False
    environment = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", package]):
        if subprocess.run(command, capture_output=True, env=environment).returncode != 0:
            return False
    return True


def wait_port(port: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return True
        time.sleep(0.05)
    return False


class RedisServer:
    """A password-protected Redis on loopback TCP and on a Unix socket (``url``,
    ``socket_url``), in memory only, that can be stopped, killed and started again on the same
    port and socket (the broker-restart tests)."""

    def __init__(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None and _apt_install("redis-server"):
            binary = shutil.which("redis-server")
        if binary is None:
            raise ServiceUnavailable("no redis-server: install Debian's redis-server package")
        assert binary is not None
        self.binary = binary
        self.port = free_port()
        self.password = secrets.token_hex(12)
        self.socket = Path(tempfile.gettempdir()) / f"feltroom-redis-{self.port}.sock"
        self.process: subprocess.Popen[bytes] | None = None
        self.start()

    @property
    def url(self) -> str:
        """The broker by TCP on loopback."""
        return f"redis://:{self.password}@127.0.0.1:{self.port}/0"

    @property
    def socket_url(self) -> str:
        """The broker by its Unix socket (clients on this host)."""
        return f"unix://:{self.password}@{self.socket}?db=0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                self.binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--unixsocket",
                str(self.socket),
                "--unixsocketperm",
                "700",
                "--requirepass",
                self.password,
                "--save",
                "",
                "--appendonly",
                "no",
                "--daemonize",
                "no",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        if not wait_port(self.port, 10):
            self.stop()
            raise ServiceUnavailable("redis-server did not start")

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None
        self.socket.unlink(missing_ok=True)


class PostgresServer:
    """A throwaway PostgreSQL cluster on loopback (as the ``postgres`` user when we are root),
    trust authentication, ``fsync=off``; it can be restarted on the same port."""

    def __init__(self) -> None:
        initdb, pg_ctl = self._tool("initdb"), self._tool("pg_ctl")
        if not (initdb and pg_ctl) and _apt_install("postgresql"):
            initdb, pg_ctl = self._tool("initdb"), self._tool("pg_ctl")
        if not (initdb and pg_ctl):
            raise ServiceUnavailable("no PostgreSQL server: install Debian's postgresql package")
        assert initdb is not None
        assert pg_ctl is not None
        self.pg_ctl = pg_ctl
        self.prefix: list[str] = []
        self.folder = Path(tempfile.mkdtemp(prefix="feltroom-pg-"))
        if os.geteuid() == 0:  # PostgreSQL refuses to run as root
            try:
                account = pwd.getpwnam("postgres")
            except KeyError:
                raise ServiceUnavailable(
                    "running as root and there is no postgres user to run PostgreSQL"
                ) from None
            os.chown(self.folder, account.pw_uid, account.pw_gid)
            self.prefix = ["runuser", "-u", "postgres", "--"]
        self.port = free_port()
        self.data = self.folder / "data"
        try:
            command = [*self.prefix, initdb, "-D", str(self.data), "-A", "trust", "-U"]
            subprocess.run(
                [*command, "postgres", "--no-sync"],
                check=True,
                capture_output=True,
            )
        except (OSError, subprocess.CalledProcessError) as error:
            shutil.rmtree(self.folder, ignore_errors=True)
            raise ServiceUnavailable(f"could not create a PostgreSQL cluster: {error}") from error
        self.start()

    @staticmethod
    def _tool(name: str) -> str | None:
        found = shutil.which(name)
        if found:
            return found
        candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
        return candidates[-1] if candidates else None

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def _ctl(self, *arguments: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [*self.prefix, self.pg_ctl, "-D", str(self.data), *arguments],
            capture_output=True,
            start_new_session=True,
        )

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c max_connections=200"
        )
        done = self._ctl("-o", options, "-l", str(self.folder / "log"), "-w", "start")
        if done.returncode != 0:
            raise ServiceUnavailable(
                f"could not start a PostgreSQL server: {done.stderr.decode()[-300:]}"
            )

    def stop(self) -> None:
        self._ctl("-m", "immediate", "-w", "stop")

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

    def postmaster_pid(self) -> int | None:
        """The server's main process (its first line of ``postmaster.pid``), None when stopped."""
        try:
            return int((self.data / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None


class NginxServer:
    """nginx on loopback in front of some gateways, with the configuration docs/cluster.md
    gives (websockets upgraded, the client's Host kept), from Debian's package."""

    def __init__(self, upstreams: list[int], port: int | None = None) -> None:
        binary = shutil.which("nginx") or (
            "/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None
        )
        if binary is None and _apt_install("nginx"):
            binary = shutil.which("nginx") or "/usr/sbin/nginx"
        if binary is None or not Path(binary).exists():
            raise ServiceUnavailable("no nginx: install Debian's nginx package")
        assert binary is not None
        self.folder = Path(tempfile.mkdtemp(prefix="feltroom-nginx-"))
        self.port = port or free_port()
        # max_fails=0: a gateway is never marked down (a mark is cleared only by a request that
        # finishes, and a websocket never does: docs/cluster.md); a refused connection goes to
        # the next gateway at once, a host that is down costs proxy_connect_timeout.
        servers = "\n".join(f"        server 127.0.0.1:{port} max_fails=0;" for port in upstreams)
        folder = self.folder
        user = "user root;" if os.geteuid() == 0 else ""
        (folder / "nginx.conf").write_text(
            f"""{user}
worker_processes 1;
daemon off;
pid {folder}/nginx.pid;
error_log {folder}/error.log;
events {{ worker_connections 16384; }}
http {{
    access_log off;
    client_body_temp_path {folder}/body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
    upstream feltroom_gateways {{
{servers}
    }}
    map $http_upgrade $connection_upgrade {{
        default upgrade;
        ''      close;
    }}
    server {{
        listen 127.0.0.1:{self.port};
        location / {{
            proxy_pass http://feltroom_gateways;
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_connect_timeout 2s;
            proxy_read_timeout 3600s;
        }}
    }}
}}
"""
        )
        self.process = subprocess.Popen(
            [binary, "-p", str(folder), "-c", str(folder / "nginx.conf")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        if not wait_port(self.port, 10):
            self.stop()
            raise ServiceUnavailable(f"nginx did not start: {self.log()[-300:]}")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log(self) -> str:
        path = self.folder / "error.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)
