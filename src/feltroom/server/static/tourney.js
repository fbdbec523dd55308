// Tournaments as the page knows them (docs/protocol.md, "Tournaments"): the lobby entries, one
// tournament whole, the player's own view (`tournament`), moves and results. Nothing is computed
// here that the server does not send: the clocks count down from the server's seconds.

export const FORMAT_NAMES = { sng: "Sit & Go", mtt: "Scheduled" };
export const GAME_NAMES = { fixed_limit: "Limit Hold'em", pot_limit: "Pot-Limit Hold'em", no_limit: "No-Limit Hold'em" };
export const STATE_NAMES = {
  registering: "Registering",
  late_registration: "Late registration",
  running: "Running",
  on_break: "On break",
  hand_for_hand: "Hand-for-hand",
  finished: "Finished",
  cancelled: "Cancelled",
};
export const MOVE_REASONS = {
  seated: (where) => `The tournament has started: you are seated at ${where}.`,
  balance: (where) => `You were moved to ${where} to balance the tables.`,
  break: (where) => `Your table was broken up: you now play at ${where}.`,
  final: (where) => `The final table: you are at ${where}.`,
};

const n = (x) => Number(x).toLocaleString("en-US");

/** "15/30" or "50/100, big-blind ante 100" (the big blind posts the ante, R-TOURN-5). */
export function blindsText(blinds) {
  if (!blinds) return "";
  const [small, big, ante] = blinds;
  return `${n(small)}/${n(big)}${ante ? `, big-blind ante ${n(ante)}` : ""}`;
}

/** Abbreviations in a tournament's id, in words. */
const ID_WORDS = { sng: "Sit & Go", stt: "Sit & Go", mtt: "", nl: "No-Limit", pl: "Pot-Limit", fl: "Limit", nlhe: "No-Limit Hold'em", ko: "Knockout" };

/**
 * A tournament as players name it, from its lobby entry or page: its own name when it has one,
 * else its id in words with the instance's number ("sng-turbo-6-3": "Sit & Go Turbo 6 #3").
 */
export function tournamentName(x) {
  if (!x) return "";
  if (x.name) return x.name;
  const id = String(x.id);
  const spec = x.tournament && id.startsWith(`${x.tournament}-`) ? x.tournament : id;
  const number = spec === id ? "" : id.slice(spec.length + 1);
  const words = spec.split(/[-_.]+/).filter(Boolean).map((w) => (Object.hasOwn(ID_WORDS, w.toLowerCase()) ? ID_WORDS[w.toLowerCase()] : w.charAt(0).toUpperCase() + w.slice(1)));
  const name = words.filter(Boolean).join(" ") || FORMAT_NAMES[x.format] || id;
  return number ? `${name} #${number}` : name;
}

/** Seconds as "4:05" (or "1:02:03"); never below zero. */
export function clockText(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  const hours = Math.floor(s / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, "0");
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${rest}` : `${minutes}:${rest}`;
}

/** The instance and the table number of a tournament table id (`<instance>.<n>`), or null. */
export function splitTableId(id) {
  const dot = String(id).lastIndexOf(".");
  if (dot <= 0 || !/^\d+$/.test(id.slice(dot + 1))) return null;
  return { tournament: id.slice(0, dot), number: Number(id.slice(dot + 1)) };
}

/**
 * Where the tournament stands now: the status fields (a player's view or a lobby entry) with
 * the clocks run on from when they were received (`at`, the server's clock). The level clock
 * stops during a break (R-TOURN-12).
 */
export function standing(fields, at, now) {
  const passed = Math.max(0, now - at);
  const nextIn = fields.next_level_in === null || fields.next_level_in === undefined
    ? null : fields.on_break ? fields.next_level_in : Math.max(0, fields.next_level_in - passed);
  const breakIn = fields.break_ends_in === null || fields.break_ends_in === undefined
    ? null : Math.max(0, fields.break_ends_in - passed);
  return { ...fields, next_level_in: nextIn, break_ends_in: breakIn };
}

/** "the bubble" (one elimination from the money) or "in the money", else null (R-TOURN-9). */
export function moneyStage(fields) {
  if (!fields || !fields.places_paid || !fields.players_left) return null;
  if (["registering", "late_registration", "finished", "cancelled"].includes(fields.state)) return null;
  if (fields.players_left === fields.places_paid + 1) return "bubble";
  if (fields.players_left <= fields.places_paid) return "money";
  return null;
}


/**
 * What a tournament open for entries waits for, from the lobby entry's ``waiting`` (null once it
 * has started): a sit-and-go the entries it still needs and whether house bots fill them; a
 * scheduled tournament its start (``when`` writes a time). Null when there is nothing to say.
 */
export function waitingText(waiting, when) {
  if (!waiting) return null;
  if (waiting.start_at) return `Registration is open: it starts at ${when(waiting.start_at)}.`;
  const wanted = waiting.entries_wanted;
  if (wanted === undefined || wanted <= 0) return null;
  const more = `Waiting for ${wanted} more entr${wanted === 1 ? "y" : "ies"}: it starts when every seat is taken.`;
  if (waiting.house_bots === "filling") {
    const next = waiting.next_bot_in !== null ? ` (the next in about ${Math.max(1, Math.ceil(waiting.next_bot_in))} s)` : "";
    return `${more} House bots are taking the free seats${next}.`;
  }
  if (waiting.house_bots === "after_a_player") return `${more} House bots take the free seats as soon as a player registers.`;
  return `${more} Other players register here.`;
}

/** The lobby's short word for the same: "waiting for 5 more". */
export function waitingShort(waiting) {
  return waiting && waiting.entries_wanted > 0 ? `waiting for ${waiting.entries_wanted} more` : null;
}
