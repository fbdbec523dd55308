"""Export one hand the engine played as a PokerStars text hand history (layer ``history``).

The source is the engine's ``Hand`` (finished): its setup (seats, stacks, button, forced bets,
rake rule, deck), its events (posts, actions, uncalled bets, board, shows and mucks) and its
results (each pot with its rake, winners and shares). It holds everything the text needs; a
``HandRecord`` does not hold the pots (replay it with ``feltroom.history.replay.replay`` first).

Hole cards follow R-HIST-2: the history is the one a requester sees. ``hero`` (a player dealt
into the hand) sees their own cards (``Dealt to``) and the cards of every player who reached the
showdown, mucked hands included (R-SHOW-5: ``mucked [..]`` in the summary); never the cards of a
player who folded. Without a hero (an observer) only cards shown at the table appear, or, with
``reveal_showdown`` (a converted file that names no hero), every hand of the showdown, mucked
included, but never a ``Dealt to`` line: a tracker takes each ``Dealt to`` line with cards for its
hero, so only the hero's carries cards.

Several hands in one file are separated by two blank lines, as PokerStars writes them and as
trackers and PokerKit's parser split them (``join``).

Amounts are integer units written with the table's currency (``feltroom.money.Currency``): a
whole amount without decimals (``$4``), otherwise every decimal (``$0.50``), as PokerStars does.
Play chips (exponent 0) are written without a symbol and the table line says ``(Play Money)``.
The summary reconciles exactly: ``Total pot`` = every pot's amount = what was collected + rake.

A tournament hand (``tournament``, ``feltroom.history.tournament_info``) has PokerStars'
tournament header, ``PokerStars Hand #1: Tournament #2, $10+$1 USD Hold'em No Limit - Level III
(25/50) - ...`` (a play-chip buy-in ``1000+100``), its table named ``'<number> <table>'``, its
chips bare, and before the summary the line of each entry whose place became final with the
hand: ``... finished the tournament in 3rd place and received $4.50.``, ``... in 5th place``
(no prize), ``... wins the tournament and receives $20 - congratulations!``.
See docs/hand-histories.md for the mapping.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from feltroom.cards import Card, Rank
from feltroom.evaluate import HandCategory, evaluate
from feltroom.history.tournament_info import Finish, TournamentInfo, ordinal, roman
from feltroom.money import Currency, format_units
from feltroom.rules import (
    BoardDealt,
    Called,
    CardsMucked,
    CardsShown,
    Checked,
    FixedLimit,
    Folded,
    Forced,
    Hand,
    HoleCardsDealt,
    Posted,
    PotAwarded,
    PotLimit,
    Raised,
    UncalledBetReturned,
)

__all__ = [
    "SEPARATOR",
    "describe",
    "dumps",
    "finishing_line",
    "format_amount",
    "join",
    "now",
    "tournament_buy_in",
    "visible_seats",
]

SEPARATOR = "\n\n"
"""What stands between two hands of a file (each ends with a newline): two blank lines."""

_SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£"}
EASTERN = ZoneInfo("America/New_York")
_STREETS = ("before Flop", "on the Flop", "on the Turn", "on the River")
_LIVE = (Forced.SMALL_BLIND, Forced.BIG_BLIND, Forced.STRADDLE, Forced.POST)
_POSTS = {
    Forced.ANTE: "posts the ante",
    Forced.SMALL_BLIND: "posts small blind",
    Forced.BIG_BLIND: "posts big blind",
    Forced.STRADDLE: "posts straddle",
    Forced.POST: "posts big blind",
    Forced.DEAD: "posts dead blind",
}
_BY_NOUN = {rank.noun: rank for rank in Rank}


def format_amount(units: int, currency: Currency) -> str:
    """``units`` as PokerStars writes money: ``$4``, ``$0.50``, ``€1.38``; play chips bare."""
    text = format_units(units, currency)
    if currency.exponent and units % 10**currency.exponent == 0:
        text = text.split(".")[0]
    if currency.exponent == 0:
        return text
    return _SYMBOLS.get(currency.code, "") + text


def describe(cards: Iterable[Card]) -> str:
    """The best hand of five to seven cards in PokerStars' words ("a straight, Nine to King")."""
    rank = evaluate(cards)
    category = rank.category
    words = rank.description.split(", ", 1)[-1]
    if category is HandCategory.HIGH_CARD:
        return f"high card {words}"
    if category is HandCategory.ONE_PAIR:
        return f"a pair of {words}"
    if category in (HandCategory.STRAIGHT, HandCategory.STRAIGHT_FLUSH):
        if rank.description == "Royal Flush":
            return "a Royal Flush"
        high = _BY_NOUN[words.removesuffix(" high")]
        low = Rank.ACE if high is Rank.FIVE else Rank(high - 4)
        kind = "a straight" if category is HandCategory.STRAIGHT else "a straight flush"
        return f"{kind}, {low.noun} to {high.noun}"
    article = "a " if category in (HandCategory.FLUSH, HandCategory.FULL_HOUSE) else ""
    return f"{article}{category.title.lower()}, {words}"


def join(texts: Iterable[str]) -> str:
    """The text of a file of several hands (each as ``dumps`` writes it), in the given order."""
    return SEPARATOR.join(texts)


def now() -> datetime:
    """The time of an export that has no time of its own (to the second, UTC): never the epoch."""
    return datetime.now(UTC).replace(microsecond=0)


def visible_seats(hand: Hand, hero: int | None, *, showdown: bool = False) -> frozenset[int]:
    """Seats whose hole cards the requester ``hero`` may see (R-HIST-2): their own and every
    showdown seat (mucked included); for an observer (``None``) only the cards shown, or with
    ``showdown`` the cards shown and every showdown seat's."""
    shown = {event.seat for event in hand.events if isinstance(event, CardsShown)}
    if hero is None:
        if showdown:
            return frozenset({*hand.showdown_seats, *shown})
        return frozenset(shown)
    return frozenset({hero, *hand.showdown_seats, *shown})


def _cards(cards: Iterable[Card | None]) -> str:
    return "[" + " ".join("??" if card is None else str(card) for card in cards) + "]"


def _description(hand: Hand, seat: int, board: Sequence[Card | None] | None = None) -> str | None:
    board = hand.board if board is None else board
    cards = [*hand.hole_cards(seat), *board]
    if len(board) < 5 or any(card is None for card in cards):
        return None
    return describe(card for card in cards if card is not None)


def _hero_seat(names: Mapping[int, str], hero: str | None) -> int | None:
    if hero is None:
        return None
    for seat, name in names.items():
        if name == hero:
            return seat
    raise ValueError(f"the hero {hero!r} is not a player of this hand")


def tournament_buy_in(tournament: TournamentInfo) -> str:
    """The buy-in as PokerStars writes it in a tournament header: ``$10+$1 USD``, play chips
    ``1000+100``."""
    money = tournament.currency
    text = f"{format_amount(tournament.buy_in, money)}+{format_amount(tournament.fee, money)}"
    return f"{text} {money.code}" if money.exponent else text


def finishing_line(finish: Finish, currency: Currency) -> str:
    """An entry's place, as PokerStars writes it in the hand that made it final."""
    prize = format_amount(finish.prize, currency)
    if finish.place == 1:
        receives = f" and receives {prize}" if finish.prize else ""
        return f"{finish.name} wins the tournament{receives} - congratulations!"
    line = f"{finish.name} finished the tournament in {ordinal(finish.place)} place"
    return f"{line} and received {prize}." if finish.prize else line


def _header(
    hand: Hand,
    hand_id: int,
    currency: Currency,
    started: datetime,
    small_blind: int,
    tournament: TournamentInfo | None = None,
) -> str:
    structure = hand.setup.structure
    if isinstance(structure, FixedLimit):
        game = "Limit"
        low, high = structure.small_bet, structure.big_bet
    else:
        game = "Pot Limit" if isinstance(structure, PotLimit) else "No Limit"
        low, high = small_blind, structure.big_blind
    stakes = f"{format_amount(low, currency)}/{format_amount(high, currency)}"
    if currency.exponent:
        stakes += f" {currency.code}"
    eastern = started.astimezone(EASTERN)
    when = f"{eastern:%Y/%m/%d} {eastern.hour}:{eastern:%M:%S} ET"
    if tournament is not None:
        return (
            f"PokerStars Hand #{hand_id}: Tournament #{tournament.number}, "
            f"{tournament_buy_in(tournament)} Hold'em {game} - Level {roman(tournament.level)} "
            f"({stakes}) - {when}"
        )
    return f"PokerStars Hand #{hand_id}:  Hold'em {game} ({stakes}) - {when}"


def dumps(
    hand: Hand,
    *,
    hand_id: int,
    table_name: str,
    hero: str | None,
    names: Mapping[int, str],
    currency: Currency,
    started: datetime | None = None,
    seat_count: int = 9,
    show_all: bool = False,
    reveal_showdown: bool = False,
    tournament: TournamentInfo | None = None,
) -> str:
    """The PokerStars text of a finished hand, as ``hero`` may request it (R-HIST-1/2).

    ``names`` maps each seat of the hand to its player's name; ``hero`` is one of those names or
    ``None`` for an observer's history. ``started`` (aware; default the time of the export,
    ``now()``) is written in ET. ``show_all`` writes every hole card the hand holds (the
    operator's full record, not a player's history and not for a tracker): a ``Dealt to`` line
    per player and every mucked hand. ``reveal_showdown`` (without a hero) writes every hand of
    the showdown, mucked ones in the summary, and no ``Dealt to`` line. ``tournament``: the
    hand was played at a tournament table (the module docstring).
    """
    if not hand.is_over:
        raise ValueError("only a finished hand can be exported")

    def money(units: int) -> str:
        return format_amount(units, currency)

    setup = hand.setup
    hero_seat = _hero_seat(names, hero)
    visible = (
        frozenset(hand.seats)
        if show_all
        else visible_seats(hand, hero_seat, showdown=reveal_showdown)
    )
    showdown = set(hand.showdown_seats)
    button = setup.button
    small_blind = next(
        (bet.amount for bet in setup.forced if bet.kind is Forced.SMALL_BLIND),
        getattr(setup.structure, "big_blind", 0) // 2,
    )
    roles: dict[int, list[str]] = {seat: [] for seat in hand.seats}
    if button in roles:
        roles[button].append("(button)")
    for bet in setup.forced:
        if bet.kind is Forced.SMALL_BLIND:
            roles[bet.seat].append("(small blind)")
        elif bet.kind is Forced.BIG_BLIND:
            roles[bet.seat].append("(big blind)")
    play = " (Play Money)" if currency.exponent == 0 and tournament is None else ""
    lines = [
        _header(hand, hand_id, currency, started or now(), small_blind, tournament),
        f"Table '{table_name}' {seat_count}-max{play} Seat #{button} is the button",
    ]
    stacks = dict(setup.players)
    lines += [
        f"Seat {seat}: {names[seat]} ({money(stacks[seat])} in chips)" for seat in sorted(stacks)
    ]
    # What each seat put in voluntarily (PokerStars' "didn't bet") and where each folded.
    street_bets: dict[int, int] = dict.fromkeys(hand.seats, 0)
    level = 0
    street = 0
    bet_any: set[int] = set()
    folded_on: dict[int, int] = {}
    won: dict[int, int] = dict.fromkeys(hand.seats, 0)
    pots = [event for event in hand.events if isinstance(event, PotAwarded)]
    events = list(hand.events)
    # A dead blind and a post from the same seat: one "posts small & big blinds" line, where the
    # post is (the engine posts every dead blind before the live blinds).
    posted = [event for event in events if isinstance(event, Posted)]
    dead_blinds = {event.seat: event.amount for event in posted if event.kind is Forced.DEAD}
    combined = dead_blinds.keys() & {event.seat for event in posted if event.kind is Forced.POST}
    showdown_open = False
    twice = bool(hand.second_board)  # R-HOME-4: "FIRST"/"SECOND" streets and showdowns
    first_word = "FIRST " if twice else ""
    second_lines: list[str] = []  # the second showdown's collections
    won_runs: dict[int, list[int]] = {seat: [0, 0] for seat in hand.seats}
    for event in events:
        if isinstance(event, Posted):
            name = names[event.seat]
            bet_any.add(event.seat)
            if event.kind in _LIVE:
                street_bets[event.seat] += event.amount
                level = max(level, street_bets[event.seat])
            tail = " and is all-in" if event.all_in else ""
            if event.seat in combined:
                if event.kind is Forced.DEAD:
                    continue
                if event.kind is Forced.POST:
                    amount = dead_blinds[event.seat] + event.amount
                    lines.append(f"{name}: posts small & big blinds {money(amount)}{tail}")
                    continue
            lines.append(f"{name}: {_POSTS[event.kind]} {money(event.amount)}{tail}")
        elif isinstance(event, HoleCardsDealt):
            lines.append("*** HOLE CARDS ***")
            # a hand read from another site's file may not know every player's cards: only
            # the known ones are written (PokerStars never writes a card it did not deal)
            dealt_to = hand.seats if show_all else () if hero_seat is None else (hero_seat,)
            for seat in dealt_to:
                hole_cards = hand.hole_cards(seat)
                if all(card is not None for card in hole_cards):
                    lines.append(f"Dealt to {names[seat]} {_cards(hole_cards)}")
        elif isinstance(event, Folded):
            folded_on[event.seat] = street
            lines.append(f"{names[event.seat]}: folds")
        elif isinstance(event, Checked):
            lines.append(f"{names[event.seat]}: checks")
        elif isinstance(event, Called):
            bet_any.add(event.seat)
            street_bets[event.seat] += event.amount
            tail = " and is all-in" if event.all_in else ""
            lines.append(f"{names[event.seat]}: calls {money(event.amount)}{tail}")
        elif isinstance(event, Raised):
            bet_any.add(event.seat)
            tail = " and is all-in" if event.all_in else ""
            if event.bet:
                added = event.to - street_bets[event.seat]
                text = f"bets {money(added)}"
            else:
                text = f"raises {money(event.to - level)} to {money(event.to)}"
            street_bets[event.seat] = event.to
            level = event.to
            lines.append(f"{names[event.seat]}: {text}{tail}")
        elif isinstance(event, UncalledBetReturned):
            lines.append(f"Uncalled bet ({money(event.amount)}) returned to {names[event.seat]}")
        elif isinstance(event, BoardDealt):
            street = event.street
            street_bets = dict.fromkeys(hand.seats, 0)
            level = 0
            board = hand.second_board if event.run == 2 else hand.board
            dealt = 3 + street - 1
            title = ("", "FIRST ", "SECOND ")[event.run] + ("FLOP", "TURN", "RIVER")[street - 1]
            if street == 1:
                lines.append(f"*** {title} *** {_cards(board[:3])}")
            else:
                before, card = _cards(board[: dealt - 1]), _cards(board[dealt - 1 : dealt])
                lines.append(f"*** {title} *** {before} {card}")
        elif isinstance(event, CardsShown | CardsMucked):
            if event.seat in showdown and not showdown_open:
                showdown_open = True
                lines.append(f"*** {first_word}SHOW DOWN ***")
            if isinstance(event, CardsShown):
                text = f"{names[event.seat]}: shows {_cards(event.cards)}"
                description = _description(hand, event.seat)
                lines.append(text if description is None else f"{text} ({description})")
            else:
                lines.append(f"{names[event.seat]}: mucks hand")
        elif isinstance(event, PotAwarded):
            if hand.showdown_seats and not showdown_open:
                showdown_open = True
                lines.append(f"*** {first_word}SHOW DOWN ***")
            where = _pot_name(event.index, len(pots)).lower()
            for seat, share in zip(event.winners, event.shares, strict=True):
                won[seat] += share
            halves = event.runs or ((event.winners, event.shares),)
            for run, (winners, shares) in enumerate(halves):
                out = second_lines if run else lines
                for seat, share in zip(winners, shares, strict=True):
                    won_runs[seat][run] += share
                    if share:
                        out.append(f"{names[seat]} collected {money(share)} from {where}")
    if twice:
        lines.append("*** SECOND SHOW DOWN ***")
        for event in events:
            if isinstance(event, CardsShown):
                text = f"{names[event.seat]}: shows {_cards(event.cards)}"
                description = _description(hand, event.seat, hand.second_board)
                lines.append(text if description is None else f"{text} ({description})")
        lines += second_lines
    total = sum(pot.amount for pot in pots)
    rake = sum(pot.rake for pot in pots)
    summary = f"Total pot {money(total)}"
    if len(pots) > 1:
        summary += "".join(
            f" {_pot_name(pot.index, len(pots))} {money(pot.amount - pot.rake)}." for pot in pots
        )
    if tournament is not None:
        for finish in sorted(tournament.finishes, key=lambda f: (-f.place, f.name)):
            lines.append(finishing_line(finish, tournament.currency))
    lines += ["*** SUMMARY ***", f"{summary} | Rake {money(rake)}"]
    if twice:
        lines.append("Hand was run twice")
        lines.append(f"FIRST Board {_cards(hand.board)}")
        lines.append(f"SECOND Board {_cards(hand.second_board)}")
    elif hand.board:
        lines.append(f"Board {_cards(hand.board)}")
    shown = {event.seat for event in events if isinstance(event, CardsShown)}
    for seat in sorted(stacks):
        head = " ".join([f"Seat {seat}: {names[seat]}", *roles[seat]])
        known = [card for card in hand.hole_cards(seat) if card is not None]
        hole = _cards(known)
        if seat in folded_on:
            tail = f"folded {_STREETS[folded_on[seat]]}"
            if folded_on[seat] == 0 and seat not in bet_any:
                tail += " (didn't bet)"
        elif seat in showdown:
            description = _description(hand, seat)
            with_ = "" if description is None else f" with {description}"
            if seat in shown and twice:
                # PokerStars: "showed [..] and won ($x) with <first>, and won ($y) with <second>"
                parts = []
                for run, run_board in enumerate((tuple(hand.board), hand.second_board)):
                    words = _description(hand, seat, run_board)
                    amount = won_runs[seat][run]
                    result = f"won ({money(amount)})" if amount else "lost"
                    parts.append(result if words is None else f"{result} with {words}")
                tail = f"showed {hole} and {', and '.join(parts)}"
            elif seat in shown:
                result = f"won ({money(won[seat])})" if won[seat] else "lost"
                tail = f"showed {hole} and {result}{with_}"
            elif seat in visible and len(known) == 2:
                tail = f"mucked {hole}"
            else:
                tail = "mucked"
        else:
            tail = f"collected ({money(won[seat])})"
            if seat in shown:
                tail = f"showed {hole} and won ({money(won[seat])})"
        lines.append(f"{head} {tail}")
    return "\n".join(lines) + "\n"


def _pot_name(index: int, count: int) -> str:
    """PokerStars' pot names: ``Pot`` alone, else ``Main pot``, ``Side pot`` (one) or
    ``Side pot-N`` (several)."""
    if count == 1:
        return "Pot"
    if index == 0:
        return "Main pot"
    return "Side pot" if count == 2 else f"Side pot-{index}"
