"""The runner of the multi-hand scenario scripts in ``tests/table/scenarios/*.txt``.

One command per line; ``#`` starts a comment. Amounts are chips of the configured table.

    config PRESET key=value ...     the table (a preset with settings changed)
    sit SEAT NAME CHIPS [wait] [manual]   take a seat (entry: post by default; manual: no
                                          automatic blind posting)
    sitout SEAT | sitin SEAT [wait] | leave SEAT | add SEAT CHIPS | move SEAT NEW [wait]
    disconnect SEAT | resume SEAT
    deal                            start the next hand (blinds posted automatically)
    walk                            everyone folds (or checks) until the hand ends
    act SEAT fold|check|call|raise N   one action by the player to act
    time SECONDS                    the clock moves on; the table's tick runs
    expect button=S sb=S|none bb=S dealt=S,S posts=S,S dead=S,S arrangement=NAME
    expect stacks S=N S=N ...
    expect owes S=ML|MS|new|- ...
    expect event NAME [field=value ...]   an event of that name since the last expect event
    expect refused COMMAND...       the command raises IllegalAction
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from feltroom.errors import IllegalAction
from feltroom.rules import Call, Check, Fold, Forced, RaiseTo
from feltroom.shuffle import SeededDeckSource
from feltroom.table import Entry, Table, preset

SCENARIOS = Path(__file__).parent / "scenarios"


def _value(text: str) -> Any:
    if text == "None":
        return None
    if text in ("True", "False"):
        return text == "True"
    if text.lstrip("-").isdigit():
        return int(text)
    return text


class Runner:
    def __init__(self) -> None:
        self.table: Table | None = None
        self.now = 0.0
        self.events: list[Any] = []

    @property
    def t(self) -> Table:
        assert self.table is not None, "the script must start with 'config'"
        return self.table

    def run(self, text: str) -> None:
        for number, raw in enumerate(text.splitlines(), start=1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            try:
                self.command(line.split())
            except AssertionError as error:
                raise AssertionError(f"line {number}: {line}: {error}") from None

    def command(self, words: list[str]) -> None:
        name, args = words[0], words[1:]
        t = self.table
        if name == "config":
            settings = dict(arg.split("=", 1) for arg in args[1:])
            config = preset(args[0], **{k: _value(v) for k, v in settings.items()})
            self.table = Table(config, deck_source=SeededDeckSource(0))
            return
        assert t is not None
        now = self.now
        if name == "sit":
            entry = Entry.WAIT if "wait" in args else Entry.POST
            self.events += t.sit(
                args[1],
                int(args[0]),
                int(args[2]),
                now,
                entry=entry,
                auto_post="manual" not in args,
            )
        elif name == "sitout":
            self.events += t.sit_out(int(args[0]), now)
        elif name == "sitin":
            self.events += t.sit_in(int(args[0]), now, Entry.WAIT if "wait" in args else Entry.POST)
        elif name == "leave":
            self.events += t.leave(int(args[0]), now)
        elif name == "add":
            self.events += t.add_chips(int(args[0]), int(args[1]), now)
        elif name == "move":
            entry = Entry.WAIT if "wait" in args else Entry.POST
            self.events += t.change_seat(int(args[0]), int(args[1]), now, entry)
        elif name == "disconnect":
            self.events += t.disconnect(int(args[0]), now)
        elif name == "resume":
            self.events += t.resume(int(args[0]), now)
        elif name == "deal":
            self.events += t.start_hand(now)
        elif name == "walk":
            while t.in_hand:
                assert t.hand is not None
                legal = t.hand.legal_actions()
                assert legal is not None
                seat = t.hand.to_act
                assert seat is not None
                self.events += t.act(seat, Fold() if legal.fold else Check(), now)
        elif name == "act":
            seat = int(args[0])
            kinds = {"fold": Fold(), "check": Check(), "call": Call()}
            action = RaiseTo(int(args[2])) if args[1] == "raise" else kinds[args[1]]
            self.events += t.act(seat, action, now)
        elif name == "time":
            self.now += float(args[0])
            self.events += t.tick(self.now)
        elif name == "expect":
            self.expect(args)
        else:
            raise AssertionError(f"unknown command {name!r}")

    def expect(self, args: list[str]) -> None:
        t = self.t
        what = args[0]
        if what == "refused":
            try:
                self.command(args[1:])
            except IllegalAction:
                return
            raise AssertionError(f"{' '.join(args[1:])} was not refused")
        if what == "stacks":
            for pair in args[1:]:
                seat, value = pair.split("=")
                actual = t.seats[int(seat)].stack if int(seat) in t.seats else None
                assert actual == int(value), f"seat {seat} has {actual}, expected {value}"
            return
        if what == "owes":
            for pair in args[1:]:
                seat, value = pair.split("=")
                actual = t.seats[int(seat)].owes.value
                assert actual == value, f"seat {seat} owes {actual}, expected {value}"
            return
        if what == "empty":
            for seat in args[1:]:
                assert int(seat) not in t.seats, f"seat {seat} is not empty"
            return
        if what == "event":
            kind = args[1]
            fields = dict(arg.split("=", 1) for arg in args[2:])
            for k, event in enumerate(self.events):
                if type(event).__name__ != kind:
                    continue
                if all(str(getattr(event, f)) == v for f, v in fields.items()):
                    del self.events[: k + 1]
                    return
            raise AssertionError(f"no event {kind} {fields} in {self.events}")
        plan = t.plan
        hand = t.hand
        assert plan is not None
        assert hand is not None
        forced = hand.setup.forced
        actual = {
            "button": str(plan.button),
            "sb": str(plan.small) if plan.small is not None else "none",
            "bb": str(plan.big),
            "dealt": ",".join(str(s) for s in sorted(hand.seats)),
            "posts": ",".join(str(f.seat) for f in forced if f.kind is Forced.POST) or "none",
            "dead": ",".join(str(f.seat) for f in forced if f.kind is Forced.DEAD) or "none",
            "arrangement": plan.arrangement,
        }
        for pair in args:
            key, value = pair.split("=")
            assert actual[key] == value, f"{key} is {actual[key]}, expected {value}"


def run_file(path: Path) -> None:
    Runner().run(path.read_text())
