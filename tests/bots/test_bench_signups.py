"""Issue 27, point 4: during 40 concurrent sign-ups at the real Argon2id cost (64 MiB a hash),
a live ``feltroom serve`` with the default hashing pool (2) grows by at most
pool x 64 MiB + 50 MiB: the hashes are not all made at once. ``feltroom bench signups`` prints
the same figures with the event loop's ping round trips (docs/performance.md)."""

from __future__ import annotations

import json

import pytest

from feltroom.cli import main


@pytest.mark.slow
def test_forty_sign_ups_at_once_stay_within_the_hashing_pools_memory(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["bench", "signups", "--count", "40", "--pool", "2", "--json"])
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["statuses"] == {"201": 40}  # every sign-up was hashed and made
    assert report["bound_mb"] == 2 * 64 + 50
    assert report["rise_mb"] <= report["bound_mb"], report
    assert report["ping_ms"]["n"] > 0
