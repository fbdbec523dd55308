// After busting (issue 42): the rebuy a busted player is offered and the words for the wait for
// the next play-money grant. Pure functions; the page draws them (app.js).

/**
 * The rebuy offered at a table whose lobby ``settings`` are given, with ``wallet`` units of its
 * currency: the table's full buy-in (its maximum, or ten minimums where there is none, as the
 * room's auto-rebuy buys) or the wallet when it holds less; null when the wallet does not cover
 * the minimum.
 */
export function rebuyAmount(settings, wallet) {
  const low = settings.buy_in_min;
  const full = settings.buy_in_max === null || settings.buy_in_max === undefined ? 10 * low : settings.buy_in_max;
  const amount = Math.min(full, wallet);
  return amount >= low ? amount : null;
}

/** A seat is busted: an empty stack, sat out by the table, no chips on their way to it. */
export function busted(seat, pendingChips) {
  return Boolean(seat) && seat.stack === 0 && seat.sittingOut && !pendingChips;
}

/** "at 14:00 (in 23 minutes)": when the next grant comes, ``at`` and ``now`` in seconds. */
export function grantWait(at, now) {
  const minutes = Math.max(1, Math.ceil((at - now) / 60));
  const clock = new Date(at * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  return `at ${clock} (in ${minutes} minute${minutes === 1 ? "" : "s"})`;
}
