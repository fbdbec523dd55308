// feltroom in the browser: sign-in, the lobby, the table and the hand history. It renders only
// what the server sends (docs/protocol.md) and sends only the actions the server offered.

import { api, ApiError, savedToken, saveToken, Socket } from "/static/net.js";
import { applyEvent, applyMessage, applySnapshot, forcedName, newTable, owed } from "/static/table.js";
import { verifyProof } from "/static/verify.js";

const app = document.getElementById("app");
const nav = document.getElementById("nav");
const toastBox = document.getElementById("toast");

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
  filters: { structure: "", stakes: "", seats: "" },
  autoMuck: new Map(),
  autoPost: new Map(),
  history: null,
  commitments: new Map(), // hand id -> the commitment announced in its hand_started
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

function cardEl(card) {
  if (!card) return h("span", { class: "card back", "aria-label": "face-down card" });
  const rank = card[0];
  const suit = card[1];
  return h(
    "span",
    {
      class: `card suit-${suit}`,
      dataset: { card },
      "aria-label": `${RANK_NAMES[rank] || rank} of ${SUIT_NAMES[suit]}`,
    },
    h("span", { class: "rank" }, rank === "T" ? "10" : rank),
    h("span", { class: "suit" }, SUITS[suit]),
  );
}

function chips(n) {
  return Number(n).toLocaleString("en-US");
}

// ------------------------------------------------------------------ start and the account

async function start() {
  window.addEventListener("hashchange", route);
  document.addEventListener("keydown", onKey);
  setInterval(tick, 200);
  if (savedToken()) {
    try {
      const me = await api("GET", "/api/me");
      state.player = me.player;
      state.balances = me.balances;
      connect();
    } catch (error) {
      saveToken(null);
    }
  }
  route();
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
  const balances = Object.entries(state.balances).map(([currency, amount]) =>
    h("span", { class: "balance", dataset: { currency } }, `${currency === "PLAY" ? "Play chips" : currency} ${amount}`),
  );
  nav.append(...[
    h("span", { class: "who" }, state.player),
    ...balances,
    h("button", { type: "button", onclick: grant, "aria-label": "take a play-money grant" }, "Get play chips"),
    h("a", { href: "#lobby" }, "Lobby"),
    h("a", { href: "#history" }, "History"),
    h("button", { type: "button", onclick: signOut }, "Sign out"),
    state.connection === "connecting" || state.connection === "reconnecting"
      ? h("span", { class: "conn", role: "status" }, `${state.connection}…`) : null,
  ].filter(Boolean));
}

async function grant() {
  try {
    const answer = await api("POST", "/api/grant", {});
    toast(`Granted ${answer.granted} play chips.`, "info");
  } catch (error) {
    toast(error.message);
  }
  refreshBalance();
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
  sessionStorage.removeItem("feltroom.watch");
  location.hash = "";
  route();
}

function renderAuth() {
  const message = h("p", { class: "form-error", role: "alert" });
  const name = h("input", { id: "auth-name", name: "name", autocomplete: "username", required: true, maxlength: 32 });
  const password = h("input", {
    id: "auth-password", name: "password", type: "password", autocomplete: "current-password", required: true, minlength: 8,
  });
  async function submit(kind) {
    message.textContent = "";
    try {
      if (kind === "signup") {
        await api("POST", "/api/signup", { name: name.value, password: password.value });
      }
      const answer = await api("POST", "/api/signin", { name: name.value, password: password.value });
      saveToken(answer.token);
      state.player = answer.player;
      await refreshBalance();
      connect();
      route();
    } catch (error) {
      message.textContent = error.message;
    }
  }
  const form = h(
    "form",
    { class: "auth", onsubmit: (e) => { e.preventDefault(); submit("signin"); } },
    h("h1", {}, "feltroom"),
    h("p", {}, "Texas Hold'em, play money and real. Sign in or sign up to take a seat."),
    h("label", { for: "auth-name" }, "Name"),
    name,
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
  for (const id of watched) {
    if (!m.seats.some((s) => s.table === id)) state.socket.request({ type: "observe", table: id });
    watchTable(id);
  }
  if (state.lobbySubscribed || state.view === "lobby") subscribeLobby();
  if (!location.hash && m.seats.length > 0) {
    location.hash = `#table/${m.seats[0].table}`;
  }
  route(); // a table opened before the connection was up is observed now
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
  const reply = await state.socket.request({ type: "lobby" });
  if (reply.type === "lobby") {
    state.lobby = reply.tables;
    if (state.view === "lobby") render();
  }
}

function onMessage(m) {
  const now = state.socket.now();
  if (m.type === "lobby_update") {
    const i = state.lobby.findIndex((t) => t.id === m.table.id);
    if (i >= 0) state.lobby[i] = m.table;
    else state.lobby.push(m.table);
    if (state.view === "lobby") render();
    return;
  }
  if (m.type === "error") {
    toast(m.message);
    return;
  }
  const t = m.table ? state.tables.get(m.table) : null;
  if (!t) {
    if (m.type === "seat_offer") toast(`A seat is free for you at ${m.table}: open the table to take it.`, "info");
    return;
  }
  let line = null;
  if (m.type === "snapshot") {
    applySnapshot(t, m);
    state.autoPost.delete(t.id); // the snapshot's settings are the server's: they win
    state.autoMuck.delete(t.id);
  }
  else if (m.type === "event") {
    line = applyEvent(t, m, { me: state.player });
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
  if (state.view === "table" && state.current === t.id) renderTable(t);
}

// ------------------------------------------------------------------ routing

function route() {
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
    if (!state.tables.has(state.current) && state.connection === "open") {
      watchTable(state.current);
      state.socket.request({ type: "observe", table: state.current }).then((r) => {
        if (r.type === "error") toast(r.message);
      });
    }
    if (!lobbyEntry(state.current)) ensureLobby();
  } else if (hash === "history") {
    state.view = "history";
    state.current = null;
    loadHistory();
  } else {
    state.view = "lobby";
    state.current = null;
    if (state.socket && state.connection === "open" && !state.lobbySubscribed) subscribeLobby();
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
  } else if (state.view === "history") renderHistory();
}

// ------------------------------------------------------------------ the lobby

const STRUCTURE_NAMES = { fixed_limit: "Limit", pot_limit: "Pot-Limit", no_limit: "No-Limit" };

async function ensureLobby() {
  try {
    const answer = await api("GET", "/api/lobby");
    if (state.lobby.length === 0) state.lobby = answer.tables;
    render();
  } catch (error) {
    toast(error.message);
  }
}

function lobbyEntry(id) {
  return state.lobby.find((t) => t.id === id);
}

function renderLobby() {
  const f = state.filters;
  const distinct = (key) => [...new Set(state.lobby.map((t) => String(t[key])))].sort();
  const select = (key, label, options, names = {}) =>
    h("label", {}, label,
      h("select", {
        "aria-label": `filter by ${label.toLowerCase()}`,
        name: key,
        onchange: (e) => { f[key] = e.target.value; renderLobby(); },
      },
      h("option", { value: "" }, "All"),
      options.map((o) => h("option", { value: o, selected: f[key] === o }, names[o] || o))));
  const rows = state.lobby
    .filter((t) => (!f.structure || t.structure === f.structure) && (!f.stakes || t.stakes === f.stakes)
      && (!f.seats || String(t.seats) === f.seats))
    .map((t) =>
      h("tr", { dataset: { table: t.id } },
        h("td", {}, h("strong", {}, t.name), h("div", { class: "info" }, t.info)),
        h("td", {}, t.game, " ", STRUCTURE_NAMES[t.structure] || t.structure),
        h("td", {}, t.stakes),
        h("td", { class: "num" }, `${t.seats_taken} / ${t.seats_free}`),
        h("td", { class: "num" }, chips(t.average_pot)),
        h("td", { class: "num" }, t.hands_per_hour),
        h("td", { class: "row-actions" },
          h("button", { type: "button", onclick: () => openTable(t.id, true), "aria-label": `join ${t.name}` }, "Join"),
          h("button", { type: "button", onclick: () => openTable(t.id, false), "aria-label": `observe ${t.name}` }, "Observe"),
          h("button", { type: "button", onclick: () => joinWaitList(t.id), "aria-label": `join the waiting list of ${t.name}` },
            `Wait list${t.waiting ? ` (${t.waiting})` : ""}`))));
  app.replaceChildren(
    h("section", { class: "lobby" },
      h("h1", {}, "Lobby"),
      h("div", { class: "filters" },
        select("structure", "Structure", ["fixed_limit", "pot_limit", "no_limit"], STRUCTURE_NAMES),
        select("stakes", "Stakes", distinct("stakes")),
        select("seats", "Seats", distinct("seats"))),
      h("div", { class: "scroll" },
        h("table", { class: "tables" },
          h("thead", {}, h("tr", {},
            ["Table", "Game", "Stakes", "Seats taken / free", "Average pot", "Hands / hour", ""].map((c) => h("th", { scope: "col" }, c)))),
          h("tbody", {}, rows.length ? rows : h("tr", {}, h("td", { colspan: 7 }, state.lobby.length ? "No table matches." : "Loading tables…")))))));
}

async function openTable(id, join) {
  location.hash = `#table/${encodeURIComponent(id)}`;
  if (join) {
    const t = state.tables.get(id) || watchTable(id);
    const wait = () => new Promise((r) => setTimeout(r, 100));
    for (let i = 0; i < 30 && !t.info; i++) await wait();
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
    toast(reply.message);
    return;
  }
  t.onWaitList = true;
  toast("You are on the waiting list.", "info");
  if (!t.info) await state.socket.request({ type: "observe", table: id }); // the picture of it
  if (state.current === id) renderTable(t);
}

// ------------------------------------------------------------------ dialogs

function dialog(title, body, buttons) {
  const d = h("dialog", { class: "dialog", "aria-label": title },
    h("form", { method: "dialog" },
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
  const entry = lobbyEntry(t.id);
  if (!entry) {
    toast("The lobby has not loaded yet.");
    return;
  }
  const min = entry.settings.buy_in_min;
  const max = entry.settings.buy_in_max;
  const balance = currencyBalance(entry);
  const fallback = Math.min(balance, max);
  const amount = h("input", {
    id: "buy-in", type: "number", min, max, step: 1, value: Math.max(min, fallback), required: true,
  });
  const entryPost = h("input", { type: "radio", name: "entry", value: "post", id: "entry-post", checked: true });
  const entryWait = h("input", { type: "radio", name: "entry", value: "wait", id: "entry-wait" });
  const autoPost = h("input", { type: "checkbox", id: "sit-auto-post", checked: true });
  const error = h("p", { class: "form-error", role: "alert" });
  const body = h("div", {},
    h("p", { class: "bounds" }, `Buy-in ${chips(min)} to ${chips(max)}; default ${chips(fallback)} (your balance up to the maximum). Balance: ${chips(balance)}.`),
    h("label", { for: "buy-in" }, `Chips for seat ${seat}`), amount,
    h("fieldset", {}, h("legend", {}, "Enter the game"),
      h("label", {}, entryPost, " Post the big blind now"),
      h("label", {}, entryWait, " Wait for the big blind")),
    h("label", {}, autoPost, " Post blinds automatically"),
    error);
  const sit = h("button", {
    type: "button", id: "buy-in-sit",
    onclick: async () => {
      const reply = await state.socket.request({
        type: "sit", table: t.id, seat, buy_in: Number(amount.value),
        entry: entryWait.checked ? "wait" : "post", auto_post: autoPost.checked,
      });
      if (reply.type === "error") {
        error.textContent = reply.message;
        return;
      }
      state.autoPost.set(t.id, autoPost.checked);
      d.close();
      refreshBalance();
    },
  }, "Sit down");
  const d = dialog(`Buy in at ${entry.name}`, body, [sit, h("button", { value: "cancel" }, "Cancel")]);
  amount.focus();
}

function addChipsDialog(t) {
  const entry = lobbyEntry(t.id);
  const me = t.seats.get(t.you);
  if (!entry || !me) return;
  const room = Math.max(0, entry.settings.buy_in_max - me.stack);
  const amount = h("input", { id: "add-chips", type: "number", min: 1, max: room, value: room, step: 1 });
  const error = h("p", { class: "form-error", role: "alert" });
  const add = h("button", {
    type: "button", id: "add-chips-ok",
    onclick: async () => {
      const reply = await state.socket.request({ type: "add_chips", table: t.id, amount: Number(amount.value) });
      if (reply.type === "error") error.textContent = reply.message;
      else {
        d.close();
        refreshBalance();
      }
    },
  }, "Add");
  const d = dialog("Add chips", h("div", {},
    h("p", {}, `Between hands, up to the table's maximum buy-in ${chips(entry.settings.buy_in_max)}: at most ${chips(room)} now.`),
    h("label", { for: "add-chips" }, "Chips"), amount, error), [add, h("button", { value: "cancel" }, "Cancel")]);
}

// ------------------------------------------------------------------ the table

async function send(t, message) {
  const reply = await state.socket.request({ table: t.id, ...message });
  if (reply.type === "error") {
    t.error = reply.message;
    toast(reply.message);
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

function renderSeat(t, n, seats) {
  const s = t.seats.get(n);
  const pos = seatPosition(n, seats, t.you);
  const style = `left:${pos.x}%;top:${pos.y}%`;
  if (!s) {
    const canSit = t.you === null && state.player;
    return h("div", { class: "seat empty", style, dataset: { seat: n } },
      canSit ? h("button", { type: "button", onclick: () => buyInDialog(t, n), "aria-label": `sit in seat ${n}` }, `Sit ${n}`) : h("span", {}, `Seat ${n}`));
  }
  const winner = t.pots.some((p) => p.winners.includes(n));
  const won = t.pots.reduce((sum, p) => sum + p.winners.reduce((a, w, i) => a + (w === n ? p.shares[i] : 0), 0), 0);
  const classes = ["seat", s.folded ? "folded" : "", t.toAct === n ? "acting" : "", n === t.you ? "mine" : "",
    winner ? "winner" : "", s.disconnected ? "disconnected" : "", s.sittingOut ? "out" : ""].join(" ");
  const bx = 50 + (pos.x - 50) * 0.6;
  const by = 50 + (pos.y - 50) * 0.55;
  return [
    h("div", { class: classes, style, dataset: { seat: n, player: s.player }, "aria-label": `seat ${n}: ${s.player}` },
      h("div", { class: "cards" }, s.cards ? s.cards.map(cardEl) : s.hasCards ? [cardEl(null), cardEl(null)] : null),
      h("div", { class: "name" }, s.player,
        t.button === n ? h("span", { class: "dealer", title: "button", "aria-label": "button" }, "D") : null,
        t.small === n && t.hand !== null ? h("span", { class: "blind", title: "small blind" }, "SB") : null,
        t.big === n && t.hand !== null ? h("span", { class: "blind", title: "big blind" }, "BB") : null),
      h("div", { class: "stack", dataset: { stack: s.stack } }, chips(s.stack)),
      h("div", { class: "status" },
        s.disconnected ? h("span", { class: "badge dc" }, "disconnected") : null,
        s.sittingOut ? h("span", { class: "badge" }, "sitting out") : null,
        s.marker ? h("span", { class: "badge" }, s.marker) : null,
        s.allIn ? h("span", { class: "badge allin" }, "all-in") : null,
        s.last && !s.allIn ? h("span", { class: "last" }, s.last) : null,
        winner ? h("span", { class: "badge win", dataset: { won } }, `wins ${chips(won)}`) : null),
      t.toAct === n ? h("div", { class: "timer", role: "progressbar", "aria-label": `time to act for ${s.player}`, "aria-valuemin": 0, "aria-valuemax": 100 },
        h("div", { class: "timer-fill" }), h("span", { class: "timer-count" })) : null),
    s.bet > 0 ? h("div", { class: "bet", style: `left:${bx}%;top:${by}%`, dataset: { seat: n, bet: s.bet } }, chips(s.bet)) : null,
  ];
}

function renderTable(t) {
  const entry = lobbyEntry(t.id);
  const seats = entry ? entry.seats : Math.max(2, ...t.seats.keys());
  const me = t.you !== null ? t.seats.get(t.you) : null;
  const felt = h("div", { class: "felt", role: "group", "aria-label": "the table" },
    h("div", { class: "oval" }),
    h("div", { class: "center" },
      h("div", { class: "board", "aria-label": "board" }, t.board.map(cardEl)),
      h("div", { class: "pot", dataset: { pot: t.pot } }, t.hand !== null || t.pot > 0 && !t.result ? `Pot ${chips(t.pot)}` : ""),
      !t.pots.length && t.hand !== null && t.livePots && t.livePots.length > 1
        ? h("div", { class: "pots live-pots" }, t.livePots.map((p, i) =>
          h("div", { class: "live-pot-line", dataset: { index: i, amount: p.amount } },
            `${i === 0 ? "Main pot" : `Side pot ${i}`} ${chips(p.amount)}`)))
        : null,
      t.pots.length
        ? h("div", { class: "pots" }, t.pots.map((p) =>
          h("div", { class: "pot-line", dataset: { index: p.index, amount: p.amount } },
            `${p.index === 0 ? "Main pot" : `Side pot ${p.index}`} ${chips(p.amount)}: `,
            p.winners.map((w, i) => `${t.seats.get(w) ? t.seats.get(w).player : `seat ${w}`} wins ${chips(p.shares[i])}`).join(", "))))
        : null),
    [...Array(seats).keys()].map((i) => renderSeat(t, i + 1, seats)));
  const mine = me && me.cards
    ? h("div", { class: "my-hand", "aria-label": "your hand" },
      h("div", { class: "cards" }, me.cards.map(cardEl)),
      t.description ? h("div", { class: "words", id: "hand-words" }, t.description) : null)
    : null;
  const title = h("div", { class: "table-head" },
    h("h1", {}, entry ? entry.name : t.id),
    h("p", { class: "info" }, t.info),
    t.you === null ? h("p", { class: "observing" }, "Observing", t.onWaitList ? " — on the waiting list" : "") : null);
  const side = h("aside", { class: "side" }, renderChat(t), h("ol", { class: "log", "aria-label": "hand log" }, t.log.slice(-30).map((l) => h("li", {}, l))));
  const focused = document.activeElement && document.activeElement.id;
  const caret = focused === "chat-text" ? document.activeElement.selectionStart : null;
  const controls = [mine, renderActions(t, entry), renderSeatControls(t, entry)].map(keepIfSame);
  app.replaceChildren(h("section", { class: "table-view" },
    title, felt, h("div", { class: "controls" }, controls), side));
  for (const list of side.querySelectorAll(".log, .chat-lines")) list.scrollTop = list.scrollHeight;
  const again = focused ? document.getElementById(focused) : null;
  if (again && document.querySelectorAll("dialog[open]").length === 0) {
    again.focus();
    if (caret !== null) again.setSelectionRange(caret, caret);
  }
  tick();
}

// A control the redraw would rebuild unchanged stays the very element on the page, so a click
// or a tap that lands while another message redraws the table is not lost.
function keepIfSame(fresh) {
  if (!fresh || !fresh.id) return fresh;
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
      }
      return reply;
    };
    const buttons = h("div", { class: "row" });
    if (legal.fold) buttons.append(h("button", { type: "button", class: "fold", id: "act-fold", "aria-keyshortcuts": "F", onclick: () => act("fold") }, "Fold"));
    if (legal.check) buttons.append(h("button", { type: "button", id: "act-check", "aria-keyshortcuts": "C", onclick: () => act("check") }, "Check"));
    if (legal.call !== null) buttons.append(h("button", { type: "button", id: "act-call", "aria-keyshortcuts": "C", onclick: () => act("call") }, `Call ${chips(legal.call)}`));
    box.append(buttons);
    if (legal.raise_min !== null) box.append(raiseControls(t, entry, legal, act));
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

function raiseControls(t, entry, legal, act) {
  const verb = legal.bet ? "Bet" : "Raise to";
  const verbId = legal.bet ? "bet" : "raise";
  const structure = entry ? entry.structure : "no_limit";
  const min = legal.raise_min;
  const max = legal.raise_max;
  const wrap = h("div", { class: "raise", id: "raise-controls", dataset: { min, max, structure } });
  if (min === max) {
    wrap.append(h("button", { type: "button", id: `act-${verbId}`, class: "wager", "aria-keyshortcuts": "R", onclick: () => act(verbId, min) },
      `${verb} ${chips(min)}${max === (t.seats.get(t.you) || {}).stack + (t.seats.get(t.you) || {}).bet ? " (all-in)" : ""}`));
    return wrap;
  }
  const me = t.seats.get(t.you);
  const call = legal.call || 0;
  const facing = me.bet + call;
  const potAfterCall = t.pot + call;
  const clamp = (x) => Math.max(min, Math.min(max, Math.floor(x)));
  // what the player typed survives a redraw (a chat line, a clock event) within this turn
  const key = `${t.hand}:${min}:${max}`;
  const start = t.draft && t.draft.key === key ? t.draft.value : String(min);
  const remember = (value) => (t.draft = { key, value });
  const amount = h("input", { type: "number", id: "raise-amount", min, max, step: 1, value: start, "aria-label": `${verb} amount, ${min} to ${max}` });
  const slider = h("input", { type: "range", id: "raise-slider", min, max, step: 1, value: start, "aria-label": `${verb} amount slider` });
  slider.addEventListener("input", () => { amount.value = slider.value; remember(slider.value); });
  amount.addEventListener("input", () => { slider.value = amount.value; remember(amount.value); });
  const preset = (label, value, id) =>
    h("button", { type: "button", class: "preset", id, dataset: { amount: value },
      onclick: () => { amount.value = value; slider.value = value; remember(String(value)); } }, `${label} ${chips(value)}`);
  const presets = h("div", { class: "row presets" }, preset("Min", min, "preset-min"));
  if (structure === "no_limit") {
    const half = clamp(facing + potAfterCall / 2);
    const pot = clamp(facing + potAfterCall);
    if (half > min && half < max) presets.append(preset("½ Pot", half, "preset-half"));
    if (pot > min && pot < max) presets.append(preset("Pot", pot, "preset-pot"));
    presets.append(preset("All-in", max, "preset-allin"));
  } else {
    presets.append(preset("Pot", max, "preset-pot"));
  }
  wrap.append(
    presets,
    h("div", { class: "row" }, slider, amount,
      h("button", { type: "button", id: `act-${verbId}`, class: "wager", "aria-keyshortcuts": "R",
        onclick: () => act(verbId, Number(amount.value)) }, verb)),
    h("p", { class: "range", id: "raise-range" }, `${verb} ${chips(min)} to ${chips(max)}`));
  return wrap;
}

function preActions(t) {
  const call = owed(t);
  const options = call > 0
    ? [["fold", "Fold"], ["call", `Call ${chips(call)}`, call], ["call_any", "Call any"]]
    : [["check_fold", "Check/Fold"], ["check", "Check"], ["call_any", "Call any"]];
  const box = h("fieldset", { class: "pre-actions", id: "pre-actions" }, h("legend", {}, "In turn"));
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
  if (!me) {
    if (!t.onWaitList) box.append(h("button", { type: "button", onclick: () => joinWaitList(t.id) }, "Join the waiting list"));
    else box.append(h("button", { type: "button", onclick: () => send(t, { type: "wait_list_leave" }).then(() => { t.onWaitList = false; renderTable(t); }) }, "Leave the waiting list"));
    if (t.offer) box.append(h("button", { type: "button", id: "take-offer", onclick: () => buyInDialog(t, t.offer.seat) }, `Take seat ${t.offer.seat}`));
    box.append(h("button", { type: "button", onclick: () => { send(t, { type: "unobserve" }); unwatchTable(t.id); location.hash = "#lobby"; } }, "Back to the lobby"));
    return box;
  }
  // the server's word (the snapshot's settings) first, then what this page set since
  const setting = (key, map) => (map.has(t.id) ? map.get(t.id) : !t.settings || t.settings[key] !== false);
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
  box.append(h("label", {}, autoPost, " Auto-post blinds"), h("label", {}, autoMuck, " Auto-muck losing hands"));
  if (t.hand === null) box.append(h("button", { type: "button", id: "add-chips-open", onclick: () => addChipsDialog(t) }, "Add chips"));
  if (me.sittingOut) {
    const owes = me.owes === "MS" || me.owes === "ML";
    box.append(h("button", { type: "button", id: "sit-in", onclick: () => send(t, { type: "sit_in", entry: "post" }) }, owes ? "Sit in and post the missed blinds" : "Sit in"));
    if (owes) box.append(h("button", { type: "button", id: "sit-in-wait", onclick: () => send(t, { type: "sit_in", entry: "wait" }) }, "Sit in, wait for the big blind"));
  } else {
    box.append(h("button", { type: "button", id: "sit-out", onclick: () => send(t, { type: "sit_out" }) }, "Sit out"));
  }
  box.append(h("button", { type: "button", id: "leave", onclick: () => send(t, { type: "leave" }) }, "Leave"));
  return box;
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
  if (state.view !== "table" || !state.socket) return;
  const t = state.tables.get(state.current);
  if (!t || t.toAct === null || t.deadline === null) return;
  const now = state.socket.now();
  const total = Math.max(0.1, t.deadline - (t.turnStart || now));
  const left = Math.max(0, t.deadline - now);
  const fill = app.querySelector(".timer-fill");
  const count = app.querySelector(".timer-count");
  const bar = app.querySelector(".timer");
  if (!fill) return;
  const pct = Math.round((100 * left) / total);
  fill.style.width = `${pct}%`;
  bar.setAttribute("aria-valuenow", pct);
  const counting = t.countdownAt !== null && now >= t.countdownAt;
  bar.classList.toggle("counting", counting);
  count.textContent = counting ? `${Math.ceil(left)}s` : "";
  const expires = app.querySelector("#blind-prompt .expires");
  if (expires) expires.textContent = `${Math.max(0, Math.ceil(Number(expires.dataset.expires) - now))}s`;
}

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
  if (key === "f") click("act-fold");
  else if (key === "c") document.getElementById("act-check") ? click("act-check") : click("act-call");
  else if (key === "r" || e.key === "Enter") document.getElementById("act-raise") ? click("act-raise") : click("act-bet");
}

// ------------------------------------------------------------------ hand history

async function loadHistory() {
  state.history = { hands: null, open: null, formats: null, verdicts: new Map() };
  try {
    const list = await api("GET", "/api/hands?limit=50");
    state.history.hands = list.hands;
    state.history.formats = list.formats;
  } catch (error) {
    toast(error.message);
  }
  if (state.view === "history") renderHistory();
  const history = state.history;
  for (const id of history.hands || []) {
    if (state.history !== history) return; // the page moved on
    history.verdicts.set(id, await checkDeal(id));
    if (state.view === "history") renderHistory();
  }
}

/** Fetch a hand's proof and check it in the page: {status, checked, problems}. */
async function checkDeal(id) {
  try {
    const proof = await api("GET", `/api/hands/${id}/proof`);
    const result = await verifyProof(proof, state.commitments.get(id) || null);
    return { status: result.ok ? "verified" : "failed", ...result };
  } catch (error) {
    return { status: "unavailable", problems: [error.message] };
  }
}

async function openHand(id) {
  const detail = { id, hand: null, proof: null, step: 0 };
  state.history.open = detail;
  renderHistory();
  try {
    detail.hand = await api("GET", `/api/hands/${id}`);
  } catch (error) {
    toast(error.message);
    return;
  }
  renderHistory();
  const phh = state.history.formats && state.history.formats.phh;
  if (phh) {
    try {
      detail.streets = streetsFromPhh(await api("GET", phh.url.replace("{id}", id), undefined, { text: true }));
      renderHistory();
    } catch (_) {
      /* a hand PHH cannot write: the board comes at the end */
    }
  }
  detail.proof = await checkDeal(id);
  renderHistory();
}

async function download(id, format, info) {
  try {
    const text = await api("GET", info.url.replace("{id}", id), undefined, { text: true });
    const blob = new Blob([text], { type: info.media_type });
    const a = h("a", { href: URL.createObjectURL(blob), download: `hand-${id}.${format}` });
    document.body.append(a);
    a.click();
    a.remove();
  } catch (error) {
    toast(error.message);
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

/** The replayer's steps: [{text, board}] from the hand's record (and the streets, if known). */
function replaySteps(hand, streets) {
  const r = hand.record;
  const names = new Map(r.players.map(([seat, name]) => [seat, name]));
  const steps = [];
  let board = [];
  const step = (text) => steps.push({ text, board: board.slice() });
  step(`Hand #${hand.hand_id} at ${hand.table_id}: button seat ${r.button}`);
  for (const p of hand.players) {
    step(`Seat ${p.seat}: ${p.player} (${chips(p.start_stack)})${p.hole ? ` holds ${p.hole}` : ""}`);
  }
  for (const [seat, kind, amount] of r.forced) step(`${names.get(seat)} posts ${forcedName(kind)} ${amount}`);
  const allBoard = r.board ? r.board.split(" ") : [];
  const dealAt = (cards) => {
    board = board.concat(cards);
    step(`${["Flop", "Turn", "River"][Math.min(2, board.length - 3)] || "Board"}: ${cards.join(" ")}`);
  };
  const pending = streets && streets.length ? streets.slice() : null;
  r.actions.forEach(([seat, action], i) => {
    while (pending && pending.length && pending[0][0] === i) dealAt(pending.shift()[1]);
    step(`${names.get(seat) || `seat ${seat}`}: ${action}`);
  });
  if (pending) while (pending.length) dealAt(pending.shift()[1]);
  if (board.length < allBoard.length) {
    board = allBoard;
    step(`Board: ${r.board}`);
  }
  for (const [seat, cards] of Object.entries(r.shown || {})) step(`${names.get(Number(seat))} shows ${cards}`);
  r.pots.forEach(([amount, rake, winners, shares], i) => {
    step(`${i === 0 ? "Main pot" : `Side pot ${i}`} ${amount} (rake ${rake}): ${winners.map((w, k) => `${names.get(w)} wins ${shares[k]}`).join(", ")}`);
  });
  return steps;
}

function verdictBadge(verdict) {
  if (!verdict) return h("span", { class: "verdict" }, "…");
  const text = { verified: "deal verified", failed: "deal NOT verified", unavailable: "no proof" }[verdict.status];
  return h("span", { class: `verdict proof ${verdict.status}`, title: (verdict.problems || []).join("; ") }, text);
}

function renderHistory() {
  const hs = state.history;
  if (!hs) return;
  const list = hs.hands === null ? h("p", {}, "Loading…")
    : hs.hands.length === 0 ? h("p", {}, "No hands yet.")
      : h("ul", { class: "hand-list" }, hs.hands.map((id) =>
        h("li", {}, h("button", { type: "button", class: "hand-link", dataset: { hand: id }, onclick: () => openHand(id) }, `Hand #${id}`),
          verdictBadge(hs.verdicts.get(id)))));
  let detail = null;
  const open = hs.open;
  if (open && open.hand) {
    const steps = replaySteps(open.hand, open.streets);
    const step = Math.min(open.step, steps.length - 1);
    const move = (k) => { open.step = Math.max(0, Math.min(steps.length - 1, step + k)); renderHistory(); };
    const proof = open.proof;
    const proofText = !proof ? "checking the deal…"
      : proof.status === "verified" ? `deal verified (${proof.checked} cards open to the commitment)`
        : proof.status === "failed" ? `deal NOT verified: ${proof.problems.join("; ")}`
          : proof.status === "checking" ? "checking the deal…" : `no deal proof: ${proof.problems.join("; ")}`;
    detail = h("article", { class: "hand-detail", dataset: { hand: open.id } },
      h("h2", {}, `Hand #${open.id}`),
      h("p", { class: `proof ${proof ? proof.status : ""}`, id: "proof-status" }, proofText),
      h("div", { class: "row" }, Object.entries(hs.formats || {}).map(([format, info]) =>
        h("button", { type: "button", class: "download", dataset: { format }, onclick: () => download(open.id, format, info) }, `Download ${format.toUpperCase()}`))),
      h("div", { class: "row replay-controls" },
        h("button", { type: "button", id: "replay-first", onclick: () => move(-steps.length) }, "« Start"),
        h("button", { type: "button", id: "replay-prev", onclick: () => move(-1) }, "◀ Back"),
        h("button", { type: "button", id: "replay-next", onclick: () => move(1) }, "Next ▶"),
        h("button", { type: "button", id: "replay-last", onclick: () => move(steps.length) }, "End »"),
        h("span", { "aria-live": "polite" }, `step ${step + 1} of ${steps.length}`)),
      h("div", { class: "board replay-board", "aria-label": "board at this step" }, steps[step].board.map(cardEl)),
      h("ol", { class: "replay" }, steps.slice(0, step + 1).map((s, i) => h("li", { class: i === step ? "current" : "" }, s.text))));
  } else if (open) detail = h("p", {}, "Loading the hand…");
  app.replaceChildren(h("section", { class: "history" }, h("h1", {}, "Your hands"), h("div", { class: "history-body" }, list, detail)));
}

start();
