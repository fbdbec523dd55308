// The HTTP API and the websocket of docs/protocol.md: nothing else talks to the server.

const TOKEN_KEY = "feltroom.token";

export function savedToken() {
  return localStorage.getItem(TOKEN_KEY);
}

export function saveToken(token) {
  if (token) localStorage.setItem(TOKEN_KEY, token);
  else localStorage.removeItem(TOKEN_KEY);
}

export class ApiError extends Error {
  constructor(status, code, message, details = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details; // the figures behind the message (docs/protocol.md)
  }
}

/** One HTTP call: JSON in, JSON (or text) out; errors as ApiError with the server's message. */
export async function api(method, path, body = undefined, { text = false } = {}) {
  const headers = {};
  const token = savedToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) {
    let code = "http_error";
    let message = `${response.status} ${response.statusText}`;
    let details = {};
    try {
      const data = await response.json();
      code = data.error.code;
      message = data.error.message;
      details = data.error.details || {};
    } catch (_) {
      /* not the API's error shape */
    }
    throw new ApiError(response.status, code, message, details);
  }
  return text ? response.text() : response.json();
}

/**
 * The websocket: hello with the token, requests matched to replies by id, everything else to
 * onMessage. Reconnects after a dropped connection (the server resumes the seats).
 */
export class Socket {
  constructor({ onMessage, onWelcome, onState, onAuthLost }) {
    this.onMessage = onMessage;
    this.onWelcome = onWelcome;
    this.onState = onState;
    this.onAuthLost = onAuthLost;
    this.nextId = 1;
    this.pending = new Map();
    this.ws = null;
    this.closing = false;
    this.retry = 500;
    this.offset = 0; // server clock - local clock, seconds
  }

  connect() {
    this.closing = false;
    this.welcomed = false;
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${scheme}://${location.host}/ws`);
    this.ws = ws;
    this.onState("connecting");
    ws.onopen = () => {
      const id = this.nextId++;
      this.pending.set(id, {
        resolve: (m) => {
          if (m.type === "welcome") {
            this.retry = 500;
            this.welcomed = true;
            this.offset = m.time - Date.now() / 1000;
            this.onState("open");
            this.onWelcome(m);
          }
        },
      });
      ws.send(JSON.stringify({ type: "hello", id, version: 1, token: savedToken() }));
    };
    ws.onmessage = (e) => {
      let message;
      try {
        message = JSON.parse(e.data);
      } catch (_) {
        return;
      }
      if ("ref" in message && message.ref !== null && this.pending.has(message.ref)) {
        const waiter = this.pending.get(message.ref);
        this.pending.delete(message.ref);
        waiter.resolve(message);
        return; // a reply is its request's alone: a refusal is said once, by who asked
      }
      this.onMessage(message);
    };
    ws.onclose = (e) => {
      for (const waiter of this.pending.values()) {
        waiter.resolve({ type: "error", code: "closed", message: "the connection closed", details: {} });
      }
      this.pending.clear();
      if (this.ws !== ws || this.closing) return;
      if (e.code === 1008 && !this.welcomed) {
        this.onAuthLost();
        return;
      }
      this.onState("reconnecting");
      setTimeout(() => this.ws === ws && !this.closing && this.connect(), this.retry);
      this.retry = Math.min(this.retry * 2, 8000);
    };
  }

  close() {
    this.closing = true;
    if (this.ws) this.ws.close();
    this.ws = null;
  }

  /** Send a message; resolves with its reply (ok, error, lobby, ...). */
  request(message) {
    const id = this.nextId++;
    return new Promise((resolve) => {
      if (!this.ws || this.ws.readyState !== WebSocket.OPEN) {
        resolve({ type: "error", code: "closed", message: "not connected: reconnecting…", details: {} });
        return;
      }
      this.pending.set(id, { resolve });
      this.ws.send(JSON.stringify({ ...message, id }));
    });
  }

  /** The server's clock now, in seconds. */
  now() {
    return Date.now() / 1000 + this.offset;
  }
}
