// Deal verification (scheme feltroom-merkle-sha256-v1, docs/protocol.md): checks a hand's proof
// file with WebCrypto alone. leaf_i = SHA-256(0x00 || byte(i) || card text || 16-byte salt);
// node = SHA-256(0x01 || left || right); 64 leaves, 6 sibling hashes a path; root = commitment.

export const SCHEME = "feltroom-merkle-sha256-v1";

function fromHex(hex) {
  if (typeof hex !== "string" || hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) {
    throw new Error(`not hex: ${hex}`);
  }
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function toHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

async function sha256(...parts) {
  const size = parts.reduce((n, p) => n + p.length, 0);
  const buf = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    buf.set(p, at);
    at += p.length;
  }
  return new Uint8Array(await crypto.subtle.digest("SHA-256", buf));
}

/** The root a card's path leads to: the commitment when the card is genuine. */
export async function rootOf(position, card, saltHex, path) {
  if (!Number.isInteger(position) || position < 0 || position > 51) {
    throw new Error(`position ${position} is not 0..51`);
  }
  if (!/^[2-9TJQKA][cdhs]$/.test(card)) throw new Error(`not a card: ${card}`);
  const salt = fromHex(saltHex);
  if (salt.length !== 16) throw new Error("a salt is 16 bytes");
  if (!Array.isArray(path) || path.length !== 6) throw new Error("a path is 6 hashes");
  let node = await sha256(
    new Uint8Array([0x00, position]),
    new TextEncoder().encode(card),
    salt,
  );
  for (let level = 0; level < 6; level++) {
    const sibling = fromHex(path[level]);
    if (sibling.length !== 32) throw new Error("a path hash is 32 bytes");
    const left = ((position >> level) & 1) === 0;
    node = left
      ? await sha256(new Uint8Array([0x01]), node, sibling)
      : await sha256(new Uint8Array([0x01]), sibling, node);
  }
  return toHex(node);
}

/**
 * Check a proof file: every card opens to the commitment, positions are distinct, and
 * (when given) the commitment is the one announced at the start of the hand.
 * Returns {ok, checked, problems, runs}: ``runs`` holds the board cards that open, by run
 * (``[first]``, or ``[first, second]`` for a board run twice, R-HOME-4: role ``board2`` is the
 * second run's own cards, after the cards both runs share).
 */
export async function verifyProof(proof, announced = null) {
  const problems = [];
  if (!proof || proof.scheme !== SCHEME) {
    return { ok: false, checked: 0, problems: [`unknown scheme ${proof && proof.scheme}`] };
  }
  const commitment = String(proof.commitment || "").toLowerCase();
  if (announced && announced.toLowerCase() !== commitment) {
    problems.push("the proof's commitment is not the one announced when the hand began");
  }
  const seen = new Set();
  const first = [];
  const own = [];
  let checked = 0;
  for (const entry of proof.cards || []) {
    try {
      if (seen.has(entry.position)) throw new Error(`position ${entry.position} twice`);
      seen.add(entry.position);
      const root = await rootOf(entry.position, entry.card, entry.salt, entry.path);
      if (root !== commitment) throw new Error(`${entry.card} does not open to the commitment`);
      checked += 1;
      if (entry.role === "board") first.push(entry);
      if (entry.role === "board2") own.push(entry);
    } catch (error) {
      problems.push(String(error.message || error));
    }
  }
  if (checked === 0 && problems.length === 0) problems.push("the proof opens no card");
  const byPosition = (a, b) => a.position - b.position;
  const board = first.sort(byPosition).map((e) => e.card);
  const runs = [board];
  if (own.length) {
    // the second run deals from position 2n+8 on: it shares the streets dealt before it
    const shared = board.slice(0, Math.max(0, board.length - own.length));
    runs.push([...shared, ...own.sort(byPosition).map((e) => e.card)]);
  }
  return { ok: problems.length === 0, checked, problems, runs };
}
