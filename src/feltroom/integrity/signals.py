"""The four signals of the integrity report, each counted over played hands (or the sign-in log)
and scored per pair of accounts (``stats.score``: a p-value corrected for the pairs tested).

Every expectation compares a pair with how the same two accounts play against everybody else
(leave-the-pair-out rates), so a strong player who beats a weak one everywhere, or a player who
never raises anyone, is not taken for a colluder.

- ``chip_dumping`` (ordered: chips from one account to another): the net chips that went from
  one to the other in the hands they shared, against what each one loses and wins per hand
  against everyone else (a self-normalised z); folds to the other's bet after putting chips in
  voluntarily, and calls of the other's all-in with a hopeless hand (under a fifth of the pot's
  equity against the hand actually held), against each one's rates with everyone else (Poisson).
- ``soft_play``: bets and raises by either while the other was still in the hand, against each
  one's rate of betting and raising with anyone else in the hand (Poisson, lower tail); the
  check-downs while a third player was all-in are listed as evidence.
- ``shared_sign_ins``: addresses both signed in from (each weighted 1/(k-1) when k accounts used
  it; an address of more than ``PUBLIC_ADDRESS`` accounts is a public one and ignored), plus half
  a point per user agent string both used that at most ``RARE_AGENT`` accounts used.
- ``seats_together``: the times both took a seat at the same table within ``JOIN_WINDOW`` hands
  of each other, against a configuration model of everyone's joins (Poisson).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from feltroom.integrity.equity import heads_up_equity
from feltroom.integrity.hands import PlayedHand, SignIn
from feltroom.integrity.stats import (
    log10_normal_upper,
    log10_poisson_lower,
    log10_poisson_upper,
    score,
)

__all__ = [
    "HOPELESS",
    "JOIN_WINDOW",
    "PUBLIC_ADDRESS",
    "RARE_AGENT",
    "HandTally",
    "seats_together",
    "shared_sign_ins",
]

HOPELESS = 0.2
"""A call of an all-in with less than this equity against the hand it faced is hopeless."""
JOIN_WINDOW = 10
"""Two seats taken at one table within this many of the table's hands count as taken together."""
SESSION_GAP = 5
"""A player absent from this many of a table's hands in a row has left it; dealt in again, they
took a seat again."""
PUBLIC_ADDRESS = 10
"""An address more accounts than this signed in from is public (a café, a carrier) and ignored."""
RARE_AGENT = 3
"""A user agent at most this many accounts used is a fingerprint; a commoner one is not."""
EXAMPLES = 5

Pair = tuple[str, str]


def _pair(a: str, b: str) -> Pair:
    return (a, b) if a < b else (b, a)


def _rate(hits: float, tries: float) -> float:
    """A rate smoothed toward zero by half a hit in one more try (never 0/0)."""
    return (hits + 0.5) / (tries + 1.0)


@dataclass(slots=True)
class HandTally:
    """Counts per ordered pair (``(a, b)``: a's doing toward b) over the played hands."""

    together: dict[Pair, int] = field(default_factory=lambda: defaultdict(int))
    flow: dict[Pair, float] = field(default_factory=lambda: defaultdict(float))
    net_sq: dict[Pair, float] = field(default_factory=lambda: defaultdict(float))
    folds: dict[Pair, int] = field(default_factory=lambda: defaultdict(int))
    folded_chips: dict[Pair, float] = field(default_factory=lambda: defaultdict(float))
    all_in_calls: dict[Pair, int] = field(default_factory=lambda: defaultdict(int))
    hopeless: dict[Pair, int] = field(default_factory=lambda: defaultdict(int))
    chances: dict[Pair, int] = field(default_factory=lambda: defaultdict(int))
    aggression: dict[Pair, int] = field(default_factory=lambda: defaultdict(int))
    pots: dict[Pair, int] = field(default_factory=lambda: defaultdict(int))
    checkdowns: dict[Pair, int] = field(default_factory=lambda: defaultdict(int))
    examples: dict[tuple[str, Pair], list[int]] = field(default_factory=lambda: defaultdict(list))
    hands: int = 0

    def _example(self, kind: str, pair: Pair, hand_id: int) -> None:
        found = self.examples[kind, pair]
        if len(found) < EXAMPLES and hand_id not in found:
            found.append(hand_id)

    def add(self, hand: PlayedHand) -> None:
        """Count one played hand."""
        self.hands += 1
        bb = hand.big_blind
        names = [seat.account for seat in hand.players]
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                self.together[_pair(a, b)] += 1
        self._flows(hand, bb)
        holes = {seat.account: seat.hole for seat in hand.players}
        voluntary: set[str] = set()
        street_moves: dict[int, list[Any]] = defaultdict(list)
        for move in hand.moves:
            street_moves[move.street].append(move)
            me = move.account
            if move.kind in ("call", "bet", "raise") and move.added > 0:
                voluntary.add(me)
            # folds to a bet after putting chips in voluntarily
            if (
                move.kind == "fold"
                and move.facing is not None
                and move.invested > move.forced
                and move.facing != me
            ):
                pair = (me, move.facing)
                self.folds[pair] += 1
                self.folded_chips[pair] += move.invested / bb
                self._example("fold", pair, hand.hand_id)
            # calls of an all-in
            if move.kind == "call" and move.added > 0:
                for other in move.all_in:
                    pair = (me, other)
                    self.all_in_calls[pair] += 1
                    mine, theirs = holes.get(me, ()), holes.get(other, ())
                    if len(mine) != 2 or len(theirs) != 2:
                        continue
                    dead = [
                        c for name, cards in holes.items() if name not in (me, other) for c in cards
                    ]
                    share = heads_up_equity(mine, theirs, move.board, dead, seed=hand.hand_id)
                    if share < HOPELESS:
                        self.hopeless[pair] += 1
                        self._example("hopeless", pair, hand.hand_id)
            # chances to bet or raise at a live opponent, and those taken
            if move.kind in ("fold", "check", "call", "bet", "raise"):
                aggressive = move.kind in ("bet", "raise")
                for other in move.live - move.all_in:
                    pair = (me, other)
                    self.chances[pair] += 1
                    if aggressive:
                        self.aggression[pair] += 1
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                if a in voluntary and b in voluntary:
                    self.pots[_pair(a, b)] += 1
        self._checkdowns(hand, street_moves)

    def _flows(self, hand: PlayedHand, bb: int) -> None:
        """Each loser's loss shared among the winners in proportion to their gains."""
        gains = {seat.account: seat.net for seat in hand.players if seat.net > 0}
        total = sum(gains.values())
        if total <= 0:
            return
        for seat in hand.players:
            if seat.net >= 0:
                continue
            for winner, gain in gains.items():
                chips = -seat.net * gain / total / bb
                self.flow[seat.account, winner] += chips
        names = [seat.account for seat in hand.players]
        for a in names:
            for b in names:
                if a < b:
                    value = self._hand_net(hand, a, b, gains, total, bb)
                    self.net_sq[a, b] += value * value

    @staticmethod
    def _hand_net(
        hand: PlayedHand, a: str, b: str, gains: dict[str, int], total: int, bb: int
    ) -> float:
        """The chips that went from ``a`` to ``b`` in this hand, less those from b to a."""
        net_a, net_b = hand.player(a).net, hand.player(b).net
        value = 0.0
        if net_a < 0 and b in gains:
            value += -net_a * gains[b] / total / bb
        if net_b < 0 and a in gains:
            value -= -net_b * gains[a] / total / bb
        return value

    def _checkdowns(self, hand: PlayedHand, streets: dict[int, list[Any]]) -> None:
        """Streets checked through by two players while a third was all-in."""
        for moves in streets.values():
            if not moves or any(m.kind in ("bet", "raise") for m in moves):
                continue
            actors = {m.account for m in moves if m.kind == "check"}
            if len(actors) < 2 or not any(m.all_in for m in moves):
                continue
            ordered = sorted(actors)
            for i, a in enumerate(ordered):
                for b in ordered[i + 1 :]:
                    if any(m.all_in - {a, b} for m in moves):
                        self.checkdowns[a, b] += 1
                        self._example("checkdown", (a, b), hand.hand_id)

    # ------------------------------------------------------------------ scores

    def chip_dumping(self) -> dict[Pair, dict[str, Any]]:
        """Per unordered pair with hands together: the evidence of the stronger direction."""
        out_sum: dict[str, float] = defaultdict(float)
        in_sum: dict[str, float] = defaultdict(float)
        pair_hands: dict[str, int] = defaultdict(int)
        for (a, b), chips in self.flow.items():
            out_sum[a] += chips
            in_sum[b] += chips
        for (a, b), n in self.together.items():
            pair_hands[a] += n
            pair_hands[b] += n
        grand_hands = sum(self.together.values()) * 2
        grand = sum(self.flow.values()) / grand_hands if grand_hands else 0.0
        fold_by, fold_to = _margins(self.folds)
        hope_by, hope_to = _margins(self.hopeless)
        folds_total, hope_total = sum(self.folds.values()), sum(self.hopeless.values())
        tests = 2 * len(self.together)
        results: dict[Pair, dict[str, Any]] = {}
        for (a, b), n in self.together.items():
            best: dict[str, Any] | None = None
            for giver, taker in ((a, b), (b, a)):
                there, back = self.flow[giver, taker], self.flow[taker, giver]
                expect = n * (
                    _flow_rate(giver, taker, there, n, out_sum, in_sum, pair_hands, grand)
                    - _flow_rate(taker, giver, back, n, out_sum, in_sum, pair_hands, grand)
                )
                net = there - back
                spread = math.sqrt(self.net_sq[_pair(a, b)]) or 1.0
                z = (net - expect) / spread
                p_flow = log10_normal_upper(z)
                k_fold = self.folds[giver, taker]
                lam_fold = _expected(
                    n,
                    fold_by[giver] - k_fold,
                    pair_hands[giver] - n,
                    fold_to[taker] - k_fold,
                    pair_hands[taker] - n,
                    folds_total - k_fold,
                    grand_hands - 2 * n,
                )
                p_fold = log10_poisson_upper(k_fold, lam_fold)
                k_hope = self.hopeless[giver, taker]
                lam_hope = _expected(
                    n,
                    hope_by[giver] - k_hope,
                    pair_hands[giver] - n,
                    hope_to[taker] - k_hope,
                    pair_hands[taker] - n,
                    hope_total - k_hope,
                    grand_hands - 2 * n,
                )
                p_hope = log10_poisson_upper(k_hope, lam_hope)
                log_p = min(p_flow, p_fold, p_hope) + math.log10(3)
                evidence = {
                    "score": score(log_p, tests),
                    "from": giver,
                    "to": taker,
                    "hands_together": n,
                    "net_big_blinds": round(net, 1),
                    "expected_net_big_blinds": round(expect, 1),
                    "z": round(z, 2),
                    "folds_after_investing": k_fold,
                    "expected_folds": round(lam_fold, 2),
                    "chips_folded_big_blinds": round(self.folded_chips[giver, taker], 1),
                    "all_in_calls": self.all_in_calls[giver, taker],
                    "hopeless_calls": k_hope,
                    "expected_hopeless_calls": round(lam_hope, 2),
                    "example_hands": sorted(
                        set(self.examples["fold", (giver, taker)])
                        | set(self.examples["hopeless", (giver, taker)])
                    )[:EXAMPLES],
                }
                if (
                    best is None
                    or evidence["score"] > best["score"]
                    or (evidence["score"] == best["score"] and z > best["z"])
                ):
                    best = evidence
            assert best is not None
            results[a, b] = best
        return results

    def soft_play(self) -> dict[Pair, dict[str, Any]]:
        """Per unordered pair: bets and raises at each other against each one's usual rate."""
        chances_by, _ = _margins(self.chances)
        aggression_by, _ = _margins(self.aggression)
        pairs = {_pair(a, b) for (a, b) in self.chances}
        tests = len(pairs)
        results: dict[Pair, dict[str, Any]] = {}
        for a, b in pairs:
            lam = 0.0
            taken = 0
            chances = 0
            for me, other in ((a, b), (b, a)):
                k, c = self.aggression[me, other], self.chances[me, other]
                rate = _rate(aggression_by[me] - k, chances_by[me] - c)
                lam += c * rate
                taken += k
                chances += c
            log_p = log10_poisson_lower(taken, lam)
            results[a, b] = {
                "score": score(log_p, tests),
                "hands_together": self.together[a, b],
                "pots_together": self.pots[a, b],
                "chances_to_bet_or_raise": chances,
                "bets_and_raises": taken,
                "expected_bets_and_raises": round(lam, 1),
                "checkdowns_with_a_third_all_in": self.checkdowns[a, b],
                "example_hands": self.examples["checkdown", (a, b)][:EXAMPLES],
            }
        return results


def _flow_rate(
    giver: str,
    taker: str,
    chips: float,
    n: int,
    out_sum: dict[str, float],
    in_sum: dict[str, float],
    pair_hands: dict[str, int],
    grand: float,
) -> float:
    """The chips expected per hand from ``giver`` to ``taker``: what the giver loses per hand to
    everyone else plus what the taker wins per hand from everyone else, less the room's mean
    (an additive model without the pair's own ``chips`` over their ``n`` hands)."""
    out_rate = (out_sum[giver] - chips) / max(1, pair_hands[giver] - n)
    in_rate = (in_sum[taker] - chips) / max(1, pair_hands[taker] - n)
    return max(0.0, out_rate + in_rate - grand)


def _margins(counts: dict[Pair, int]) -> tuple[dict[str, int], dict[str, int]]:
    """Row and column sums of counts per ordered pair."""
    by: dict[str, int] = defaultdict(int)
    to: dict[str, int] = defaultdict(int)
    for (a, b), k in counts.items():
        by[a] += k
        to[b] += k
    return by, to


def _expected(
    n: int,
    by_hits: float,
    by_tries: float,
    to_hits: float,
    to_tries: float,
    all_hits: float,
    all_tries: float,
) -> float:
    """Events expected in ``n`` hands together: the giver's rate times the taker's, over the
    room's (a multiplicative model, each rate measured without the pair)."""
    return n * _rate(by_hits, by_tries) * _rate(to_hits, to_tries) / _rate(all_hits, all_tries)


def shared_sign_ins(sign_ins: Iterable[SignIn]) -> dict[Pair, dict[str, Any]]:
    """Per pair that shared an address or a rare user agent: the evidence and a score in
    points (not a p-value: an address is a fact, not a frequency)."""
    by_address: dict[str, set[str]] = defaultdict(set)
    by_agent: dict[str, set[str]] = defaultdict(set)
    for row in sign_ins:
        by_address[row.address].add(row.account)
        if row.user_agent:
            by_agent[row.user_agent].add(row.account)
    results: dict[Pair, dict[str, Any]] = {}

    def entry(pair: Pair) -> dict[str, Any]:
        return results.setdefault(
            pair, {"score": 0.0, "shared_addresses": [], "shared_user_agents": []}
        )

    for address, names in sorted(by_address.items()):
        if not 2 <= len(names) <= PUBLIC_ADDRESS:
            continue
        ordered = sorted(names)
        for i, a in enumerate(ordered):
            for b in ordered[i + 1 :]:
                found = entry((a, b))
                found["shared_addresses"].append({"address": address, "accounts": len(names)})
                found["score"] += 1.0 / (len(names) - 1)
    for agent, names in sorted(by_agent.items()):
        if not 2 <= len(names) <= RARE_AGENT:
            continue
        ordered = sorted(names)
        for i, a in enumerate(ordered):
            for b in ordered[i + 1 :]:
                found = entry((a, b))
                found["shared_user_agents"].append({"user_agent": agent, "accounts": len(names)})
                found["score"] += 0.5
    for found in results.values():
        found["score"] = round(found["score"], 2)
    return results


def seats_together(hands: Iterable[tuple[int, str, Sequence[str]]]) -> dict[Pair, dict[str, Any]]:
    """Per pair that took seats at one table within ``JOIN_WINDOW`` hands of each other more
    than once: the count against a configuration model of everyone's joins. ``hands`` are
    (hand id, table id, accounts dealt in)."""
    by_table: dict[str, list[tuple[int, Sequence[str]]]] = defaultdict(list)
    for hand_id, table_id, names in hands:
        by_table[table_id].append((hand_id, names))
    joins: dict[Pair, int] = defaultdict(int)
    examples: dict[Pair, list[int]] = defaultdict(list)
    for table_hands in by_table.values():
        table_hands.sort()
        last_seen: dict[str, int] = {}
        starts: list[tuple[int, str, int]] = []
        for index, (hand_id, names) in enumerate(table_hands):
            for name in names:
                seen = last_seen.get(name)
                if index > 0 and (seen is None or index - seen > SESSION_GAP):
                    starts.append((index, name, hand_id))
                last_seen[name] = index
        for i, (index, a, hand_id) in enumerate(starts):
            for later, b, _ in starts[i + 1 :]:
                if later - index > JOIN_WINDOW:
                    break
                if a != b:
                    pair = _pair(a, b)
                    joins[pair] += 1
                    if len(examples[pair]) < EXAMPLES:
                        examples[pair].append(hand_id)
    degree: dict[str, int] = defaultdict(int)
    for (a, b), k in joins.items():
        degree[a] += k
        degree[b] += k
    total = sum(degree.values())
    accounts = len(degree)
    tests = max(1, accounts * (accounts - 1) // 2)
    results: dict[Pair, dict[str, Any]] = {}
    for (a, b), k in joins.items():
        if k < 2:
            continue
        lam = (degree[a] - k + 0.5) * (degree[b] - k + 0.5) / max(1.0, total - 2 * k + 1.0)
        results[a, b] = {
            "score": score(log10_poisson_upper(k, lam), tests),
            "seats_taken_together": k,
            "expected": round(lam, 2),
            "example_hands": examples[a, b],
        }
    return results
