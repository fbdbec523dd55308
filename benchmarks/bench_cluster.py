"""`feltroom bench cluster [--gateways G] [--workers W] [--json]`: `bench server`'s scenarios
(and its ``--capacity``) against a local cluster instead of one process.

The cluster is the one ``scripts/cluster`` starts (``feltroom.ops.localcluster``): a throwaway
PostgreSQL and a throwaway Redis (Debian's packages, installed when missing), ``--workers`` (2)
workers and ``--gateways`` (1) gateways on loopback, nginx in front of two gateways or more; the
tables are `bench server`'s (No-Limit 1/2, six seats, no house bots), loaded into the database
by the first worker and spread over the workers by their leases. The accounts are made in
PostgreSQL before the room starts, as `bench server` does in SQLite; the bots reach the room
through its one address. Each scenario starts a cluster of its own and stops it.

Each JSON line has the fields of `bench server` (``--help`` there) plus:

- ``gateways``, ``workers``: the cluster's shape;
- ``broker_messages_per_action``: the commands Redis processed in the window (``INFO stats``
  ``total_commands_processed``, read before and after: every ``XADD``, ``XREADGROUP``,
  ``PUBLISH``, lease and lobby write), per action;
- ``server_cpu_ms_per_action``: CPU of every room process (workers, gateways, nginx), the
  broker and the database (the postmaster and its backends) in the window, per action; and
  ``cpu_ms_per_action_by_part``: the same split into ``room``, ``broker`` and ``database``;
- ``database_commits_per_hand``: PostgreSQL's committed transactions in the window
  (``pg_stat_database.xact_commit``: settlements, new hand ids, leases, buy-ins, sessions) per
  hand played.

With ``--capacity`` the line's ``cpu_percent`` gives the room processes', the broker's, the
database's and the bots' shares of the machine (100: one core).

The workers have direct links (docs/cluster.md, "The direct link"), as ``scripts/cluster``'s;
``--no-direct`` starts them without (every command and event through the broker; the line
says ``"direct": false``).

``--role-all`` runs the same against what a cluster is compared with: one ``feltroom serve
--role all`` holding every table on the same throwaway PostgreSQL, no broker (the line says
``"role": "all"``, ``"gateways": 0``, ``"workers": 0``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from bench_server import SEATS, parser_for, room_options, run, write_tables
from feltroom.ops.localcluster import LocalCluster, rss_bytes
from feltroom.ops.services import ServiceUnavailable
from served import audit, loopback_config, seed_accounts


class ClusterRoom:
    """A local cluster with `bench server`'s tables, with the interface of ``ServedRoom``."""

    def __init__(
        self,
        folder: Path,
        tables: int,
        *,
        gateways: int,
        workers: int,
        real_pace: bool = False,
        single: bool = False,
        direct: bool = True,
    ) -> None:
        # (every bot connects from 127.0.0.1: the per-address cap of the gateways, or of the
        # one process of ``single``, holds a bot in every seat)
        config = ["--config", str(loopback_config(folder, tables * SEATS))]
        self.cluster = LocalCluster(
            workers=workers,
            gateways=gateways,
            tables=write_tables(folder, tables),
            worker_options=[*room_options(real_pace), *(config if single else [])],
            gateway_options=config,
            say=lambda line: print(f"  [cluster] {line}", file=sys.stderr, flush=True),
            single=single,
            direct=direct,
        )
        self.url = ""
        self.cluster.open_services()

    def seed_accounts(self, names: list[str], password: str, chips: int) -> dict[str, str]:
        return seed_accounts(self.cluster.db, names, password, chips)

    def start(self) -> None:
        self.url = self.cluster.start()

    def sample(self) -> dict[str, float]:
        """CPU seconds so far: the room's processes, the broker, the database and their sum;
        the broker's count of commands; the database's count of commits."""
        cpu = self.cluster.cpu()
        return cpu | {
            "cpu": sum(cpu.values()),
            "broker_commands": self.cluster.broker_commands(),
            "database_commits": self.cluster.database_commits(),
        }

    def rss_mb(self) -> float:
        """The resident memory of the room's processes (workers, gateways, nginx)."""
        return round(rss_bytes(self.cluster.room_pids()) / 2**20, 1)

    def stop(self) -> None:
        self.cluster.stop()

    def audit(self) -> bool:
        return audit(self.cluster.db)

    def close(self) -> None:
        self.cluster.close()

    def log_tail(self) -> str:
        return "\n".join(
            f"--- {name}\n{self.cluster.log(name)[-1500:]}" for name in self.cluster.processes
        )


def main(argv: list[str]) -> int:
    parser = parser_for("feltroom bench cluster", __doc__)
    parser.add_argument("--gateways", type=int, default=1, metavar="G", help="default 1")
    parser.add_argument("--workers", type=int, default=2, metavar="W", help="default 2")
    parser.add_argument(
        "--role-all",
        action="store_true",
        help="instead of a cluster: one `feltroom serve --role all` on the same PostgreSQL "
        "(the efficiency target's comparison)",
    )
    parser.add_argument(
        "--no-direct",
        action="store_true",
        help="workers without direct links: every command and event through the broker "
        '(docs/cluster.md, "The direct link")',
    )
    args = parser.parse_args(argv)
    if args.gateways < 1 or args.workers < 1:
        parser.error(
            f"--gateways and --workers must be at least 1; got {args.gateways}, {args.workers}"
        )

    def make_room(folder: Path, tables: int, real_pace: bool = False) -> Any:
        return ClusterRoom(
            folder,
            tables,
            gateways=args.gateways,
            workers=args.workers,
            real_pace=real_pace,
            single=args.role_all,
            direct=not args.no_direct,
        )

    shape: dict[str, Any] = {"gateways": args.gateways, "workers": args.workers}
    if args.no_direct:
        shape["direct"] = False
    if args.role_all:
        shape = {"role": "all", "gateways": 0, "workers": 0}
    try:
        return run(parser, args, make_room, shape)
    except ServiceUnavailable as error:
        print(f"feltroom bench cluster: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
