"""Player protection (issue 25, docs/operator.md, docs/protocol.md): what a player sets to
protect themselves, and the checks the cashier, the tables and tournament entries make.

- Deposit and loss limits per real-money currency and per ``day``, ``week`` and ``month``
  (rolling windows of 24 hours, 7 days and 30 days). Net losses are what left the wallet for
  tables (buy-ins, chips added) and tournaments (entries and their fees) less what came back
  (cash-outs, prizes, refunds). Lowering or setting a limit takes effect at once; raising or
  removing one only ``RAISE_DELAY`` later (the pending change is shown until then).
- A session-time reminder every so many minutes (the server sends it, docs/protocol.md).
- A cool-off (24 hours to 6 weeks) and a self-exclusion (6 months to permanent): no deposit, no
  seat, no buy-in, no tournament entry; withdrawals stay possible. Neither can be shortened or
  lifted early, and both are kept under the account's name apart from the account, so that
  removing the account lifts nothing (a sign-up under the name is refused while they run).

Every change is written to the operator log (who: the player) in the same transaction. A
refusal raises ``ProtectionRefused`` (or ``RoomError``) saying what would be valid, and changes
nothing.
"""

from __future__ import annotations

import calendar
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from feltroom.money import format_units, to_units
from feltroom.room.errors import ProtectionRefused, RoomError, UnknownAccount
from feltroom.room.ledger import (
    CURRENCIES,
    TransferKind,
    currency,
    is_home_currency,
    player_wallet_key,
)
from feltroom.room.storage import LimitRow, ProtectionRow, Storage, Transaction

if TYPE_CHECKING:
    from feltroom.room.operators import OperatorLog

__all__ = [
    "COOL_OFF_HOURS",
    "EXCLUSION_MONTHS",
    "KINDS",
    "PERIODS",
    "RAISE_DELAY",
    "REMINDER_MINUTES",
    "Protection",
    "check_deposit",
    "check_may_play",
    "check_stake",
    "real_money",
]

KINDS = ("deposit", "loss")
PERIODS: dict[str, float] = {"day": 86_400.0, "week": 7 * 86_400.0, "month": 30 * 86_400.0}
PERIOD_TEXT = {"day": "24 hours", "week": "7 days", "month": "30 days"}
RAISE_DELAY = 24 * 3600.0
"""How long a raised (or removed) limit waits before it is in force."""
COOL_OFF_HOURS = (24, 6 * 7 * 24)
EXCLUSION_MONTHS = (6, 120)
REMINDER_MINUTES = (10, 1440)
"""A reminder every 10 minutes to 24 hours (0: none)."""

_SPENT = (TransferKind.BUY_IN, TransferKind.ENTRY, TransferKind.ENTRY_FEE)
_RETURNED = (TransferKind.CASH_OUT, TransferKind.PRIZE, TransferKind.REFUND)
PLAYER_REASON = "set by the player"


def real_money(code: str) -> bool:
    """Whether ``code`` is a real-money currency (every currency but play chips and a home
    game's own chips)."""
    return code != "PLAY" and not is_home_currency(code)


def iso(at: float | None) -> str | None:
    return None if at is None else datetime.fromtimestamp(at, UTC).isoformat(timespec="seconds")


def _add_months(at: float, months: int) -> float:
    """``months`` calendar months after ``at`` (UTC), on the month's last day when it is
    shorter (31 August + 6 months: 28 or 29 February)."""
    moment = datetime.fromtimestamp(at, UTC)
    month = moment.month - 1 + months
    year, month = moment.year + month // 12, month % 12 + 1
    day = min(moment.day, calendar.monthrange(year, month)[1])
    return moment.replace(year=year, month=month, day=day).timestamp()


def _state(tx: Transaction, name: str) -> ProtectionRow:
    return tx.get_protection(name) or ProtectionRow(name.lower())


def blocked_until(row: ProtectionRow, now: float) -> tuple[str, float | None] | None:
    """(``self-exclusion`` or ``cool-off``, until: None for ever) while one runs."""
    if row.excluded_permanently:
        return "self-exclusion", None
    if row.excluded_until is not None and row.excluded_until > now:
        return "self-exclusion", row.excluded_until
    if row.cool_off_until is not None and row.cool_off_until > now:
        return "cool-off", row.cool_off_until
    return None


def check_may_play(tx: Transaction, player: str, now: float, what: str = "play") -> None:
    """``ProtectionRefused`` while ``player`` is cooled off or self-excluded."""
    found = blocked_until(_state(tx, player), now)
    if found is None:
        return
    kind, until = found
    when = "permanently" if until is None else f"until {iso(until)}"
    ends = "" if until is None else " until it ends"
    raise ProtectionRefused(
        f"{player} is in a {kind} {when}: no {what}{ends} (withdrawals stay possible)",
        {"state": kind, "until": until, "until_time": iso(until)},
    )


def _in_force(row: LimitRow, now: float) -> int | None:
    if row.pending_at is not None and row.pending_at <= now:
        return row.pending
    return row.amount


def _used(tx: Transaction, player: str, code: str, kind: str, since: float) -> int:
    flows = tx.wallet_flows(player_wallet_key(tx, player, code), since)
    if kind == "deposit":
        return flows.get((TransferKind.DEPOSIT.value, "in"), 0)
    spent = sum(flows.get((k.value, "out"), 0) for k in _SPENT)
    back = sum(flows.get((k.value, "in"), 0) for k in _RETURNED)
    return spent - back


def _check_limits(
    tx: Transaction, player: str, code: str, kind: str, amount: int, now: float
) -> None:
    unit = currency(code)
    for row in tx.limits_of(player):
        if row.currency != code or row.kind != kind:
            continue
        limit = _in_force(row, now)
        if limit is None:
            continue
        used = _used(tx, player, code, kind, now - PERIODS[row.period])
        if used + amount <= limit:
            continue
        left = max(0, limit - used)
        what = "deposits" if kind == "deposit" else "net losses"
        f = format_units
        raise ProtectionRefused(
            f"{player}'s {kind} limit is {f(limit, unit)} {code} per {row.period}; "
            f"{what} over the last {PERIOD_TEXT[row.period]} are {f(used, unit)} {code}, so at "
            f"most {f(left, unit)} {code} more is possible now, not {f(amount, unit)} {code}",
            {
                "kind": kind,
                "period": row.period,
                "currency": code,
                "limit": f(limit, unit),
                "used": f(used, unit),
                "allowed": f(left, unit),
            },
        )


def check_deposit(tx: Transaction, player: str, code: str, amount: int, now: float) -> None:
    """Refuse a deposit of ``amount`` units during a cool-off or exclusion, or over a deposit
    limit (real money only)."""
    check_may_play(tx, player, now, "deposit")
    if real_money(code):
        _check_limits(tx, player, code, "deposit", amount, now)


def check_stake(
    tx: Transaction,
    player: str,
    code: str,
    amount: int,
    now: float,
    *,
    require_verified: bool,
    what: str = "buy-in",
) -> None:
    """Refuse ``amount`` units going to a table or a tournament entry (``what``): during a
    cool-off or exclusion; at real money, from an unverified account (when
    ``require_verified``) or over a loss limit. The one check a buy-in, chips added and a
    tournament registration make."""
    check_may_play(tx, player, now, what)
    if not real_money(code):
        return
    if require_verified:
        user = tx.get_user(player)
        if user is not None and not user.bot and not user.verified:
            raise ProtectionRefused(
                f"{player} is not verified: real-money tables and tournaments need an account "
                "the room has verified (ask the room's support); play money needs none",
                {"verified": False},
            )
    _check_limits(tx, player, code, "loss", amount, now)


class Protection:
    """A player's protection settings over a ``Storage``: read, change, and the log."""

    def __init__(
        self, storage: Storage, log: OperatorLog, clock: Callable[[], float] = time.time
    ) -> None:
        self.storage = storage
        self.log = log
        self.clock = clock

    # -- reads

    def view(self, player: str) -> dict[str, Any]:
        """Everything ``player`` set, with what each limit has used, as JSON."""
        now = self.clock()
        with self.storage.transaction(write=False) as tx:
            user = tx.get_user(player)
            if user is None:
                raise UnknownAccount(
                    f"no player account named {player!r} (names are case-sensitive)"
                )
            return self._view(tx, user.name, user.verified, now)

    def _view(self, tx: Transaction, player: str, verified: bool, now: float) -> dict[str, Any]:
        state = _state(tx, player)
        limits = []
        for row in tx.limits_of(player):
            unit = currency(row.currency)
            amount = _in_force(row, now)
            waiting = row.pending_at is not None and row.pending_at > now
            if amount is None and not waiting:
                continue  # a limit removed: its removal is in force
            used = _used(tx, player, row.currency, row.kind, now - PERIODS[row.period])
            limits.append(
                {
                    "currency": row.currency,
                    "kind": row.kind,
                    "period": row.period,
                    "amount": None if amount is None else format_units(amount, unit),
                    "used": format_units(used, unit)
                    if used >= 0
                    else "-" + format_units(-used, unit),
                    "pending": (
                        {
                            "amount": None
                            if row.pending is None
                            else format_units(row.pending, unit),
                            "at": row.pending_at,
                            "time": iso(row.pending_at),
                        }
                        if waiting
                        else None
                    ),
                }
            )
        blocked = blocked_until(state, now)
        cool = state.cool_off_until if state.cool_off_until and state.cool_off_until > now else None
        excluded = (
            state.excluded_until if state.excluded_until and state.excluded_until > now else None
        )
        return {
            "player": player,
            "verified": verified,
            "limits": limits,
            "reminder_minutes": state.reminder_minutes,
            "cool_off_until": cool,
            "cool_off_time": iso(cool),
            "excluded_until": excluded,
            "excluded_time": iso(excluded),
            "excluded_permanently": state.excluded_permanently,
            "blocked": None if blocked is None else blocked[0],
        }

    # -- changes

    def set_limits(
        self,
        player: str,
        limits: Sequence[Mapping[str, Any]],
        reminder_minutes: int | None = None,
    ) -> dict[str, Any]:
        """Set, lower, raise or remove limits (``{"currency", "kind", "period", "amount"}``,
        amount a string in major units or None: no limit) and the reminder. All or nothing."""
        now = self.clock()
        wanted = [_parse_limit(item, index) for index, item in enumerate(limits)]
        if reminder_minutes is not None:
            low, high = REMINDER_MINUTES
            if reminder_minutes != 0 and not low <= reminder_minutes <= high:
                raise RoomError(
                    f"reminder_minutes must be 0 (no reminder) or from {low} to {high}, "
                    f"not {reminder_minutes}"
                )
        if not wanted and reminder_minutes is None:
            raise RoomError("nothing to change: give limits, reminder_minutes or both")
        with self.storage.transaction() as tx:
            user = self._player(tx, player)
            rows = {(r.currency, r.kind, r.period): r for r in tx.limits_of(player)}
            changes = []
            for code, kind, period, amount in wanted:
                row = rows.get((code, kind, period)) or LimitRow(player, code, kind, period, None)
                current = _in_force(row, now)
                row = replace(row, amount=current, pending=None, pending_at=None)
                unit = currency(code)
                text = None if amount is None else format_units(amount, unit)
                if current is None and amount is None:
                    effect = "none"
                elif current is None or (amount is not None and amount <= current):
                    row = replace(row, amount=amount)
                    effect = "now"
                else:
                    old = rows.get((code, kind, period))
                    keep = (
                        old is not None
                        and old.pending_at is not None
                        and old.pending_at > now
                        and old.pending == amount
                    )
                    at = old.pending_at if keep and old is not None else now + RAISE_DELAY
                    row = replace(row, pending=amount, pending_at=at)
                    effect = "pending"
                tx.put_limit(row)
                rows[(code, kind, period)] = row
                changes.append(
                    {
                        "currency": code,
                        "kind": kind,
                        "period": period,
                        "amount": text,
                        "effect": effect,
                        "at": row.pending_at if effect == "pending" else now,
                    }
                )
            details: dict[str, Any] = {"limits": changes}
            if reminder_minutes is not None:
                tx.put_protection(replace(_state(tx, player), reminder_minutes=reminder_minutes))
                details["reminder_minutes"] = reminder_minutes
            entry = self.log.add(tx, player, "limits", player, PLAYER_REASON, details)
            view = self._view(tx, user, self._verified(tx, player), now)
        return {**view, "changes": changes, "entry": entry}

    def cool_off(self, player: str, hours: int) -> dict[str, Any]:
        """A cool-off of ``hours`` from now; a running one can only be made longer."""
        low, high = COOL_OFF_HOURS
        if not low <= hours <= high:
            raise RoomError(
                f"a cool-off lasts from {low} hours to {high} hours (6 weeks), not {hours}"
            )
        now = self.clock()
        until = now + hours * 3600.0
        with self.storage.transaction() as tx:
            user = self._player(tx, player)
            state = _state(tx, player)
            blocked = blocked_until(state, now)
            if blocked is not None and blocked[0] == "self-exclusion":
                raise RoomError(f"{player} is self-excluded already; a cool-off adds nothing")
            if state.cool_off_until is not None and state.cool_off_until > until:
                raise RoomError(
                    f"{player}'s cool-off runs until {iso(state.cool_off_until)} and cannot be "
                    f"shortened; a new one must end after that (at least "
                    f"{int((state.cool_off_until - now) // 3600) + 1} hours)"
                )
            tx.put_protection(replace(state, cool_off_until=until))
            entry = self.log.add(
                tx, player, "cool-off", player, PLAYER_REASON, {"hours": hours, "until": iso(until)}
            )
            view = self._view(tx, user, self._verified(tx, player), now)
        return {**view, "entry": entry}

    def exclude(self, player: str, months: int | None) -> dict[str, Any]:
        """A self-exclusion of ``months`` from now (None: permanent); a running one can only be
        made longer."""
        low, high = EXCLUSION_MONTHS
        if months is not None and not low <= months <= high:
            raise RoomError(
                f"a self-exclusion lasts from {low} to {high} months, or is permanent; "
                f"not {months} months"
            )
        now = self.clock()
        until = None if months is None else _add_months(now, months)
        with self.storage.transaction() as tx:
            user = self._player(tx, player)
            state = _state(tx, player)
            if state.excluded_permanently:
                raise RoomError(f"{player} is self-excluded permanently already")
            if (
                until is not None
                and state.excluded_until is not None
                and state.excluded_until > until
            ):
                raise RoomError(
                    f"{player}'s self-exclusion runs until {iso(state.excluded_until)} and cannot "
                    "be shortened; choose a longer one or a permanent one"
                )
            tx.put_protection(
                replace(state, excluded_until=until, excluded_permanently=until is None)
            )
            entry = self.log.add(
                tx,
                player,
                "self-exclusion",
                player,
                PLAYER_REASON,
                {"months": months, "until": iso(until), "permanent": until is None},
            )
            view = self._view(tx, user, self._verified(tx, player), now)
        return {**view, "entry": entry}

    @staticmethod
    def _player(tx: Transaction, player: str) -> str:
        user = tx.get_user(player, lock=True)
        if user is None:
            raise UnknownAccount(f"no player account named {player!r} (names are case-sensitive)")
        if user.bot:
            raise RoomError(f"{player!r} is a house bot: the room plays it")
        return user.name

    @staticmethod
    def _verified(tx: Transaction, player: str) -> bool:
        user = tx.get_user(player)
        return user is not None and user.verified


def _parse_limit(item: Any, index: int) -> tuple[str, str, str, int | None]:
    where = f"limits[{index}]"
    fields = ("currency", "kind", "period", "amount")
    if not isinstance(item, Mapping):
        raise RoomError(f"{where} must be an object with the fields {', '.join(fields)}")
    extra = sorted(set(item) - set(fields))
    missing = [name for name in fields if name not in item]
    if extra or missing:
        raise RoomError(
            f"{where}: the fields are {', '.join(fields)}"
            + (f"; unknown {extra[0]!r}" if extra else f"; missing {missing[0]!r}")
        )
    code, kind, period, amount = (item[name] for name in fields)
    real = [c for c in CURRENCIES if real_money(c)]
    if code not in real:
        raise RoomError(
            f"{where}: limits are for real-money currencies ({', '.join(real)}), not {code!r}"
        )
    if kind not in KINDS:
        raise RoomError(f"{where}: kind must be one of {', '.join(KINDS)}, not {kind!r}")
    if period not in PERIODS:
        raise RoomError(f"{where}: period must be one of {', '.join(PERIODS)}, not {period!r}")
    if amount is None:
        return code, kind, period, None
    if not isinstance(amount, str):
        raise RoomError(
            f'{where}: amount is a string in major units such as "100.00", or null (no limit)'
        )
    unit = currency(code)
    try:
        units = to_units(amount, unit)
    except ValueError as error:
        raise RoomError(f"{where}: {error}; {code} amounts are multiples of {unit.unit}") from None
    if units < 0:
        raise RoomError(f"{where}: a limit cannot be negative; 0 allows nothing")
    return code, kind, period, units
