// The operator console (docs/operator.md): the operator API of /api/operator, nothing else.
// Every text from the room is put on the page as text (textContent), never as markup.

import { STATE_NAMES, tournamentName } from "/static/tourney.js";

const TOKEN_KEY = "feltroom.operator";
const $ = (id) => document.getElementById(id);
const operators = new Set(); // operator accounts seen at the tables and online: no action on them

function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  for (const child of children) node.append(child instanceof Node ? child : String(child));
  return node;
}

async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) {
    const message = (answer.error && answer.error.message) || `HTTP ${response.status}`;
    const error = new Error(message);
    error.status = response.status;
    throw error;
  }
  return answer;
}

function say(text, error = false) {
  const result = $("result");
  result.textContent = text;
  result.className = error ? "error" : "";
}

/** An operator action with its reason; ``question``, when given, is asked first (Close, Kick). */
async function act(action, fields, question = null) {
  const reason = $("reason").value.trim();
  if (!reason) {
    say("Give a reason: every operator action is on record.", true);
    return;
  }
  if (question && !confirm(question)) {
    say(`Nothing done: ${action} cancelled.`);
    return;
  }
  try {
    const answer = await api("POST", `/api/operator/${action}`, { ...fields, reason });
    let text = `${action} done (log entry ${answer.entry}).`;
    if (answer.password) text += ` New password for ${answer.account}: ${answer.password}`;
    if (answer.renamed_to) {
      text += ` ${answer.account} is now ${answer.renamed_to}.`;
      $("account-name").value = answer.renamed_to; // the next action is on the account's new name
      $("account-new-name").value = "";
    }
    if (answer.removed) text += ` The account ${answer.account} is removed.`;
    say(text);
  } catch (error) {
    say(`${action} refused: ${error.message}`, true);
  }
  await refresh();
}

function button(label, action, fields, question = null) {
  const b = h("button", { type: "button", "data-action": action }, label);
  b.addEventListener("click", () => act(action, fields, question));
  return b;
}

/** A seated player's line: an operator's account gets no Kick. */
function playerItem(t, p) {
  const flags = [p.bot ? "bot" : "", p.sitting_out ? "sitting out" : "", p.leaving ? "leaving" : "", p.suspended ? "suspended" : ""].filter(Boolean);
  return h("li", { "data-player": p.player }, `${p.seat}: ${p.player} (${p.stack}${flags.length ? ", " + flags.join(", ") : ""}) `,
    p.operator ? h("span", { class: "badge operator" }, "operator")
      : button("Kick", "kick", { table: t.id, player: p.player }, `Kick ${p.player} from ${t.name}? They leave the table at once (folded if in a hand).`));
}

function tournamentRow(x) {
  return h("tr", { "data-tournament": x.id }, h("td", {}, `${tournamentName(x)} (${x.id})`), h("td", { class: "status" }, STATE_NAMES[x.state] || x.state),
    h("td", {}, x.max_entries ? `${x.entries} of ${x.max_entries}` : x.entries), h("td", {}, x.players_left ?? "—"),
    h("td", {}, x.prize_pool), h("td", {}, x.tables.map((t) => `${t.table_id} (${t.players.length})`).join(", ") || "—"));
}

/** The account form offers nothing on an operator's account (the API refuses it too). */
function guardAccount() {
  const account = $("account-name").value.trim();
  const operator = operators.has(account);
  for (const b of $("account-form").querySelectorAll("button[data-action]")) {
    b.disabled = operator && b.dataset.action !== "protection";
  }
  $("account-note").textContent = operator ? `${account} is an operator: the console takes no action on an operator's account.` : "";
}

function fill(id, rows) {
  const body = $(id).querySelector("tbody");
  body.replaceChildren(...rows);
}

async function refresh() {
  if (!sessionStorage.getItem(TOKEN_KEY)) return;
  try {
    const [tables, online, log, lobby] = await Promise.all([
      api("GET", "/api/operator/tables"),
      api("GET", "/api/operator/online"),
      api("GET", "/api/operator/log?limit=200"),
      api("GET", "/api/lobby"),
    ]);
    for (const p of [...tables.tables.flatMap((t) => t.players), ...online.players]) if (p.operator) operators.add(p.player);
    guardAccount();
    fill("tables", tables.tables.map((t) => {
      const players = h("ul", {}, ...t.players.map((p) => playerItem(t, p)));
      const actions = h("td");
      if (t.status === "closed") actions.append(button("Reopen", "reopen-table", { table: t.id }), button("Retire", "retire-table", { table: t.id }));
      else actions.append(button("Close", "close-table", { table: t.id }, `Close ${t.name}? No new hand is dealt there and nobody can join until it is reopened.`));
      return h("tr", { "data-table": t.id }, h("td", {}, `${t.name} (${t.id})`), h("td", { class: "status" }, t.status),
        h("td", {}, t.hand === null ? "—" : t.hand), h("td", {}, players), actions);
    }));
    fill("tournaments", lobby.tournaments.map(tournamentRow));
    fill("online", online.players.map((p) => h("tr", { "data-player": p.player }, h("td", {}, p.player, p.operator ? " (operator)" : ""), h("td", {}, p.connections),
      h("td", {}, p.addresses.join(", ")), h("td", {}, p.seats.map((s) => `${s.table} #${s.seat}`).join(", ") || "—"))));
    fill("log", log.entries.slice().reverse().map((e) => h("tr", {}, h("td", {}, e.id), h("td", {}, e.time), h("td", {}, e.operator),
      h("td", {}, e.action), h("td", {}, e.target), h("td", {}, e.reason))));
  } catch (error) {
    if (error.status === 401 || error.status === 403) signedOut(error.message);
    else say(`The room did not answer: ${error.message}`, true);
  }
}

function signedOut(message = "") {
  sessionStorage.removeItem(TOKEN_KEY);
  $("console").hidden = true;
  $("signin").hidden = false;
  $("who").textContent = message;
}

async function start() {
  try {
    const me = await api("GET", "/api/operator/me");
    $("who").textContent = `Operator: ${me.operator}${me.addresses ? " (from " + me.addresses + ")" : ""}`;
    $("signin").hidden = true;
    $("console").hidden = false;
    await refresh();
  } catch (error) {
    signedOut(error.status === 401 ? "" : error.message);
  }
}

$("signin-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  try {
    const answer = await api("POST", "/api/signin", { name: $("signin-name").value, password: $("signin-password").value });
    sessionStorage.setItem(TOKEN_KEY, answer.token);
    await start();
  } catch (error) {
    $("who").textContent = error.message;
  }
});

$("account-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const account = $("account-name").value.trim();
  const action = event.submitter.dataset.action;
  if (action === "protection") showProtection(account);
  else if (operators.has(account)) guardAccount();
  else if (action === "rename") act(action, { account, to: $("account-new-name").value.trim() });
  else if (action === "verify") act(action, { account, identity: $("account-identity").value });
  else if (action === "remove") {
    // only with a zero balance and no seat; the room refuses otherwise, changing nothing
    if (confirm(`Remove the account ${account}? Its name becomes free to sign up again.`)) act(action, { account });
  } else act(action, { account });
});

// A player's limits, reminder, cool-off, self-exclusion and verification (read only: the
// player sets them; the operator verifies).
async function showProtection(account) {
  const out = $("protection");
  try {
    const p = await api("GET", `/api/operator/protection?account=${encodeURIComponent(account)}`);
    let state = "may play";
    if (p.excluded_permanently) state = "self-excluded permanently";
    else if (p.excluded_time) state = `self-excluded until ${p.excluded_time}`;
    else if (p.cool_off_time) state = `cooling off until ${p.cool_off_time}`;
    const rows = p.limits.map((l) => h("tr", { "data-kind": l.kind, "data-period": l.period }, h("td", {}, l.currency), h("td", {}, l.kind),
      h("td", {}, l.period), h("td", {}, l.amount === null ? "none" : l.amount), h("td", {}, l.used),
      h("td", {}, l.pending ? `${l.pending.amount === null ? "removal" : l.pending.amount} at ${l.pending.time}` : "")));
    out.replaceChildren(
      h("p", { id: "protection-summary" }, `${p.player}: ${p.verified ? "verified" : "not verified"}; ${state}; reminder ${p.reminder_minutes ? "every " + p.reminder_minutes + " minutes" : "off"}.`),
      h("table", { id: "protection-limits" }, h("thead", {}, h("tr", {}, ...["currency", "limit on", "period", "in force", "used", "pending"].map((t) => h("th", {}, t)))),
        h("tbody", {}, ...rows)));
  } catch (error) {
    out.replaceChildren(h("p", { class: "error" }, `No protection shown: ${error.message}`));
  }
}

$("account-name").addEventListener("input", guardAccount);

$("broadcast-form").addEventListener("submit", (event) => {
  event.preventDefault();
  act("broadcast", { text: $("broadcast-text").value });
});

$("add-table-form").addEventListener("submit", (event) => {
  event.preventDefault();
  let definition;
  try {
    definition = JSON.parse($("add-table-definition").value);
  } catch (error) {
    say(`The definition is not JSON: ${error.message}`, true);
    return;
  }
  act("add-table", { definition });
});

function pairItem(pair) {
  // one pair with its score and each signal's score; a name opens that account's report
  const names = pair.accounts.flatMap((name, k) => {
    const button = h("button", { type: "button", class: "link", "data-account": name }, name);
    button.addEventListener("click", () => integrity(name));
    return k ? [" + ", button] : [button];
  });
  const signals = Object.entries(pair.signals).map(([name, found]) => `${name} ${found.score}`).join(", ");
  return h("li", {}, ...names, `: score ${pair.score} (${signals})`);
}

async function integrity(account) {
  $("integrity-account").value = account;
  const since = new Date(Date.now() - 30 * 24 * 3600 * 1000).toISOString().slice(0, 19);
  const out = $("integrity");
  out.textContent = "Running…";
  const query = new URLSearchParams({ since });
  if (account) query.set("account", account);
  try {
    const report = await api("GET", `/api/operator/integrity?${query}`);
    const head = account
      ? `${report.account}: dealt ${report.account_hands} of ${report.hands} hands; ${report.pairs.length} pairs to review, ${report.watch.length} to watch.`
      : `${report.hands} hands, ${report.accounts} accounts: ${report.pairs.length} pairs to review.`;
    const parts = [h("p", {}, head), h("ul", { class: "review" }, ...report.pairs.map(pairItem))];
    if (account && report.watch.length) {
      parts.push(h("p", {}, "Below the threshold:"), h("ul", { class: "watch" }, ...report.watch.map(pairItem)));
    }
    out.replaceChildren(...parts);
  } catch (error) {
    out.textContent = `The report failed: ${error.message}`;
  }
}

$("integrity-form").addEventListener("submit", (event) => {
  event.preventDefault();
  integrity($("integrity-account").value.trim());
});

$("signout").addEventListener("click", async () => {
  try { await api("POST", "/api/signout"); } catch (error) { /* signed out anyway */ }
  signedOut();
});

start();
setInterval(refresh, 3000);
