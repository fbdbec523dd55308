"""A worker process for the fencing test: it takes table ``t1``'s lease, begins a hand, says
``ready``, waits ``--wait`` seconds and settles the hand, printing what happened as JSON. The test
stops it (SIGSTOP) while it waits and lets another worker take the table over.

Usage: python paused_worker.py URL --wait SECONDS --lease SECONDS
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.cluster.books import raked_hand

from feltroom.room import LeaseLost, Settlement
from feltroom.room.leases import Leases
from feltroom.store import open_storage


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--wait", type=float, required=True)
    parser.add_argument("--lease", type=float, required=True)
    options = parser.parse_args()
    storage = open_storage(options.url)
    leases = Leases(storage, "paused-worker", seconds=options.lease)
    taken = leases.take("t1")
    assert taken is not None, "the table's lease is not free"
    settlement = Settlement(storage, fence=leases.fence, shard="paused")
    hand = settlement.begin_hand("t1")
    stacks = {name: row.stack for name, row in settlement.seats("t1").items()}
    print(json.dumps({"ready": True, "hand": hand, "epoch": taken.lease.epoch}), flush=True)
    time.sleep(options.wait)
    try:
        settled = settlement.settle_hand(raked_hand(hand, "t1", stacks))
    except LeaseLost as error:
        print(json.dumps({"settled": False, "error": "LeaseLost", "message": str(error)}))
    else:
        print(json.dumps({"settled": True, "stacks": dict(settled.stacks)}))
    storage.close()


if __name__ == "__main__":
    main()
