// feltroom in the browser: sign-in, the lobby, the table and the hand history. It renders only
// what the server sends (docs/protocol.md) and sends only the actions the server offered.

import { api, ApiError, savedToken, saveToken, Socket } from "/static/net.js";
import { applyEvent, applyMessage, applySnapshot, forcedName, newTable, owed } from "/static/table.js";
import { busted, grantWait, rebuyAmount } from "/static/rebuy.js";
import { verifyProof } from "/static/verify.js";
import { blindsText, clockText, FORMAT_NAMES as TOURNAMENT_FORMATS, GAME_NAMES, moneyStage, MOVE_REASONS, splitTableId, standing, STATE_NAMES, tournamentName, waitingShort, waitingText } from "/static/tourney.js";

const app = document.getElementById("app");
const nav = document.getElementById("nav");
const toastBox = document.getElementById("toast");
const noticeBox = document.getElementById("notices");

const state = {
  player: null,
  balances: {},
  socket: null,
  connection: "closed",
  lobby: [],
  lobbySubscribed: false,
  tables: new Map(),
  view: "lobby",
  current: null, // table id shown
  filters: { structure: "", stakes: "", seats: "", hideFull: false, hideEmpty: false, sort: { key: "stakes", dir: 1 }, search: "", found: null },
  mine: null, // where the player sits and waits (GET /api/me/tables)
  autoMuck: new Map(),
  autoPost: new Map(),
  autoRebuy: new Map(),
  straddle: new Map(),
  grant: null, // GET /api/grant: { available, next_grant_at, ... } and when it was asked (at)
  history: null,
  limits: null, // the player's protection settings (GET /api/me/limits)
  commitments: new Map(), // hand id -> the commitment announced in its hand_started
  tournaments: [], // the tournaments' lobby entries (GET /api/tournaments)
  tournamentsAt: 0, // the server's clock when the request that fetched them went out
  tourneyViews: new Map(), // tournament id -> { view, at }: the player's own `tournament` view
  tourneyDetails: new Map(), // tournament id -> { detail, at }: GET /api/tournaments/{id}
  results: new Map(), // tournament id -> the player's `tournament_result`
  tournamentFilters: { format: "", buyIn: "" },
  tournamentError: null, // a refused registration, said on the tournament's page
  notice: null, // { text, until }: a move to another table, said on the table shown
  released: [], // seats released after sitting out too long, said until dismissed (issue 42)
  games: new Map(), // home game id -> the game (GET /api/games, the answers and `game` messages)
  homeCurrencies: [], // the wallet currencies a new home game may play (GET /api/games)
  gamesLoaded: false,
  gameError: null, // { id, text }: a game the page could not open
  invite: null, // { secret, game, error }: the invite link the page was opened at (/g/<secret>)
  asked: new Map(), // home game id -> the player's pending request
  ledgers: new Map(), // home game id -> its ledger (GET /api/games/{id}/ledger)
  ledgerAt: new Map(),
  folded: new Set(), // the host panel's parts the player opened
  settingsDraft: new Map(), // home game id -> the next hand's settings typed and not saved yet
};

// ------------------------------------------------------------------ little DOM helpers

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "style") el.setAttribute("style", value);
    else if (value === true) el.setAttribute(key, "");
    else el.setAttribute(key, String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

// The table's announcements for screen readers: a persistent aria-live log outside the page that
// is redrawn, so that each line is read once (cards dealt, actions, whose turn, the showdown).
const announcer = document.getElementById("announce");
function announce(text) {
  if (!announcer || !text) return;
  announcer.append(h("p", {}, text));
  while (announcer.childElementCount > 30) announcer.firstElementChild.remove();
}

function cardWords(cards) {
  return cards.map((c) => {
    const rank = c[0];
    return `${RANK_NAMES[rank] || (rank === "T" ? "ten" : rank)} of ${SUIT_NAMES[c[1]]}`;
  }).join(", ");
}

let toastTimer = null;
function toast(text, kind = "error") {
  toastBox.textContent = text;
  toastBox.className = `toast ${kind}`;
  toastBox.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (toastBox.hidden = true), 6000);
}

const SUITS = { c: "♣", d: "♦", h: "♥", s: "♠" };
const SUIT_NAMES = { c: "clubs", d: "diamonds", h: "hearts", s: "spades" };
const RANK_NAMES = {
  T: "ten", J: "jack", Q: "queen", K: "king", A: "ace",
};

function cardEl(card, best = null, extra = "") {
  if (!card) return h("span", { class: `card back${extra}`, role: "img", "aria-label": "face-down card" });
  const rank = card[0];
  const suit = card[1];
  // at a showdown: the five cards of the winning hand stand out, the others step back
  const mark = best instanceof Set ? (best.has(card) ? " best" : " dim") : "";
  return h(
    "span",
    {
      class: `card suit-${suit}${mark}${extra}`,
      role: "img",
      dataset: { card },
      "aria-label": `${RANK_NAMES[rank] || rank} of ${SUIT_NAMES[suit]}`,
    },
    h("span", { class: "rank" }, rank === "T" ? "10" : rank),
    h("span", { class: "suit" }, SUITS[suit]),
  );
}

// How a hand's category reads after "wins 570 with": "a flush, Ace high".
const HAND_PHRASES = {
  "High Card": "high card", "One Pair": "a pair", "Two Pair": "two pair", "Three of a Kind": "three of a kind",
  Straight: "a straight", Flush: "a flush", "Full House": "a full house", "Four of a Kind": "four of a kind",
  "Straight Flush": "a straight flush",
};

function handPhrase(description) {
  const [category, ...rest] = description.split(", ");
  return [HAND_PHRASES[category] || category.toLowerCase(), ...rest].join(", ");
}

function chips(n) {
  return Number(n).toLocaleString("en-US");
}

/** An amount held as a decimal string ("12.50") in ``currency``, as people read it. */
function amountText(currency, text) {
  if (currency === "PLAY") return `${chips(text)} play chips`;
  const value = Number(text).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  return `${currency} ${value}`;
}

/** ``units`` (the table's smallest unit) in the table's currency: "1,000" play chips, "USD 10.00". */
function money(entry, units) {
  const currency = entry ? entry.currency : "PLAY";
  const exponent = entry && entry.settings ? entry.settings.exponent || 0 : 0;
  if (currency === "PLAY" || exponent === 0) return chips(units);
  return amountText(currency, Number(units) / 10 ** exponent);
}

// ------------------------------------------------------------------ motion and sound

// Both follow the browser's reduced-motion setting: with it, no animation, and sound starts off.
const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");
const motion = () => !reducedMotion.matches;
document.body.dataset.motion = motion() ? "full" : "reduced";
reducedMotion.addEventListener("change", () => (document.body.dataset.motion = motion() ? "full" : "reduced"));

const SOUND_KEY = "feltroom.sound";
function soundOn() {
  const saved = localStorage.getItem(SOUND_KEY);
  return saved === null ? motion() : saved === "on";
}

function toggleSound() {
  localStorage.setItem(SOUND_KEY, soundOn() ? "off" : "on");
  renderNav();
}

let audio = null;
const TONES = { deal: [[660, 0.03]], chips: [[1200, 0.025], [900, 0.025]], turn: [[880, 0.09], [1320, 0.12]], win: [[523, 0.1], [659, 0.1], [784, 0.16]] };

/** A short sound (deal, chips, turn, win), made with Web Audio; nothing when muted. */
function sound(kind) {
  if (!soundOn()) return;
  document.body.dataset.sounds = String(Number(document.body.dataset.sounds || 0) + 1);
  document.body.dataset.lastSound = kind;
  try {
    audio = audio || new AudioContext();
    let at = audio.currentTime;
    for (const [hz, seconds] of TONES[kind]) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = hz;
      gain.gain.setValueAtTime(0.08, at);
      gain.gain.exponentialRampToValueAtTime(0.001, at + seconds);
      osc.connect(gain).connect(audio.destination);
      osc.start(at);
      osc.stop(at + seconds);
      at += seconds;
    }
  } catch (_) {
    /* no audio device: silence */
  }
}

/** Chips flying from one point of the felt to another (percent), for a moment. */
function fly(from, to, amount) {
  if (!motion() || state.view !== "table") return;
  const felt = app.querySelector(".felt");
  if (!felt) return;
  const chip = h("div", { class: "fly", "aria-hidden": "true",
    style: `left:${from.x}%;top:${from.y}%;--to-x:${to.x}%;--to-y:${to.y}%` }, chips(amount));
  felt.append(chip);
  setTimeout(() => chip.remove(), 900);
}

const CENTER = { x: 50, y: 48 };

function betSpot(t, seat) {
  const entry = lobbyEntry(t.id);
  const seats = entry ? entry.seats : Math.max(2, ...t.seats.keys());
  const pos = seatPosition(seat, seats, t.you);
  return { x: 50 + (pos.x - 50) * 0.6, y: 50 + (pos.y - 50) * 0.55, seat: pos };
}

/** The motion and the sound of a table message, once it is drawn. */
function animate(t, m, bets) {
  if (m.type === "hole_cards" && m.seat === t.you) sound("deal");
  if (m.type === "turn" && m.seat === t.you && m.legal) sound("turn");
  if (m.type !== "event") return;
  if (m.kind === "board_dealt") {
    sound("deal");
    for (const [seat, bet] of bets) fly(betSpot(t, seat), CENTER, bet); // the bets to the pot
  }
  if (["called", "raised", "posted"].includes(m.kind)) sound("chips");
  if (m.kind === "pot_awarded") {
    sound("win");
    m.winners.forEach((w, i) => fly(CENTER, betSpot(t, w).seat, m.shares[i])); // the pot to the winner
  }
}

/** Cards seen before on this page: the deal animation is for new ones only. */
const dealt = new Set();
function dealClass(t, where, card) {
  const key = `${t.id}:${t.lastHand}:${where}:${card}`;
  if (dealt.has(key)) return "";
  if (dealt.size > 2000) dealt.clear();
  dealt.add(key);
  return motion() ? " deal-in" : "";
}

// ------------------------------------------------------------------ errors in sentences

/** A time (Unix seconds) in the player's zone: "07:00", or "Dec 3, 07:00" past today. */
function localTime(seconds) {
  const when = new Date(seconds * 1000);
  const time = when.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  if (when.toDateString() === new Date().toDateString()) return time;
  return `${when.toLocaleDateString([], { month: "short", day: "numeric" })}, ${time}`;
}

/**
 * A refusal (a websocket `error` or an ApiError) in a sentence for people, from its `code` and
 * `details` (docs/protocol.md, errors): amounts in the table's currency, the table's name, times
 * in the player's zone. The server's own message is the last resort.
 */
function errorText(error, tableId = null) {
  const d = error.details || {};
  const entry = tableId ? lobbyEntry(tableId) : null;
  const name = entry ? entry.name : tableId ? "this table" : "";
  const amount = (units) => money(entry, units);
  const field = d.field || "";
  switch (error.code) {
    case "illegal_action":
      if (d.min !== undefined && d.amount !== undefined && (d.action === "bet" || d.action === "raise")) {
        const verb = d.action === "bet" ? "bet is" : "raise is to";
        return d.amount < d.min ? `The minimum ${verb} ${amount(d.min)}.` : `The maximum ${verb} ${amount(d.max)}.`;
      }
      if (d.min !== undefined && d.stack !== undefined) {
        if (d.stack > 0) {
          return d.max === null ? `Add at least 1 chip.`
            : `You may add up to ${amount(Math.max(0, d.max - d.stack))}: the most you can have at ${name} is ${amount(d.max)}.`;
        }
        return d.max === null ? `The buy-in at ${name} is at least ${amount(d.min)}.`
          : `The buy-in at ${name} is ${amount(d.min)} to ${amount(d.max)}.`;
      }
      if (d.seat !== undefined) return `Seat ${d.seat} is taken: choose a free seat.`;
      if (d.wanted) return `Here it would be a ${d.wanted}.`;
      return sentence(error.message);
    case "refused":
      if (d.state === "cool-off" || d.state === "self-exclusion") return breakText(d.state, d.until);
      if (d.balance !== undefined && d.amount !== undefined) {
        return `You hold ${amount(d.balance)}, not ${amount(d.amount)}: take fewer chips${entry && entry.currency === "PLAY" ? " or get play chips" : ""}.`;
      }
      if (d.held !== undefined) return `You hold ${chips(d.held)} play chips: free chips top a balance up to ${chips(d.grant_to)}.`;
      return sentence(error.message);
    case "rate_limited":
      if (d.next_at !== undefined) return `You had free play chips recently: the next are yours at ${localTime(d.next_at)}.`;
      return "Too many messages at once: wait a moment and try again.";
    case "invalid_field":
      if (/(amount|buy_in)$/.test(field)) return "Enter a whole number of chips.";
      if (field === "name") return `A name has 1 to ${d.max_length} characters: letters, digits, '_', '.' or '-', starting with a letter or digit.`;
      if (field === "chat.text") return `A chat line has 1 to ${d.max_length} characters.`;
      if (/^reminder_minutes/.test(error.message || "")) return REMINDER_RULE;
      return sentence(error.message);
    case "not_your_turn":
      return d.to_act === null ? "No hand is being played at the moment." : "It is not your turn yet.";
    case "stale_hand":
      return "That hand is over.";
    case "not_joined":
      return `You have no seat at ${name || "this table"}: sit down first.`;
    case "not_found":
      return "That table does not exist (any more): choose one in the lobby.";
    case "closed":
      return "Not connected: reconnecting…";
    default:
      return sentence(error.message);
  }
}

/** The server's message as a sentence: the rule references and protocol names left out; a
 * message that opens with a player's name keeps the name as written ("coolcat", not "Coolcat"). */
function sentence(text) {
  const plain = String(text || "Refused.").replace(/\s*\((?:R-[A-Z]+-\d+(?:,\s*)?)+\)/g, "")
    .replace(/,\s*R-[A-Z]+-\d+/g, "").replace(/;\s*legal:.*$/, "");
  const first = plain.split(/[\s':,]/, 1)[0];
  const opening = knownName(first) ? plain.charAt(0) : plain.charAt(0).toUpperCase();
  return opening + plain.slice(1) + (/[.!?]$/.test(plain) ? "" : ".");
}

/** ``word`` is the name of the player or of someone at a table the page watches. */
function knownName(word) {
  if (word === state.player) return true;
  return [...state.tables.values()].some((t) => [...t.seats.values()].some((s) => s.player === word));
}

/** A cool-off or a self-exclusion in a sentence, its end in the player's zone. */
function breakText(kind, until) {
  const what = kind === "cool-off" ? "taking a break" : "excluded from play";
  const when = until === null || until === undefined ? "for good" : `until ${fullTime(until)}`;
  return `You are ${what} ${when}: you cannot sit at a table, join a waiting list or register until it ends. You can still withdraw your balance.`;
}

const REMINDER_RULE = "A reminder comes every 10 to 1440 minutes (24 hours): leave the field empty for none.";

// ------------------------------------------------------------------ start and the account

async function start() {
  window.addEventListener("hashchange", route);
  document.addEventListener("keydown", onKey);
  trackPointer();
  registerWorker();
  setInterval(tick, 200);
  const secret = inviteSecret();
  if (secret) {
    state.invite = { secret, game: null, error: null };
    loadInvite();
  }
  if (savedToken()) {
    try {
      const me = await api("GET", "/api/me");
      state.player = me.player;
      state.balances = me.balances;
      connect();
      loadProtection();
      loadGames();
    } catch (error) {
      saveToken(null);
    }
  }
  route();
}

/** The service worker that makes the room an installable web app (the static client only). */
function registerWorker() {
  if ("serviceWorker" in navigator) navigator.serviceWorker.register("/sw.js").catch(() => {}); // an http page on a name: none
}

function connect() {
  if (state.socket) state.socket.close();
  state.socket = new Socket({
    onMessage,
    onWelcome,
    onState: (s) => {
      state.connection = s;
      renderNav();
    },
    onAuthLost: () => {
      saveToken(null);
      state.player = null;
      toast("Your session ended: sign in again.");
      route();
    },
  });
  state.socket.connect();
}

async function refreshBalance() {
  try {
    const me = await api("GET", "/api/me");
    state.balances = me.balances;
    renderNav();
  } catch (_) {
    /* shown on the next call */
  }
}

function renderNav() {
  nav.replaceChildren();
  if (!state.player) return;
  // a home game's chips (its currency is the game's id) are counted in its ledger, not here
  const wallet = Object.fromEntries(Object.entries(state.balances).filter(([currency]) => !/^(g-\d+|home:.*)$/.test(currency)));
  const held = Object.keys(wallet).length ? wallet : { PLAY: "0" };
  const balances = Object.entries(held).map(([currency, amount]) =>
    h("span", { class: "balance", dataset: { currency, amount } },
      currency === "PLAY" ? `Play chips ${chips(amount)}` : amountText(currency, amount)),
  );
  nav.append(...[
    h("span", { class: "who" }, state.player),
    ...balances,
    h("button", { type: "button", onclick: grant, "aria-label": "Get play chips: take a play-money grant" }, "Get play chips"),
    h("a", { href: "#lobby" }, "Lobby"),
    h("a", { href: "#history" }, "History"),
    h("a", { href: "#stats" }, "Statistics"),
    h("a", { href: "#limits" }, "Limits"),
    h("button", { type: "button", id: "sound", "aria-pressed": soundOn() ? "true" : "false", onclick: toggleSound,
      title: "sounds of the table (off by default when the browser asks for reduced motion)" }, soundOn() ? "Sound on" : "Sound off"),
    h("button", { type: "button", onclick: signOut }, "Sign out"),
    state.connection === "connecting" || state.connection === "reconnecting"
      ? h("span", { class: "conn", role: "status" }, `${state.connection}…`) : null,
  ].filter(Boolean));
}

async function grant() {
  await takeGrant();
  if (state.view === "lobby" || state.view === "table") render();
}

/** Ask for the play-money grant; the balance and the grant's status are fresh after it. */
async function takeGrant() {
  try {
    const answer = await api("POST", "/api/grant", {});
    toast(`You received ${chips(answer.granted)} play chips.`, "info");
  } catch (error) {
    toast(errorText(error));
  }
  state.grant = null; // asked again when needed
  await refreshBalance();
}

async function signOut() {
  try {
    await api("POST", "/api/signout", {});
  } catch (_) {
    /* the token is dropped anyway */
  }
  saveToken(null);
  if (state.socket) state.socket.close();
  state.socket = null;
  state.player = null;
  state.tables.clear();
  state.games.clear();
  state.ledgers.clear();
  state.ledgerAt.clear();
  const banner = document.getElementById("announcement");
  if (banner) banner.remove(); // the room's message was for the player signed in
  sessionStorage.removeItem("feltroom.watch");
  location.hash = "";
  route();
}

const NAME_HINT = "1 to 32 letters, digits, '_', '.' or '-', starting with a letter or digit.";

/** Why a name cannot be signed up, in a sentence; null when it can. */
function nameProblem(value) {
  if (value.length > 32) return `A name has at most 32 characters; this one has ${value.length}.`;
  if (value && !/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(value)) return `That name cannot be used: ${NAME_HINT}`;
  return null;
}

function renderAuth() {
  const message = h("p", { class: "form-error", role: "alert" });
  // no maxlength: a longer name is said to be too long, never cut without a word
  const name = h("input", { id: "auth-name", name: "name", autocomplete: "username", required: true, "aria-describedby": "auth-name-hint" });
  const hint = h("p", { class: "hint", id: "auth-name-hint" }, NAME_HINT);
  name.addEventListener("input", () => {
    const problem = nameProblem(name.value);
    hint.textContent = problem || NAME_HINT;
    hint.classList.toggle("form-error", Boolean(problem));
    name.setAttribute("aria-invalid", problem ? "true" : "false");
  });
  const password = h("input", {
    id: "auth-password", name: "password", type: "password", autocomplete: "current-password", required: true, minlength: 8,
  });
  async function submit(kind) {
    message.textContent = "";
    const problem = kind === "signup" ? nameProblem(name.value) : null;
    if (problem) {
      message.textContent = problem;
      name.focus();
      return;
    }
    try {
      if (kind === "signup") {
        await api("POST", "/api/signup", { name: name.value, password: password.value });
      }
      const answer = await api("POST", "/api/signin", { name: name.value, password: password.value });
      saveToken(answer.token);
      state.player = answer.player;
      await refreshBalance();
      connect();
      loadProtection();
      loadGames();
      route();
    } catch (error) {
      message.textContent = errorText(error);
    }
  }
  const form = h(
    "form",
    { class: "auth", onsubmit: (e) => { e.preventDefault(); submit("signin"); } },
    h("h1", {}, "feltroom"),
    h("p", {}, "Texas Hold'em, play money and real. Sign in or sign up to take a seat."),
    h("label", { for: "auth-name" }, "Name"),
    name, hint,
    h("label", { for: "auth-password" }, "Password (8 characters or more)"),
    password,
    h("div", { class: "row" },
      h("button", { type: "submit", id: "signin" }, "Sign in"),
      h("button", { type: "button", id: "signup", onclick: () => submit("signup") }, "Sign up")),
    message,
  );
  app.replaceChildren(form);
  name.focus();
}

// ------------------------------------------------------------------ the socket

function onWelcome(m) {
  for (const { table } of m.seats) watchTable(table);
  const watched = JSON.parse(sessionStorage.getItem("feltroom.watch") || "[]");
  for (const { table } of m.seats) state.tables.get(table).observing = Promise.resolve(state.tables.get(table));
  for (const id of watched) {
    const t = watchTable(id);
    if (!m.seats.some((s) => s.table === id)) t.observing = null; // observed again below
    observeTable(id);
  }
  if (state.lobbySubscribed || state.view === "lobby") subscribeLobby();
  if (!location.hash && m.seats.length > 0) {
    location.hash = `#table/${m.seats[0].table}`;
  }
  route(); // a table opened before the connection was up is observed now
}

/** The operator's broadcast, over every page of the room until the player closes it. */
function showAnnouncement(m) {
  const text = `From the room, at ${localTime(m.time)}: ${m.text}`;
  const close = h("button", { type: "button", id: "announcement-close", "aria-label": "close the room's message" }, "Close");
  const banner = h("div", { class: "announcement", id: "announcement", role: "status" }, h("p", {}, text), close);
  close.addEventListener("click", () => banner.remove());
  const old = document.getElementById("announcement");
  if (old) old.replaceWith(banner);
  else document.getElementById("top").after(banner);
  announce(text);
}

function watchTable(id) {
  if (!state.tables.has(id)) state.tables.set(id, newTable(id));
  const watched = new Set(JSON.parse(sessionStorage.getItem("feltroom.watch") || "[]"));
  watched.add(id);
  sessionStorage.setItem("feltroom.watch", JSON.stringify([...watched]));
  return state.tables.get(id);
}

function unwatchTable(id) {
  state.tables.delete(id);
  const watched = new Set(JSON.parse(sessionStorage.getItem("feltroom.watch") || "[]"));
  watched.delete(id);
  sessionStorage.setItem("feltroom.watch", JSON.stringify([...watched]));
}

async function subscribeLobby() {
  state.lobbySubscribed = true;
  const sent = state.socket.now();
  const reply = await state.socket.request({ type: "lobby" });
  if (reply.type === "lobby") {
    state.lobby = reply.tables;
    setTournaments(reply.tournaments || [], sent);
    if (state.view === "lobby") render();
  }
}

function onMessage(m) {
  const now = state.socket.now();
  if (m.type === "lobby_update") {
    const i = state.lobby.findIndex((t) => t.id === m.table.id);
    if (i >= 0) state.lobby[i] = m.table;
    else state.lobby.push(m.table);
    if (state.view === "lobby") {
      render();
      loadMyTables(); // a waiting list moved, a seat was taken
    }
    return;
  }
  if (m.type === "error") {
    toast(errorText(m, m.table || null));
    return;
  }
  if (m.type === "moved") {
    onMoved(m);
    return;
  }
  if (m.type === "tournament") {
    onTournamentView(m);
    return;
  }
  if (m.type === "tournament_result") {
    onTournamentResult(m);
    return;
  }
  if (m.type === "announcement") {
    showAnnouncement(m);
    return;
  }
  if (m.type === "game" || m.type === "game_request") {
    onGameMessage(m);
    return;
  }
  if (m.type === "reminder") {
    // the session-time reminder the player chose (docs/protocol.md)
    toast(`You have been playing for ${m.minutes} minutes.`, "info");
    announce(`You have been playing for ${m.minutes} minutes.`);
    return;
  }
  if (m.type === "event" && m.kind === "seat_released" && m.account === state.player && m.reason === "sit_out_expired") {
    noteReleased(m, !state.tables.has(m.table)); // at the time, or on return (after the welcome)
  }
  const t = m.table ? state.tables.get(m.table) : null;
  if (!t) {
    if (m.type === "seat_offer") toast(`A seat is free for you at ${lobbyEntry(m.table) ? lobbyEntry(m.table).name : "a table you wait for"}: open the table to take it.`, "info");
    return;
  }
  let line = null;
  const bets = [...t.seats.values()].filter((s) => s.bet > 0).map((s) => [s.seat, s.bet]);
  const wasMyTurn = myTurn(t);
  if (m.type === "snapshot") {
    applySnapshot(t, m);
    t.tournament = t.tournament || tournamentOf(t.id);
    state.autoPost.delete(t.id); // the snapshot's settings are the server's: they win
    state.autoMuck.delete(t.id);
    state.autoRebuy.delete(t.id);
    state.straddle.delete(t.id);
  }
  else if (m.type === "event") {
    line = applyEvent(t, m, { me: state.player });
    if (m.kind === "chips_added" && m.seat === t.you) refreshBalance(); // what did not fit came back
    if (m.kind === "seat_released" && m.account === state.player) {
      // the wallet is credited as the seat is released: ask again shortly if the books lag
      for (const wait of [0, 700, 2000]) setTimeout(refreshBalance, wait);
    }
    if (m.kind === "hand_started") {
      t.showable = false;
      if (m.commitment) state.commitments.set(m.hand, m.commitment);
    }
  } else if (m.type === "chat") {
    t.chat.push(m);
    if (t.chat.length > 200) t.chat.shift();
  } else {
    if (m.type === "turn") t.error = null;
    applyMessage(t, m, now);
  }
  if (m.type === "hand_result") showPotsInTurn(t);
  if (m.type === "hand_result" && t.you !== null) {
    const me = t.seats.get(t.you);
    t.showable = Boolean(me && me.inHand && !me.folded && !(String(t.you) in m.shown));
    t.showHand = m.hand;
    refreshBalance();
  }
  if (line) {
    t.log.push(line);
    if (t.log.length > 200) t.log.shift();
  }
  if (m.type === "hand_result" && toLedgerAfterHand(t)) return;
  if (state.view === "table" && state.current === t.id) {
    announceMessage(t, m, line);
    renderTable(t);
    animate(t, m, bets);
    if (wasMyTurn && !myTurn(t)) raiseWaitingTable(); // acted here: on to a table that waits
  } else otherTable(t, m, wasMyTurn);
  updateTitle();
}

// ------------------------------------------------------------------ notices that stay

/**
 * A seat released after sitting out too long (R-SIT-2): said at the time, and on return when the
 * player was away (the server sends the event again after the welcome). It stays above the page
 * until dismissed.
 */
function noteReleased(m, away) {
  const entry = lobbyEntry(m.table);
  if (!entry) ensureLobby().then(renderNotices);
  state.released.push({ table: m.table, chips: m.chips, away });
  for (const wait of [0, 700, 2000]) setTimeout(refreshBalance, wait); // the chips came back
  renderNotices();
}

function renderNotices() {
  noticeBox.replaceChildren(...state.released.map((r, i) => {
    const entry = lobbyEntry(r.table);
    const name = entry ? entry.name : r.table;
    const minutes = entry && entry.settings.sit_out_minutes;
    const text = `${r.away ? "While you were away, your" : "Your"} seat at ${name} was released: you sat out for more than ${minutes ? `${minutes} minutes` : "the table's limit"}. `
      + `Your ${entry ? money(entry, r.chips) : chips(r.chips)} chips went back to your wallet; take a seat again from the lobby.`;
    return h("p", { class: "released-notice", id: `released-${i}`, dataset: { table: r.table } }, text, " ",
      h("button", { type: "button", class: "dismiss", "aria-label": `dismiss the notice about ${name}`,
        onclick: () => { state.released.splice(i, 1); renderNotices(); } }, "OK"));
  }));
}

// ------------------------------------------------------------------ several tables

const LAYOUT_KEY = "feltroom.layout";
function layout() {
  return localStorage.getItem(LAYOUT_KEY) === "tiled" ? "tiled" : "tabbed";
}

function setLayout(kind) {
  localStorage.setItem(LAYOUT_KEY, kind);
  render();
}

/** The player is to act at ``t`` (the server's turn, with its legal actions). */
function myTurn(t) {
  return t.you !== null && t.you !== undefined && t.hand !== null && t.toAct === t.you && Boolean(t.legal);
}

/**
 * A message of a table the page does not show: its tab or tile is redrawn; when the player's turn
 * comes there and the table shown does not wait for them, that table is raised (shown), with the
 * turn's sound.
 */
function otherTable(t, m, wasMyTurn) {
  const turn = myTurn(t);
  if (turn && !wasMyTurn) sound("turn");
  if (state.view !== "table") return;
  const shown = state.tables.get(state.current);
  if (turn && !wasMyTurn && (!shown || !myTurn(shown)) && mayRaise()) {
    location.hash = `#table/${encodeURIComponent(t.id)}`; // raised: the route draws it
    announce(`Your turn at ${tableName(t.id)}.`);
    return;
  }
  if (turn && !wasMyTurn) state.raiseHeld = raiseOn(); // raised when the pointer leaves the action bar
  const drawn = turn !== wasMyTurn || (layout() === "tiled" && (m.type !== "event" || ["hand_started", "board_dealt", "pot_awarded", "seat_released"].includes(m.kind)));
  if (drawn && shown) renderTable(shown);
}

/** Show the first other table where the player is to act, if any, unless the player turned
 * raising off or has the pointer or the focus in the action bar (then once they leave it). */
function raiseWaitingTable() {
  const waiting = [...state.tables.values()].find((x) => x.id !== state.current && myTurn(x));
  state.raiseHeld = Boolean(waiting) && raiseOn() && !mayRaise();
  if (waiting && mayRaise()) {
    location.hash = `#table/${encodeURIComponent(waiting.id)}`;
    announce(`Your turn at ${tableName(waiting.id)}.`);
  }
}

// Raising the table that waits for the player: a setting of this browser, on by default.
const RAISE_KEY = "feltroom.raise";
function raiseOn() {
  return localStorage.getItem(RAISE_KEY) !== "off";
}

function raiseChoice() {
  const box = h("input", { type: "checkbox", id: "raise-waiting", checked: raiseOn() });
  box.addEventListener("change", () => localStorage.setItem(RAISE_KEY, box.checked ? "on" : "off"));
  return h("label", { class: "raise-choice" }, box, " Show the table that waits for me");
}

// Whether the pointer was over the action bar when it last moved: a redraw under a pointer that
// stays put (after a click on Fold) leaves it there.
let pointerInBar = false;
const inBar = (el) => Boolean(el && el.closest && el.closest(".dock"));
function trackPointer() {
  document.addEventListener("pointermove", (e) => {
    pointerInBar = inBar(e.target);
    heldRaise();
  });
  document.documentElement.addEventListener("pointerleave", () => {
    pointerInBar = false;
    heldRaise();
  });
  document.addEventListener("focusin", heldRaise);
}

/** The pointer or the focus is in the action bar (the player's cards, actions and seat controls). */
function inActionBar() {
  return pointerInBar || inBar(document.activeElement);
}

function mayRaise() {
  return raiseOn() && !inActionBar();
}

/** A raise held back while the player was in the action bar happens once they leave it. */
function heldRaise() {
  if (!state.raiseHeld || state.view !== "table" || !mayRaise()) return;
  const shown = state.tables.get(state.current);
  if (shown && myTurn(shown)) state.raiseHeld = false;
  else raiseWaitingTable();
}

/** The page title says where the player is to act: "Your turn · Oak NL — feltroom". */
function updateTitle() {
  const turns = [...state.tables.values()].filter(myTurn).map((t) => tableName(t.id));
  const title = turns.length ? `Your turn · ${turns.join(", ")} — feltroom` : "feltroom";
  if (document.title !== title) document.title = title;
}

/** The tables the page watches, as tabs or tiles: the one shown is raised, those waiting for the
 * player are marked "Your turn"; a click shows that table. */
function renderStrip(current) {
  const tables = [...state.tables.values()];
  if (tables.length < 2) return null;
  const tiled = layout() === "tiled";
  const items = tables.map((t) => {
    const turn = myTurn(t);
    const me = t.you !== null && t.you !== undefined ? t.seats.get(t.you) : null;
    const classes = ["table-tab", t.id === current.id ? "raised" : "", turn ? "your-turn" : "", me ? "seated" : ""].filter(Boolean).join(" ");
    return h("button", { type: "button", class: classes, dataset: { table: t.id }, "aria-current": t.id === current.id ? "true" : null,
      "aria-label": `${tableName(t.id)}${turn ? ", your turn" : ""}: show this table`,
      onclick: () => { location.hash = `#table/${encodeURIComponent(t.id)}`; } },
    h("span", { class: "tab-name" }, tableName(t.id)),
    turn ? h("span", { class: "badge turn-mark" }, "Your turn") : null,
    me ? h("span", { class: "tab-stack" }, chips(me.stack)) : h("span", { class: "tab-observing" }, "observing"),
    tiled ? h("span", { class: "mini" },
      h("span", { class: "mini-board" }, t.board.map((c) => cardEl(c, null, " small"))),
      me && me.cards ? h("span", { class: "mini-hand" }, me.cards.map((c) => cardEl(c, null, " small"))) : null,
      h("span", { class: "mini-pot" }, t.pot > 0 ? `Pot ${chips(t.pot)}` : "")) : null);
  });
  return h("nav", { class: `table-strip ${tiled ? "tiled" : "tabbed"}`, id: "table-strip", "aria-label": "your tables" },
    h("div", { class: "row layout-choice", role: "group", "aria-label": "how your tables are shown" },
      h("button", { type: "button", id: "layout-tabbed", "aria-pressed": tiled ? "false" : "true", onclick: () => setLayout("tabbed") }, "Tabs"),
      h("button", { type: "button", id: "layout-tiled", "aria-pressed": tiled ? "true" : "false", onclick: () => setLayout("tiled") }, "Tiles"),
      raiseChoice()),
    h("div", { class: "strip-items" }, items));
}

/** What a screen reader hears of a table message (the table shown only). */
function announceMessage(t, m, line) {
  if (m.type === "event" && m.kind === "board_dealt") {
    announce(`${["", "Flop", "Turn", "River"][m.street]}: ${cardWords(m.cards)}.`);
    return;
  }
  if (m.type === "event" && m.kind === "cards_shown") {
    announce(`${t.seats.get(m.seat) ? t.seats.get(m.seat).player : `Seat ${m.seat}`} shows ${cardWords(m.cards)}.`);
    return;
  }
  if (line) announce(line);
  if (m.type === "hole_cards" && m.seat === t.you) announce(`Your cards: ${cardWords(m.cards)}.`);
  if (m.type === "turn" && m.seat === t.you && m.legal) {
    const l = m.legal;
    const options = [l.fold ? "fold (F)" : null, l.check ? "check (C)" : null, l.call !== null ? `call ${chips(l.call)} (C)` : null,
      l.raise_min !== null ? `${l.bet ? "bet" : "raise to"} ${chips(l.raise_min)} to ${chips(l.raise_max)} (R)` : null].filter(Boolean);
    announce(`Your turn: ${options.join(", ")}.`);
  }
  if (m.type === "hand_result") {
    for (const p of m.pots) {
      for (const [i, w] of p.winners.entries()) {
        const made = m.hands && m.hands[String(w)];
        const name = t.seats.get(w) ? t.seats.get(w).player : `Seat ${w}`;
        announce(`${name} wins ${chips(p.shares[i])}${made ? ` with ${handPhrase(made.description)}` : ""}.`);
      }
    }
  }
}

/** The showdown, one pot after the other: each pot's winners and their hand for a moment. */
function showPotsInTurn(t) {
  clearInterval(t.potTimer);
  t.potStep = 0;
  if (t.pots.length < 2) return;
  t.potTimer = setInterval(() => {
    if (t.potStep >= t.pots.length - 1 || t.hand !== null) {
      clearInterval(t.potTimer);
      return;
    }
    t.potStep += 1;
    if (state.view === "table" && state.current === t.id) renderTable(t);
  }, POT_STEP_MS);
}
const POT_STEP_MS = 1500;

/** The pots shown so far (all of them during a hand's end before the result, one by one after). */
/** The halves of a pot run twice (R-HOME-4): who won each run's half, with what. */
function potRunsText(t, pot) {
  const hands = [t.result && t.result.hands, t.result && t.result.second_hands];
  // pot_awarded gives each run as [winners, shares], hand_result as {winners, shares}
  return pot.runs.map((run, k) => {
    const [winners, shares] = Array.isArray(run) ? run : [run.winners, run.shares];
    return `${k === 0 ? "first run" : "second run"}: ` + winners.map((w, i) => {
      const made = hands[k] ? hands[k][String(w)] : null;
      const name = t.seats.get(w) ? t.seats.get(w).player : `seat ${w}`;
      return `${name} wins ${chips(shares[i])}${made ? ` with ${handPhrase(made.description)}` : ""}`;
    }).join(", ");
  }).join("; ");
}

function potsShown(t) {
  return t.result ? t.pots.slice(0, (t.potStep || 0) + 1) : t.pots;
}

/** The five cards of the current pot's winning hand (a showdown only), or null. */
function bestCards(t) {
  if (!t.result || !t.result.hands) return null;
  const pot = potsShown(t).at(-1);
  if (!pot) return null;
  const cards = pot.winners.flatMap((w) => (t.result.hands[String(w)] || { cards: [] }).cards);
  return cards.length ? new Set(cards) : null;
}

// ------------------------------------------------------------------ routing

function route() {
  if (state.invite && location.hash.length > 1) {
    // a link of the page followed from the invite (the lobby, the history): the room's address
    state.invite = null;
    history.replaceState(null, "", `/${location.hash}`);
  }
  if (state.invite) {
    state.view = "invite";
    renderNav();
    renderInvite();
    return;
  }
  if (!state.player) {
    state.view = "auth";
    renderNav();
    renderAuth();
    return;
  }
  const hash = location.hash.replace(/^#/, "");
  if (hash.startsWith("table/")) {
    state.view = "table";
    state.current = decodeURIComponent(hash.slice(6));
    observeTable(state.current);
    if (!lobbyEntry(state.current)) ensureLobby();
  } else if (hash.startsWith("tournament/") || hash.startsWith("results/")) {
    const results = hash.startsWith("results/");
    state.view = results ? "results" : "tournament";
    state.current = decodeURIComponent(hash.slice(results ? 8 : 11));
    state.tournamentError = null;
    loadTournament(state.current);
  } else if (hash.startsWith("game/")) {
    state.view = "game";
    state.current = decodeURIComponent(hash.slice(5));
    state.gameError = null;
    openGame(state.current, true);
  } else if (hash.startsWith("ledger/")) {
    state.view = "ledger";
    state.current = decodeURIComponent(hash.slice(7));
    if (!state.games.has(state.current)) openGame(state.current, true);
    loadLedger(state.current);
  } else if (hash === "history") {
    state.view = "history";
    state.current = null;
    loadHistory();
  } else if (hash === "stats") {
    state.view = "stats";
    state.current = null;
    loadStats();
  } else if (hash === "limits") {
    state.view = "limits";
    state.current = null;
    loadLimits();
  } else {
    state.view = "lobby";
    state.current = null;
    if (state.socket && state.connection === "open" && !state.lobbySubscribed) subscribeLobby();
    loadMyTables(true);
    loadProtection();
    loadGames();
  }
  renderNav();
  render();
}

function render() {
  if (state.view === "auth") return;
  if (state.view === "lobby") renderLobby();
  else if (state.view === "table") {
    const t = state.tables.get(state.current);
    if (t) renderTable(t);
    else app.replaceChildren(h("p", { class: "loading" }, "Connecting…"));
  } else if (state.view === "tournament") renderTournament(state.current);
  else if (state.view === "results") renderResults(state.current);
  else if (state.view === "history") renderHistory();
  else if (state.view === "stats") renderStats();
  else if (state.view === "limits") renderLimits();
  else if (state.view === "game") renderGameWait(state.current);
  else if (state.view === "ledger") renderLedgerPage(state.current);
  else if (state.view === "invite") renderInvite();
}

// ------------------------------------------------------------------ the lobby

const STRUCTURE_NAMES = { fixed_limit: "Limit", pot_limit: "Pot-Limit", no_limit: "No-Limit" };

async function ensureLobby() {
  try {
    const sent = state.socket ? state.socket.now() : Date.now() / 1000;
    const answer = await api("GET", "/api/lobby");
    if (state.lobby.length === 0) state.lobby = answer.tables;
    setTournaments(answer.tournaments || [], sent);
    render();
  } catch (error) {
    toast(errorText(error));
  }
}

function lobbyEntry(id) {
  return state.lobby.find((t) => t.id === id) || homeTableEntry(id) || tournamentTableEntry(id);
}

/** The big blind of a lobby entry, for ordering stakes as numbers ("1/2" before "5/10"). */
function stakesOrder(t) {
  const settings = t.settings || {};
  const big = Number(settings.big_blind_amount || settings.upper || 0);
  return [big, Number(settings.small_blind_amount || 0)];
}

const LOBBY_COLUMNS = [
  ["name", "Table", (t) => t.name.toLowerCase()],
  ["game", "Game", (t) => `${t.game} ${STRUCTURE_NAMES[t.structure] || t.structure}`],
  ["stakes", "Stakes", stakesOrder],
  ["seats", "Seats taken", (t) => [t.seats_taken, t.seats]],
  ["waiting", "Waiting", (t) => t.waiting || 0],
  ["average_pot", "Average pot", (t) => Number(t.average_pot)],
  ["hands_per_hour", "Hands / hour", (t) => Number(t.hands_per_hour)],
];

function compareKeys(a, b) {
  const x = Array.isArray(a) ? a : [a];
  const y = Array.isArray(b) ? b : [b];
  for (let i = 0; i < Math.max(x.length, y.length); i += 1) {
    if (x[i] < y[i]) return -1;
    if (x[i] > y[i]) return 1;
  }
  return 0;
}

/** Where the player sits and waits, from the server (``GET /api/me/tables``). */
let myTablesAt = 0;
async function loadMyTables(force = false) {
  if (!force && Date.now() - myTablesAt < 1500) return;
  myTablesAt = Date.now();
  try {
    state.mine = await api("GET", "/api/me/tables");
  } catch (_) {
    return;
  }
  if (state.view === "lobby") renderLobby();
}

async function findPlayer(name) {
  const f = state.filters;
  if (!name.trim()) {
    f.found = null;
    renderLobby();
    return;
  }
  try {
    const answer = await api("GET", `/api/players/${encodeURIComponent(name.trim())}/tables`);
    f.found = { player: answer.player, tables: answer.tables, error: null };
  } catch (error) {
    const text = error.status === 403 ? `${name.trim()} does not let other players find their tables.`
      : error.status === 404 ? `There is no player named ${name.trim()}.` : errorText(error);
    f.found = { player: name.trim(), tables: [], error: text };
  }
  renderLobby();
}

function ordinal(n) {
  const tail = n % 100 >= 11 && n % 100 <= 13 ? "th" : { 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th";
  return `${n}${tail}`;
}

function renderLobby() {
  const f = state.filters;
  const mine = state.mine || { seats: [], waiting: [] };
  const seatAt = new Map(mine.seats.map((x) => [x.table, x.seat]));
  for (const [id, t] of state.tables) if (t.you !== null && t.you !== undefined) seatAt.set(id, t.you);
  const waitingAt = new Map(mine.waiting.map((x) => [x.table, x]));
  const byGame = state.lobby.filter((t) => !f.structure || t.structure === f.structure);
  const stakes = [...new Map(byGame.map((t) => [t.stakes, t])).values()].sort((a, b) => compareKeys(stakesOrder(a), stakesOrder(b))).map((t) => t.stakes);
  if (f.stakes && !stakes.includes(f.stakes)) f.stakes = ""; // not a stake of the chosen game
  const seatOptions = [...new Set(state.lobby.map((t) => t.seats))].sort((a, b) => a - b).map(String);
  const select = (key, label, options, names = {}) =>
    h("label", {}, label,
      h("select", {
        "aria-label": `filter by ${label.toLowerCase()}`,
        name: key,
        id: `filter-${key}`,
        onchange: (e) => { f[key] = e.target.value; renderLobby(); },
      },
      h("option", { value: "" }, "All"),
      options.map((o) => h("option", { value: o, selected: f[key] === o }, names[o] || o))));
  const check = (key, label) => {
    const box = h("input", { type: "checkbox", id: `filter-${key}`, checked: Boolean(f[key]) });
    box.addEventListener("change", () => { f[key] = box.checked; renderLobby(); });
    return h("label", {}, box, ` ${label}`);
  };
  const found = f.found && !f.found.error ? new Map(f.found.tables.map((x) => [x.table, x.seat])) : new Map();
  const column = LOBBY_COLUMNS.find(([key]) => key === f.sort.key) || LOBBY_COLUMNS[2];
  const shown = byGame
    .filter((t) => (!f.stakes || t.stakes === f.stakes) && (!f.seats || String(t.seats) === f.seats)
      && !(f.hideFull && t.seats_free === 0) && !(f.hideEmpty && t.seats_taken === 0))
    .sort((a, b) => f.sort.dir * compareKeys(column[2](a), column[2](b)) || compareKeys(a.name, b.name));
  const rows = shown.map((t) => {
    const seat = seatAt.get(t.id);
    const wait = waitingAt.get(t.id);
    return h("tr", { dataset: { table: t.id }, class: [seat ? "mine" : "", found.has(t.id) ? "found" : ""].join(" ") || null },
      h("td", {}, h("strong", {}, t.name),
        seat ? h("span", { class: "badge you-sit" }, ` You sit here (seat ${seat})`) : null,
        found.has(t.id) ? h("span", { class: "badge found-here" }, ` ${f.found.player} sits here (seat ${found.get(t.id)})`) : null,
        h("div", { class: "info" }, t.info)),
      h("td", {}, t.game, " ", STRUCTURE_NAMES[t.structure] || t.structure),
      h("td", { dataset: { big: stakesOrder(t)[0] } }, t.stakes),
      h("td", { class: "num seats-taken" }, `${t.seats_taken} of ${t.seats}`, t.seats_free === 0 ? h("span", { class: "badge full" }, " full") : null),
      h("td", { class: "num waiting" }, String(t.waiting || 0),
        wait ? h("div", { class: "my-place", dataset: { position: wait.position } }, `you are ${ordinal(wait.position)} of ${wait.waiting}`) : null),
      h("td", { class: "num" }, chips(t.average_pot)),
      h("td", { class: "num" }, t.hands_per_hour),
      t.status === "closed" && !seat
        // an operator closed the table (docs/operator.md): no new hands, no joins
        ? h("td", { class: "row-actions" }, h("span", { class: "closed" }, "Closed by the room"),
          h("button", { type: "button", onclick: () => openTable(t.id, false), "aria-label": `Observe ${t.name}` }, "Observe"))
        : h("td", { class: "row-actions" },
        seat ? h("button", { type: "button", onclick: () => openTable(t.id, false), "aria-label": `Open ${t.name}: your seat` }, "Open")
          : t.seats_free > 0 && mayPlay() ? h("button", { type: "button", onclick: () => openTable(t.id, true), "aria-label": `Join ${t.name}` }, "Join") : null,
        h("button", { type: "button", onclick: () => openTable(t.id, false), "aria-label": `Observe ${t.name}` }, "Observe"),
        seat || wait || !mayPlay() ? null : h("button", { type: "button", onclick: () => joinWaitList(t.id), "aria-label": `Wait list${t.waiting ? ` (${t.waiting})` : ""}: join the waiting list of ${t.name}` },
          `Wait list${t.waiting ? ` (${t.waiting})` : ""}`)));
  });
  const play = Number(state.balances.PLAY || 0);
  const empty = Object.values(state.balances).every((v) => Number(v) === 0);
  const search = h("input", { id: "player-search", type: "search", value: f.search || "", "aria-label": "player name to find", placeholder: "player name", autocomplete: "off" });
  search.addEventListener("input", () => (f.search = search.value));
  const header = LOBBY_COLUMNS.map(([key, label]) => {
    const sorted = f.sort.key === key;
    return h("th", { scope: "col", "aria-sort": sorted ? (f.sort.dir > 0 ? "ascending" : "descending") : "none" },
      h("button", { type: "button", class: "sort", dataset: { sort: key },
        onclick: () => { f.sort = { key, dir: sorted ? -f.sort.dir : 1 }; renderLobby(); } },
      label, sorted ? (f.sort.dir > 0 ? " ▲" : " ▼") : ""));
  });
  app.replaceChildren(
    h("section", { class: "lobby" },
      h("h1", {}, "Lobby"),
      breakNotice(),
      lobbySections(),
      homeGamesSection(),
      empty && play === 0
        ? h("p", { class: "hint grant-hint", id: "grant-hint" }, "You have no chips yet. ",
          h("button", { type: "button", id: "grant-hint-take", onclick: grant }, "Take free play chips"),
          " to sit at a play-money table.")
        : null,
      h("div", { class: "filters" },
        select("structure", "Structure", ["fixed_limit", "pot_limit", "no_limit"], STRUCTURE_NAMES),
        select("stakes", "Stakes", stakes),
        select("seats", "Seats", seatOptions),
        check("hideFull", "Hide full"),
        check("hideEmpty", "Hide empty"),
        h("form", { class: "row player-search", role: "search", onsubmit: (e) => { e.preventDefault(); findPlayer(search.value); } },
          search, h("button", { type: "submit", id: "player-search-go" }, "Find player"))),
      f.found ? h("p", { class: f.found.error ? "form-error" : "hint", id: "player-found", role: "status" },
        f.found.error || (f.found.tables.length
          ? `${f.found.player} sits at ${f.found.tables.map((x) => `${tableName(x.table)} (seat ${x.seat})`).join(", ")}.`
          : `${f.found.player} sits at no table now.`)) : null,
      h("div", { class: "scroll", id: "cash-tables" },
        h("table", { class: "tables cash-list" },
          h("thead", {}, h("tr", {}, header, h("th", { scope: "col" }, h("span", { class: "sr-only" }, "actions")))),
          h("tbody", {}, rows.length ? rows : h("tr", {}, h("td", { colspan: 8 }, state.lobby.length ? "No table matches." : "Loading tables…"))))),
      renderTournamentList()));
}

/** Above the fold: the lobby's parts, a click away (the tournaments come after the tables). */
function lobbySections() {
  if (!state.tournaments.length) return null;
  const go = (id) => () => document.getElementById(id).scrollIntoView({ block: "start" });
  return h("nav", { class: "row lobby-sections", id: "lobby-sections", "aria-label": "lobby sections" },
    h("button", { type: "button", id: "go-tables", onclick: go("cash-tables") }, `Cash tables (${state.lobby.length})`),
    h("button", { type: "button", id: "go-tournaments", onclick: go("tournaments") }, `Tournaments (${state.tournaments.length})`));
}

/**
 * Watch a table: the page asks the server to observe it once (a snapshot follows) unless it is
 * already watching it. Resolves when the snapshot has arrived (or the request failed).
 */
function observeTable(id) {
  const t = watchTable(id);
  if (t.observing) return t.observing;
  if (state.connection !== "open") return Promise.resolve(t); // asked again on the welcome
  t.observing = state.socket.request({ type: "observe", table: id }).then((r) => {
    if (r.type === "error") {
      t.observing = null;
      toast(errorText(r, id));
    }
    return t;
  });
  return t.observing;
}

async function openTable(id, join) {
  const t = await observeTable(id); // the table's picture first: which seats are free
  location.hash = `#table/${encodeURIComponent(id)}`;
  if (join) {
    const entry = lobbyEntry(id);
    const seats = entry ? entry.seats : 10;
    for (let n = 1; n <= seats; n++) {
      if (!t.seats.has(n)) {
        buyInDialog(t, n);
        return;
      }
    }
    toast("The table is full: join its waiting list.", "info");
  }
}

async function joinWaitList(id) {
  const t = watchTable(id);
  const reply = await state.socket.request({ type: "wait_list", table: id });
  if (reply.type === "error") {
    toast(errorText(reply, id));
    return;
  }
  t.onWaitList = true;
  toast("You are on the waiting list.", "info");
  loadMyTables(true);
  if (!t.info) await state.socket.request({ type: "observe", table: id }); // the picture of it
  if (state.current === id) renderTable(t);
}

// ------------------------------------------------------------------ dialogs

function dialog(title, body, buttons) {
  // Enter in a field does what the first button does (sit down, add), as a click would; the
  // buttons are plain buttons, so that Enter never means Cancel
  const submit = (e) => {
    e.preventDefault();
    buttons[0].click();
  };
  const d = h("dialog", { class: "dialog", "aria-label": title },
    h("form", { method: "dialog", onsubmit: submit },
      h("h2", {}, title), body,
      h("div", { class: "row" }, buttons)));
  document.body.append(d);
  d.addEventListener("close", () => d.remove());
  d.showModal();
  return d;
}

function currencyBalance(entry) {
  const text = state.balances[entry.currency] || "0";
  const exponent = entry.settings.exponent || 0;
  return Math.round(Number(text) * 10 ** exponent);
}

function buyInDialog(t, seat) {
  if (!mayPlay()) {
    toast(breakNotice().textContent);
    return;
  }
  const entry = lobbyEntry(t.id);
  if (!entry) {
    toast("The lobby has not loaded yet.");
    return;
  }
  const min = entry.settings.buy_in_min;
  const max = entry.settings.buy_in_max; // null: the table has no maximum (R-BUYIN-1)
  const home = homeChips(entry); // a home game's chips: the host issues them, no wallet pays
  const balance = home ? max : currencyBalance(entry);
  const fallback = max === null ? balance : Math.min(balance, max); // R-BUYIN-2
  const amount = h("input", {
    id: "buy-in", type: "number", min, max, step: 1, value: Math.max(min, fallback), required: true,
  });
  const bounds = max === null
    ? `Buy-in ${money(entry, min)} or more (no maximum); default ${money(entry, fallback)} (your balance).`
    : `Buy-in ${money(entry, min)} to ${money(entry, max)}; default ${money(entry, fallback)} (your balance up to the maximum).`;
  const entryPost = h("input", { type: "radio", name: "entry", value: "post", id: "entry-post", checked: true });
  const entryWait = h("input", { type: "radio", name: "entry", value: "wait", id: "entry-wait" });
  const autoPost = h("input", { type: "checkbox", id: "sit-auto-post", checked: true });
  const error = h("p", { class: "form-error", role: "alert" });
  const approval = home ? approvalText(entry) : null;
  const body = h("div", {},
    h("p", { class: "bounds" }, home ? `Buy-in ${money(entry, min)} to ${money(entry, max)} of the game's chips. ${approval}` : `${bounds} Balance: ${money(entry, balance)}.`),
    h("label", { for: "buy-in" }, `Chips for seat ${seat}`), amount,
    h("fieldset", {}, h("legend", {}, "Enter the game"),
      h("label", {}, entryPost, " Post the big blind now"),
      h("label", {}, entryWait, " Wait for the big blind")),
    h("label", {}, autoPost, " Post blinds automatically"),
    error);
  const sit = h("button", {
    type: "button", id: "buy-in-sit",
    onclick: async () => {
      // at a home table the same `sit`: the seat at once, or a buy-in the host approves
      const reply = await state.socket.request({
        type: "sit", table: t.id, seat, buy_in: Number(amount.value),
        entry: entryWait.checked ? "wait" : "post", auto_post: autoPost.checked,
      });
      if (reply.type === "error") {
        error.textContent = errorText(reply, t.id);
        return;
      }
      state.autoPost.set(t.id, autoPost.checked);
      d.close();
      if (reply.request) askedHost(t, reply.request);
      refreshBalance();
    },
  }, "Sit down");
  const d = dialog(`Buy in at ${entry.name}`, body, [sit, h("button", { type: "button", value: "cancel", onclick: (e) => e.target.closest("dialog").close() }, "Cancel")]);
  amount.focus();
}

function addChipsDialog(t) {
  const entry = lobbyEntry(t.id);
  const me = t.seats.get(t.you);
  if (!entry || !me) return;
  const max = entry.settings.buy_in_max; // null: no maximum (R-BUYIN-1)
  const home = homeChips(entry);
  const balance = home ? max : currencyBalance(entry);
  const room = max === null ? balance : Math.max(0, Math.min(balance, max - me.stack));
  const offered = me.stack === 0 ? rebuyAmount(entry.settings, balance) : null; // an empty stack: a buy-in
  const amount = h("input", { id: "add-chips", type: "number", min: 1, max: max === null ? null : Math.max(0, max - me.stack), value: offered ?? room, step: 1 });
  const error = h("p", { class: "form-error", role: "alert" });
  const add = h("button", {
    type: "button", id: "add-chips-ok",
    onclick: async () => {
      const wanted = Number(amount.value);
      const reply = await state.socket.request({ type: "add_chips", table: t.id, amount: wanted });
      if (reply.type === "error") error.textContent = errorText(reply, t.id);
      else if (reply.request) {
        askedHost(t, reply.request);
        d.close();
      } else {
        if (reply.pending) {
          // R-BUYIN-3: paid now, on the stack when the hand in progress ends
          t.pendingChips = (t.pendingChips || 0) + wanted;
          toast(`${money(entry, wanted)} will join your stack when this hand ends.`, "info");
        }
        d.close();
        refreshBalance();
        if (state.current === t.id) renderTable(t);
      }
    },
  }, "Add");
  const d = dialog("Add chips", h("div", {},
    h("p", { class: "bounds" }, home
      ? `Up to the game's largest buy-in ${money(entry, max)}: at most ${money(entry, Math.max(0, max - me.stack))} now. ${approvalText(entry)}`
      : max === null
      ? `This table has no maximum: add up to your balance, ${money(entry, balance)}.`
      : `Up to the table's maximum buy-in ${money(entry, max)}: at most ${money(entry, Math.max(0, max - me.stack))} now (your balance: ${money(entry, balance)}).`,
      t.hand !== null ? " A hand is being played: the chips join your stack when it ends." : ""),
    h("label", { for: "add-chips" }, "Chips"), amount, error), [add, h("button", { type: "button", value: "cancel", onclick: (e) => e.target.closest("dialog").close() }, "Cancel")]);
}

// ------------------------------------------------------------------ the table

/**
 * Send a table message; a refusal is said once: under the action buttons for an action (no
 * toast over the seat controls), in a toast otherwise.
 */
async function send(t, message) {
  const reply = await state.socket.request({ table: t.id, ...message });
  if (reply.type === "error") {
    const text = errorText(reply, t.id);
    if (message.type === "act") t.error = text;
    else toast(text);
    if (state.current === t.id) renderTable(t);
  }
  return reply;
}

function seatPosition(seat, seats, you) {
  const bottom = you || 1;
  const k = ((seat - bottom) % seats + seats) % seats;
  const angle = Math.PI / 2 + (2 * Math.PI * k) / seats; // seat `you` at the bottom, clockwise
  return { x: 50 + 44 * Math.cos(angle), y: 50 + 40 * Math.sin(angle) };
}

/** A name as a seat shows it: a long one keeps its start and its end ("bot.…-25-12"), where
 * names of a kind differ, rather than only its start (the full name is the seat's title). */
function seatName(name) {
  return name.length <= 12 ? name : `${name.slice(0, 4)}…${name.slice(-7)}`;
}

// A seat's missed-blind marker (R-MISS-1/2) in words, not the rule's "MS" / "ML".
const MISSED_WORDS = { MS: "missed the small blind", ML: "missed the big blind" };

function renderSeat(t, n, seats) {
  const s = t.seats.get(n);
  const pos = seatPosition(n, seats, t.you);
  const style = `--x:${pos.x.toFixed(2)}%;--y:${pos.y.toFixed(2)}%`; // kept inside the felt by the CSS
  if (!s) {
    const canSit = t.you === null && state.player && !tournamentOf(t.id) && mayPlay(); // the director seats people
    return h("div", { class: "seat empty", style, dataset: { seat: n } },
      canSit ? h("button", { type: "button", onclick: () => buyInDialog(t, n), "aria-label": `Sit ${n}: sit in seat ${n}` }, `Sit ${n}`) : h("span", {}, `Seat ${n}`));
  }
  const pots = potsShown(t);
  const current = pots.at(-1);
  const winner = pots.some((p) => p.winners.includes(n));
  const won = pots.reduce((sum, p) => sum + p.winners.reduce((a, w, i) => a + (w === n ? p.shares[i] : 0), 0), 0);
  const made = t.result && t.result.hands ? t.result.hands[String(n)] : null;
  const best = bestCards(t);
  const winsNow = current && current.winners.includes(n);
  const classes = ["seat", s.folded ? "folded" : "", t.toAct === n ? "acting" : "", n === t.you ? "mine" : "",
    winner ? "winner" : "", s.disconnected ? "disconnected" : "", s.sittingOut ? "out" : ""].join(" ");
  const bx = 50 + (pos.x - 50) * 0.6;
  const by = 50 + (pos.y - 50) * 0.55;
  return [
    h("div", { class: classes, style, dataset: { seat: n, player: s.player }, role: "group", "aria-label": `seat ${n}: ${s.player}` },
      h("div", { class: "cards" }, s.cards ? s.cards.map((c) => cardEl(c, best, dealClass(t, `seat${n}`, c)))
        : s.hasCards ? [0, 1].map((k) => cardEl(null, null, dealClass(t, `seat${n}`, `back${k}`))) : null),
      h("div", { class: "name", title: s.player }, seatName(s.player),
        t.button === n ? h("span", { class: "dealer", title: "button", role: "img", "aria-label": "dealer button" }, "D") : null,
        t.small === n && t.hand !== null ? h("span", { class: "blind", title: "small blind" }, "SB") : null,
        t.big === n && t.hand !== null ? h("span", { class: "blind", title: "big blind" }, "BB") : null),
      h("div", { class: "stack", dataset: { stack: s.stack } }, chips(s.stack)),
      s.player !== state.player ? hud(s.player) : null,
      h("div", { class: "status" },
        s.disconnected ? h("span", { class: "badge dc" }, "disconnected") : null,
        s.sittingOut ? h("span", { class: "badge" }, s.stack === 0 ? "out of chips" : "sitting out") : null,
        s.away ? h("span", { class: "badge away" }, "away") : null,
        s.marker ? h("span", { class: "badge missed", dataset: { marker: s.marker } }, MISSED_WORDS[s.marker] || s.marker) : null,
        s.allIn ? h("span", { class: "badge allin" }, "all-in") : null,
        s.last && !s.allIn ? h("span", { class: "last" }, s.last) : null,
        winner ? h("span", { class: `badge win${winsNow ? " now" : ""}`, dataset: { won } },
          `wins ${chips(won)}${made ? ` with ${handPhrase(made.description)}` : ""}`) : null),
      t.toAct === n ? h("div", { class: "clock" },
        h("div", { class: "timer", role: "progressbar", "aria-label": `time to act for ${s.player}`, "aria-valuemin": 0, "aria-valuemax": 100 },
          h("div", { class: "timer-fill" }), h("span", { class: "timer-count" })),
        h("div", { class: "bank", hidden: true }, h("div", { class: "bank-fill" }), h("span", { class: "bank-count" }))) : null),
    s.bet > 0 ? h("div", { class: "bet", style: `left:${bx}%;top:${by}%`, dataset: { seat: n, bet: s.bet } }, chips(s.bet)) : null,
  ];
}

function renderTable(t) {
  const entry = lobbyEntry(t.id);
  const seats = entry ? entry.seats : Math.max(2, ...t.seats.keys());
  const me = t.you !== null ? t.seats.get(t.you) : null;
  const felt = h("div", { class: seats >= 9 ? "felt many" : "felt", role: "group", "aria-label": "the table", dataset: { seats } },
    h("div", { class: "oval" }),
    h("div", { class: "center" },
      t.secondBoard && t.secondBoard.length
        ? h("div", { class: "boards", id: "boards" }, // a board run twice (R-HOME-4): both runs
          h("div", { class: "board first-run", role: "group", "aria-label": "first run" },
            h("span", { class: "run-label" }, "1st"), t.board.map((c) => cardEl(c, null, dealClass(t, "board", c)))),
          h("div", { class: "board second-run", role: "group", "aria-label": "second run" },
            h("span", { class: "run-label" }, "2nd"), t.secondBoard.map((c) => cardEl(c, null, dealClass(t, "board", c)))))
        : h("div", { class: "board", role: "group", "aria-label": "board" }, t.board.map((c) => cardEl(c, bestCards(t), dealClass(t, "board", c)))),
      h("div", { class: "pot", dataset: { pot: t.pot } }, t.hand !== null || t.pot > 0 && !t.result ? `Pot ${chips(t.pot)}` : ""),
      !t.pots.length && t.hand !== null && t.livePots && t.livePots.length > 1
        ? h("div", { class: "pots live-pots" }, t.livePots.map((p, i) =>
          h("div", { class: "live-pot-line", dataset: { index: i, amount: p.amount } },
            `${i === 0 ? "Main pot" : `Side pot ${i}`} ${chips(p.amount)}`)))
        : null,
      t.pots.length
        ? h("div", { class: "pots" }, potsShown(t).map((p, k, all) =>
          h("div", { class: `pot-line${k === all.length - 1 ? " current" : ""}`, dataset: { index: p.index, amount: p.amount } },
            `${p.index === 0 ? "Main pot" : `Side pot ${p.index}`} ${chips(p.amount)}${p.rake ? ` (rake ${chips(p.rake)})` : ""}: `,
            p.runs && p.runs.length
              ? potRunsText(t, p) // R-HOME-4: each half's winner
              : p.winners.map((w, i) => {
                const made = t.result && t.result.hands ? t.result.hands[String(w)] : null;
                const name = t.seats.get(w) ? t.seats.get(w).player : `seat ${w}`;
                return `${name} wins ${chips(p.shares[i])}${made ? ` with ${handPhrase(made.description)}` : ""}`;
              }).join(", "))))
        : null),
    [...Array(seats).keys()].map((i) => renderSeat(t, i + 1, seats)));
  const mine = me && me.cards
    ? h("div", { class: "my-hand", role: "group", "aria-label": "your hand" },
      h("div", { class: "cards" }, me.cards.map(cardEl)),
      t.description ? h("div", { class: "words", id: "hand-words" }, t.description) : null)
    : null;
  const title = h("div", { class: "table-head" },
    h("h1", {}, entry ? entry.name : t.id),
    tournamentOf(t.id) ? tournamentBar(t) : h("p", { class: "info" }, t.info),
    state.notice && state.notice.table === t.id && Date.now() < state.notice.until
      ? h("p", { class: "moved-notice", id: "moved-notice", role: "status" }, state.notice.text) : null,
    t.you === null && !gameOfTable(t.id) ? h("p", { class: "observing" }, "Observing", t.onWaitList ? " — on the waiting list" : "") : null,
    gameHead(gameOfTable(t.id)));
  const game = gameOfTable(t.id);
  const side = h("aside", { class: game ? "side home" : "side" }, game ? homePanel(t, game) : null, renderChat(t),
    h("ol", { class: "log", "aria-label": "hand log" }, t.log.slice(-30).map((l) => h("li", {}, l))));
  const focused = document.activeElement && document.activeElement.id;
  const caret = focused === "chat-text" ? document.activeElement.selectionStart : null;
  // the dock (the player's cards and the action bar) is kept inside the viewport by the style
  // sheet; the seat's settings follow it, in the page's flow
  const dock = h("div", { class: "dock", id: "dock" }, [mine, renderActions(t, entry), renderBusted(t, entry)].map((c) => keepIfSame(c, t.id)));
  const controls = h("div", { class: "controls" }, keepIfSame(renderSeatControls(t, entry), t.id));
  const broke = busted(me, t.pendingChips) && !tournamentOf(t.id);
  app.replaceChildren(renderStrip(t) || "", h("section", { class: `table-view${myTurn(t) ? " your-turn" : ""}${broke ? " busted" : ""}` },
    title, felt, dock, controls, side));
  for (const list of side.querySelectorAll(".log, .chat-lines")) list.scrollTop = list.scrollHeight;
  const again = focused ? document.getElementById(focused) : null;
  if (again && document.querySelectorAll("dialog[open]").length === 0) {
    again.focus();
    if (caret !== null) again.setSelectionRange(caret, caret);
  }
  tick();
}

// A control the redraw would rebuild unchanged stays the very element on the page, so a click
// or a tap that lands while another message redraws the table is not lost. Never another
// table's: two tables in the same spot draw the same buttons, bound to their own table.
function keepIfSame(fresh, tableId) {
  if (!fresh || !fresh.id) return fresh;
  fresh.dataset.table = tableId;
  const old = document.getElementById(fresh.id);
  if (!old || old.outerHTML !== fresh.outerHTML) return fresh;
  const before = old.querySelectorAll("input");
  const after = fresh.querySelectorAll("input");
  for (let i = 0; i < after.length; i += 1) {
    if (after[i].type === "checkbox" && before[i].checked !== after[i].checked) return fresh;
  }
  return old;
}

function renderActions(t, entry) {
  const me = t.you !== null ? t.seats.get(t.you) : null;
  const box = h("div", { class: "actions", id: "actions", role: "group", "aria-label": "actions" });
  if (!me) return box;
  if (t.prompt) {
    box.append(h("div", { class: "prompt", id: "blind-prompt" },
      h("p", {}, `Post ${chips(t.prompt.amount)} to be dealt in now, or wait for the big blind.`),
      h("button", { type: "button", id: "post-blind", onclick: () => { t.prompt = null; send(t, { type: "post_blind" }); } }, `Post ${chips(t.prompt.amount)}`),
      h("button", { type: "button", id: "decline-blind", onclick: () => { t.prompt = null; send(t, { type: "decline_blind" }); } }, "Wait"),
      h("span", { class: "expires", dataset: { expires: t.prompt.expires } })));
  }
  if (t.runTwice) {
    // R-HOME-4: the question, two buttons and the time left (no answer: one run)
    const answer = (agree) => { t.runTwice = null; send(t, { type: "run_twice", agree }); renderTable(t); };
    box.append(h("div", { class: "prompt run-twice", id: "run-twice", role: "group", "aria-label": "run it twice?" },
      h("p", {}, "Everyone is all in. Run the rest of the board twice?"),
      h("button", { type: "button", id: "run-twice-yes", onclick: () => answer(true) }, "Run it twice"),
      h("button", { type: "button", id: "run-twice-no", onclick: () => answer(false) }, "Run it once"),
      h("span", { class: "expires", dataset: { expires: t.runTwice.deadline } })));
  }
  const legal = t.legal;
  if (legal && t.toAct === t.you && t.hand !== null) {
    const act = async (action, amount) => {
      const message = { type: "act", hand: t.hand, action };
      if (amount !== undefined) message.amount = amount;
      if (t.turnId !== null && t.turnId !== undefined) message.turn_id = t.turnId;
      // one action a turn: the controls go until the server answers (no double click)
      const offered = t.legal;
      t.legal = null;
      renderTable(t);
      const reply = await send(t, message);
      if (reply.type === "error" && t.toAct === t.you && t.hand === message.hand && t.legal === null) {
        t.legal = reply.legal || offered; // refused: the server's legal actions again
        if (state.current === t.id) renderTable(t);
      } else if (reply.type !== "error" && state.current === t.id && !myTurn(t)) raiseWaitingTable();
      return reply;
    };
    const buttons = h("div", { class: "row" });
    if (legal.fold) buttons.append(h("button", { type: "button", class: "fold", id: "act-fold", "aria-keyshortcuts": "F", onclick: () => act("fold") }, "Fold"));
    if (legal.check) buttons.append(h("button", { type: "button", id: "act-check", "aria-keyshortcuts": "C", onclick: () => act("check") }, "Check"));
    if (legal.call !== null) buttons.append(h("button", { type: "button", id: "act-call", "aria-keyshortcuts": "C", onclick: () => act("call") }, `Call ${chips(legal.call)}`));
    box.append(buttons);
    if (legal.raise_min !== null) box.append(raiseControls(t, entry, legal, act));
    box.append(shortcutsHint(box));
    if (t.error) box.append(h("p", { class: "form-error", id: "act-error", role: "alert" }, t.error));
    return box;
  }
  if (me.inHand && t.hand !== null && !me.folded && !me.allIn && t.toAct !== t.you) box.append(preActions(t));
  if (t.showable && t.hand === null) {
    box.append(h("button", { type: "button", id: "show-cards", onclick: async () => {
      t.showable = false;
      await send(t, { type: "show", hand: t.showHand });
    } }, "Show cards"));
  }
  return box;
}

/** The keys of the controls shown: the presets' keys only when presets are offered (never at
 * Fixed-Limit, where a bet or raise has one size). */
function shortcutsHint(box) {
  const wager = box.querySelector(".wager");
  const presets = [...box.querySelectorAll(".preset")].map((b) =>
    [h("kbd", {}, b.getAttribute("aria-keyshortcuts")), ` ${b.dataset.label} · `]);
  return h("p", { class: "shortcuts", id: "shortcuts" }, "Keys: ",
    h("kbd", {}, "F"), " fold · ", h("kbd", {}, "C"), " check or call · ",
    wager ? [h("kbd", {}, "R"), " or ", h("kbd", {}, "Enter"), " bet or raise · "] : null,
    presets,
    h("kbd", {}, "Tab"), " to move between the controls");
}

/**
 * The wager controls (R-BET-6): the box takes any amount the server offered, the slider steps by
 * the big blind (its last step is the maximum), and the presets are fractions of the pot after a
 * call: ⅓, ½, ¾ and pot (at Pot-Limit the pot is the maximum), then all-in. The pot is the
 * server's (dead money in it, never in a seat's bet).
 */
function raiseControls(t, entry, legal, act) {
  const verb = legal.bet ? "Bet" : "Raise to";
  const verbId = legal.bet ? "bet" : "raise";
  const structure = entry ? entry.structure : "no_limit";
  const min = legal.raise_min;
  const max = legal.raise_max;
  const me = t.seats.get(t.you) || { stack: 0, bet: 0 };
  const allIn = max === me.stack + me.bet;
  const wrap = h("div", { class: "raise", id: "raise-controls", dataset: { min, max, structure } });
  if (min === max) {
    wrap.append(h("button", { type: "button", id: `act-${verbId}`, class: "wager", "aria-keyshortcuts": "R", onclick: () => act(verbId, min) },
      `${verb} ${chips(min)}${allIn ? " (all-in)" : ""}`));
    return wrap;
  }
  const call = legal.call || 0;
  const facing = me.bet + call;
  const potAfterCall = t.pot + call;
  const clamp = (x) => Math.max(min, Math.min(max, Math.floor(x)));
  const step = Math.max(1, (entry && entry.settings && entry.settings.big_blind_amount) || 1);
  const steps = Math.ceil((max - min) / step);
  const toAmount = (k) => Math.min(max, min + k * step);
  const toStep = (amount) => Math.max(0, Math.min(steps, Math.round((amount - min) / step)));
  // what the player typed survives a redraw (a chat line, a clock event) within this turn
  const key = `${t.hand}:${min}:${max}`;
  const start = t.draft && t.draft.key === key ? t.draft.value : String(min);
  const remember = (value) => (t.draft = { key, value });
  const amount = h("input", { type: "number", id: "raise-amount", min, max, step: 1, value: start, inputmode: "numeric", "aria-label": `${verb} amount, ${min} to ${max}` });
  const slider = h("input", {
    type: "range", id: "raise-slider", min: 0, max: steps, step: 1, value: toStep(Number(start)),
    dataset: { min, max, step }, "aria-label": `${verb} amount slider, in steps of the big blind`,
    "aria-valuetext": chips(Number(start)),
  });
  slider.addEventListener("input", () => {
    const value = toAmount(Number(slider.value));
    amount.value = value;
    slider.setAttribute("aria-valuetext", chips(value));
    remember(String(value));
  });
  amount.addEventListener("input", () => {
    slider.value = toStep(Number(amount.value));
    slider.setAttribute("aria-valuetext", chips(Number(amount.value)));
    remember(amount.value);
  });
  const preset = (label, value, id, shortcut) =>
    h("button", { type: "button", class: "preset", id, dataset: { amount: value, label }, "aria-keyshortcuts": shortcut,
      onclick: () => { amount.value = value; slider.value = toStep(value); remember(String(value)); } }, `${label} ${chips(value)}`);
  const presets = h("div", { class: "row presets" }, preset("Min", min, "preset-min", "1"));
  const fractions = [["⅓ Pot", 1 / 3, "preset-third", "2"], ["½ Pot", 1 / 2, "preset-half", "3"], ["¾ Pot", 3 / 4, "preset-three-quarters", "4"]];
  for (const [label, part, id, shortcut] of fractions) {
    const value = clamp(facing + potAfterCall * part);
    if (value > min && value < max) presets.append(preset(label, value, id, shortcut));
  }
  const pot = clamp(facing + potAfterCall);
  if (structure === "pot_limit") presets.append(preset("Pot", max, "preset-pot", "5"));
  else {
    if (pot > min && pot < max) presets.append(preset("Pot", pot, "preset-pot", "5"));
    presets.append(preset("All-in", max, "preset-allin", "6"));
  }
  wrap.append(
    presets,
    h("div", { class: "row" }, slider, amount,
      h("button", { type: "button", id: `act-${verbId}`, class: "wager", "aria-keyshortcuts": "R",
        onclick: () => act(verbId, Number(amount.value)) }, verb)),
    h("p", { class: "range", id: "raise-range" }, `${verb} ${chips(min)} to ${chips(max)}${structure === "pot_limit" ? " (pot limit)" : ""}`));
  return wrap;
}

function preActions(t) {
  const call = owed(t);
  const options = call > 0
    ? [["fold", "Fold"], ["call", `Call ${chips(call)}`, call], ["call_any", "Call any"]]
    : [["check_fold", "Check/Fold"], ["check", "Check"], ["call_any", "Call any"]];
  const box = h("fieldset", { class: "pre-actions", id: "pre-actions" }, h("legend", {}, "Before your turn"));
  for (const [kind, label, amount] of options) {
    const chosen = t.preAction && t.preAction.kind === kind && (kind !== "call" || t.preAction.amount === amount);
    const input = h("input", { type: "checkbox", id: `pre-${kind}`, checked: Boolean(chosen), dataset: { kind } });
    input.addEventListener("change", async () => {
      const message = { type: "pre_action", hand: t.hand, kind: input.checked ? kind : null };
      if (input.checked && kind === "call") message.amount = amount;
      const reply = await send(t, message);
      if (reply.type === "ok") t.preAction = input.checked ? { kind, amount } : null;
      if (state.current === t.id) renderTable(t);
    });
    box.append(h("label", {}, input, ` ${label}`));
  }
  return box;
}

function renderSeatControls(t, entry) {
  const me = t.you !== null ? t.seats.get(t.you) : null;
  const box = h("div", { class: "seat-controls row", id: "seat-controls" });
  const tournament = tournamentOf(t.id);
  if (tournament) {
    // R-TOURN-15: no buy-in, chips or leaving; away and back only (R-TOURN-6)
    const away = async (on) => {
      const reply = await send(t, { type: on ? "sit_out" : "sit_in" });
      if (reply.type === "ok" && t.seats.get(t.you)) t.seats.get(t.you).away = on;
      if (state.current === t.id) renderTable(t);
    };
    if (me && me.away) box.append(h("button", { type: "button", id: "sit-in", onclick: () => away(false) }, "I'm back"));
    else if (me) box.append(h("button", { type: "button", id: "sit-out", onclick: () => away(true) }, "Sit out (away)"));
    if (!me) {
      box.append(h("button", { type: "button", id: "stop-watching", onclick: () => {
        send(t, { type: "unobserve" });
        unwatchTable(t.id);
        location.hash = `#tournament/${encodeURIComponent(tournament)}`;
      } }, "Stop watching"));
    }
    box.append(h("a", { href: `#tournament/${encodeURIComponent(tournament)}`, id: "tournament-lobby-link" }, "Tournament lobby"));
    return box;
  }
  if (!me) {
    if (!t.onWaitList && mayPlay()) box.append(h("button", { type: "button", onclick: () => joinWaitList(t.id) }, "Join the waiting list"));
    else box.append(h("button", { type: "button", onclick: () => send(t, { type: "wait_list_leave" }).then(() => { t.onWaitList = false; renderTable(t); }) }, "Leave the waiting list"));
    if (t.offer) box.append(h("button", { type: "button", id: "take-offer", onclick: () => buyInDialog(t, t.offer.seat) }, `Take seat ${t.offer.seat}`));
    box.append(h("button", { type: "button", onclick: () => { send(t, { type: "unobserve" }); unwatchTable(t.id); location.hash = "#lobby"; } }, "Back to the lobby"));
    return box;
  }
  // the server's word (the snapshot's settings) first, then what this page set since
  const setting = (key, map, fallback = true) => (map.has(t.id) ? map.get(t.id)
    : t.settings && typeof t.settings[key] === "boolean" ? t.settings[key] : fallback);
  const autoPost = h("input", { type: "checkbox", id: "auto-post", checked: setting("auto_post", state.autoPost) });
  const toggle = (input, type, map) => input.addEventListener("change", async () => {
    const on = input.checked;
    map.set(t.id, on); // a redraw before the answer keeps the box as the player left it
    const reply = await send(t, { type, on });
    if (reply.type !== "ok") {
      map.set(t.id, !on);
      if (state.current === t.id) renderTable(t);
    }
  });
  toggle(autoPost, "auto_post", state.autoPost);
  const autoMuck = h("input", { type: "checkbox", id: "auto-muck", checked: setting("auto_muck", state.autoMuck) });
  toggle(autoMuck, "auto_muck", state.autoMuck);
  const autoRebuy = h("input", { type: "checkbox", id: "auto-rebuy", checked: setting("auto_rebuy", state.autoRebuy, false) });
  toggle(autoRebuy, "auto_rebuy", state.autoRebuy);
  box.append(h("label", {}, autoPost, " Auto-post blinds"), h("label", {}, autoMuck, " Auto-muck losing hands"),
    h("label", { title: "when your stack is empty, buy in again from your wallet and play on" }, autoRebuy, " Auto-rebuy"));
  if (t.settings && typeof t.settings.straddle === "boolean") {
    // R-HOME-3: only at a table that allows straddles (its snapshot's settings carry the choice)
    const straddle = h("input", { type: "checkbox", id: "straddle", checked: setting("straddle", state.straddle, false) });
    toggle(straddle, "straddle", state.straddle);
    box.append(h("label", { title: "post twice the big blind when you are first after the big blind: you act last before the flop" }, straddle, " Straddle"));
  }
  if (entry && entry.settings && entry.settings.run_it_twice) {
    // R-HOME-4: the standing choice, as the server keeps it
    const current = t.settings && t.settings.run_twice ? t.settings.run_twice : "ask";
    const choice = h("select", { id: "run-twice-choice" },
      [["always", "always"], ["ask", "ask me"], ["never", "never"]].map(([value, text]) =>
        h("option", { value, selected: value === current }, text)));
    choice.addEventListener("change", async () => {
      const reply = await send(t, { type: "run_twice_choice", choice: choice.value });
      if (reply.type === "ok") t.settings = { ...(t.settings || {}), run_twice: choice.value };
      if (state.current === t.id) renderTable(t);
    });
    box.append(h("label", {}, "Run it twice: ", choice));
  }
  box.append(h("button", { type: "button", id: "add-chips-open", onclick: () => addChipsDialog(t) }, "Add chips"));
  if (t.pendingChips) box.append(h("span", { class: "pending-chips", id: "pending-chips" }, `+${chips(t.pendingChips)} after this hand`));
  if (me.sittingOut && !busted(me, t.pendingChips)) { // busted: the rebuy panel instead (renderBusted)
    const owes = me.owes === "MS" || me.owes === "ML";
    const sitIn = async (entry) => {
      const reply = await send(t, { type: "sit_in", entry });
      if (reply.type === "ok" && reply.pending) toast("You sit in as your chips join your stack, when this hand ends.", "info");
    };
    box.append(h("button", { type: "button", id: "sit-in", onclick: () => sitIn("post") }, owes ? "Sit in and post the missed blinds" : "Sit in"));
    if (owes) box.append(h("button", { type: "button", id: "sit-in-wait", onclick: () => sitIn("wait") }, "Sit in, wait for the big blind"));
  } else {
    box.append(h("button", { type: "button", id: "sit-out", onclick: () => send(t, { type: "sit_out" }) }, "Sit out"));
  }
  box.append(h("button", { type: "button", id: "leave", onclick: () => send(t, { type: "leave" }) }, "Leave"));
  return box;
}

/**
 * A busted seat (issue 42): the rebuy offered (a default in the table's buy-in range that the
 * wallet covers) or leaving; a wallet below the minimum is told when the next play-money grant
 * comes and what to do meanwhile. Cash tables only: the tournament seats its players.
 */
function renderBusted(t, entry) {
  const me = t.you !== null ? t.seats.get(t.you) : null;
  if (!entry || tournamentOf(t.id) || !busted(me, t.pendingChips)) return null;
  const box = h("div", { class: "busted prompt", id: "busted", role: "status" }, h("p", {}, h("strong", {}, "You are out of chips.")));
  if (homeChips(entry)) return homeRebuy(t, entry, box);
  const wallet = currencyBalance(entry);
  const offered = rebuyAmount(entry.settings, wallet);
  const leave = h("button", { type: "button", id: "busted-leave", onclick: () => send(t, { type: "leave" }) }, "Leave the table");
  if (offered !== null) {
    const max = entry.settings.buy_in_max;
    const top = max === null ? wallet : Math.min(max, wallet);
    const amount = h("input", { type: "number", id: "rebuy-amount", min: entry.settings.buy_in_min, max: top, step: 1, value: offered,
      "aria-label": `rebuy amount, ${entry.settings.buy_in_min} to ${top}` });
    box.append(
      h("p", {}, `Buy in again from your wallet (${money(entry, wallet)}): ${money(entry, entry.settings.buy_in_min)} to ${money(entry, top)}.`),
      h("div", { class: "row" }, amount,
        h("button", { type: "button", id: "rebuy", class: "wager", onclick: () => rebuy(t, entry, Number(amount.value)) }, "Rebuy"),
        leave));
    return box;
  }
  box.append(h("p", {}, `Your wallet holds ${money(entry, wallet)}; this table's buy-in is at least ${money(entry, entry.settings.buy_in_min)}.`));
  const grant = entry.currency === "PLAY" ? grantStatus() : null;
  if (grant && grant.available) {
    box.append(h("div", { class: "row" },
      h("button", { type: "button", id: "busted-grant", onclick: async () => { await takeGrant(); renderTable(t); } }, "Get play chips"), leave));
  } else {
    const when = grant ? `Your next play-chip grant comes ${grantWait(grant.next_grant_at, state.socket.now())}. ` : "";
    box.append(h("p", { id: "grant-wait" }, when,
      "Meanwhile you can watch this table, replay your hands in the ", h("a", { href: "#history" }, "history"),
      ", or leave the seat; your seat is released after sitting out too long."),
    h("div", { class: "row" }, leave));
  }
  return box;
}

/** Add the rebuy's chips and sit in (as they join the stack if a hand is being played). */
async function rebuy(t, entry, amount) {
  const reply = await send(t, { type: "add_chips", amount });
  if (reply.type === "error") return;
  if (reply.request) {
    askedHost(t, reply.request); // the chips come when the host approves; the seat sits in then
    t.rebuyAsked = reply.request;
    if (state.current === t.id) renderTable(t);
    return;
  }
  if (reply.pending) t.pendingChips = (t.pendingChips || 0) + amount;
  refreshBalance();
  const sat = await send(t, { type: "sit_in", entry: "post" });
  if (sat.type === "ok" && sat.pending) toast(`You sit in with ${money(entry, amount)} when this hand ends.`, "info");
  if (state.current === t.id) renderTable(t);
}

/** A home game's busted seat: a rebuy of the game's chips, asked of the host unless buy-ins
 * are automatic; the seat sits in once the chips are on it. */
function homeRebuy(t, entry, box) {
  const min = entry.settings.buy_in_min;
  const max = entry.settings.buy_in_max;
  const leave = h("button", { type: "button", id: "busted-leave", onclick: () => send(t, { type: "leave" }) }, "Leave the table");
  if (t.rebuyAsked) {
    box.append(h("p", { id: "rebuy-asked" }, `You asked the host for a rebuy of ${money(entry, t.rebuyAsked.amount || 0)}: you play on when they approve it.`), h("div", { class: "row" }, leave));
    return box;
  }
  const amount = h("input", { type: "number", id: "rebuy-amount", min, max, step: 1, value: max, "aria-label": `rebuy amount, ${min} to ${max}` });
  box.append(h("p", {}, `Rebuy ${money(entry, min)} to ${money(entry, max)} of the game's chips. ${approvalText(entry)}`),
    h("div", { class: "row" }, amount,
      h("button", { type: "button", id: "rebuy", class: "wager", onclick: () => rebuy(t, entry, Number(amount.value)) }, "Rebuy"), leave));
  return box;
}

function approvalText(entry) {
  const g = state.games.get(entry.home);
  if (g && g.auto_buy_in) return "Buy-ins need no approval in this game.";
  return g && (g.you === "host" || g.you === "cohost") ? "You approve it in your panel." : "The host approves it.";
}

/** A fresh snapshot of a watched table (the player's seat in it, given by the game). */
function observeAgain(tableId) {
  const t = state.tables.get(tableId);
  if (t) t.observing = null;
  observeTable(tableId);
}

/** A buy-in or rebuy the host is asked to approve (the answer comes as a `game_request`). */
function askedHost(t, request) {
  const entry = lobbyEntry(t.id);
  toast(`You asked the host for ${money(entry, request.amount || 0)}: the chips come when they approve.`, "info");
  announce("Your request went to the host.");
}

/** The play-money grant's status (GET /api/grant), asked again after a minute. */
function grantStatus() {
  const now = Date.now();
  if (!state.grant || (now - state.grant.at > 60_000 && !state.grant.asking)) {
    state.grant = { ...(state.grant || {}), asking: true, at: now };
    api("GET", "/api/grant").then((status) => {
      state.grant = { ...status, at: Date.now() };
      if (state.view === "table") render();
    }).catch(() => { state.grant = { at: Date.now() }; });
  }
  return state.grant && "available" in state.grant ? state.grant : null;
}

function renderChat(t) {
  const input = h("input", { id: "chat-text", maxlength: 200, "aria-label": "chat message", autocomplete: "off", value: t.chatDraft || "" });
  input.addEventListener("input", () => (t.chatDraft = input.value));
  const lines = h("ol", { class: "chat-lines", "aria-label": "chat" },
    t.chat.slice(-50).map((c) => h("li", {}, h("b", {}, c.player), ": ", c.text)));
  return h("form", { class: "chat", onsubmit: async (e) => {
    e.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    const reply = await send(t, { type: "chat", text });
    if (reply.type === "ok") {
      t.chatDraft = "";
      const box = document.getElementById("chat-text");
      if (box) box.value = "";
    }
  } }, lines, h("div", { class: "row" }, input, h("button", { type: "submit" }, "Say")));
}

function tick() {
  if (!state.socket) return;
  tickTournament();
  pollGame();
  if (state.view !== "table") return;
  const t = state.tables.get(state.current);
  const question = app.querySelector("#run-twice .expires");
  if (question) question.textContent = `${Math.max(0, Math.ceil(Number(question.dataset.expires) - state.socket.now()))}s`;
  if (!t || t.toAct === null || t.deadline === null) return;
  const now = state.socket.now();
  // the base time (act + countdown) and the time bank apart (R-TIME-1)
  const bankAt = t.bankAt !== null && t.bankAt !== undefined ? Math.min(t.bankAt, t.deadline) : t.deadline;
  const total = Math.max(0.1, bankAt - (t.turnStart || now));
  const left = Math.max(0, bankAt - now);
  const bankSize = Math.max(0, t.deadline - bankAt);
  const bankLeft = now < bankAt ? bankSize : Math.max(0, t.deadline - now);
  const fill = app.querySelector(".timer-fill");
  const count = app.querySelector(".timer-count");
  const bar = app.querySelector(".timer");
  if (!fill) return;
  const pct = Math.round((100 * left) / total);
  fill.style.width = `${pct}%`;
  bar.setAttribute("aria-valuenow", pct);
  const counting = t.countdownAt !== null && now >= t.countdownAt && now < bankAt;
  bar.classList.toggle("counting", counting);
  count.textContent = counting ? `${Math.ceil(left)}s` : "";
  const bank = app.querySelector(".clock .bank");
  if (bank) {
    bank.hidden = bankSize <= 0;
    bank.classList.toggle("running", now >= bankAt);
    bank.querySelector(".bank-fill").style.width = `${bankSize ? Math.round((100 * bankLeft) / bankSize) : 0}%`;
    bank.querySelector(".bank-count").textContent = `Time bank ${Math.ceil(bankLeft)}s`;
    bank.dataset.left = Math.ceil(bankLeft);
  }
  const expires = app.querySelector("#blind-prompt .expires");
  if (expires) expires.textContent = `${Math.max(0, Math.ceil(Number(expires.dataset.expires) - now))}s`;
}

const PRESET_KEYS = { 1: "preset-min", 2: "preset-third", 3: "preset-half", 4: "preset-three-quarters", 5: "preset-pot", 6: "preset-allin" };

function onKey(e) {
  if (state.view !== "table") return;
  const target = e.target;
  if (target && (target.tagName === "INPUT" && target.type !== "checkbox" && target.type !== "range" || target.tagName === "TEXTAREA")) {
    if (!(target.id === "raise-amount" && e.key === "Enter")) return;
  }
  const click = (id) => {
    const b = document.getElementById(id);
    if (b) {
      e.preventDefault();
      b.click();
    }
  };
  const key = e.key.toLowerCase();
  const preset = PRESET_KEYS[e.key];
  if (preset) click(preset);
  else if (key === "f") click("act-fold");
  else if (key === "c") document.getElementById("act-check") ? click("act-check") : click("act-call");
  else if (key === "r" || e.key === "Enter") document.getElementById("act-raise") ? click("act-raise") : click("act-bet");
}

// ------------------------------------------------------------------ home games (docs/home-games.md)

const HOME_GAMES = { NL: "No-Limit Hold'em", PL: "Pot-Limit Hold'em", FL: "Limit Hold'em" };
const HOME_STRUCTURES = { NL: "no_limit", PL: "pot_limit", FL: "fixed_limit" };
const HOME_DEFAULTS = { game: "NL", small_blind: 1, big_blind: 2, seats: 6, min_buy_in: 40, max_buy_in: 200, admission: true, auto_buy_in: false };
const REQUEST_WORDS = { seat: "asks for a seat", buy_in: "asks to buy in for", rebuy: "asks to rebuy for" };

/** The invite in the page's address (``/g/<secret>``), or null. */
function inviteSecret() {
  const found = location.pathname.match(/^\/g\/([^/]+)\/?$/);
  return found ? decodeURIComponent(found[1]) : null;
}

/** The player's games (hosted, co-hosted or played), newest first: GET /api/games. */
async function loadGames() {
  try {
    const answer = await api("GET", "/api/games");
    for (const g of answer.games) state.games.set(g.id, g);
    state.homeCurrencies = answer.currencies || []; // wallet currencies the operator allows
    state.gamesLoaded = true;
  } catch (_) {
    return;
  }
  if (state.view === "lobby") renderLobby();
  else if (state.view === "invite" && state.invite && state.invite.game) renderInvite();
}

/** The game whose table is ``tableId``, if the page knows it. */
function gameOfTable(tableId) {
  for (const g of state.games.values()) if (g.table === tableId) return g;
  return null;
}

/** A home table as the table view wants a lobby entry: its name, seats, stakes and buy-ins. */
function homeTableEntry(id) {
  const g = gameOfTable(id);
  if (!g) return null;
  return {
    id,
    home: g.id,
    name: g.name,
    game: "Hold'em",
    structure: HOME_STRUCTURES[g.game] || "no_limit",
    stakes: `${g.small_blind}/${g.big_blind}`,
    seats: g.seats,
    currency: g.currency,
    settings: { buy_in_min: g.min_buy_in, buy_in_max: g.max_buy_in, big_blind_amount: g.big_blind, small_blind_amount: g.small_blind, exponent: 0 },
  };
}

/** The game's own chips: no wallet holds them, the host issues them (R-HOME-1). */
function homeChips(entry) {
  return Boolean(entry && entry.home) && (entry.currency === entry.home || String(entry.currency).startsWith("home:"));
}

function gameSummary(g) {
  const extras = [g.straddle ? "straddles" : "", g.run_it_twice ? "run it twice" : ""].filter(Boolean);
  return `${HOME_GAMES[g.game] || g.game} ${chips(g.small_blind)}/${chips(g.big_blind)}, ${g.seats} seats, buy-in ${chips(g.min_buy_in)} to ${chips(g.max_buy_in)}${extras.length ? ", " + extras.join(", ") : ""}`;
}

function inviteUrl(g) {
  return g.invite ? new URL(g.invite, location.origin).href : null;
}

/** A game as the server sent it (an answer or a `game` message): kept, and the page redrawn. */
function keepGame(g) {
  const before = state.games.get(g.id);
  // the players' reduced view carries no invite and no requests: never drop what the host has
  state.games.set(g.id, before && !("requests" in g) && before.you !== "player" ? { ...before, ...g } : g);
  if (g.status === "ended" && (!before || before.status !== "ended")) {
    loadLedger(g.id);
    const t = state.tables.get(g.table);
    if (t && !toLedgerAfterHand(t) && t.you === null && state.current !== g.table) unwatchTable(g.table);
  }
  redrawGame(g.id);
}

/** A home table whose game ended: the ledger once no hand is being played there (the hand in
 * progress is played out first, R-HOME-2). True when the page went to the ledger. */
function toLedgerAfterHand(t) {
  const g = gameOfTable(t.id);
  if (!g || g.status !== "ended" || state.view !== "table" || state.current !== t.id) return false;
  const me = t.you !== null && t.you !== undefined ? t.seats.get(t.you) : null;
  if (t.hand !== null && me && me.inHand && !me.folded) return false;
  location.hash = `#ledger/${encodeURIComponent(g.id)}`;
  return true;
}

function redrawGame(id) {
  const g = state.games.get(id);
  if (state.view === "lobby") renderLobby();
  else if (state.view === "table" && g && state.current === g.table) renderTable(state.tables.get(g.table));
  else if ((state.view === "game" || state.view === "ledger") && state.current === id) render();
}

function onGameMessage(m) {
  if (m.type === "game") {
    keepGame(m.game);
    return;
  }
  // game_request: the host answered the player's request
  const r = m.request;
  const g = state.games.get(m.game);
  const name = g ? g.name : "the game";
  const words = {
    admitted: `The host let you in to ${name}.`,
    approved: `The host approved your ${r.kind === "rebuy" ? "rebuy" : "buy-in"} of ${chips(r.amount)} at ${name}.`,
    refused: `The host refused your ${r.kind === "seat" ? "seat request" : r.kind === "rebuy" ? "rebuy" : "buy-in"} at ${name}.`,
  }[r.status] || `Your request at ${name}: ${r.status}.`;
  toast(words, r.status === "refused" ? "error" : "info");
  announce(words);
  if (g) g.you = r.status === "refused" && g.you === "pending" ? null : g.you;
  const t = g ? state.tables.get(g.table) : null;
  if (t && r.kind !== "seat") {
    const rebuyWas = t.rebuyAsked;
    t.rebuyAsked = null;
    const me = t.you !== null && t.you !== undefined ? t.seats.get(t.you) : null;
    // the rebuy's chips are on the stack: the seat sits in again
    if (rebuyWas && r.status === "approved" && me && me.sittingOut) send(t, { type: "sit_in", entry: "post" });
  }
  if (r.status === "admitted" || r.status === "approved") {
    if (g && state.tables.has(g.table)) observeAgain(g.table);
    openGame(m.game, true);
    refreshBalance();
  } else if (state.current === m.game) render();
}

/** The game shown, asked again every few seconds: the `game` messages bring each change as it
 * happens, this catches up after a lost connection (and a page waiting for the host). */
let gamePolled = 0;
async function pollGame() {
  if (state.view === "ledger") {
    // after the end, the players leave as the hand in progress ends: the chips at the table
    // become cash-outs within moments, and the page follows them for a minute
    const g = state.games.get(state.current);
    const ledger = state.ledgers.get(state.current);
    const seated = ledger && ledger.players && ledger.players.some((p) => p.at_table > 0);
    const now = state.socket ? state.socket.now() : Date.now() / 1000;
    if (g && g.status === "ended" && seated && now - (g.ended || 0) < 60) ledgerOf(g.id);
    return;
  }
  const g = state.view === "table" ? gameOfTable(state.current) : state.view === "game" ? state.games.get(state.current) : null;
  if (!g || g.status === "ended" || Date.now() - gamePolled < 4000) return;
  gamePolled = Date.now();
  try {
    const answer = await api("GET", `/api/games/${encodeURIComponent(g.id)}`);
    const was = g.you;
    keepGame(answer.game);
    if (state.view === "game" && state.current === g.id && was !== answer.game.you) openGame(g.id);
  } catch (_) {
    /* said by the next call */
  }
}

/** Open game ``id``: its table (with the host's panel or the player's bar), a page that waits
 * for the host while the seat is asked for, or its ledger once it ended. */
async function openGame(id, reload = false) {
  if (reload || !state.games.has(id)) {
    try {
      const answer = await api("GET", `/api/games/${encodeURIComponent(id)}`);
      state.games.set(id, answer.game);
    } catch (error) {
      if (!(state.games.has(id) && state.asked.has(id))) { // asked by the link: the host answers
        state.gameError = { id, text: error.status === 404 ? "That game does not exist, or you are not one of its players." : errorText(error) };
        if (state.current === id) render();
        return;
      }
    }
  }
  const g = state.games.get(id);
  if (g.status === "ended") {
    location.hash = `#ledger/${encodeURIComponent(id)}`;
    return;
  }
  if (g.you === "pending" || g.you === null) {
    if (location.hash !== `#game/${encodeURIComponent(id)}`) location.hash = `#game/${encodeURIComponent(id)}`;
    else render();
    return;
  }
  location.hash = `#table/${encodeURIComponent(g.table)}`;
}

/** A host control (POST /api/games/{id}/<control>); the game answered is kept. */
async function control(g, name, body = {}) {
  try {
    const answer = await api("POST", `/api/games/${encodeURIComponent(g.id)}/${name}`, body);
    keepGame(answer.game);
    return answer.game;
  } catch (error) {
    toast(errorText(error));
    return null;
  }
}

// "Host a game": a form with the defaults filled in; the game opens with its invite link.
function hostDialog() {
  const field = (id, label, value, attrs = {}) => {
    const input = h("input", { id, name: id, type: "number", min: 1, step: 1, value, required: true, inputmode: "numeric", ...attrs });
    return [h("label", { for: id }, label), input];
  };
  const name = h("input", { id: "host-name", name: "name", value: `${state.player}'s game`, maxlength: 40, required: true });
  const game = h("select", { id: "host-game-kind", name: "game" },
    Object.entries(HOME_GAMES).map(([k, label]) => h("option", { value: k, selected: k === HOME_DEFAULTS.game }, label)));
  const seats = h("select", { id: "host-seats", name: "seats" },
    [2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => h("option", { value: n, selected: n === HOME_DEFAULTS.seats }, `${n} seats`)));
  const [sbLabel, sb] = field("host-small-blind", "Small blind", HOME_DEFAULTS.small_blind);
  const [bbLabel, bb] = field("host-big-blind", "Big blind", HOME_DEFAULTS.big_blind);
  const [minLabel, min] = field("host-min-buy-in", "Smallest buy-in", HOME_DEFAULTS.min_buy_in);
  const [maxLabel, max] = field("host-max-buy-in", "Largest buy-in", HOME_DEFAULTS.max_buy_in);
  const admission = h("input", { type: "checkbox", id: "host-admission", checked: HOME_DEFAULTS.admission });
  const auto = h("input", { type: "checkbox", id: "host-auto-buy-in", checked: HOME_DEFAULTS.auto_buy_in });
  const straddle = h("input", { type: "checkbox", id: "host-straddle" });
  const twice = h("input", { type: "checkbox", id: "host-run-it-twice" });
  // the currency: only where the operator allows more than the game's own chips
  const allowed = state.homeCurrencies || [];
  const currency = allowed.length ? h("select", { id: "host-currency", name: "currency" },
    [h("option", { value: "", selected: true }, "The game's own chips"),
      ...allowed.map((c) => h("option", { value: c }, c === "PLAY" ? "Play money (your wallet)" : `${c} (your wallet)`))]) : null;
  const currencyNote = h("p", { class: "bounds", id: "host-currency-note" });
  if (currency) {
    currency.onchange = () => {
      const c = currency.value;
      currencyNote.textContent = !c ? "" : `Buy-ins come from each player's ${c} wallet${c === "PLAY" ? "" : " (amounts in cents)"}; `
        + "the room's rake applies and buy-ins run from 20 to 100 big blinds (Fixed-Limit: at least 10 lower limits).";
    };
  }
  const error = h("p", { class: "form-error", role: "alert", id: "host-error" });
  const create = h("button", { type: "button", id: "host-create", onclick: async () => {
    const body = {
      name: name.value.trim(), game: game.value, seats: Number(seats.value),
      small_blind: Number(sb.value), big_blind: Number(bb.value),
      min_buy_in: Number(min.value), max_buy_in: Number(max.value),
      admission: admission.checked, auto_buy_in: auto.checked,
      straddle: straddle.checked, run_it_twice: twice.checked,
    };
    if (currency && currency.value) body.currency = currency.value;
    const problem = stakesProblem(body);
    if (problem) {
      error.textContent = problem;
      return;
    }
    try {
      const answer = await api("POST", "/api/games", body);
      state.games.set(answer.game.id, answer.game);
      d.close();
      openGame(answer.game.id);
    } catch (e) {
      error.textContent = errorText(e);
    }
  } }, "Create the game");
  const d = dialog("Host a game", h("div", { class: "host-form" },
    h("p", { class: "bounds" }, currency
      ? "A private table: not in the lobby, your friends join by its link. It plays with its own chips, or with a wallet's."
      : "A private table: not in the lobby, your friends join by its link. It plays with its own chips."),
    h("label", { for: "host-name" }, "Name"), name,
    currency ? h("label", { for: "host-currency" }, "Chips") : null, currency, currency ? currencyNote : null,
    h("label", { for: "host-game-kind" }, "Game"), game,
    h("label", { for: "host-seats" }, "Seats"), seats,
    h("div", { class: "pair" }, h("div", {}, sbLabel, sb), h("div", {}, bbLabel, bb)),
    h("div", { class: "pair" }, h("div", {}, minLabel, min), h("div", {}, maxLabel, max)),
    h("label", {}, admission, " I admit each player who asks for a seat"),
    h("label", {}, auto, " Buy-ins and rebuys without my approval"),
    h("label", { title: "the first player after the big blind may post twice the big blind (not at Fixed-Limit)" }, straddle, " Straddles allowed"),
    h("label", { title: "when everyone is all in before the river, the players may agree to deal the rest twice" }, twice, " Run it twice allowed"),
    error), [create, h("button", { type: "button", onclick: () => d.close() }, "Cancel")]);
  name.focus();
}

/** Why these stakes and buy-ins cannot be (in a sentence), or null. */
function stakesProblem(s) {
  const whole = ["small_blind", "big_blind", "min_buy_in", "max_buy_in"].filter((k) => k in s);
  for (const k of whole) if (!Number.isInteger(s[k]) || s[k] < 1) return "Blinds and buy-ins are whole numbers of chips, 1 or more.";
  if ("small_blind" in s && s.big_blind < s.small_blind) return `The big blind (${s.big_blind}) is at least the small blind (${s.small_blind}).`;
  if ("min_buy_in" in s && s.max_buy_in < s.min_buy_in) return `The largest buy-in (${s.max_buy_in}) is at least the smallest (${s.min_buy_in}).`;
  return null;
}

/** The lobby's home games: "Host a game" and the player's games. */
function homeGamesSection() {
  const games = [...state.games.values()].filter((g) => g.status !== "ended" || Date.now() / 1000 - (g.ended || 0) < 86_400);
  const role = { host: "you host", cohost: "you co-host", player: "you play", pending: "you asked for a seat" };
  return h("section", { class: "home-games", id: "home-games", "aria-label": "home games" },
    h("div", { class: "row" }, h("h2", {}, "Home games"),
      mayPlay() ? h("button", { type: "button", id: "host-game", onclick: hostDialog }, "Host a game") : null),
    games.length ? h("ul", { class: "plain game-list" }, games.map((g) =>
      h("li", { dataset: { game: g.id, status: g.status } },
        h("a", { href: g.status === "ended" ? `#ledger/${encodeURIComponent(g.id)}` : `#game/${encodeURIComponent(g.id)}` }, g.name),
        ` · ${gameSummary(g)} · ${g.status === "ended" ? "ended" : g.status === "paused" ? "paused" : "open"}`,
        g.you ? ` · ${role[g.you] || g.you}` : "",
        g.requests && g.requests.length ? h("span", { class: "badge requests-waiting" }, ` ${g.requests.length} waiting`) : null)))
      : h("p", { class: "hint" }, "Play with friends at a private table: host a game and send them its link."));
}

// ------------------------------------------------ the invite link: sign up or in, ask for a seat

async function loadInvite() {
  const inv = state.invite;
  try {
    const answer = await api("GET", `/api/invites/${encodeURIComponent(inv.secret)}`);
    inv.game = answer.game;
  } catch (error) {
    inv.error = error.status === 404 ? "This invite link is not valid (any more): the game ended or the host renewed its link. Ask the host for the new one." : errorText(error);
  }
  if (state.view === "invite") renderInvite();
}

/** Leave the invite's address for the room's own (``/#game/<id>``), without a new load. */
function leaveInvite(hash) {
  state.invite = null;
  history.replaceState(null, "", `/${hash}`);
  route();
}

function renderInvite() {
  const inv = state.invite;
  const g = inv.game;
  if (!g) {
    app.replaceChildren(h("section", { class: "invite auth" }, h("h1", {}, "A home game"),
      inv.error ? h("p", { class: "form-error", id: "invite-error", role: "alert" }, inv.error) : h("p", { class: "loading" }, "Loading the invitation…"),
      h("a", { href: "/", onclick: (e) => { e.preventDefault(); leaveInvite(""); } }, "To the lobby")));
    return;
  }
  const message = h("p", { class: "form-error", role: "alert", id: "invite-message" });
  const buyIn = h("input", { id: "invite-buy-in", type: "number", min: g.min_buy_in, max: g.max_buy_in, step: 1, value: g.max_buy_in, required: true, inputmode: "numeric" });
  const name = h("input", { id: "auth-name", name: "name", autocomplete: "username", required: true });
  const password = h("input", { id: "auth-password", name: "password", type: "password", autocomplete: "current-password", minlength: 8, required: true });
  const ask = async (kind) => {
    message.textContent = "";
    const amount = Number(buyIn.value);
    if (!Number.isInteger(amount) || amount < g.min_buy_in || amount > g.max_buy_in) {
      message.textContent = `The buy-in is a whole number from ${chips(g.min_buy_in)} to ${chips(g.max_buy_in)}.`;
      buyIn.focus();
      return;
    }
    const problem = kind === "signup" ? nameProblem(name.value) : null;
    if (problem) {
      message.textContent = problem;
      return;
    }
    const path = `/api/invites/${encodeURIComponent(inv.secret)}`;
    try {
      let answer;
      if (kind === "signup") {
        answer = await api("POST", `${path}/signup`, { name: name.value, password: password.value, buy_in: amount });
      }
      if (kind !== "join") {
        const signed = await api("POST", "/api/signin", { name: name.value, password: password.value });
        saveToken(signed.token);
        state.player = signed.player;
        await refreshBalance();
        connect();
        loadProtection();
      }
      if (kind !== "signup") answer = await api("POST", `${path}/join`, { buy_in: amount });
      const asked = answer.request ? { ...g, you: "pending" } : { ...g, you: "player" };
      state.games.set(g.id, { ...(state.games.get(g.id) || {}), ...asked, table: (state.games.get(g.id) || {}).table || answer.table || `home-${g.id}` });
      if (answer.request) state.asked.set(g.id, answer.request);
      leaveInvite(`#game/${encodeURIComponent(g.id)}`); // the route opens the game
    } catch (error) {
      message.textContent = errorText(error);
    }
  };
  const signedIn = Boolean(state.player);
  const known = signedIn ? state.games.get(g.id) : null;
  if (known && ["host", "cohost", "player"].includes(known.you)) {
    app.replaceChildren(h("section", { class: "invite auth", id: "invite" }, h("h1", {}, g.name),
      h("p", { id: "invite-summary" }, `${g.host}'s home game: ${gameSummary(g)}. You are in this game already.`),
      h("button", { type: "button", id: "invite-open", onclick: () => leaveInvite(`#game/${encodeURIComponent(g.id)}`) }, "Open the game")));
    return;
  }
  const form = h("form", { class: "invite auth", id: "invite", onsubmit: (e) => { e.preventDefault(); ask(signedIn ? "join" : "signup"); } },
    h("h1", {}, g.name),
    h("p", { id: "invite-summary" }, `${g.host} invites you to a home game: ${gameSummary(g)}.`),
    g.status === "paused" ? h("p", { class: "hint" }, "The game is paused at the moment.") : null,
    h("label", { for: "invite-buy-in" }, `Your buy-in (${chips(g.min_buy_in)} to ${chips(g.max_buy_in)} of the game's chips)`), buyIn,
    signedIn
      ? [h("p", {}, `You are signed in as ${state.player}.`),
        h("button", { type: "submit", id: "invite-join" }, "Ask for a seat")]
      : [h("p", { class: "hint" }, "New here? Choose a name and a password: one step signs you up and asks the host for a seat."),
        h("label", { for: "auth-name" }, "Name"), name, h("p", { class: "hint" }, NAME_HINT),
        h("label", { for: "auth-password" }, "Password (8 characters or more)"), password,
        h("div", { class: "row" },
          h("button", { type: "submit", id: "invite-signup" }, "Sign up and ask for a seat"),
          h("button", { type: "button", id: "invite-signin", onclick: () => ask("signin") }, "Sign in and ask for a seat"))],
    message);
  app.replaceChildren(form);
  (signedIn ? buyIn : name).focus();
}

/** A game the player asked to join: the host's answer is awaited (a `game_request` comes). */
function renderGameWait(id) {
  const g = state.games.get(id);
  if (!g) {
    app.replaceChildren(h("section", { class: "home-wait" },
      state.gameError && state.gameError.id === id ? h("p", { class: "form-error", role: "alert" }, state.gameError.text) : h("p", { class: "loading" }, "Loading the game…"),
      h("a", { href: "#lobby" }, "To the lobby")));
    return;
  }
  const asked = state.asked.get(id);
  app.replaceChildren(h("section", { class: "home-wait", id: "game-wait", dataset: { game: id } },
    h("h1", {}, g.name),
    h("p", {}, `${g.host}'s home game: ${gameSummary(g)}.`),
    g.you === "pending"
      ? h("p", { class: "prompt", id: "waiting-host", role: "status" }, `You asked for a seat${asked && asked.amount ? ` with ${chips(asked.amount)} chips` : ""}: the host will let you in. This page opens the table when they do.`)
      : h("p", { class: "form-error", id: "not-admitted", role: "status" }, "You have no seat in this game: ask the host for its link."),
    h("a", { href: "#lobby" }, "To the lobby")));
}

// ------------------------------------------------ the host's panel and the players' bar

/** Beside a home table: the host's panel (invite, requests, pause, next hand's stakes, players,
 * co-hosts, end) for the host and co-hosts; the game's state and its ledger for the players. */
function homePanel(t, g) {
  const hosting = g.you === "host" || g.you === "cohost";
  const paused = g.status === "paused";
  const box = h("section", { class: "home-panel", id: "home-panel", "aria-label": hosting ? "host controls" : "the home game", dataset: { game: g.id, status: g.status } },
    h("h2", {}, hosting ? "You host" : `${g.host}'s game`, g.you === "cohost" ? " (co-host)" : "",
      paused ? h("span", { class: "badge paused", id: "game-paused" }, " paused") : null),
    h("p", { class: "game-line" }, `${gameSummary(g)}${g.auto_buy_in ? "; buy-ins without approval" : "; the host approves buy-ins"}.`));
  if (!hosting) {
    if (g.you === null) box.append(h("p", { class: "prompt", id: "game-removed" }, "You are no longer in this game: the host removed you. Your chips are counted in the ledger."));
    if (paused) box.append(h("p", { class: "prompt" }, "The host paused the game: the next hand waits until they resume it."));
    box.append(ledgerBlock(g), gameLog(g));
    return box;
  }
  const link = inviteUrl(g);
  if (link) {
    const input = h("input", { id: "invite-link", readonly: true, value: link, "aria-label": "invite link", onfocus: (e) => e.target.select() });
    box.append(h("div", { class: "invite-box" },
      h("label", { for: "invite-link" }, "Invite link: send it to your friends"),
      h("div", { class: "row" }, input,
        h("button", { type: "button", id: "copy-invite", onclick: () => copyText(link, input) }, "Copy"),
        h("button", { type: "button", id: "renew-invite", title: "the old link stops working", onclick: async () => {
          if (await control(g, "link")) toast("A new link: the old one no longer works.", "info");
        } }, "New link"))));
  }
  const requests = g.requests || [];
  box.append(h("div", { class: "requests", id: "game-requests", role: "region", "aria-label": "requests", "aria-live": "polite" },
    h("h3", {}, `Requests${requests.length ? ` (${requests.length})` : ""}`),
    requests.length ? h("ul", { class: "plain" }, requests.map((r) => {
      const seat = r.kind === "seat";
      const answer = (yes) => control(g, seat ? "admit" : "approve", seat ? { request: r.id, admit: yes } : { request: r.id, approve: yes });
      return h("li", { class: "request", dataset: { request: r.id, kind: r.kind, player: r.player } },
        h("span", {}, h("b", {}, r.player), ` ${REQUEST_WORDS[r.kind] || r.kind}${r.amount ? `${seat ? " with" : ""} ${chips(r.amount)}` : ""}`),
        h("span", { class: "row" },
          h("button", { type: "button", class: "yes", onclick: () => answer(true), "aria-label": `${seat ? "Admit" : "Approve"} ${r.player}` }, seat ? "Admit" : "Approve"),
          h("button", { type: "button", class: "no", onclick: () => answer(false), "aria-label": `Refuse ${r.player}` }, "Refuse")));
    })) : h("p", { class: "hint" }, "No one is waiting.")));
  box.append(h("div", { class: "row" },
    h("button", { type: "button", id: paused ? "game-resume" : "game-pause", onclick: () => control(g, paused ? "resume" : "pause") },
      paused ? "Resume the game" : "Pause after this hand"),
    h("button", { type: "button", id: "game-end", class: "fold", onclick: () => endGame(g) }, "End the game")));
  box.append(keepIfSame(nextHandForm(g), t ? t.id : g.table));
  box.append(playersBlock(t, g));
  box.append(ledgerBlock(g), gameLog(g));
  return box;
}

/** Over a home table: the game paused, and for its hosts the requests that wait (a tap away
 * on a phone, where the panel is below the table). */
function gameHead(g) {
  if (!g) return null;
  const waiting = (g.requests || []).length;
  const hosting = g.you === "host" || g.you === "cohost";
  if (!waiting && g.status !== "paused" && g.status !== "ended" && !(hosting && !inviteUrl(g))) return null;
  return h("p", { class: "row game-head", id: "game-head" },
    g.status === "ended" ? h("span", { class: "prompt", id: "game-ending", role: "status" }, "The game has ended: this hand is played out, then ",
      h("a", { href: `#ledger/${encodeURIComponent(g.id)}` }, "the ledger"), ".") : null,
    g.status === "paused" ? h("span", { class: "badge paused" }, "Paused by the host") : null,
    hosting && waiting ? h("button", { type: "button", id: "requests-jump", class: "requests-waiting",
      onclick: () => document.getElementById("game-requests").scrollIntoView({ block: "center" }) },
    `${waiting} ${waiting === 1 ? "request waits" : "requests wait"} for you`) : null);
}

/** The game's log (what the host and co-hosts did, R-HOME-2), the latest first. */
function gameLog(g, open = false) {
  const lines = (g.log || []).slice(-20).reverse();
  if (!lines.length) return null;
  const items = h("ol", { class: "plain game-log" }, lines.map((l) => h("li", {}, h("time", {}, localTime(l.at)), ` ${l.line}.`)));
  return open ? h("section", { id: "game-log", "aria-label": "the game's log" }, h("h2", {}, "The game's log"), items)
    : folding("game-log", "The game's log", items);
}

function copyText(text, input) {
  const done = () => toast("The link is copied: paste it in a chat.", "info");
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(done, () => fallbackCopy(input, done));
  } else fallbackCopy(input, done);
}

function fallbackCopy(input, done) {
  input.focus();
  input.select();
  try {
    if (document.execCommand("copy")) done();
    else toast("Select the link and copy it.", "info");
  } catch (_) {
    toast("Select the link and copy it.", "info");
  }
}

/** Blinds, buy-ins, admission and approvals from the next hand on (the `settings` control). */
function nextHandForm(g) {
  // what the host typed or ticked and has not saved yet survives the table's redraws
  const draft = state.settingsDraft.get(g.id) || {};
  const number = (id, label, value) => h("label", { for: id }, label,
    h("input", { id, type: "number", min: 1, step: 1, value: draft[id] ?? value, inputmode: "numeric",
      oninput: (e) => state.settingsDraft.set(g.id, { ...(state.settingsDraft.get(g.id) || {}), [id]: e.target.value }) }));
  const box = (id, value) => h("input", { type: "checkbox", id, checked: draft[id] ?? value,
    onchange: (e) => state.settingsDraft.set(g.id, { ...(state.settingsDraft.get(g.id) || {}), [id]: e.target.checked }) });
  const admission = box("set-admission", g.admission);
  const auto = box("set-auto-buy-in", g.auto_buy_in);
  const error = h("p", { class: "form-error", role: "alert", id: "settings-error" });
  const form = h("form", { class: "next-hand", id: "next-hand", onsubmit: async (e) => {
    e.preventDefault();
    const read = (id) => Number(form.querySelector(`#${id}`).value);
    const body = { small_blind: read("set-small-blind"), big_blind: read("set-big-blind"), min_buy_in: read("set-min-buy-in"),
      max_buy_in: read("set-max-buy-in"), admission: admission.checked, auto_buy_in: auto.checked };
    const problem = stakesProblem(body);
    error.textContent = problem || "";
    if (problem) return;
    if (await control(g, "settings", body)) {
      state.settingsDraft.delete(g.id);
      toast("Saved: the next hand plays with these settings.", "info");
    }
  } },
  folding("next-hand-details", "Blinds and buy-ins for the next hand",
    h("div", { class: "pair" }, number("set-small-blind", "Small blind", g.small_blind), number("set-big-blind", "Big blind", g.big_blind)),
    h("div", { class: "pair" }, number("set-min-buy-in", "Smallest buy-in", g.min_buy_in), number("set-max-buy-in", "Largest buy-in", g.max_buy_in)),
    h("label", {}, admission, " I admit each player"), h("label", {}, auto, " Buy-ins without my approval"),
    h("button", { type: "submit", id: "settings-save" }, "Save"), error));
  return form;
}

/** The players at the table: remove one, name or unname a co-host (the host only). */
function playersBlock(t, g) {
  const names = [...new Set([...(t ? [...t.seats.values()].map((s) => s.player) : []), ...g.cohosts])].filter((p) => p !== g.host);
  const rows = names.map((p) => {
    const co = g.cohosts.includes(p);
    return h("li", { dataset: { player: p } }, h("span", {}, p, co ? h("span", { class: "badge" }, " co-host") : null),
      h("span", { class: "row" },
        g.you === "host" ? h("button", { type: "button", class: "cohost", "aria-label": `${co ? "No longer co-host" : "Make co-host"}: ${p}`,
          onclick: () => control(g, "cohost", { player: p, on: !co }) }, co ? "Not co-host" : "Co-host") : null,
        h("button", { type: "button", class: "remove", "aria-label": `Remove ${p}`, onclick: () => confirmRemove(g, p) }, "Remove")));
  });
  return folding("game-players", `Players (${names.length})`,
    rows.length ? h("ul", { class: "plain" }, rows) : h("p", { class: "hint" }, "No one else sits here yet."));
}

function confirmRemove(g, player) {
  const ok = h("button", { type: "button", id: "remove-ok", class: "fold", onclick: async () => { d.close(); await control(g, "remove", { player }); } }, `Remove ${player}`);
  const d = dialog(`Remove ${player}?`, h("p", {}, `${player} leaves the table (after the hand in progress) and cannot join again by the link; their chips are counted in the ledger.`),
    [ok, h("button", { type: "button", onclick: () => d.close() }, "Cancel")]);
}

function endGame(g) {
  const ok = h("button", { type: "button", id: "end-ok", class: "fold", onclick: async () => {
    d.close();
    const ended = await control(g, "end");
    if (ended) location.hash = `#ledger/${encodeURIComponent(g.id)}`;
  } }, "End the game");
  const d = dialog("End the game?", h("p", {}, "The hand in progress is played out, every player is cashed out and the ledger is final. The link stops working."),
    [ok, h("button", { type: "button", onclick: () => d.close() }, "Keep playing")]);
}

// ------------------------------------------------ the ledger (R-HOME-5)

const LEDGER_BASE = [["buy_ins", "Buy-ins"], ["added", "Added"], ["cash_outs", "Cashed out"], ["at_table", "At the table"], ["net", "Net"]];

async function loadLedger(id) {
  try {
    const ledger = await api("GET", `/api/games/${encodeURIComponent(id)}/ledger`);
    state.ledgers.set(id, ledger);
    const g = state.games.get(id);
    // the game is over and everyone has left its table: it is no longer watched
    if (g && g.status === "ended" && state.tables.has(g.table) && state.current !== g.table
      && ledger.players.every((p) => p.at_table === 0)) unwatchTable(g.table);
  } catch (error) {
    state.ledgers.set(id, { error: errorText(error) });
  }
  redrawGame(id);
}

/** The ledger, asked again at most every few seconds while the page shows it. */
function ledgerOf(id) {
  const at = state.ledgerAt.get(id) || 0;
  if (Date.now() - at > 3000) {
    state.ledgerAt.set(id, Date.now());
    loadLedger(id);
  }
  return state.ledgers.get(id) || null;
}

function signed(n) {
  return n > 0 ? `+${chips(n)}` : n < 0 ? `−${chips(-n)}` : "0";
}

function ledgerTable(ledger) {
  if (!ledger) return h("p", { class: "loading" }, "Loading the ledger…");
  if (ledger.error) return h("p", { class: "form-error" }, ledger.error);
  const total = (key) => ledger.totals && key in ledger.totals ? ledger.totals[key] : ledger.players.reduce((a, p) => a + p[key], 0);
  // a game in a wallet currency: the house's rake, each player's share by contribution
  const columns = ledger.totals && "rake" in ledger.totals
    ? [...LEDGER_BASE.slice(0, -1), ["rake", "Rake"], LEDGER_BASE.at(-1)] : LEDGER_BASE;
  return h("div", { class: "scroll" }, h("table", { class: "tables ledger", id: "ledger-table" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Player"), columns.map(([, label]) => h("th", { scope: "col", class: "num" }, label)))),
    h("tbody", {}, ledger.players.map((p) => h("tr", { dataset: { player: p.player, net: p.net } },
      h("th", { scope: "row" }, p.player),
      columns.map(([key]) => h("td", { class: `num${key === "net" ? (p[key] > 0 ? " up" : p[key] < 0 ? " down" : "") : ""}` }, key === "net" ? signed(p[key]) : chips(p[key])))))),
    h("tfoot", {}, h("tr", { id: "ledger-totals", dataset: { net: total("net") } }, h("th", { scope: "row" }, "Total"),
      columns.map(([key]) => h("td", { class: "num" }, key === "net" ? signed(total(key)) : chips(total(key))))))));
}

async function downloadLedger(id) {
  try {
    const text = await api("GET", `/api/games/${encodeURIComponent(id)}/ledger?format=csv`, undefined, { text: true });
    saveFile(text, `ledger-${id}.csv`, "text/csv");
  } catch (error) {
    toast(errorText(error));
  }
}

function csvLink(id) {
  return h("a", { href: `/api/games/${encodeURIComponent(id)}/ledger?format=csv`, id: "ledger-csv", class: "button-link", download: `ledger-${id}.csv`,
    onclick: (e) => { e.preventDefault(); downloadLedger(id); } }, "Download CSV");
}

function ledgerBlock(g) {
  const open = state.folded.has("ledger-block");
  return folding("ledger-block", "Ledger", open ? [ledgerTable(ledgerOf(g.id)), csvLink(g.id)] : null, () => ledgerOf(g.id));
}

/** A part of the host's panel that opens and folds; it stays as the player left it over the
 * table's redraws. */
function folding(id, summary, ...children) {
  const opened = typeof children.at(-1) === "function" ? children.pop() : null;
  return h("details", { id, open: state.folded.has(id), ontoggle: (e) => {
    const was = state.folded.has(id);
    if (e.target.open) state.folded.add(id);
    else state.folded.delete(id);
    if (e.target.open && !was && opened) opened();
  } }, h("summary", {}, summary), children);
}

function renderLedgerPage(id) {
  const g = state.games.get(id);
  const ledger = state.ledgers.get(id);
  if (!ledger && !state.ledgerAt.has(id)) ledgerOf(id);
  const sum = ledger && ledger.players ? ledger.players.reduce((a, p) => a + p.net, 0) : null;
  app.replaceChildren(h("section", { class: "ledger-page", id: "ledger-page", dataset: { game: id } },
    h("h1", {}, g ? g.name : id, " — ledger"),
    g ? h("p", { class: "info" }, `${g.host}'s home game, ${gameSummary(g)}. `,
      g.status === "ended" ? h("strong", { id: "game-ended" }, `Ended${g.ended ? ` at ${localTime(g.ended)}` : ""}.`) : "In play: the figures move with each hand.") : null,
    ledgerTable(ledger),
    sum !== null ? h("p", { class: "hint", id: "ledger-check" }, sum === 0 ? "The nets add up to zero: every chip is accounted for." : `The nets add up to ${signed(sum)}.`) : null,
    h("div", { class: "row" }, csvLink(id),
      h("button", { type: "button", id: "ledger-refresh", onclick: () => loadLedger(id) }, "Refresh"),
      g && g.status !== "ended" ? h("a", { href: `#game/${encodeURIComponent(id)}` }, "Back to the table") : null,
      h("a", { href: "#lobby" }, "To the lobby")),
    g ? gameLog(g, true) : null));
}

// ------------------------------------------------------------------ tournaments

const ZERO_DECIMALS = new Set(["JPY", "KRW", "ISK", "CLP", "VND"]);

/** ``units`` of a tournament's currency (buy-ins, fees, prizes) as people read them. */
function tmoney(entry, units) {
  const currency = entry ? entry.currency : "PLAY";
  if (currency === "PLAY") return chips(units);
  return amountText(currency, Number(units) / (ZERO_DECIMALS.has(currency) ? 1 : 100));
}

function buyInText(entry) {
  const unit = entry.currency === "PLAY" ? " play chips" : "";
  return `${tmoney(entry, entry.buy_in)} + ${tmoney(entry, entry.fee)}${unit}`;
}

/** The lobby's tournaments, as fresh as the request that fetched them was sent (``at``). */
function setTournaments(list, at) {
  state.tournaments = list;
  state.tournamentsAt = at;
}

function tournamentEntry(id) {
  return state.tournaments.find((x) => x.id === id) || (state.tourneyDetails.get(id) || {}).detail || null;
}

/** Tournament ``id`` by its name (its id until its entry is known). */
function tourName(id) {
  return tournamentName(tournamentEntry(id)) || id;
}

/** The tournament a table belongs to (its id is `<instance>.<n>`), or null for a cash table. */
function tournamentOf(tableId) {
  if (!tableId || state.lobby.some((x) => x.id === tableId)) return null;
  const watched = state.tables.get(tableId);
  if (watched && watched.tournament) return watched.tournament;
  const split = splitTableId(tableId);
  if (!split) return null;
  const known = tournamentEntry(split.tournament) || state.tourneyViews.has(split.tournament);
  return known ? split.tournament : null;
}

/** A tournament table as the table view wants a lobby entry: its name, seats and big blind. */
function tournamentTableEntry(id) {
  const split = splitTableId(id);
  if (!split) return null;
  const entry = tournamentEntry(split.tournament);
  const mine = state.tourneyViews.get(split.tournament);
  if (!entry && !mine) return null;
  const detail = (state.tourneyDetails.get(split.tournament) || {}).detail;
  const fields = mine ? mine.view : entry;
  const seats = detail ? detail.structure.seats_per_table : null;
  const taken = state.tables.has(id) ? [...state.tables.get(id).seats.keys()] : [];
  return {
    id,
    tournament: split.tournament,
    name: `${tournamentName(entry || detail) || split.tournament} · Table ${split.number}`,
    seats: seats || Math.max(2, ...taken),
    structure: entry ? entry.game : "no_limit",
    currency: "PLAY", // tournament chips
    settings: { big_blind_amount: fields && fields.blinds ? fields.blinds[1] : 1, exponent: 0 },
  };
}

/** The status fields to show for a tournament: the freshest of the player's own view, the
 * tournament's page and its lobby entry, the clocks run on to now. */
function tournamentFields(id) {
  const now = state.socket ? state.socket.now() : Date.now() / 1000;
  const mine = state.tourneyViews.get(id);
  const detail = state.tourneyDetails.get(id);
  const entry = state.tournaments.find((x) => x.id === id);
  const known = [mine && [mine.view, mine.at], detail && [detail.detail, detail.at], entry && [entry, state.tournamentsAt]].filter(Boolean);
  if (!known.length) return null;
  const [fields, at] = known.reduce((a, b) => (b[1] > a[1] ? b : a));
  return standing(fields, at, now);
}

function onMoved(m) {
  const t = watchTable(m.table);
  t.tournament = m.tournament;
  t.observing = Promise.resolve(t); // the server watches it for this connection: its snapshot follows
  if (m.from_table && m.from_table !== m.table) unwatchTable(m.from_table); // and stopped watching the old one
  const split = splitTableId(m.table);
  const where = `Table ${split ? split.number : m.table}, seat ${m.seat}`;
  const text = (MOVE_REASONS[m.reason] || MOVE_REASONS.balance)(where);
  state.notice = { table: m.table, text, until: Date.now() + 12_000 };
  announce(text);
  if (!state.tourneyDetails.has(m.tournament)) loadTournament(m.tournament); // the seats a table
  const shown = state.view === "table" ? state.tables.get(state.current) : null;
  if (shown && shown.id !== m.table && myTurn(shown) && !tournamentOf(shown.id)) {
    toast(text, "info"); // a cash table waits for the player: the move is said, the view stays
    return;
  }
  location.hash = `#table/${encodeURIComponent(m.table)}`; // the new table, without a click
  if (state.current === m.table && state.view === "table") render();
}

function onTournamentView(m) {
  state.tourneyViews.set(m.tournament, { view: m, at: state.socket.now() });
  if (state.view === "table" && tournamentOf(state.current) === m.tournament) render();
  else if ((state.view === "tournament" || state.view === "results") && state.current === m.tournament) render();
}

function onTournamentResult(m) {
  state.results.set(m.tournament, m);
  const text = resultSentence(m);
  toast(text, "info");
  announce(text);
  refreshBalance();
  loadTournament(m.tournament);
  const shown = state.view === "table" && tournamentOf(state.current) === m.tournament;
  // the tournament's tables where the player no longer plays are not watched any more
  for (const [id, t] of [...state.tables]) {
    const seated = t.you !== null && t.you !== undefined && t.seats.has(t.you);
    if (tournamentOf(id) === m.tournament && (!seated || m.place === 1)) { // 1st: the tournament is over
      state.socket.request({ type: "unobserve", table: id });
      unwatchTable(id);
    }
  }
  if (shown) location.hash = `#results/${encodeURIComponent(m.tournament)}`; // the tournament ended for the player
}

function resultSentence(r) {
  const entry = tournamentEntry(r.tournament);
  const prize = r.prize > 0 ? ` and won ${tmoney(entry, r.prize)}${entry && entry.currency === "PLAY" ? " play chips" : ""}` : "";
  return `You finished ${ordinal(r.place)} of ${r.entries} in ${tourName(r.tournament)}${prize}.`;
}

/** One tournament whole (GET /api/tournaments/{id}); its page redrawn. */
async function loadTournament(id) {
  // a fetched figure is as fresh as its request, not its answer: a message that came while the
  // request was out (a player out, a move) is newer than what the answer may have read before it
  const sent = state.socket ? state.socket.now() : Date.now() / 1000;
  try {
    const detail = await api("GET", `/api/tournaments/${encodeURIComponent(id)}`);
    state.tourneyDetails.set(id, { detail, at: sent });
  } catch (error) {
    if (state.current === id && (state.view === "tournament" || state.view === "results")) {
      app.replaceChildren(h("section", { class: "tournament" }, h("h1", {}, id),
        h("p", { class: "form-error", role: "alert" }, error.status === 404 ? "There is no such tournament (any more): choose one in the lobby." : errorText(error)),
        h("a", { href: "#lobby" }, "Back to the lobby")));
    }
    return;
  }
  if (state.current === id && (state.view === "tournament" || state.view === "results")) render();
  else if (state.view === "table" && tournamentOf(state.current) === id) render();
}

/** The lobby's and the tournament page's figures, fetched again every few seconds while shown. */
let tournamentsPolled = 0;
async function pollTournaments() {
  const view = state.view;
  const atTable = view === "table" && tournamentOf(state.current);
  // a table hears of its own hands at once: the others' news (players left) every 10 s
  if (!state.player || Date.now() - tournamentsPolled < (atTable ? 10_000 : 2500)) return;
  if (view !== "lobby" && view !== "tournament" && view !== "results" && !atTable) return;
  tournamentsPolled = Date.now();
  if (view === "tournament" || view === "results") {
    await loadTournament(state.current);
    return;
  }
  try {
    const sent = state.socket ? state.socket.now() : Date.now() / 1000;
    const answer = await api("GET", "/api/tournaments");
    const before = JSON.stringify(state.tournaments.map(({ next_level_in, break_ends_in, ...rest }) => rest));
    setTournaments(answer.tournaments, sent);
    const after = JSON.stringify(state.tournaments.map(({ next_level_in, break_ends_in, ...rest }) => rest));
    const busy = document.activeElement && ["SELECT", "INPUT"].includes(document.activeElement.tagName);
    if (state.view === "lobby" && before !== after && !busy) renderLobby();
    else if (atTable && before !== after) refreshTournamentBar(); // players left, average stack
  } catch (_) {
    /* tried again shortly */
  }
}

async function registerTournament(id, withdraw = false) {
  state.tournamentError = null;
  try {
    if (withdraw) await api("DELETE", `/api/tournaments/${encodeURIComponent(id)}/register`);
    else await api("POST", `/api/tournaments/${encodeURIComponent(id)}/register`, {});
    toast(withdraw ? "Your entry is withdrawn: buy-in and fee are back in your wallet." : `You are registered for ${tourName(id)}.`, "info");
  } catch (error) {
    state.tournamentError = { id, text: tournamentErrorText(error, id, withdraw) };
  }
  await refreshBalance();
  await loadTournament(id);
  if (state.view === "lobby") renderLobby();
  else render();
}

/** A refused registration in words: the balance short, registration closed, already in. */
function tournamentErrorText(error, id, withdraw) {
  const entry = tournamentEntry(id);
  const d = error.details || {};
  const message = String(error.message || "");
  const unit = entry && entry.currency === "PLAY" ? " play chips" : "";
  if (error.code === "refused" && d.balance !== undefined && (d.amount !== undefined || d.cost !== undefined)) {
    return `Your balance is short: you hold ${tmoney(entry, d.balance)}${unit} and the entry costs ${tmoney(entry, d.amount ?? d.cost)}${unit} (buy-in and fee).`;
  }
  if (/holds?|balance|insufficient/i.test(message) && !withdraw) {
    return `Your balance is short for this entry (${entry ? buyInText(entry) : "buy-in and fee"}): ${sentence(message)}`;
  }
  if (/closed|started|is running|is finished|is cancelled|not registering/i.test(message)) {
    return withdraw ? `The tournament has started: entries can no longer be withdrawn.` : `Registration is closed for ${tourName(id)}.`;
  }
  if (error.status === 401) return "Sign in to register.";
  return sentence(message);
}

function tournamentActions(entry) {
  const registered = entry.registered.includes(state.player);
  const open = entry.state === "registering" || entry.state === "late_registration";
  const mine = state.tourneyViews.get(entry.id);
  const seat = mine && mine.view.table_id && mine.view.you.status === "playing" ? mine.view.table_id : null;
  // during late registration a player whose entry is out may enter again (R-TOURN-3)
  const detail = (state.tourneyDetails.get(entry.id) || {}).detail;
  const reEnter = registered && entry.state === "late_registration" && mine && mine.view.you.status === "out"
    && detail && detail.structure.re_entries > 0;
  return [
    open && (!registered || reEnter) && mayPlay()
      ? h("button", { type: "button", class: "register", onclick: () => registerTournament(entry.id), "aria-label": `${reEnter ? "Re-enter" : "Register for"} ${tournamentName(entry)}` }, reEnter ? "Re-enter" : "Register") : null,
    registered && entry.state === "registering"
      ? h("button", { type: "button", class: "unregister", onclick: () => registerTournament(entry.id, true), "aria-label": `Unregister from ${tournamentName(entry)}` }, "Unregister") : null,
    seat ? h("a", { href: `#table/${encodeURIComponent(seat)}`, class: "button-link" }, "Open your table") : null,
  ];
}

function renderTournamentList() {
  const f = state.tournamentFilters;
  const list = state.tournaments;
  if (!list.length) return null; // a room without tournaments
  const buyIns = [...new Map(list.map((x) => [String(x.buy_in + x.fee), x])).values()]
    .sort((a, b) => a.buy_in + a.fee - (b.buy_in + b.fee));
  const select = (key, label, options) => h("label", {}, label,
    h("select", { id: `tournament-filter-${key}`, name: `tournament-${key}`, "aria-label": `filter tournaments by ${label.toLowerCase()}`,
      onchange: (e) => { f[key] = e.target.value; renderLobby(); } },
    h("option", { value: "" }, "All"),
    options.map(([value, text]) => h("option", { value, selected: f[key] === value }, text))));
  const shown = list.filter((x) => (!f.format || x.format === f.format) && (!f.buyIn || String(x.buy_in + x.fee) === f.buyIn));
  const rows = shown.map((x) => {
    const registered = x.registered.includes(state.player);
    return h("tr", { dataset: { tournament: x.id, state: x.state }, class: registered ? "mine" : null },
      h("td", {}, h("a", { href: `#tournament/${encodeURIComponent(x.id)}` }, h("strong", {}, tournamentName(x))),
        registered ? h("span", { class: "badge you-sit" }, " You are registered") : null),
      h("td", { dataset: { label: "Format" } }, TOURNAMENT_FORMATS[x.format] || x.format),
      h("td", { dataset: { label: "Game" } }, GAME_NAMES[x.game] || x.game),
      h("td", { class: "num", dataset: { label: "Buy-in", buyIn: x.buy_in, fee: x.fee } }, buyInText(x)),
      h("td", { class: "num", dataset: { label: "Entries" } }, x.max_entries ? `${x.entries} / ${x.max_entries}` : String(x.entries)),
      h("td", { dataset: { label: "State" } }, STATE_NAMES[x.state] || x.state,
        x.start_at && x.state === "registering" ? h("div", { class: "info" }, `starts ${localTime(x.start_at)}`) : null,
        waitingShort(x.waiting) ? h("div", { class: "info waiting" }, waitingShort(x.waiting)) : null),
      h("td", { class: "num", dataset: { label: "Prize pool" } }, x.prize_pool ? tmoney(x, x.prize_pool) : "—"),
      h("td", { class: "row-actions" },
        h("a", { href: `#tournament/${encodeURIComponent(x.id)}`, class: "button-link", "aria-label": `Details of ${tournamentName(x)}` }, "Details"),
        tournamentActions(x)));
  });
  const error = state.tournamentError && !state.current ? h("p", { class: "form-error", id: "tournament-error", role: "alert" }, state.tournamentError.text) : null;
  return h("section", { class: "tournaments", id: "tournaments", "aria-labelledby": "tournaments-title" },
    h("h2", { id: "tournaments-title" }, "Tournaments"),
    h("div", { class: "filters" },
      select("format", "Format", Object.entries(TOURNAMENT_FORMATS)),
      select("buyIn", "Buy-in", buyIns.map((x) => [String(x.buy_in + x.fee), buyInText(x)]))),
    error,
    h("div", { class: "scroll" }, h("table", { class: "tables tournament-list" },
      h("thead", {}, h("tr", {}, ["Tournament", "Format", "Game", "Buy-in", "Entries", "State", "Prize pool"].map((x) => h("th", { scope: "col" }, x)),
        h("th", { scope: "col" }, h("span", { class: "sr-only" }, "actions")))),
      h("tbody", {}, rows.length ? rows : h("tr", {}, h("td", { colspan: 8 }, "No tournament matches."))))));
}

function breaksText(structure) {
  const b = structure.breaks;
  return b ? `${b.minutes} minutes at :${String(b.at_minute).padStart(2, "0")} of every hour` : "none";
}

/** The tournament's page: where it stands, register/unregister, structure, payouts, entrants, tables. */
function renderTournament(id) {
  const held = state.tourneyDetails.get(id);
  if (!held) {
    app.replaceChildren(h("p", { class: "loading" }, "Loading the tournament…"));
    return;
  }
  const d = held.detail;
  const s = d.structure;
  const unit = d.currency === "PLAY" ? " play chips" : "";
  const result = state.results.get(id);
  const error = state.tournamentError && state.tournamentError.id === id
    ? h("p", { class: "form-error", id: "tournament-error", role: "alert" }, state.tournamentError.text) : null;
  const running = !["registering", "finished", "cancelled"].includes(d.state);
  app.replaceChildren(h("section", { class: "tournament", dataset: { tournament: id, state: d.state } },
    h("p", {}, h("a", { href: "#lobby" }, "← Lobby")),
    h("h1", {}, tournamentName(d)),
    h("p", { class: "summary", id: "tournament-summary" },
      `${TOURNAMENT_FORMATS[d.format] || d.format} · ${GAME_NAMES[d.game] || d.game} · Buy-in ${buyInText(d)} · `,
      `Starting stack ${chips(d.starting_stack)} · ${STATE_NAMES[d.state] || d.state}`,
      d.start_at && d.state === "registering" ? ` · starts ${localTime(d.start_at)}` : ""),
    h("p", { class: "summary" }, `Entries ${d.entries}${d.max_entries ? ` of ${d.max_entries}` : ""}`,
      d.prize_pool ? ` · Prize pool ${tmoney(d, d.prize_pool)}${unit}` : ""),
    waitingText(d.waiting, localTime) ? h("p", { class: "waiting", id: "tournament-waiting", role: "status" }, waitingText(d.waiting, localTime)) : null,
    running ? standingBar(id) : null,
    h("div", { class: "row", id: "tournament-actions" }, tournamentActions(d),
      d.state === "finished" || d.places.length ? h("a", { href: `#results/${encodeURIComponent(id)}`, class: "button-link", id: "results-link" }, "Results") : null),
    error,
    result ? h("p", { class: "my-result", role: "status" }, resultSentence(result)) : null,
    d.error ? h("p", { class: "form-error" }, `The tournament is paused: ${d.error}`) : null,
    h("div", { class: "tournament-grid" },
      h("section", { "aria-labelledby": "structure-title", id: "tournament-structure" },
        h("h2", { id: "structure-title" }, "Structure"),
        h("p", {}, `${s.level_minutes}-minute levels (${s.schedule}) · ${s.seats_per_table} seats a table · breaks: ${breaksText(s)}`,
          s.late_registration_levels ? ` · late registration ${s.late_registration_levels} levels` : "",
          s.re_entries ? ` · ${s.re_entries} re-entries` : "",
          s.guarantee ? ` · guarantee ${tmoney(d, s.guarantee)}${unit}` : ""),
        h("div", { class: "scroll levels", tabindex: 0, role: "region", "aria-label": "the blind levels" }, h("table", { class: "tables", id: "levels" },
          h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Level"), h("th", { scope: "col" }, "Blinds"), h("th", { scope: "col" }, "Big-blind ante"))),
          h("tbody", {}, s.levels.map((l) => h("tr", { dataset: { level: l.level }, class: l.level === d.level ? "current" : null },
            h("td", {}, String(l.level)), h("td", {}, `${chips(l.blinds[0])}/${chips(l.blinds[1])}`), h("td", {}, l.blinds[2] ? chips(l.blinds[2]) : "—"))))))),
      h("section", { "aria-labelledby": "payouts-title", id: "tournament-payouts" },
        h("h2", { id: "payouts-title" }, "Payouts"),
        h("p", { class: "hint" }, d.payouts_final ? "Final." : "With the entries so far; final when registration closes."),
        h("table", { class: "tables", id: "payouts" },
          h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Place"), h("th", { scope: "col" }, "Prize"))),
          h("tbody", {}, d.payouts.map((p) => h("tr", { dataset: { place: p.place } }, h("td", {}, ordinal(p.place)), h("td", { class: "num" }, `${tmoney(d, p.prize)}${unit}`)))))),
      h("section", { "aria-labelledby": "entrants-title", id: "tournament-entrants" },
        h("h2", { id: "entrants-title" }, `Entrants (${d.players.length})`),
        h("table", { class: "tables", id: "entrants" },
          h("thead", {}, h("tr", {}, ["Rank", "Player", "Chips", "Table"].map((x) => h("th", { scope: "col" }, x)))),
          h("tbody", {}, d.players.map((p) => h("tr", { dataset: { account: p.account, status: p.status }, class: p.account === state.player ? "mine" : null },
            h("td", {}, p.status === "registered" ? "—" : p.status === "out" ? `out, ${ordinal(p.place || p.rank)}` : String(p.rank)),
            h("td", {}, p.account), h("td", { class: "num" }, p.status === "registered" ? "" : chips(p.chips)),
            h("td", {}, p.table ? `Table ${p.table}` : "")))))),
      h("section", { "aria-labelledby": "tables-title", id: "tournament-tables" },
        h("h2", { id: "tables-title" }, "Tables"),
        d.tables.length ? h("ul", { class: "plain" }, d.tables.map((x) => h("li", { dataset: { table: x.table_id } },
          h("strong", {}, `Table ${x.table}`), ` — ${x.players.map((p) => `${p.account} ${chips(p.chips)}`).join(", ")} `,
          h("a", { href: `#table/${encodeURIComponent(x.table_id)}`, "aria-label": `Watch table ${x.table}` }, "Watch"))))
          : h("p", { class: "hint" }, d.state === "registering" ? "The tables are drawn at the start." : "No tables in play.")))));
}

/** The results: every final place with its prize, and the player's own result. */
function renderResults(id) {
  const held = state.tourneyDetails.get(id);
  if (!held) {
    app.replaceChildren(h("p", { class: "loading" }, "Loading the results…"));
    return;
  }
  const d = held.detail;
  const unit = d.currency === "PLAY" ? " play chips" : "";
  const result = state.results.get(id);
  const own = d.players.find((p) => p.account === state.player && p.place !== null);
  const mine = result ? resultSentence(result)
    : own ? resultSentence({ tournament: id, place: own.place, prize: own.prize, entries: d.entries }) : null;
  app.replaceChildren(h("section", { class: "tournament results", dataset: { tournament: id, state: d.state } },
    h("p", {}, h("a", { href: "#lobby" }, "← Lobby"), " · ", h("a", { href: `#tournament/${encodeURIComponent(id)}` }, "Tournament")),
    h("h1", {}, `Results — ${tournamentName(d)}`),
    mine ? h("p", { class: "my-result", id: "my-result", role: "status" }, mine) : null,
    h("p", { class: "summary" }, d.state === "finished" ? `Finished · ${d.entries} entries` : `${STATE_NAMES[d.state] || d.state} · ${d.players_left} players left of ${d.entries}`,
      d.prize_pool ? ` · Prize pool ${tmoney(d, d.prize_pool)}${unit}` : ""),
    h("table", { class: "tables", id: "places" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Place"), h("th", { scope: "col" }, "Player"), h("th", { scope: "col" }, "Prize"))),
      h("tbody", {}, d.places.length ? d.places.map((p) => h("tr", { dataset: { place: p.place, account: p.account }, class: p.account === state.player ? "mine" : null },
        h("td", {}, ordinal(p.place), p.shared > 1 ? ` (shared by ${p.shared})` : ""), h("td", {}, p.account, p.disqualified ? " (disqualified)" : ""),
        h("td", { class: "num" }, p.prize ? `${tmoney(d, p.prize)}${unit}` : "—")))
        : h("tr", {}, h("td", { colspan: 3 }, "No place is final yet."))))));
}

/** The bar over a tournament table: level, blinds and the countdown to the next, the break,
 * players left, average stack, the player's rank, places paid, the bubble and hand-for-hand. */
function tournamentBar(t) {
  return standingBar(tournamentOf(t.id));
}

/** Where tournament ``id`` stands, as a bar (over its tables and on its page). */
function standingBar(id) {
  const f = tournamentFields(id);
  if (!f) return h("div", { class: "tourney-bar", id: "tourney-bar" }, id);
  const mine = state.tourneyViews.get(id);
  const you = mine ? mine.view.you : null;
  const stage = moneyStage(f);
  return h("div", { class: "tourney-bar", id: "tourney-bar", role: "group", "aria-label": "the tournament", dataset: { tournament: id, level: f.level } },
    h("span", { class: "level" }, `Level ${f.level}`),
    h("span", { class: "blinds" }, `Blinds ${blindsText(f.blinds)}`),
    f.on_break
      ? h("span", { class: "badge break", id: "break-clock", dataset: { endsIn: f.break_ends_in } }, `Break — play resumes in ${clockText(f.break_ends_in || 0)}`)
      : f.next_level_in !== null
        ? h("span", { class: "next-level", id: "level-clock" }, `Next ${blindsText(f.next_blinds)} in `, h("span", { class: "count", id: "level-count" }, clockText(f.next_level_in)))
        : null,
    h("span", { class: "left", id: "players-left" }, `Players left ${f.players_left} of ${f.entries}`),
    h("span", { class: "average" }, `Average stack ${chips(f.average_stack)}`),
    you && you.status === "playing" && you.rank ? h("span", { class: "rank", id: "my-rank" }, `Your rank ${you.rank} of ${f.players_left}`) : null,
    h("span", { class: "paid" }, `Places paid ${f.places_paid}`),
    stage === "bubble" ? h("span", { class: "badge bubble", id: "bubble" }, "Bubble: the next player out wins nothing") : null,
    stage === "money" ? h("span", { class: "badge money", id: "in-money" }, "In the money") : null,
    f.hand_for_hand ? h("span", { class: "badge hfh", id: "hand-for-hand" }, "Hand-for-hand: every table waits for the others") : null);
}

/** The bar over the shown tournament table drawn again from the freshest figures, the rest of
 * the table left as it is (a poll's news: nothing at the table changed). */
function refreshTournamentBar() {
  const bar = document.getElementById("tourney-bar");
  if (!bar || state.view !== "table") return;
  const id = tournamentOf(state.current);
  if (id && bar.dataset.tournament === id) bar.replaceWith(standingBar(id));
}

/** The tournament clocks run on between the server's messages (every 200 ms). */
function tickTournament() {
  pollTournaments();
  if (state.view !== "table" && state.view !== "tournament") return;
  const id = state.view === "table" ? tournamentOf(state.current) : state.current;
  if (!id) return;
  const f = tournamentFields(id);
  if (!f) return;
  const count = document.getElementById("level-count");
  if (count && f.next_level_in !== null) count.textContent = clockText(f.next_level_in);
  const pause = document.getElementById("break-clock");
  if (pause && f.break_ends_in !== null) pause.textContent = `Break — play resumes in ${clockText(f.break_ends_in)}`;
  const notice = document.getElementById("moved-notice");
  if (notice && state.notice && Date.now() >= state.notice.until) notice.remove();
}

// ------------------------------------------------------------------ hand history

const FORMAT_NAMES = { json: "JSON", phh: "PHH", pokerstars: "PokerStars text", ohh: "OHH" };
const FILE_ENDINGS = { json: "json", phh: "phh", pokerstars: "txt", ohh: "ohh" };

/** The history: one page of 50 hands (``before``: the page's start; ``newer``: the pages above). */
async function loadHistory(before = null, newer = []) {
  const previous = state.history;
  state.history = { hands: null, summaries: [], open: null, formats: null, verdicts: new Map(), before, newer, next: null };
  if (previous && previous.open) clearInterval(previous.open.timer);
  try {
    const list = await api("GET", `/api/hands?limit=50${before ? `&before=${before}` : ""}`);
    state.history.hands = list.hands;
    state.history.summaries = list.summaries;
    state.history.formats = list.formats;
    state.history.next = list.next_before;
  } catch (error) {
    toast(errorText(error));
  }
  if (state.lobby.length === 0) ensureLobby(); // the tables' names
  if (state.view === "history") renderHistory();
  const history = state.history;
  for (const id of history.hands || []) {
    if (state.history !== history) return; // the page moved on
    history.verdicts.set(id, await checkDeal(id));
    if (state.view === "history") renderHistory();
  }
}

/**
 * Fetch a hand's proof and check it in the page: {status, checked, problems, seen}. ``seen``: this
 * page saw the hand's commitment announced before the deal (its ``hand_started``), so the deal is
 * verified; otherwise the cards are verified against the commitment the proof publishes.
 */
async function checkDeal(id) {
  try {
    const proof = await api("GET", `/api/hands/${id}/proof`);
    const announced = state.commitments.get(id) || null;
    const result = await verifyProof(proof, announced);
    return { status: result.ok ? "verified" : "failed", seen: Boolean(announced), ...result };
  } catch (error) {
    return { status: "unavailable", problems: [errorText(error)] };
  }
}

/** A board run twice (R-HOME-4): both runs' verified boards, for the proof line. */
function runsText(proof) {
  if (!proof.runs || proof.runs.length < 2) return "";
  return `; run it twice — first run ${proof.runs[0].join(" ")}, second run ${proof.runs[1].join(" ")}`;
}

async function openHand(id) {
  // the hand, its streets and its proof come one after another: drawn while the history shows
  const redraw = () => { if (state.view === "history") renderHistory(); };
  if (state.history.open) clearInterval(state.history.open.timer);
  const detail = { id, hand: null, proof: null, step: 0, timer: null };
  state.history.open = detail;
  redraw();
  try {
    detail.hand = await api("GET", `/api/hands/${id}`);
  } catch (error) {
    toast(errorText(error));
    return;
  }
  redraw();
  const phh = state.history.formats && state.history.formats.phh;
  if (phh) {
    try {
      detail.streets = streetsFromPhh(await api("GET", phh.url.replace("{id}", id), undefined, { text: true }));
      redraw();
    } catch (_) {
      /* a hand PHH cannot write: the board comes at the end */
    }
  }
  detail.proof = await checkDeal(id);
  redraw();
}

function saveFile(text, name, type) {
  const blob = new Blob([text], { type });
  const a = h("a", { href: URL.createObjectURL(blob), download: name });
  document.body.append(a);
  a.click();
  a.remove();
}

async function download(id, format, info) {
  try {
    saveFile(await api("GET", info.url.replace("{id}", id), undefined, { text: true }), `hand-${id}.${FILE_ENDINGS[format] || format}`, info.media_type);
  } catch (error) {
    toast(errorText(error));
  }
}

/** Every hand of the page in one file, through the export API: the page's time range. */
async function downloadPage(format) {
  const lines = state.history.summaries;
  if (!lines.length) return;
  const since = new Date(Math.floor(lines.at(-1).started_at * 1000)).toISOString();
  const until = new Date(Math.floor(lines[0].started_at * 1000) + 1).toISOString();
  const query = `format=${format}&limit=${lines.length}&since=${encodeURIComponent(since)}&until=${encodeURIComponent(until)}`;
  try {
    const text = await api("GET", `/api/hands/export?${query}`, undefined, { text: true });
    saveFile(text, `hands.${FILE_ENDINGS[format]}`, format === "ohh" ? "application/json" : "text/plain");
  } catch (error) {
    toast(errorText(error));
  }
}

/**
 * Where the board was dealt, from the server's PHH of the hand: the order of its entries is the
 * order of play, so each "d db" falls after a known number of betting actions. Returns
 * [[actionsBefore, cards], ...]. Nothing is computed about the game itself.
 */
function streetsFromPhh(text) {
  const line = text.split("\n").find((l) => l.startsWith("actions = "));
  if (!line) return null;
  const entries = [...line.matchAll(/'([^']*)'/g)].map((m) => m[1]);
  const streets = [];
  let acted = 0;
  for (const entry of entries) {
    const parts = entry.split(" ");
    if (parts[0] === "d" && parts[1] === "db") streets.push([acted, parts[2].match(/../g)]);
    else if (/^p\d+$/.test(parts[0]) && ["f", "cc", "cbr"].includes(parts[1])) acted += 1;
  }
  return streets;
}

const LIVE_FORCED = new Set(["small_blind", "big_blind", "straddle", "post"]);

/**
 * The replayer's steps from the hand's record (and the streets, if known): each step is a line of
 * text and the table as it stood: the seats (stack, bet, cards, folded), the board and the pot.
 * Bets go to the pot when a street ends; the last step has the stacks the books settled.
 */
function replaySteps(hand, streets) {
  const r = hand.record;
  const names = new Map(r.players.map(([seat, name]) => [seat, name]));
  const holes = new Map(hand.players.map((p) => [p.seat, p.hole ? p.hole.split(" ") : null]));
  const seats = new Map(r.players.map(([seat, name, stack]) =>
    [seat, { seat, name, stack, bet: 0, folded: false, cards: holes.get(seat) || null, last: "", winner: false }]));
  const steps = [];
  let board = [];
  let board2 = []; // a board run twice (R-HOME-4): the second run, once dealt
  let pot = 0;
  const step = (text) => steps.push({ text, board: board.slice(), board2: board2.slice(), pot, seats: [...seats.values()].map((x) => ({ ...x })) });
  const gather = () => {
    for (const x of seats.values()) {
      pot += x.bet;
      x.bet = 0;
      x.last = "";
    }
  };
  step(`Hand #${hand.hand_id} at ${tableName(hand.table_id)}: button seat ${r.button}`);
  for (const p of hand.players) {
    step(`Seat ${p.seat}: ${p.player} (${chips(p.start_stack)})${p.hole ? ` holds ${p.hole}` : ""}`);
  }
  for (const [seat, kind, amount] of r.forced) {
    const x = seats.get(seat);
    x.stack -= amount;
    if (LIVE_FORCED.has(kind)) x.bet += amount;
    else pot += amount;
    x.last = forcedName(kind);
    step(`${names.get(seat)} posts ${forcedName(kind)} ${amount}`);
  }
  const allBoard = r.board ? r.board.split(" ") : [];
  const dealAt = (cards) => {
    gather();
    board = board.concat(cards);
    step(`${["Flop", "Turn", "River"][Math.min(2, board.length - 3)] || "Board"}: ${cards.join(" ")}`);
  };
  const pending = streets && streets.length ? streets.slice() : null;
  r.actions.forEach(([seat, action], i) => {
    if (seat === 0) { // R-HOME-4: the table's run-out decision ("run twice" / "run once")
      step(action === "run twice" ? "Everyone agreed: the board is run twice" : "The board is run once");
      return;
    }
    while (pending && pending.length && pending[0][0] === i) dealAt(pending.shift()[1]);
    const x = seats.get(seat);
    const top = Math.max(...[...seats.values()].map((y) => y.bet));
    const to = /(\d+)\s*$/.exec(action);
    if (action === "fold") x.folded = true;
    else if (action === "call") {
      const paid = Math.min(top - x.bet, x.stack);
      x.stack -= paid;
      x.bet += paid;
    } else if (to) {
      const paid = Math.min(Number(to[1]) - x.bet, x.stack);
      x.stack -= paid;
      x.bet += paid;
    }
    x.last = action;
    step(`${names.get(seat) || `seat ${seat}`}: ${action}`);
  });
  if (pending) while (pending.length) dealAt(pending.shift()[1]);
  if (board.length < allBoard.length) {
    gather();
    board = allBoard;
    step(`Board: ${r.board}`);
  }
  if (r.second_board) { // a board run twice: the second run, under the first
    board2 = r.second_board.split(" ");
    step(`Second run: ${r.second_board}`);
  }
  for (const [seat, cards] of Object.entries(r.shown || {})) {
    seats.get(Number(seat)).cards = cards.split(" ");
    step(`${names.get(Number(seat))} shows ${cards}`);
  }
  gather();
  const final = new Map(hand.players.map((p) => [p.seat, p.start_stack - p.contribution + p.payout]));
  r.pots.forEach(([amount, rake, winners, shares], i) => {
    pot = Math.max(0, pot - amount);
    for (const w of winners) seats.get(w).winner = true;
    if (i === r.pots.length - 1) {
      pot = 0; // what no pot holds was an uncalled bet, returned
      for (const x of seats.values()) if (final.has(x.seat)) x.stack = final.get(x.seat);
    }
    const halves = r.runs && r.runs[i] && r.runs[i].length ? r.runs[i] : null; // R-HOME-4
    const won = halves
      ? halves.map(([ws, ss], k) => `${k ? "second" : "first"} run: ${ws.map((w, j) => `${names.get(w)} wins ${ss[j]}`).join(", ")}`).join("; ")
      : winners.map((w, k) => `${names.get(w)} wins ${shares[k]}`).join(", ");
    step(`${i === 0 ? "Main pot" : `Side pot ${i}`} ${amount} (rake ${rake}): ${won}`);
  });
  return steps;
}

/** The table of a replayer step: the seats around the felt, their cards, bets and stacks. */
function replayTable(hand, at) {
  const size = Math.max(2, Number((hand.settings && hand.settings.max_seats) || 0), ...at.seats.map((x) => x.seat));
  const mine = hand.players.find((p) => p.player === state.player); // the player's seat at the bottom
  return h("div", { class: `felt replay-felt${size >= 9 ? " many" : ""}`, role: "group", "aria-label": "the table at this step", dataset: { pot: at.pot } },
    h("div", { class: "oval" }),
    h("div", { class: "center" },
      h("div", { class: "board replay-board", role: "group", "aria-label": "board at this step" }, at.board.map((c) => cardEl(c))),
      at.board2 && at.board2.length
        ? h("div", { class: "board replay-board second-run", role: "group", "aria-label": "second run" }, at.board2.map((c) => cardEl(c)))
        : null,
      h("div", { class: "pot replay-pot" }, at.pot > 0 ? `Pot ${chips(at.pot)}` : "")),
    at.seats.map((x) => {
      const pos = seatPosition(x.seat, size, mine ? mine.seat : 1);
      const bx = 50 + (pos.x - 50) * 0.6;
      const by = 50 + (pos.y - 50) * 0.55;
      return [
        h("div", { class: `seat replay-seat${x.folded ? " folded" : ""}${x.winner ? " winner" : ""}`, style: `--x:${pos.x.toFixed(2)}%;--y:${pos.y.toFixed(2)}%`,
          dataset: { seat: x.seat, name: x.name, stack: x.stack, bet: x.bet }, role: "group", "aria-label": `seat ${x.seat}: ${x.name}` },
        h("div", { class: "cards" }, x.folded ? null : (x.cards || [null, null]).map((c) => cardEl(c))),
        h("div", { class: "name" }, x.name, hand.record.button === x.seat ? h("span", { class: "dealer", role: "img", "aria-label": "dealer button" }, "D") : null),
        h("div", { class: "stack" }, chips(x.stack)),
        x.last ? h("div", { class: "last" }, x.last) : null),
        x.bet > 0 ? h("div", { class: "bet", style: `left:${bx}%;top:${by}%`, dataset: { seat: x.seat, bet: x.bet } }, chips(x.bet)) : null,
      ];
    }));
}

function verdictText(verdict) {
  if (verdict.status === "verified") return verdict.seen ? "deal verified" : "verified against the published commitment";
  return { failed: "deal NOT verified", unavailable: "no proof" }[verdict.status];
}

function verdictBadge(verdict) {
  if (!verdict) return h("span", { class: "verdict" }, "…");
  return h("span", { class: `verdict proof ${verdict.status}${verdict.seen ? " seen" : ""}`, title: (verdict.problems || []).join("; ") }, verdictText(verdict));
}

function tableName(id) {
  const entry = lobbyEntry(id);
  return entry ? entry.name : id;
}

function resultText(line) {
  const amount = line.currency === "PLAY" ? chips(Math.abs(line.net)) : `${Math.abs(line.net)} units`;
  return line.net > 0 ? `+${amount}` : line.net < 0 ? `−${amount}` : "0";
}

function renderHistory() {
  const hs = state.history;
  if (!hs) return;
  const rows = (hs.summaries || []).map((line) =>
    h("tr", { dataset: { hand: line.hand_id, net: line.net } },
      h("td", {}, h("time", { datetime: new Date(line.started_at * 1000).toISOString() }, new Date(line.started_at * 1000).toLocaleString([], { dateStyle: "medium", timeStyle: "short" }))),
      h("td", { class: "table-name" }, tableName(line.table_id)),
      h("td", { class: "hole" }, line.hole ? line.hole.split(" ").map((c) => cardEl(c, null, " small")) : "—"),
      h("td", { class: `num result ${line.net > 0 ? "up" : line.net < 0 ? "down" : ""}` }, resultText(line)),
      h("td", {}, verdictBadge(hs.verdicts.get(line.hand_id))),
      h("td", {}, h("button", { type: "button", class: "hand-link", dataset: { hand: line.hand_id }, onclick: () => openHand(line.hand_id), "aria-label": `Hand #${line.hand_id}: open it in the replayer` }, `Hand #${line.hand_id}`))));
  const list = hs.hands === null ? h("p", {}, "Loading…")
    : hs.hands.length === 0 ? h("p", {}, "No hands yet.")
      : h("div", { class: "scroll" }, h("table", { class: "tables hand-list" },
        h("thead", {}, h("tr", {}, ["Date", "Table", "Your cards", "Result", "Deal", ""].map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", {}, rows)));
  const paging = h("div", { class: "row paging" },
    h("button", { type: "button", id: "history-newer", disabled: hs.newer.length === 0,
      onclick: () => loadHistory(hs.newer.at(-1), hs.newer.slice(0, -1)) }, "Newer hands"),
    h("button", { type: "button", id: "history-older", disabled: !hs.next,
      onclick: () => loadHistory(hs.next, [...hs.newer, hs.before]) }, "Older hands"),
    hs.hands && hs.hands.length ? h("span", {}, "Download these hands: ") : null,
    hs.hands && hs.hands.length ? ["pokerstars", "ohh"].map((format) =>
      h("button", { type: "button", class: "download-page", dataset: { format }, onclick: () => downloadPage(format) }, FORMAT_NAMES[format])) : null);
  let detail = null;
  const open = hs.open;
  if (open && open.hand) {
    const steps = replaySteps(open.hand, open.streets);
    const step = Math.min(open.step, steps.length - 1);
    const move = (k) => { open.step = Math.max(0, Math.min(steps.length - 1, step + k)); renderHistory(); };
    const play = () => {
      if (open.timer) {
        clearInterval(open.timer);
        open.timer = null;
      } else {
        if (open.step >= steps.length - 1) open.step = 0;
        open.timer = setInterval(() => {
          if (state.view !== "history" || state.history.open !== open || open.step >= steps.length - 1) {
            clearInterval(open.timer);
            open.timer = null;
          } else open.step += 1;
          if (state.view === "history") renderHistory();
        }, motion() ? 900 : 1500);
      }
      renderHistory();
    };
    const proof = open.proof;
    const proofText = !proof ? "checking the deal…"
      : proof.status === "verified" ? `${verdictText(proof)} (${proof.checked} cards open to the commitment${proof.seen ? " this page saw announced before the deal" : " the proof publishes; this page did not see it announced before the deal"})${runsText(proof)}`
        : proof.status === "failed" ? `deal NOT verified: ${proof.problems.join("; ")}`
          : `no deal proof: ${proof.problems.join("; ")}`;
    detail = h("article", { class: "hand-detail", dataset: { hand: open.id } },
      h("h2", {}, `Hand #${open.id} at ${tableName(open.hand.table_id)}`),
      h("p", { class: `proof ${proof ? proof.status : ""}${proof && proof.seen ? " seen" : ""}`, id: "proof-status" }, proofText),
      h("div", { class: "row" }, Object.entries(hs.formats || {}).map(([format, info]) =>
        h("button", { type: "button", class: "download", dataset: { format }, onclick: () => download(open.id, format, info), "aria-label": `Download ${FORMAT_NAMES[format] || format}: this hand as a file` }, `Download ${FORMAT_NAMES[format] || format}`))),
      h("div", { class: "row replay-controls" },
        h("button", { type: "button", id: "replay-first", onclick: () => move(-steps.length) }, "« Start"),
        h("button", { type: "button", id: "replay-prev", onclick: () => move(-1) }, "◀ Back"),
        h("button", { type: "button", id: "replay-play", "aria-pressed": open.timer ? "true" : "false", onclick: play }, open.timer ? "Pause" : "Play"),
        h("button", { type: "button", id: "replay-next", onclick: () => move(1) }, "Next ▶"),
        h("button", { type: "button", id: "replay-last", onclick: () => move(steps.length) }, "End »"),
        h("span", { id: "replay-step", "aria-live": "polite" }, `step ${step + 1} of ${steps.length}`)),
      replayTable(open.hand, steps[step]),
      h("ol", { class: "replay" }, steps.slice(0, step + 1).map((x, i) => h("li", { class: i === step ? "current" : "" }, x.text))));
  } else if (open) detail = h("p", {}, "Loading the hand…");
  app.replaceChildren(h("section", { class: "history" }, h("h1", {}, "Your hands"), paging, h("div", { class: "history-body" }, list, detail)));
}

// ------------------------------------------------------------------ statistics

const PERIODS = { all: ["All time", 0], day: ["Last 24 hours", 1], week: ["Last 7 days", 7], month: ["Last 30 days", 30] };
const STAT_NAMES = {
  vpip: ["VPIP", "voluntarily put money in the pot: the share of hands with a call, bet or raise before the flop"],
  pfr: ["PFR", "pre-flop raise: the share of hands with a bet or raise before the flop"],
  af: ["AF", "aggression factor: (bets + raises) / calls on the flop, turn and river"],
  wtsd: ["WTSD", "went to showdown: the share of the flops seen that went on to the showdown"],
};

function statText(key, value) {
  if (value === null || value === undefined) return "—";
  return key === "af" ? value.toFixed(2) : `${value.toFixed(1)}%`;
}

function periodQuery(period) {
  const days = PERIODS[period] ? PERIODS[period][1] : 0;
  if (!days) return "";
  return `?since=${encodeURIComponent(new Date(Date.now() - days * 86_400_000).toISOString())}`;
}

/** The statistics of other players, asked once per opponent in a session: the answer is kept,
 * a refusal (403: the player does not share them) as much as the figures. */
const opponentStats = new Map();
function statsOf(name) {
  const known = opponentStats.get(name);
  if (known) return known.figures;
  opponentStats.set(name, { figures: null, loading: true });
  api("GET", `/api/players/${encodeURIComponent(name)}/stats`)
    .then((figures) => figures, () => null) // 403: the player does not share them
    .then((figures) => {
      opponentStats.set(name, { figures, loading: false });
      if (figures && state.view === "table") render();
    });
  return null;
}

/** An opponent's figures beside their seat, for players who share them. */
function hud(name) {
  const f = statsOf(name);
  if (!f) return null;
  const title = Object.entries(STAT_NAMES).map(([key, [label, words]]) => `${label} ${statText(key, f[key])}: ${words}`).join("\n");
  return h("div", { class: "hud", dataset: { stats: name, hands: f.hands }, title, "aria-label": `statistics of ${name}: ${f.hands} hands, ` +
    Object.entries(STAT_NAMES).map(([key, [label]]) => `${label} ${statText(key, f[key])}`).join(", ") },
  `${f.hands}h · `, Object.entries(STAT_NAMES).map(([key, [label]]) => `${label} ${statText(key, f[key])}`).join(" · "));
}

async function loadStats() {
  state.stats = state.stats || { period: "all", figures: null, settings: null };
  const mine = state.stats;
  try {
    const [figures, settings] = await Promise.all([
      api("GET", `/api/me/stats${periodQuery(mine.period)}`), api("GET", "/api/me/settings")]);
    mine.figures = figures;
    mine.settings = settings;
  } catch (error) {
    toast(errorText(error));
  }
  if (state.view === "stats") renderStats();
}

async function changeSetting(name, on) {
  try {
    state.stats.settings = await api("PUT", "/api/me/settings", { [name]: on });
  } catch (error) {
    toast(errorText(error));
  }
  renderStats();
}

function resultsText(results) {
  if (!results.length) return "no hands";
  return results.map((r) => `${r.hands} hands, ${r.won} won, net ${r.currency === "PLAY" ? chips(r.net) : amountText(r.currency, r.net)}${r.currency === "PLAY" ? " play chips" : ""}`).join("; ");
}

function renderStats() {
  const mine = state.stats;
  if (!mine) return;
  const f = mine.figures;
  const settings = mine.settings || { share_stats: false, findable: false };
  const period = h("select", { id: "stats-period", "aria-label": "period of the statistics",
    onchange: (e) => { mine.period = e.target.value; loadStats(); } },
  Object.entries(PERIODS).map(([key, [label]]) => h("option", { value: key, selected: mine.period === key }, label)));
  const setting = (name, label) => {
    const box = h("input", { type: "checkbox", id: `setting-${name}`, checked: Boolean(settings[name]) });
    box.addEventListener("change", () => changeSetting(name, box.checked));
    return h("label", {}, box, ` ${label}`);
  };
  const figures = !f ? h("p", {}, "Loading…") : h("table", { class: "tables stats", id: "my-stats" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Figure"), h("th", { scope: "col" }, "Value"), h("th", { scope: "col" }, "Counted"), h("th", { scope: "col" }, "What it is"))),
    h("tbody", {},
      h("tr", { dataset: { stat: "hands" } }, h("td", {}, "Hands"), h("td", { class: "num" }, chips(f.hands)), h("td", {}, ""), h("td", {}, "hands you were dealt into")),
      Object.entries(STAT_NAMES).map(([key, [label, words]]) => {
        const c = f.counts;
        const counted = { vpip: `${c.vpip} of ${f.hands}`, pfr: `${c.pfr} of ${f.hands}`, af: `(${c.bets} + ${c.raises}) / ${c.calls}`, wtsd: `${c.showdowns} of ${c.saw_flop}` }[key];
        return h("tr", { dataset: { stat: key, value: f[key] === null ? "" : f[key] } },
          h("td", {}, label), h("td", { class: "num" }, statText(key, f[key])), h("td", {}, counted), h("td", {}, words));
      })));
  app.replaceChildren(h("section", { class: "statistics" },
    h("h1", {}, "Your statistics"),
    h("div", { class: "filters" }, h("label", {}, "Period ", period)),
    figures,
    f ? h("p", { id: "my-results" }, `Results over the period: ${resultsText(f.results)}.`) : null,
    f ? h("p", { id: "my-session" }, `This session (since you signed in): ${resultsText(f.session.results)}.`) : null,
    f && f.limited ? h("p", { class: "hint" }, "Only your newest 5,000 hands of the period are counted.") : null,
    h("h2", {}, "What others may see"),
    h("div", { class: "settings" },
      setting("share_stats", "Show my statistics to other players (beside my seat at the table)"),
      setting("findable", "Let other players find the tables I sit at (the lobby's player search)"))));
}

start();

// ------------------------------------------------------------------ player protection

const REAL_CURRENCIES = ["USD", "EUR", "GBP", "CAD", "AUD", "CHF"];
const PERIOD_NAMES = { day: "per day (24 hours)", week: "per week (7 days)", month: "per month (30 days)" };
const COOL_OFFS = [[24, "24 hours"], [48, "48 hours"], [72, "3 days"], [168, "1 week"], [336, "2 weeks"], [672, "4 weeks"], [1008, "6 weeks"]];
const EXCLUSIONS = [["6", "6 months"], ["12", "1 year"], ["24", "2 years"], ["60", "5 years"], ["permanent", "permanently"]];

/** The player's protection settings, for the lobby and the tables (no seat during a break). */
async function loadProtection() {
  try {
    state.limits = await api("GET", "/api/me/limits");
  } catch (_) {
    return; // asked again at the next visit of the lobby
  }
  if (state.view === "lobby") renderLobby();
}

/** The player may sit, wait and register: no cool-off or self-exclusion runs. */
function mayPlay() {
  const l = state.limits;
  if (!l || !l.blocked) return true;
  if (l.excluded_permanently) return false;
  const until = l.excluded_until || l.cool_off_until;
  return until !== null && until !== undefined && Date.now() / 1000 >= until;
}

/** The lobby says why it offers no seat during a break. */
function breakNotice() {
  const l = state.limits;
  if (mayPlay() || !l) return null;
  const text = l.excluded_permanently || l.excluded_until
    ? breakText("self-exclusion", l.excluded_permanently ? null : l.excluded_until)
    : breakText("cool-off", l.cool_off_until);
  return h("p", { class: "hint break-notice", id: "break-notice", role: "status" }, text);
}

async function loadLimits() {
  state.limits = null;
  try {
    state.limits = await api("GET", "/api/me/limits");
  } catch (error) {
    toast(errorText(error));
  }
  if (state.view === "limits") renderLimits();
}

function fullTime(seconds) {
  return new Date(seconds * 1000).toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
}

function limitRow(l) {
  const pending = l.pending
    ? (l.pending.amount === null ? "removal" : `raise to ${amountText(l.currency, l.pending.amount)}`) +
      ` from ${fullTime(l.pending.at)}`
    : "";
  return h("tr", { dataset: { currency: l.currency, kind: l.kind, period: l.period } },
    h("td", {}, l.currency),
    h("td", {}, l.kind === "deposit" ? "Deposits" : "Net losses"),
    h("td", {}, PERIOD_NAMES[l.period]),
    h("td", { class: "amount" }, l.amount === null ? "none" : amountText(l.currency, l.amount)),
    h("td", { class: "used" }, amountText(l.currency, l.used)),
    h("td", { class: "pending" }, pending));
}

function select(id, label, options, value = undefined) {
  const box = h("select", { id }, ...options.map(([v, text]) => h("option", { value: String(v) }, text)));
  if (value !== undefined) box.value = String(value);
  return h("label", { for: id }, label, " ", box);
}

function renderLimits() {
  const l = state.limits;
  if (!l) {
    app.replaceChildren(h("p", { class: "loading" }, "Loading…"));
    return;
  }
  let status;
  if (l.excluded_permanently) status = "You have excluded yourself permanently. You can still withdraw your balance.";
  else if (l.excluded_until) status = `You have excluded yourself until ${fullTime(l.excluded_until)}. You can still withdraw your balance.`;
  else if (l.cool_off_until) status = `You are taking a break until ${fullTime(l.cool_off_until)}. You can still withdraw your balance.`;
  else status = "You can play.";
  const rows = l.limits.map(limitRow);
  const setLimit = h("form", { id: "limit-form", class: "row", onsubmit: (e) => { e.preventDefault(); saveLimit(); } },
    select("limit-currency", "Currency", REAL_CURRENCIES.map((c) => [c, c])),
    select("limit-kind", "Limit on", [["deposit", "deposits"], ["loss", "net losses"]]),
    select("limit-period", "Period", Object.entries(PERIOD_NAMES)),
    h("label", { for: "limit-amount" }, "Amount ", h("input", { id: "limit-amount", inputmode: "decimal", placeholder: "100.00 (empty: no limit)" })),
    h("button", { type: "submit" }, "Set limit"));
  const reminder = h("form", { id: "reminder-form", class: "row", novalidate: true, onsubmit: (e) => { e.preventDefault(); saveReminder(); } },
    h("label", { for: "reminder-minutes" }, "Remind me every ",
      h("input", { id: "reminder-minutes", type: "number", min: "10", max: "1440", step: "1", placeholder: "never",
        value: l.reminder_minutes ? String(l.reminder_minutes) : "" }), " minutes of play (10 to 1440; empty: never)"),
    h("button", { type: "submit" }, "Save reminder"));
  const blocked = Boolean(l.blocked);
  const breaks = h("div", { class: "row" },
    select("cool-off-hours", "Take a break for", COOL_OFFS),
    h("button", { type: "button", id: "cool-off", disabled: l.excluded_until || l.excluded_permanently ? true : undefined, onclick: confirmCoolOff }, "Take a break"));
  const exclusion = h("div", { class: "row" },
    select("exclusion-months", "Exclude myself for", EXCLUSIONS),
    h("button", { type: "button", id: "exclude", disabled: l.excluded_permanently ? true : undefined, onclick: confirmExclusion }, "Exclude myself"));
  app.replaceChildren(h("section", { class: "limits", "aria-labelledby": "limits-title" },
    h("h1", { id: "limits-title" }, "Limits and breaks"),
    h("p", { id: "protection-status", role: "status", dataset: { blocked: l.blocked || "" } }, status),
    h("p", { id: "verified" }, l.verified ? "Your account is verified: you may play real money." : "Your account is not verified yet: real-money tables need a verified account (ask the room's support). Play money needs none."),
    h("h2", {}, "Deposit and loss limits"),
    h("p", {}, "Lowering or setting a limit takes effect at once; raising or removing one takes effect 24 hours later. Net losses are buy-ins and tournament entries less cash-outs and prizes."),
    rows.length
      ? h("table", { id: "limits" },
        h("thead", {}, h("tr", {}, ...["Currency", "Limit on", "Period", "In force", "Used", "Pending"].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", {}, ...rows))
      : h("p", { id: "no-limits" }, "No limits set."),
    setLimit,
    h("h2", {}, "Session reminder"),
    reminder,
    h("h2", {}, "Take a break"),
    h("p", {}, "During a break or a self-exclusion you cannot deposit, sit at a table or register; you leave your tables at the end of the hand. It cannot be ended early."),
    breaks,
    exclusion));
  if (blocked) app.querySelector("#protection-status").classList.add("blocked");
}

async function putLimits(body) {
  try {
    const answer = await api("PUT", "/api/me/limits", body);
    state.limits = answer;
    for (const c of answer.changes || []) {
      if (c.effect === "pending") toast(`The change takes effect at ${fullTime(c.at)} (24 hours from now).`, "info");
      else if (c.effect === "now") toast("The limit is in force now.", "info");
    }
    if (body.reminder_minutes !== undefined) toast(body.reminder_minutes ? `A reminder every ${body.reminder_minutes} minutes.` : "No reminders.", "info");
  } catch (error) {
    toast(errorText(error));
  }
  if (state.view === "limits") renderLimits();
}

function saveLimit() {
  const text = document.getElementById("limit-amount").value.trim();
  putLimits({
    limits: [{
      currency: document.getElementById("limit-currency").value,
      kind: document.getElementById("limit-kind").value,
      period: document.getElementById("limit-period").value,
      amount: text === "" ? null : text,
    }],
  });
}

function saveReminder() {
  const text = document.getElementById("reminder-minutes").value.trim();
  const minutes = text === "" ? 0 : Number(text);
  if (minutes !== 0 && !(Number.isInteger(minutes) && minutes >= 10 && minutes <= 1440)) {
    toast(REMINDER_RULE);
    return;
  }
  putLimits({ reminder_minutes: minutes });
}

function confirmBreak(title, text, path, body) {
  const cancel = h("button", { type: "button", class: "secondary", onclick: () => d.close() }, "Cancel");
  const yes = h("button", { type: "button", id: "confirm-break", onclick: async () => {
    d.close();
    try {
      const answer = await api("POST", path, body);
      state.limits = answer;
      toast(answer.tables_left && answer.tables_left.length ? "Done. You leave your tables at the end of the hand." : "Done.", "info");
    } catch (error) {
      toast(errorText(error));
    }
    if (state.view === "limits") renderLimits();
  } }, "Yes, I am sure");
  const d = dialog(title, h("p", { id: "break-warning" }, text), [yes, cancel]);
}

function confirmCoolOff() {
  const hours = Number(document.getElementById("cool-off-hours").value);
  const until = fullTime(Date.now() / 1000 + hours * 3600);
  confirmBreak("Take a break", `You will not be able to deposit or play until ${until}. A break cannot be ended early.`, "/api/me/cool-off", { hours });
}

function confirmExclusion() {
  const value = document.getElementById("exclusion-months").value;
  const body = value === "permanent" ? { permanent: true } : { months: Number(value) };
  const span = value === "permanent" ? "permanently" : `for ${EXCLUSIONS.find(([v]) => v === value)[1]}`;
  confirmBreak("Exclude myself", `You will be excluded ${span}: no deposits and no play. It cannot be undone early.`, "/api/me/exclusion", body);
}
