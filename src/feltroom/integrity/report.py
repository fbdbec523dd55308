"""The integrity report: pairs and groups of accounts to review, with the evidence of each signal.

A pair's score is its strongest play signal (chip dumping or soft play) plus the corroboration of
shared sign-ins and seats taken together, which counts for at most ``CORROBORATION_CAP``: friends
who sit together from one home are common, so those two alone never reach the default threshold;
with play evidence they push a pair over it. Pairs at or above ``threshold`` are to review
(``pairs``); linked pairs form ``groups``; the strongest pairs below it are listed under ``watch``.
With ``account``, the report is that account's: only the pairs it is in, the groups it belongs
to, and the hands it was dealt (the operator console's per-account view).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from feltroom.errors import FeltroomError
from feltroom.integrity.hands import SignIn, StoredHand, played
from feltroom.integrity.signals import HandTally, Pair, seats_together, shared_sign_ins

__all__ = ["CORROBORATION_CAP", "DEFAULT_THRESHOLD", "SIGNALS", "integrity_report"]

DEFAULT_THRESHOLD = 2.0
"""A pair whose score reaches this is to review: for a play signal, a result that chance would
give about once in a hundred reports over all the pairs tested."""
CORROBORATION_CAP = 1.0
"""The most that shared sign-ins and seats taken together add to a pair's score."""
SIGNALS = ("chip_dumping", "soft_play", "shared_sign_ins", "seats_together")
_PLAY = ("chip_dumping", "soft_play")
_CORROBORATION = ("shared_sign_ins", "seats_together")


def integrity_report(
    hands: Iterable[StoredHand],
    sign_ins: Iterable[SignIn],
    *,
    threshold: float = DEFAULT_THRESHOLD,
    since: float | None = None,
    watch: int = 20,
    account: str | None = None,
) -> dict[str, Any]:
    """The report over ``hands`` and ``sign_ins`` (see the module docstring and
    docs/integrity.md for its fields)."""
    if not threshold > 0:  # also refuses nan
        raise ValueError(f"the threshold must be a positive score, not {threshold}")
    tally = HandTally()
    seating: list[tuple[int, str, tuple[str, ...]]] = []
    unreadable: list[int] = []
    accounts: set[str] = set()
    account_hands = 0
    for stored in hands:
        try:
            hand = played(stored)
        except (FeltroomError, ValueError, KeyError, TypeError, IndexError):
            unreadable.append(stored.hand_id)
            continue
        tally.add(hand)
        names = tuple(seat.account for seat in hand.players)
        accounts.update(names)
        account_hands += account in names
        seating.append((hand.hand_id, hand.table_id, names))
    logged = list(sign_ins)
    signals: dict[str, dict[Pair, dict[str, Any]]] = {
        "chip_dumping": tally.chip_dumping(),
        "soft_play": tally.soft_play(),
        "shared_sign_ins": shared_sign_ins(logged),
        "seats_together": seats_together(seating),
    }
    entries = []
    for pair in sorted({pair for found in signals.values() for pair in found}):
        evidence = {name: found[pair] for name, found in signals.items() if pair in found}
        play = max((evidence[name]["score"] for name in _PLAY if name in evidence), default=0.0)
        extra = sum(evidence[name]["score"] for name in _CORROBORATION if name in evidence)
        total = round(play + min(CORROBORATION_CAP, extra), 2)
        if total > 0:
            entries.append({"accounts": list(pair), "score": total, "signals": evidence})
    entries.sort(key=lambda entry: (-entry["score"], entry["accounts"]))
    review = [entry for entry in entries if entry["score"] >= threshold]
    groups = _groups(review)
    if account is not None:
        entries = [entry for entry in entries if account in entry["accounts"]]
        review = [entry for entry in review if account in entry["accounts"]]
        groups = [group for group in groups if account in group["accounts"]]
    below = [entry for entry in entries if entry["score"] < threshold][:watch]
    report: dict[str, Any] = {
        "since": None if since is None else datetime.fromtimestamp(since, UTC).isoformat(),
        "hands": tally.hands,
        "unreadable_hands": unreadable[:20],
        "accounts": len(accounts),
        "sign_ins": len(logged),
        "threshold": threshold,
        "corroboration_cap": CORROBORATION_CAP,
        "pairs": review,
        "groups": groups,
        "watch": below,
    }
    if account is not None:
        report["account"] = account
        report["account_hands"] = account_hands
    return report


def _groups(pairs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The accounts linked by pairs to review (connected components), strongest first."""
    parent: dict[str, str] = {}

    def root(name: str) -> str:
        while parent.setdefault(name, name) != name:
            parent[name] = parent[parent[name]]
            name = parent[name]
        return name

    for entry in pairs:
        a, b = entry["accounts"]
        parent[root(a)] = root(b)
    members: dict[str, set[str]] = {}
    for entry in pairs:
        for name in entry["accounts"]:
            members.setdefault(root(name), set()).add(name)
    groups = []
    for names in members.values():
        linked = [entry for entry in pairs if entry["accounts"][0] in names]
        groups.append(
            {
                "accounts": sorted(names),
                "pairs": len(linked),
                "score": max(entry["score"] for entry in linked),
                "signals": sorted(
                    {
                        name
                        for entry in linked
                        for name, found in entry["signals"].items()
                        if found["score"] > 0
                    }
                ),
            }
        )
    groups.sort(key=lambda group: (-group["score"], group["accounts"]))
    return groups
