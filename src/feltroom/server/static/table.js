// A table as this connection knows it: built from the snapshot, then changed by each message
// exactly as the message says (docs/protocol.md). No rules are computed here: the legal actions
// come from the turn, the hand's words from hand_strength, the pots from the pots message and,
// at the end, pot_awarded.

function seatFrom(s) {
  return {
    seat: s.seat,
    player: s.player,
    stack: s.stack,
    sittingOut: s.sitting_out,
    marker: s.marker,
    owes: s.owes,
    disconnected: s.disconnected,
    inHand: s.in_hand,
    hasCards: s.in_hand && !s.folded,
    bet: s.bet,
    folded: s.folded,
    allIn: s.all_in,
    cards: s.cards,
    away: Boolean(s.away), // a tournament player away (R-TOURN-6)
    mucked: false,
    last: "",
  };
}

export function newTable(id) {
  return {
    id,
    you: null,
    info: "",
    button: null,
    small: null,
    big: null,
    hand: null, // hand in progress
    lastHand: null, // the last hand dealt (the one `show` names)
    seats: new Map(),
    board: [],
    secondBoard: [], // a board run twice (R-HOME-4): the second run's whole board
    runTwice: null, // the open run_twice question to this seat (R-HOME-4)
    runTwiceAsked: [], // the seats asked and not answered yet
    pot: 0,
    toAct: null,
    deadline: null,
    turnStart: null,
    countdownAt: null,
    turnId: null, // the turn in progress (turn_id), sent back in act
    bankAt: null,
    legal: null,
    waiting: 0,
    muted: [],
    settings: null,
    pots: [], // pot_awarded of the last hand
    livePots: [], // the pots of the hand in progress (the server's pots message)
    result: null,
    description: null,
    prompt: null, // blind_prompt
    offer: null, // seat_offer
    preAction: null,
    commitment: null,
    chat: [],
    log: [],
    onWaitList: false,
  };
}

/** Replace everything with a snapshot. */
export function applySnapshot(t, m) {
  const v = m.view;
  t.you = m.you;
  t.info = v.info;
  t.button = v.button;
  t.small = v.small;
  t.big = v.big;
  t.hand = v.hand;
  if (v.hand !== null) t.lastHand = v.hand;
  t.seats = new Map(v.seats.map((s) => [s.seat, seatFrom(s)]));
  t.board = v.board.slice();
  t.secondBoard = (v.second_board || []).slice();
  t.runTwiceAsked = (v.run_twice_asked || []).slice();
  t.runTwice = v.run_twice_deadline && m.you !== null && t.runTwiceAsked.includes(m.you)
    ? { type: "run_twice", table: t.id, hand: v.hand, deadline: v.run_twice_deadline }
    : null;
  t.pot = v.pot;
  t.toAct = v.to_act;
  t.deadline = v.deadline;
  // a turn under way: its start and countdown as the server's clock has them
  t.turnStart = v.turn_started;
  t.countdownAt = v.countdown_at;
  t.turnId = v.turn_id ?? null; // sent back in act: a doubled click cannot land on a later turn
  t.bankAt = v.bank_at; // the base time ends and the time bank begins (R-TIME-1)
  t.legal = v.legal;
  t.waiting = v.waiting;
  t.muted = v.muted;
  t.livePots = []; // a pots message follows a snapshot of a hand past the flop
  t.settings = v.settings; // your seat's auto-post and auto-muck, as the server keeps them
  t.description = null;
  if (v.hand === null) t.preAction = null;
}

function seatOf(t, n) {
  return t.seats.get(n);
}

function put(t, n, amount) {
  const s = seatOf(t, n);
  if (!s) return;
  s.stack -= amount;
  s.bet += amount;
  t.pot += amount;
}

/** Apply one event; returns a line for the table's log, or null. */
export function applyEvent(t, e, names) {
  const s = e.seat !== undefined ? seatOf(t, e.seat) : undefined;
  const who = (n) => (t.seats.get(n) ? t.seats.get(n).player : `seat ${n}`);
  switch (e.kind) {
    case "player_seated":
      t.seats.set(
        e.seat,
        seatFrom({
          seat: e.seat,
          player: e.account,
          stack: e.buy_in,
          sitting_out: false,
          marker: "",
          owes: e.entry === "wait" ? "new" : "-",
          disconnected: false,
          in_hand: false,
          bet: 0,
          folded: false,
          all_in: false,
          cards: null,
        }),
      );
      return `${e.account} sits in seat ${e.seat} with ${e.buy_in}`;
    case "chips_added":
      if (s) s.stack = e.stack;
      if (e.seat === t.you) t.pendingChips = 0; // chips bought during the hand have joined
      return `${who(e.seat)} adds ${e.amount}`;
    case "stack_reset":
      if (s) s.stack = e.stack;
      return `${who(e.seat)}'s stack is reset from ${e.before} to ${e.stack}`;
    case "sat_out":
      if (s) s.sittingOut = true;
      return `${who(e.seat)} sits out (${e.reason.replace("_", " ")})`;
    case "sat_in":
      if (s) s.sittingOut = false;
      return `${who(e.seat)} is back`;
    case "seat_released":
      t.seats.delete(e.seat);
      if (e.account === names.me) t.you = null;
      return `${e.account} leaves seat ${e.seat}`;
    case "seat_changed": {
      const moved = seatOf(t, e.old);
      t.seats.delete(e.old);
      if (moved) t.seats.set(e.new, { ...moved, seat: e.new });
      if (e.account === names.me) t.you = e.new;
      return `${e.account} moves to seat ${e.new}`;
    }
    case "waiting_list_joined":
      t.waiting += 1;
      if (e.account === names.me) t.onWaitList = true;
      return `${e.account} joins the waiting list (#${e.position})`;
    case "waiting_list_left":
      t.waiting = Math.max(0, t.waiting - 1);
      if (e.account === names.me) t.onWaitList = false;
      return null;
    case "seat_offer_expired":
      t.offer = null;
      t.onWaitList = false;
      return "your seat offer ran out";
    case "first_button_drawn":
      t.button = e.button;
      return `button draw: ${e.cards.map(([n, c]) => `${who(n)} ${c}`).join(", ")}; button: seat ${e.button}`;
    case "blinds_missed":
      if (s) {
        s.marker = e.marker;
        s.owes = e.marker;
      }
      return `${who(e.seat)} missed the ${e.marker === "MS" ? "small" : "big"} blind`;
    case "blind_declined":
      if (e.seat === t.you) t.prompt = null;
      return `${who(e.seat)} declines the blind`;
    case "hand_started":
      t.hand = e.hand;
      t.lastHand = e.hand;
      t.button = e.button;
      t.small = e.small;
      t.big = e.big;
      t.board = [];
      t.secondBoard = [];
      t.runTwice = null;
      t.runTwiceAsked = [];
      t.pot = 0;
      t.pots = [];
      t.livePots = [];
      t.result = null;
      t.description = null;
      t.preAction = null;
      t.prompt = null;
      t.commitment = e.commitment || null;
      t.toAct = null;
      t.legal = null;
      for (const seat of t.seats.values()) {
        Object.assign(seat, {
          inHand: e.dealt.includes(seat.seat),
          hasCards: false,
          bet: 0,
          folded: false,
          allIn: false,
          cards: null,
          mucked: false,
          last: "",
        });
        if (seat.inHand) {
          seat.marker = "";
          seat.owes = "-";
        }
      }
      return `— hand #${e.hand} — button seat ${e.button}`;
    case "countdown_started":
      t.countdownEnds = e.ends; // the visible countdown runs until `ends` (R-TIME-1)
      return null;
    case "time_bank_started":
      t.deadline = e.ends;
      return `${who(e.seat)} uses the time bank`;
    case "timed_out":
      if (s && t.tournament) s.away = true; // at a tournament table one timeout makes a player away (R-TOURN-6)
      return `${who(e.seat)} timed out (${e.action})`;
    case "went_away":
      if (s) s.away = true; // R-TOURN-6: blinds posted, folded at once at their turn
      return `${who(e.seat)} is away`;
    case "came_back":
      if (s) s.away = false;
      return `${who(e.seat)} is back`;
    case "protection_used":
      return `${e.account}'s all-in protection is used`;
    case "disconnected":
      if (s) s.disconnected = true;
      return `${who(e.seat)} is disconnected`;
    case "resumed":
      if (s) s.disconnected = false;
      return `${who(e.seat)} is back online`;
    case "fee_charged":
      if (s && e.fee === "session_fee") s.stack -= e.amount;
      return `${e.account} pays ${e.amount} (${e.fee.replace("_", " ")})`;
    case "posted":
      if (DEAD_MONEY.has(e.forced)) {
        // antes and dead blinds go straight into the pot: no live bet (R-MISS-1/2, R-BLIND-1)
        if (s) s.stack -= e.amount;
        t.pot += e.amount;
      } else put(t, e.seat, e.amount);
      if (s) {
        s.allIn = e.all_in;
        s.last = e.forced.replace("_", " ");
      }
      return `${who(e.seat)} posts ${forcedName(e.forced)} ${e.amount}${e.all_in ? " (all-in)" : ""}`;
    case "hole_cards_dealt":
      for (const n of e.seats) if (seatOf(t, n)) seatOf(t, n).hasCards = true;
      return null;
    case "folded":
      if (s) {
        s.folded = true;
        s.hasCards = false;
        s.last = "fold";
      }
      if (e.seat === t.you) t.description = null;
      return `${who(e.seat)} folds`;
    case "checked":
      if (s) s.last = "check";
      return `${who(e.seat)} checks`;
    case "called":
      put(t, e.seat, e.amount);
      if (s) {
        s.allIn = e.all_in;
        s.last = e.all_in ? "call, all-in" : "call";
      }
      return `${who(e.seat)} calls ${e.amount}${e.all_in ? " (all-in)" : ""}`;
    case "raised": {
      if (s) {
        put(t, e.seat, e.to - s.bet);
        s.allIn = e.all_in;
        s.last = `${e.bet ? "bet" : "raise"}${e.all_in ? ", all-in" : ""}`;
      }
      return `${who(e.seat)} ${e.bet ? "bets" : "raises to"} ${e.to}${e.all_in ? " (all-in)" : ""}`;
    }
    case "protected":
      if (s) s.allIn = true;
      return `${who(e.seat)} is protected`;
    case "uncalled_bet_returned":
      if (s) {
        s.stack += e.amount;
        s.bet -= e.amount;
      }
      t.pot -= e.amount;
      return `${e.amount} returned to ${who(e.seat)}`;
    case "run_twice_offered":
      t.runTwiceAsked = e.seats.slice();
      return `run it twice? asked: ${e.seats.map(who).join(", ")}`;
    case "run_twice_answered":
      t.runTwiceAsked = t.runTwiceAsked.filter((n) => n !== e.seat);
      if (e.seat === t.you) t.runTwice = null;
      return `${who(e.seat)} ${e.agree ? "agrees to run it twice" : "wants one run"}`;
    case "run_twice_timed_out":
      t.runTwice = null;
      t.runTwiceAsked = [];
      return "no answer in time: one run";
    case "runs_chosen":
      t.runTwice = null;
      t.runTwiceAsked = [];
      return e.runs === 2 ? "the board is run twice" : "the board is run once";
    case "board_dealt":
      if (e.run === 2) {
        // the second run of a board run twice: it shares the streets dealt before it
        if (!t.secondBoard.length) t.secondBoard = t.board.slice(0, [0, 0, 3, 4][e.street]);
        t.secondBoard.push(...e.cards);
        return `second ${["", "flop", "turn", "river"][e.street]}: ${e.cards.join(" ")}`;
      }
      t.board.push(...e.cards);
      for (const seat of t.seats.values()) {
        seat.bet = 0;
        seat.last = "";
      }
      return `${e.run === 1 ? "first " : ""}${["", "flop", "turn", "river"][e.street]}: ${e.cards.join(" ")}`;
    case "cards_shown":
      if (s) {
        s.cards = e.cards;
        s.hasCards = true;
      }
      return `${who(e.seat)} shows ${e.cards.join(" ")}`;
    case "cards_mucked":
      if (s) {
        s.mucked = true;
        s.hasCards = false;
      }
      return `${who(e.seat)} mucks`;
    case "pot_awarded":
      t.pots.push(e);
      for (const seat of t.seats.values()) seat.bet = 0;
      return e.winners
        .map((n, i) => `${who(n)} wins ${e.shares[i]} from the ${e.index === 0 ? "main pot" : `side pot ${e.index}`}`)
        .join("; ");
    case "hand_ended":
      for (const [n, stack] of e.stacks) if (seatOf(t, n)) seatOf(t, n).stack = stack;
      for (const seat of t.seats.values()) seat.bet = 0;
      t.hand = null;
      t.toAct = null;
      t.legal = null;
      t.deadline = null;
      t.preAction = null;
      return null;
    case "hand_voided":
      t.hand = null;
      t.toAct = null;
      t.legal = null;
      return `hand voided: ${e.reason}`;
    case "table_paused":
      return `the table is paused: ${e.reason}`;
    case "table_resumed":
      return "the table plays again";
    case "table_reloaded":
      return "the table was rebuilt from the books";
    case "pre_action_used":
      t.preAction = null;
      return `your pre-action "${e.pre_action}" was used`;
    case "pre_action_cancelled":
      t.preAction = null;
      return `your pre-action "${e.pre_action}" was cancelled`;
    case "tax_withheld":
      return `tax withheld: ${e.amount}`;
    default:
      return null; // a kind this page does not know: ignored (the protocol says so)
  }
}

/** The other table messages: turn, hole_cards, hand_strength, hand_result, prompts. */
export function applyMessage(t, m, now) {
  switch (m.type) {
    case "turn":
      t.toAct = m.seat;
      t.deadline = m.deadline;
      t.turnStart = now;
      t.countdownAt = m.countdown_at;
      t.bankAt = m.bank_at;
      t.countdownEnds = null;
      t.turnId = m.turn_id ?? null;
      t.legal = m.seat === t.you ? m.legal : null;
      return null;
    case "hole_cards":
      if (seatOf(t, m.seat)) {
        seatOf(t, m.seat).cards = m.cards;
        seatOf(t, m.seat).hasCards = true;
      }
      return null;
    case "hand_strength":
      t.description = m.description;
      return null;
    case "pots":
      t.livePots = m.pots; // the main pot, then the side pots, as the server gathered them
      return null;
    case "hand_result":
      t.result = m;
      for (const [n, stack] of Object.entries(m.stacks)) {
        if (seatOf(t, Number(n))) seatOf(t, Number(n)).stack = stack;
      }
      for (const [n, cards] of Object.entries(m.shown)) {
        if (seatOf(t, Number(n))) seatOf(t, Number(n)).cards = cards;
      }
      t.pots = m.pots.map((p, index) => ({ ...p, index }));
      return null;
    case "blind_prompt":
      t.prompt = m;
      return null;
    case "run_twice":
      t.runTwice = m; // R-HOME-4: answered with two buttons before the deadline
      return null;
    case "seat_offer":
      t.offer = m;
      return null;
    default:
      return null;
  }
}

/** What the viewer owes to call right now, from the bets on the table (for the pre-action). */
export function owed(t) {
  const me = t.you !== null ? t.seats.get(t.you) : null;
  if (!me) return 0;
  let top = 0;
  for (const s of t.seats.values()) if (s.inHand) top = Math.max(top, s.bet);
  return Math.max(0, Math.min(top - me.bet, me.stack));
}

// Forced bets that are dead money: in the pot, never part of the seat's bet to call.
const DEAD_MONEY = new Set(["ante", "dead"]);

// How a forced bet reads in a sentence ("posts the entry blind 2").
const FORCED_NAMES = {
  ante: "the ante",
  small_blind: "the small blind",
  big_blind: "the big blind",
  straddle: "a straddle",
  post: "the entry blind",
  dead: "a dead blind",
};

export function forcedName(kind) {
  return FORCED_NAMES[kind] || kind.replace("_", " ");
}
