"""A table's configuration: every house-rule setting of RULES.md, validated, and the seeds' presets.

A configuration is a frozen value. Every field is checked when it is built; an invalid setting is
refused with ``InvalidConfiguration`` naming the field and its valid values. Amounts are integer
units of the table's currency (cents for real money, whole chips for play money, R-GAME-5).

Derived values follow the rules: the big blind is the lower limit in limit games (R-BLIND-2); the
small blind is half of it rounded down to the rounding unit, or the configured override
(R-BLIND-3); buy-in bounds default per R-BUYIN-1; the raise cap is lifted heads-up at cash tables
only (R-LIMIT-3).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from feltroom.errors import InvalidConfiguration
from feltroom.rules import FixedLimit, NoLimit, PotLimit, RakeRule, Structure

__all__ = [
    "BUTTON_RULES",
    "FIRST_BUTTONS",
    "HOUSE_FEES",
    "PRESETS",
    "PROTECT_ON",
    "STRUCTURES",
    "TIMEOUT_ACTIONS",
    "TableConfig",
    "format_amount",
    "preset",
]

STRUCTURES = ("fixed_limit", "pot_limit", "no_limit")
FIRST_BUTTONS = ("high_card", "first_seated", "left_of_dealer")
BUTTON_RULES = ("dead", "moving")
HOUSE_FEES = ("rake", "session_fee", "collection_fee")
TIMEOUT_ACTIONS = ("fold", "check_or_fold")
PROTECT_ON = ("any_timeout", "disconnect", "never")  # never: tournaments (R-TOURN-6)
RAKE_CAP_BIG_BLINDS = 6
"""The default rake cap per hand, in big blinds (R-RAKE-3)."""
MODES = ("cash", "tournament")
MONEY = ("real", "play")


def _choice(name: str, value: object, valid: tuple[str, ...]) -> None:
    if value not in valid:
        raise InvalidConfiguration(
            f"{name}: {value!r} is not valid; valid values are {', '.join(valid)}"
        )


def _int(name: str, value: object, low: int, high: int | None = None) -> None:
    ok = isinstance(value, int) and not isinstance(value, bool) and value >= low
    if ok and high is not None and isinstance(value, int) and value > high:
        ok = False
    if not ok:
        bound = f"{low}..{high}" if high is not None else f"at least {low}"
        raise InvalidConfiguration(f"{name}: {value!r} is not valid; valid values are {bound}")


def _optional_int(name: str, value: object, low: int) -> None:
    if value is not None:
        _int(name, value, low)


def _percent(name: str, value: object) -> None:
    if not isinstance(value, int | Fraction) or isinstance(value, bool) or not 0 <= value < 100:
        raise InvalidConfiguration(
            f"{name}: {value!r} is not valid; valid values are an int or Fraction in [0, 100)"
        )


def format_amount(units: int, exponent: int) -> str:
    """Amounts as the seeds write them: ``$4``, ``$.25``, ``$1.50``; play chips as ``40``."""
    if exponent == 0:
        return str(units)
    whole, part = divmod(units, 10**exponent)
    if not part:
        return f"${whole}"
    return f"${whole if whole else ''}.{part:0{exponent}d}"


@dataclass(frozen=True, slots=True)
class TableConfig:
    """Every setting of one table (RULES.md). Amounts are integer units; see the module doc.

    ``lower``/``upper``: the limits of a fixed-limit table (R-GAME-4; ``upper`` defaults to twice
    ``lower``). Pot- and no-limit tables give ``big_blind`` and ``small_blind`` instead.
    ``small_blind`` on a limit table overrides the computed small blind (R-BLIND-3);
    ``sb_rounding_unit`` (default: one whole currency unit) is the unit the computed small blind is
    rounded down to (to the smallest unit when that gives zero). ``rake_cap`` is the rake's cap
    per hand in the table's units; ``None`` (the default) is 6 big blinds (R-RAKE-3).
    ``straddle`` lets the first player dealt in after the big blind post a live straddle of twice
    the big blind (R-HOME-3; off by default; pot- and no-limit cash tables of three or more
    seats only).
    """

    structure: str = "no_limit"
    lower: int | None = None
    upper: int | None = None
    big_blind: int | None = None
    small_blind: int | None = None
    sb_rounding_unit: int | None = None
    name: str = "Holdem"
    money: str = "real"
    exponent: int = 2
    max_seats: int = 10
    first_button: str = "high_card"
    button_rule: str = "dead"
    max_bets_per_round: int = 4
    uncapped_heads_up: bool | None = None
    min_buy_in: int | None = None
    max_buy_in: int | None = None
    rake_percent: int | Fraction = 5
    rake_cap: int | None = None
    no_flop_no_drop: bool = False
    house_fee: str = "rake"
    session_fee: int = 0
    session_minutes: int = 30
    collection_fee: int = 0
    tax_threshold: int | None = None
    tax_percent: int | Fraction = 0
    act_seconds: int = 7
    countdown_seconds: int = 15
    time_bank_seconds: int = 0
    time_bank_refill_seconds: int = 0
    time_bank_refill_hands: int = 10
    timeout_action: str = "fold"
    protect_on: str = "disconnect"
    sit_out_minutes: int = 10
    blind_prompt_seconds: int = 15
    seat_offer_seconds: int = 60
    mode: str = "cash"
    reset_stacks: bool = False
    straddle: bool = False
    run_it_twice: bool = False
    """R-HOME-4: when betting cannot continue before the river, the players still in may agree
    to deal the rest of the board twice (never at tournament tables)."""
    _derived: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        _choice("structure", self.structure, STRUCTURES)
        _choice("money", self.money, MONEY)
        _int("exponent", self.exponent, 0, 8)
        if self.money == "play" and self.exponent != 0:
            raise InvalidConfiguration(
                f"exponent: {self.exponent} is not valid for play money; valid values are 0"
            )
        _int("max_seats", self.max_seats, 2, 10)
        _choice("first_button", self.first_button, FIRST_BUTTONS)
        _choice("button_rule", self.button_rule, BUTTON_RULES)
        _int("max_bets_per_round", self.max_bets_per_round, 2)
        if self.uncapped_heads_up not in (None, True, False):
            raise InvalidConfiguration(
                f"uncapped_heads_up: {self.uncapped_heads_up!r} is not valid; "
                "valid values are True, False, None (default by mode)"
            )
        _choice("house_fee", self.house_fee, HOUSE_FEES)
        _choice("timeout_action", self.timeout_action, TIMEOUT_ACTIONS)
        _choice("protect_on", self.protect_on, PROTECT_ON)
        _choice("mode", self.mode, MODES)
        _percent("rake_percent", self.rake_percent)
        _percent("tax_percent", self.tax_percent)
        _optional_int("rake_cap", self.rake_cap, 0)
        _optional_int("tax_threshold", self.tax_threshold, 0)
        _int("session_fee", self.session_fee, 0)
        _int("session_minutes", self.session_minutes, 1)
        _int("collection_fee", self.collection_fee, 0)
        _int("act_seconds", self.act_seconds, 1, 3600)
        _int("countdown_seconds", self.countdown_seconds, 0, 3600)
        _int("time_bank_seconds", self.time_bank_seconds, 0, 36000)
        _int("time_bank_refill_seconds", self.time_bank_refill_seconds, 0, 36000)
        _int("time_bank_refill_hands", self.time_bank_refill_hands, 1, 1_000_000)
        _int("sit_out_minutes", self.sit_out_minutes, 1)
        _int("blind_prompt_seconds", self.blind_prompt_seconds, 1)
        _int("seat_offer_seconds", self.seat_offer_seconds, 1)
        if not isinstance(self.run_it_twice, bool):
            raise InvalidConfiguration(
                f"run_it_twice: {self.run_it_twice!r} is not valid; valid values are True, False"
            )
        if self.run_it_twice and self.mode == "tournament":
            raise InvalidConfiguration(
                "run_it_twice: True is not valid at a tournament table (R-HOME-4); valid values "
                "are False"
            )
        if not isinstance(self.no_flop_no_drop, bool):
            raise InvalidConfiguration(
                f"no_flop_no_drop: {self.no_flop_no_drop!r} is not valid; valid values are "
                "True, False"
            )
        derived = self._derived
        if self.structure == "fixed_limit":
            if self.big_blind is not None:
                raise InvalidConfiguration(
                    "big_blind: a fixed-limit table's big blind is the lower limit (R-BLIND-2); "
                    "valid values are None (set lower instead)"
                )
            _int("lower", self.lower, 1)
            assert self.lower is not None
            upper = 2 * self.lower if self.upper is None else self.upper
            _int("upper", upper, self.lower)
            big = self.lower
            derived["upper"] = upper
        else:
            if self.lower is not None or self.upper is not None:
                raise InvalidConfiguration(
                    "lower: pot- and no-limit tables are named by their blinds (R-GAME-4); "
                    "valid values are None (set big_blind and small_blind instead)"
                )
            _int("big_blind", self.big_blind, 1)
            assert self.big_blind is not None
            big = self.big_blind
        derived["big_blind"] = big
        unit = 10**self.exponent if self.sb_rounding_unit is None else self.sb_rounding_unit
        _int("sb_rounding_unit", unit, 1)
        if self.small_blind is not None:
            _int("small_blind", self.small_blind, 1, big)
            small = self.small_blind
        else:
            small = (big // 2) // unit * unit or big // 2  # R-BLIND-3: round down, else finest
            if small == 0:
                small = 1 if big > 1 else 0
        derived["small_blind"] = small
        if self.structure == "fixed_limit":
            low, high = 10 * big, None  # R-BUYIN-1: limit games
        else:
            low, high = 20 * big, 100 * big
        low = low if self.min_buy_in is None else self.min_buy_in
        high = high if self.max_buy_in is None else self.max_buy_in
        _int("min_buy_in", low, 1)
        if high is not None:
            _int("max_buy_in", high, low)
        derived["min_buy_in"], derived["max_buy_in"] = low, high
        self._check_reset_stacks(low, high)
        self._check_straddle()

    def _check_straddle(self) -> None:
        """R-HOME-3: a straddle is never posted at Fixed-Limit, heads-up or in a tournament."""
        if not isinstance(self.straddle, bool):
            raise InvalidConfiguration(
                f"straddle: {self.straddle!r} is not valid; valid values are True, False"
            )
        if not self.straddle:
            return
        if self.structure == "fixed_limit":
            raise InvalidConfiguration(
                "straddle: True is not valid at a fixed-limit table (R-HOME-3); valid values "
                "are False (straddles are for pot- and no-limit tables)"
            )
        if self.mode != "cash":
            raise InvalidConfiguration(
                "straddle: True is not valid at a tournament table; valid values are False "
                "(straddles are for cash tables)"
            )
        if self.max_seats < 3:
            raise InvalidConfiguration(
                "straddle: True is not valid at a heads-up table (R-HOME-3: never heads-up); "
                "valid values are False (or give the table 3 seats or more)"
            )

    def _check_reset_stacks(self, low: int, high: int | None) -> None:
        """``reset_stacks``: every stack is set back to the table's one buy-in before each hand
        (play-money cash tables only; the room books the difference to or from the wallet)."""
        if not isinstance(self.reset_stacks, bool):
            raise InvalidConfiguration(
                f"reset_stacks: {self.reset_stacks!r} is not valid; valid values are True, False"
            )
        if not self.reset_stacks:
            return
        if self.money != "play" or self.mode != "cash":
            raise InvalidConfiguration(
                f"reset_stacks: True is not valid for {self.money} money {self.mode} tables; "
                "valid values are False (stacks are reset at play-money cash tables only)"
            )
        if high != low:
            raise InvalidConfiguration(
                f"reset_stacks: a table that resets stacks has one buy-in, not {low} to {high}; "
                "set min_buy_in and max_buy_in to the same amount"
            )

    # ------------------------------------------------------------------ derived values

    @property
    def big(self) -> int:
        """The big blind (R-BLIND-2)."""
        value: int = self._derived["big_blind"]
        return value

    @property
    def small(self) -> int:
        """The small blind (R-BLIND-3)."""
        value: int = self._derived["small_blind"]
        return value

    @property
    def buy_in_min(self) -> int:
        value: int = self._derived["min_buy_in"]
        return value

    @property
    def buy_in_max(self) -> int | None:
        value: int | None = self._derived["max_buy_in"]
        return value

    @property
    def tournament(self) -> bool:
        return self.mode == "tournament"

    @property
    def heads_up_uncapped(self) -> bool:
        """R-LIMIT-3: default on at cash tables, off in tournaments."""
        if self.uncapped_heads_up is None:
            return not self.tournament
        return self.uncapped_heads_up

    def engine_structure(self) -> Structure:
        """The hand engine's betting structure for this table."""
        if self.structure == "fixed_limit":
            upper: int = self._derived["upper"]
            return FixedLimit(self.big, upper, self.max_bets_per_round, self.heads_up_uncapped)
        if self.structure == "pot_limit":
            return PotLimit(self.big)
        return NoLimit(self.big)

    def rake_rule(self) -> RakeRule | None:
        """The engine's rake rule: none in tournaments (R-RAKE-2) or when another house fee
        replaces the rake (R-RAKE-4)."""
        if self.tournament or self.house_fee != "rake" or not self.rake_percent:
            return None
        return RakeRule(
            Fraction(self.rake_percent) / 100, self.rake_cap_amount, self.no_flop_no_drop
        )

    @property
    def rake_cap_amount(self) -> int:
        """The rake's cap per hand in the table's units: ``rake_cap``, by default 6 big blinds
        ($3 at $.25/$.50, R-RAKE-3)."""
        return RAKE_CAP_BIG_BLINDS * self.big if self.rake_cap is None else self.rake_cap

    def default_buy_in(self, balance: int) -> int:
        """R-BUYIN-2: the whole account balance, capped by the table maximum."""
        cap = self.buy_in_max
        return balance if cap is None else min(balance, cap)

    def buy_in_bounds_text(self) -> str:
        low = format_amount(self.buy_in_min, self.exponent)
        if self.buy_in_max is None:
            return f"minimum buy-in {low}"
        return f"buy-in {low} to {format_amount(self.buy_in_max, self.exponent)}"

    def stakes_name(self) -> str:
        """The table's name by its stakes (R-GAME-4)."""
        f = self.exponent
        if self.structure == "fixed_limit":
            upper: int = self._derived["upper"]
            return f"{format_amount(self.big, f)}-{format_amount(upper, f)} Fixed Limit"
        kind = "Pot Limit" if self.structure == "pot_limit" else "No Limit"
        return f"{format_amount(self.small, f)}/{format_amount(self.big, f)} {kind}"

    def info(self) -> str:
        """The table's information (R-TABLE-1)."""
        f = self.exponent
        parts = [
            f"Welcome to {self.name}",
            self.stakes_name(),
            f"Blinds {format_amount(self.small, f)}/{format_amount(self.big, f)}",
            f"Minimum Buy-in {format_amount(self.buy_in_min, f)}",
        ]
        if self.buy_in_max is not None:
            parts.append(f"Maximum Buy-in {format_amount(self.buy_in_max, f)}")
        return " — ".join(parts)

    def with_(self, **changes: Any) -> TableConfig:
        """A copy with some settings changed (validated again)."""
        return replace(self, _derived={}, **changes)


# The presets' time bank (R-TIME-1): 30 s to each player, refilled by 5 s every 10 hands dealt to
# them, up to the 30 s again.
_BANK: dict[str, Any] = {
    "time_bank_seconds": 30,
    "time_bank_refill_seconds": 5,
    "time_bank_refill_hands": 10,
}


def _limit(lower: int, **kw: Any) -> TableConfig:
    return TableConfig(structure="fixed_limit", lower=lower, button_rule="moving", **_BANK, **kw)


PRESETS: dict[str, TableConfig] = {
    # [000] Top3Poker: $10/$20 Limit, moving button, first player seated takes the button.
    "limit_10_20": _limit(1000, first_button="first_seated"),
    # [003]: $3-$6 Limit, small blind $1 (half the lower limit rounded down to the dollar).
    "limit_3_6": _limit(300),
    # [004] Planet Poker: $4-$8 Limit, blinds $2/$4, minimum buy-in $40.
    "limit_4_8": _limit(400, first_button="left_of_dealer"),
    # [001] Poker Network: $15-$30 Limit, small blind $7.
    "limit_15_30": _limit(1500),
    # [004]: $.05-$.10 Limit with a $.03 small blind (the operator's override).
    "limit_05_10": _limit(5, small_blind=3, first_button="left_of_dealer"),
    # [001]: $1-$2 Limit, $.50 small blind, minimum buy-in $10.
    "limit_1_2": _limit(100),
    # [004]: $.25/$.50 No-Limit, buy-in $10 to $50, rake 5% capped at $3.
    "nl_25_50": TableConfig(
        structure="no_limit",
        big_blind=50,
        small_blind=25,
        button_rule="moving",
        first_button="left_of_dealer",
        **_BANK,
    ),
    # [000]: Pot-Limit tables with maximum buy-ins of $25, $50 and $100.
    "pl_25_50": TableConfig(
        structure="pot_limit",
        big_blind=50,
        small_blind=25,
        max_buy_in=2500,
        button_rule="moving",
        first_button="first_seated",
        **_BANK,
    ),
    "pl_50_100": TableConfig(
        structure="pot_limit",
        big_blind=100,
        small_blind=50,
        max_buy_in=5000,
        button_rule="moving",
        first_button="first_seated",
        **_BANK,
    ),
    "pl_100_200": TableConfig(
        structure="pot_limit",
        big_blind=200,
        small_blind=100,
        max_buy_in=10000,
        button_rule="moving",
        first_button="first_seated",
        **_BANK,
    ),
    # [002] Fat Diamond: the dead-button room (no stakes named; $1/$2 No-Limit here).
    "dead_nl_1_2": TableConfig(
        structure="no_limit", big_blind=200, small_blind=100, button_rule="dead", **_BANK
    ),
}


def preset(name: str, **changes: Any) -> TableConfig:
    """A preset by name, optionally with some settings changed."""
    if name not in PRESETS:
        raise InvalidConfiguration(
            f"preset: {name!r} is not valid; valid values are {', '.join(PRESETS)}"
        )
    base = PRESETS[name]
    return base.with_(**changes) if changes else base
