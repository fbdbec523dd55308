"""The four signals of the integrity report, each counted over played hands (or the sign-in log)
and scored per pair of accounts (``stats.score``: a p-value corrected for the pairs tested).

Every expectation compares a pair with how the same two accounts play with everybody else, so a
strong player who beats a weak one everywhere, or a player who never raises anyone, is not taken
for a colluder.

- ``chip_dumping`` (ordered: from a giver to a taker): folds to the taker's bet after putting
  chips in voluntarily, calls of the taker's all-in with a hopeless hand (under ``HOPELESS``
  equity against the hand actually held), and the chips lost to the taker. Folds and chips are
  compared with all the giver gave, shared among its opponents by the hands played with each and
  by what each received from others in the hands without the giver (Poisson for folds, a z for
  chips); hopeless calls with the share of hopeless calls the taker's all-ins meet from others, or
  the giver makes against others (binomial).
- ``soft_play``: bets and raises of each while the other was still in the hand, against each
  one's usual rate (the median of its rates against its other opponents); both must be low
  (Poisson, lower tail). Check-downs while a third player was all-in are listed as evidence.
- ``shared_sign_ins``: addresses both signed in from (each weighted 1/(k-1) when k accounts used
  it; an address of more than ``PUBLIC_ADDRESS`` accounts is a public one and ignored), plus half
  a point per user agent string both used that at most ``RARE_AGENT`` accounts used.
- ``seats_together``: the times both took a seat at the same table within ``JOIN_WINDOW`` hands
  of each other, against a configuration model of everyone's joins (Poisson).
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from feltroom.cards import Card
from feltroom.integrity.equity import heads_up_equity
from feltroom.integrity.hands import Move, PlayedHand, SignIn
from feltroom.integrity.stats import (
    log10_binomial_upper,
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
PRIOR_CALLS = 5
"""Calls of all-ins at the room's hopeless share that smooth each player's share."""
PRIOR_HANDS = 50
"""Opponent-hands at the room's rate that smooth what an account usually receives."""
"""Calls of all-ins at the room's hopeless share that smooth each player's share."""
EXAMPLES = 5
"""Hand ids kept as examples per pair and kind of evidence."""
USUAL_CHANCES = 20
"""A player's rate against an opponent counts toward their usual rate after this many chances."""

Pair = tuple[str, str]


def _floats() -> Any:
    return defaultdict(float)


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
    flow_sq: dict[Pair, float] = field(default_factory=lambda: defaultdict(float))
    folds: dict[Pair, int] = field(default_factory=lambda: defaultdict(int))
    folded_chips: dict[Pair, float] = field(default_factory=lambda: defaultdict(float))
    all_in_calls: dict[Pair, int] = field(default_factory=lambda: defaultdict(int))
    hopeless: dict[Pair, int] = field(default_factory=lambda: defaultdict(int))
    chances: dict[Pair, int] = field(default_factory=lambda: defaultdict(int))
    aggression: dict[Pair, int] = field(default_factory=lambda: defaultdict(int))
    pots: dict[Pair, int] = field(default_factory=lambda: defaultdict(int))
    checkdowns: dict[Pair, int] = field(default_factory=lambda: defaultdict(int))
    examples: dict[tuple[str, Pair], list[int]] = field(default_factory=lambda: defaultdict(list))
    # What each account received (chips lost to it, folds to its bets) and its opponent-hands,
    # in all and in the hands where another account was dealt.
    got: dict[str, dict[str, float]] = field(default_factory=lambda: defaultdict(_floats))
    got_with: dict[str, dict[Pair, float]] = field(default_factory=lambda: defaultdict(_floats))
    seen: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    seen_with: dict[Pair, int] = field(default_factory=lambda: defaultdict(int))
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
        received: dict[str, dict[str, float]] = {"fold": {}}
        received["flow"] = self._flows(hand, bb)
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
                received["fold"][move.facing] = received["fold"].get(move.facing, 0) + 1
                self.folds[pair] += 1
                self.folded_chips[pair] += move.invested / bb
                self._example("fold", pair, hand.hand_id)
            # calls of the all-in bet the player faced
            if move.kind == "call" and move.added > 0 and move.facing in move.all_in:
                self._all_in_call(hand, move, holes)
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
        opponents = len(names) - 1
        for taker in names:
            self.seen[taker] += opponents
            for present in names:
                if present != taker:
                    self.seen_with[taker, present] += opponents
            for kind, got in received.items():
                value = got.get(taker, 0.0)
                if value:
                    self.got[kind][taker] += value
                    for present in names:
                        if present != taker:
                            self.got_with[kind][taker, present] += value

    def _all_in_call(
        self, hand: PlayedHand, move: Move, holes: dict[str, tuple[Card, ...]]
    ) -> None:
        """A call of the all-in bet of ``move.facing``: hopeless below ``HOPELESS`` equity
        against the hand it faced (the other players' cards are dead)."""
        me, other = move.account, move.facing
        assert other is not None
        pair = (me, other)
        self.all_in_calls[pair] += 1
        mine, theirs = holes.get(me, ()), holes.get(other, ())
        if len(mine) != 2 or len(theirs) != 2:
            return
        dead = [c for name, cards in holes.items() if name not in (me, other) for c in cards]
        if heads_up_equity(mine, theirs, move.board, dead, seed=hand.hand_id) < HOPELESS:
            self.hopeless[pair] += 1
            self._example("hopeless", pair, hand.hand_id)

    def _flows(self, hand: PlayedHand, bb: int) -> dict[str, float]:
        """Each loser's loss shared among the winners in proportion to their gains; returns
        what each winner took (big blinds)."""
        gains = {seat.account: seat.net for seat in hand.players if seat.net > 0}
        total = sum(gains.values())
        taken: dict[str, float] = {}
        if total <= 0:
            return taken
        for seat in hand.players:
            if seat.net >= 0:
                continue
            for winner, gain in gains.items():
                chips = -seat.net * gain / total / bb
                self.flow[seat.account, winner] += chips
                self.flow_sq[seat.account, winner] += chips * chips
                taken[winner] = taken.get(winner, 0.0) + chips
        return taken

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
        pair_hands: dict[str, int] = defaultdict(int)
        for (a, b), n in self.together.items():
            pair_hands[a] += n
            pair_hands[b] += n
        flow_expected = self._toward(self.flow, "flow", own_prior=True)
        loss_sq: dict[str, float] = defaultdict(float)
        for (giver, _), value in self.flow_sq.items():
            loss_sq[giver] += value
        fold_expected = self._toward(self.folds, "fold")
        hope_rate = self._hopeless_rates()
        tests = 2 * len(self.together)
        results: dict[Pair, dict[str, Any]] = {}
        for (a, b), n in self.together.items():
            best: dict[str, Any] | None = None
            for giver, taker in ((a, b), (b, a)):
                lost = self.flow[giver, taker]
                expect = flow_expected.get((giver, taker), 0.0)
                # The spread: the pair's own, or what the giver's hands usually spread,
                # whichever is larger (a pair that rarely shares a pot has a tiny own spread).
                usual = n * loss_sq[giver] / max(1, pair_hands[giver])
                spread = math.sqrt(max(self.flow_sq[giver, taker], usual, 1.0))
                z = (lost - expect) / spread
                p_flow = log10_normal_upper(z)
                k_fold = self.folds[giver, taker]
                lam_fold = fold_expected.get((giver, taker), 0.0)
                p_fold = log10_poisson_upper(k_fold, lam_fold)
                k_hope, calls = self.hopeless[giver, taker], self.all_in_calls[giver, taker]
                rate = hope_rate(giver, taker)
                p_hope = log10_binomial_upper(k_hope, calls, rate)
                log_p = min(p_flow, p_fold, p_hope) + math.log10(3)
                evidence = {
                    "score": score(log_p, tests),
                    "from": giver,
                    "to": taker,
                    "hands_together": n,
                    "lost_big_blinds": round(lost, 1),
                    "expected_big_blinds": round(expect, 1),
                    "net_big_blinds": round(lost - self.flow[taker, giver], 1),
                    "z": round(z, 2),
                    "folds_after_investing": k_fold,
                    "expected_folds": round(lam_fold, 2),
                    "chips_folded_big_blinds": round(self.folded_chips[giver, taker], 1),
                    "all_in_calls": self.all_in_calls[giver, taker],
                    "hopeless_calls": k_hope,
                    "expected_hopeless_calls": round(calls * rate, 2),
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

    def _hopeless_rates(self) -> Any:
        """``rate(giver, taker)``: the share of calls of the taker's all-ins that are hopeless
        when others call them, or of the giver's calls of others' all-ins, whichever is higher
        (each without the pair, smoothed toward the room's share by ``PRIOR_CALLS`` calls): a
        player whose all-ins are mostly called by hopeless hands, or who calls every all-in,
        is expected to make or meet many."""
        calls_by, calls_to = _margins(self.all_in_calls)
        hope_by, hope_to = _margins(self.hopeless)
        room = (sum(hope_by.values()) + 1) / (sum(calls_by.values()) + 2)

        def rate(giver: str, taker: str) -> float:
            k, n = self.hopeless[giver, taker], self.all_in_calls[giver, taker]
            of_taker = (hope_to[taker] - k + PRIOR_CALLS * room) / (
                calls_to[taker] - n + PRIOR_CALLS
            )
            of_giver = (hope_by[giver] - k + PRIOR_CALLS * room) / (
                calls_by[giver] - n + PRIOR_CALLS
            )
            return min(1.0, max(of_taker, of_giver))

        return rate

    def _toward(self, counts: Any, kind: str, *, own_prior: bool = False) -> dict[Pair, float]:
        """Per ordered pair (giver, taker), what of ``kind`` the giver is expected to have given
        the taker: all the giver gave, shared among its opponents in proportion to the hands
        played with each and to what each received per opponent-hand in the hands the giver was
        not dealt into, smoothed by ``PRIOR_HANDS`` opponent-hands at the room's rate, or with
        ``own_prior`` at the taker's own rate in all its hands (chips: a strong player who
        mostly sits with one friend still wins like a strong player). An account that plays
        differently when its partner is there is measured without it."""
        by: dict[str, float] = defaultdict(float)
        for (giver, _), value in counts.items():
            by[giver] += value
        got, got_with = self.got[kind], self.got_with[kind]
        room = sum(got.values()) / max(1, sum(self.seen.values()))
        weights: dict[Pair, float] = {}
        total: dict[str, float] = defaultdict(float)
        for (a, b), n in self.together.items():
            for giver, taker in ((a, b), (b, a)):
                hits = got[taker] - got_with[taker, giver]
                tries = self.seen[taker] - self.seen_with[taker, giver]
                prior = got[taker] / max(1, self.seen[taker]) if own_prior else room
                weight = n * max((hits + PRIOR_HANDS * prior) / (tries + PRIOR_HANDS), 1e-9)
                weights[giver, taker] = weight
                total[giver] += weight
        return {
            pair: by[pair[0]] * weight / total[pair[0]] if total[pair[0]] > 0 else 0.0
            for pair, weight in weights.items()
        }

    def soft_play(self) -> dict[Pair, dict[str, Any]]:
        """Per unordered pair: bets and raises at each other against each one's usual rate (the
        median of the player's rates against each other opponent met often enough, so that one
        partner the player plays unusually against does not move it)."""
        rates: dict[str, list[tuple[str, float]]] = defaultdict(list)
        for (me, other), chances in self.chances.items():
            if chances >= USUAL_CHANCES:
                rates[me].append((other, self.aggression[me, other] / chances))
        chances_by, _ = _margins(self.chances)
        aggression_by, _ = _margins(self.aggression)
        pairs = {_pair(a, b) for (a, b) in self.chances}
        tests = len(pairs)
        results: dict[Pair, dict[str, Any]] = {}
        for a, b in pairs:
            lam = 0.0
            taken = 0
            chances = 0
            log_p = -math.inf
            for me, other in ((a, b), (b, a)):
                k, c = self.aggression[me, other], self.chances[me, other]
                usual = sorted(rate for name, rate in rates[me] if name != other)
                if len(usual) >= 3:
                    rate = statistics.median(usual)
                else:
                    rate = _rate(aggression_by[me] - k, chances_by[me] - c)
                # soft play is mutual: each must bet and raise at the other less than usual
                log_p = max(log_p, log10_poisson_lower(k, c * rate))
                lam += c * rate
                taken += k
                chances += c
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


def _margins(counts: dict[Pair, int]) -> tuple[dict[str, int], dict[str, int]]:
    """Row and column sums of counts per ordered pair."""
    by: dict[str, int] = defaultdict(int)
    to: dict[str, int] = defaultdict(int)
    for (a, b), k in counts.items():
        by[a] += k
        to[b] += k
    return by, to


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

    kinds = (
        (by_address, PUBLIC_ADDRESS, "shared_addresses", "address"),
        (by_agent, RARE_AGENT, "shared_user_agents", "user_agent"),
    )
    for used, most, field_name, key in kinds:
        for value, names in sorted(used.items()):
            if not 2 <= len(names) <= most:
                continue
            ordered = sorted(names)
            for i, a in enumerate(ordered):
                for b in ordered[i + 1 :]:
                    found = entry((a, b))
                    found[field_name].append({key: value, "accounts": len(names)})
                    found["score"] += 1.0 / (len(names) - 1) if key == "address" else 0.5
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
