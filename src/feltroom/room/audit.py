"""The audit: the books checked from the database alone, and the shuffle self-test (R-RNG-2).

Checks, each reported by name in ``problems``:

- per currency, the balances of all accounts (the external one included) sum to zero;
- each account's running balance equals its credits minus debits, and no account other than an
  external one is below zero;
- every transfer stays in one currency, names existing accounts and moves a positive amount;
- no transfer id occurs twice;
- every settled hand's contributions equal its payouts plus rake, fees and tax;
- each table's escrow equals the sum of the stacks stored for that table;
- every transfer an operator's action made (a suspension, a kick, a table closed: its reference
  names an operator log entry, ``...:operator:<id>``) has its entry in the operator log.
- for every tournament (docs/tournaments.md): buy-ins + overlay = prizes paid + prize pool left,
  nothing else moves in or out of its prize pool, a finished or cancelled one's pool is empty, the
  prizes its director (rebuilt from its journal) gave equal the prizes paid, and its tournament
  chips are conserved (every hand's chips add up; the chips in play are the starting stacks of
  the entries seated less the chips that left play with disqualified entries, R-TOURN-15).

It reads in one snapshot transaction, so it is safe while the server runs.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

from feltroom.money import Currency, format_units
from feltroom.room.ledger import CURRENCIES, OPERATOR_MARK, escrow_key
from feltroom.room.storage import JournalRow, Storage, TournamentRow
from feltroom.room.tournament_journal import DONE, replay
from feltroom.room.tournaments import prizepool_key
from feltroom.selftest import run_selftest

__all__ = ["DEFAULT_SHUFFLES", "audit"]

DEFAULT_SHUFFLES = 100_000


def audit(
    storage: Storage,
    shuffles: int = DEFAULT_SHUFFLES,
    selftest: Callable[[int], dict[str, Any]] = run_selftest,
) -> dict[str, Any]:
    """Check the books and run the shuffle self-test on ``shuffles`` decks (0: skip it).

    Returns ``{"currencies": {...}, "hands_checked": n, "problems": [...], "selftest": {...},
    "pass": bool}``.
    """
    problems: list[str] = []
    with storage.transaction(write=False) as tx:
        accounts = {row.key: row for row in tx.all_accounts()}
        derived = tx.derived_balances()
        mixed = tx.transfers_between_currencies()
        bad_amounts = tx.bad_amounts()
        duplicates = tx.duplicate_transfer_ids()
        imbalances = tx.hand_imbalances()
        hands_checked = tx.settled_hand_count()
        tables = tx.all_tables()
        stacks = tx.stack_totals()
        operator_transfers = tx.operator_transfers()
        entries = tx.operator_entry_ids()
        flows = tx.prizepool_flows()
        tournaments = [(row, tx.journal(row.tournament_id)) for row in tx.tournaments()]

    sums: dict[str, int] = defaultdict(int)
    running: dict[str, int] = defaultdict(int)
    totals: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    counts: dict[str, int] = defaultdict(int)
    for key, row in sorted(accounts.items()):
        balance = derived.get(key, 0)
        sums[row.currency] += balance
        running[row.currency] += row.balance
        totals[row.currency][row.kind] += balance
        counts[row.currency] += 1
        if balance != row.balance:
            problems.append(
                f"account {key}: running balance {row.balance} differs from its transfers, "
                f"{balance}"
            )
        if balance < 0 and row.kind != "external":
            problems.append(f"account {key}: negative balance {balance}")
    for key in sorted(set(derived) - set(accounts)):
        problems.append(f"transfers name account {key}, which does not exist")
    for code, total in sorted(sums.items()):
        if total:
            problems.append(f"currency {code}: balances sum to {total} units, not zero")
    for code, total in sorted(running.items()):
        if total:
            problems.append(f"currency {code}: running balances sum to {total} units, not zero")
    for transfer_id, code, debit_code, credit_code in mixed:
        problems.append(
            f"transfer {transfer_id} in {code} mixes currencies: debit account in "
            f"{debit_code}, credit account in {credit_code} (R-GAME-6)"
        )
    for transfer_id, amount in bad_amounts:
        problems.append(f"transfer {transfer_id}: amount {amount} is not positive")
    for transfer_id, count in duplicates:
        problems.append(f"transfer id {transfer_id} occurs {count} times")
    for hand_id, paid_in, paid_out in imbalances:
        problems.append(
            f"hand {hand_id}: contributions {paid_in} differ from payouts + rake + fees + tax "
            f"{paid_out}"
        )
    for table in tables:
        escrow = derived.get(escrow_key(table.table_id), 0)
        at_table = stacks.get(table.table_id, 0)
        if escrow != at_table:
            problems.append(
                f"table {table.table_id}: escrow {escrow} differs from the stacks there, {at_table}"
            )
    for transfer_id, reference in operator_transfers:
        entry = reference.rpartition(OPERATOR_MARK)[2]
        if not entry.isdigit() or int(entry) not in entries:
            problems.append(
                f"transfer {transfer_id} ({reference}) was made by an operator's action with no "
                "entry in the operator log"
            )
    for table_id in sorted(set(stacks) - {table.table_id for table in tables}):
        problems.append(f"stacks stored for table {table_id}, which does not exist")

    tournament_report = _tournaments(tournaments, flows, derived, problems)

    currencies: dict[str, Any] = {}
    for code in sorted(counts):
        unit = CURRENCIES.get(code)

        def text(value: int, unit: Currency | None = unit) -> str:
            return format_units(value, unit) if unit else str(value)

        kinds = {kind: text(value) for kind, value in sorted(totals[code].items())}
        currencies[code] = {"accounts": counts[code], "sum": text(sums[code]), "balances": kinds}

    report: dict[str, Any] = {
        "currencies": currencies,
        "hands_checked": hands_checked,
        "operator_transfers_checked": len(operator_transfers),
        "tournaments": tournament_report,
        "problems": problems,
    }
    if shuffles > 0:
        result = selftest(shuffles)
        if not result["pass"]:
            problems.append(f"shuffle self-test failed on {shuffles} shuffles (R-RNG-2)")
        report["selftest"] = result
    else:
        report["selftest"] = {"skipped": True, "pass": True}
    report["pass"] = not problems
    return report


_POOL_KINDS = {("entry", "in"), ("refund", "out"), ("overlay", "in"), ("prize", "out")}


def _tournaments(
    tournaments: list[tuple[TournamentRow, list[JournalRow]]],
    flows: list[tuple[str, str, str, int]],
    derived: dict[str, int],
    problems: list[str],
) -> dict[str, Any]:
    """The books of every tournament (see the module docstring); adds to ``problems``."""
    by_pool: dict[str, dict[tuple[str, str], int]] = defaultdict(dict)
    for key, kind, side, total in flows:
        by_pool[key][kind, side] = total
    report: dict[str, Any] = {}
    rows = {row.tournament_id: (row, journal) for row, journal in tournaments}
    for pool in sorted(set(by_pool) | {prizepool_key(t) for t in rows}):
        tid = pool.removeprefix("prizepool:")
        moved = by_pool.get(pool, {})
        for kind, side in sorted(set(moved) - _POOL_KINDS):
            problems.append(f"tournament {tid}: a {kind} transfer moved {side} of its prize pool")
        buy_ins = moved.get(("entry", "in"), 0) - moved.get(("refund", "out"), 0)
        overlay = moved.get(("overlay", "in"), 0)
        prizes = moved.get(("prize", "out"), 0)
        left = derived.get(pool, 0)
        if buy_ins + overlay != prizes + left:
            problems.append(
                f"tournament {tid}: buy-ins {buy_ins} + overlay {overlay} differ from prizes "
                f"paid {prizes} + prize pool left {left}"
            )
        entry: dict[str, Any] = {
            "status": None,
            "buy_ins": buy_ins,
            "overlay": overlay,
            "prizes": prizes,
            "pool_left": left,
        }
        report[tid] = entry
        if tid not in rows:
            continue  # booked outside the room's runtime: the money alone is checked
        row, journal = rows[tid]
        entry["status"] = row.status
        if row.status in DONE and left:
            problems.append(f"tournament {tid} is {row.status} with {left} left in its prize pool")
        try:
            done = replay(row, journal)
        except Exception as error:  # a journal the director refuses is itself a finding
            problems.append(f"tournament {tid}: its journal does not replay: {error}")
            continue
        director = done.director
        problems += done.chip_errors
        if director.paid_out != prizes:
            problems.append(
                f"tournament {tid}: its director gave {director.paid_out} in prizes, the books "
                f"paid {prizes}"
            )
        chips = sum(director.stacks().values())
        gone = director.disqualified_chips
        seated = sum(1 for e in director.entries if e.table is not None)
        if chips + gone != seated * director.settings.starting_stack:
            problems.append(
                f"tournament {tid}: {chips} tournament chips in play and {gone} that left play "
                f"by disqualification, {seated} entries seated with "
                f"{director.settings.starting_stack} each"
            )
        entry["chips"] = chips
        entry["disqualified_chips"] = gone
    return report
