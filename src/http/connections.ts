// The cap on open HTTP connections. Node's own `server.maxConnections` resets the sockets past it
// without a word, so a client cannot tell "busy" from "broken"; here nobody is cut off unanswered:
// - idle connections give way first: a connection past the cap closes the one idle longest (no
//   request in progress for at least a second), so that idle sockets never shut out real calls;
//   one that never sent a request is answered 503 with Retry-After before it is closed;
// - when none is idle, the new connection is let in just long enough to be answered 503 with
//   Retry-After (handler.ts asks `crowded`); if it sends nothing within a second it gets the same
//   503 unasked, then the close, never a bare reset.
// One log line per burst says the cap was reached.
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Logger } from "../log/logger";
import { rpcError } from "./respond";

/** How long a connection past the cap may take to send its request before it is answered 503. */
const CROWDED_GRACE_MS = 1_000;
/** A connection idle this long may be closed to let a new one in. */
const MIN_IDLE_MS = 1_000;
/** How long a connection answered and ended here may stay open, whatever it sends. */
const LINGER_MS = 5_000;
/** At most one "limit reached" line in this long. */
const LOG_EVERY_MS = 10_000;

export const BUSY_MESSAGE =
  "The server has too many open connections (PARTS_MCP_HTTP_MAX_CONNECTIONS): send the request again in a second, on a connection you keep.";

interface Tracked {
  /** Requests received on the connection and not yet answered. */
  busy: number;
  /** Requests answered on it so far. */
  served: number;
  /** Since when nothing has been in progress (the connection's start at first). */
  idleSince: number;
  crowded: boolean;
  /** Chosen to give way, or answered and ended here: never chosen again. */
  leaving: boolean;
}

export class ConnectionCap {
  readonly #max: number;
  readonly #logger: Logger;
  readonly #open = new Map<Socket, Tracked>();
  #leaving = 0;
  #loggedAt = Number.NEGATIVE_INFINITY;

  constructor(max: number, logger: Logger) {
    this.#max = max;
    this.#logger = logger;
  }

  attach(server: Server): void {
    server.on("connection", (socket: Socket) => this.#connected(socket));
    server.on("request", (req: IncomingMessage, res: ServerResponse) => this.#requested(req, res));
  }

  /** Whether this connection came in past the cap, and is only to be told to come back. */
  crowded(socket: Socket): boolean {
    return this.#open.get(socket)?.crowded ?? false;
  }

  #connected(socket: Socket): void {
    const tracked: Tracked = { busy: 0, served: 0, idleSince: Date.now(), crowded: false, leaving: false };
    this.#open.set(socket, tracked);
    socket.once("close", () => {
      this.#open.delete(socket);
      if (tracked.leaving) this.#leaving--;
    });
    if (this.#open.size - this.#leaving <= this.#max) return;
    this.#logCap();
    if (this.#giveWay()) return;
    tracked.crowded = true;
    const grace = setTimeout(() => this.#answerIfSilent(socket, tracked), CROWDED_GRACE_MS);
    grace.unref();
    socket.once("close", () => clearTimeout(grace));
  }

  #requested(req: IncomingMessage, res: ServerResponse): void {
    const tracked = this.#open.get(req.socket);
    if (!tracked) return;
    tracked.busy++;
    res.once("close", () => {
      tracked.busy--;
      tracked.served++;
      if (tracked.busy === 0) tracked.idleSince = Date.now();
    });
  }

  /**
   * Closes the connection idle longest to make room, if one has been idle long enough. It is
   * closed after the reads already waiting are handled, so a request that had arrived is served.
   */
  #giveWay(): boolean {
    const now = Date.now();
    let oldest: [Socket, Tracked] | undefined;
    for (const entry of this.#open) {
      const [, tracked] = entry;
      if (tracked.leaving || tracked.crowded || tracked.busy > 0 || now - tracked.idleSince < MIN_IDLE_MS)
        continue;
      if (!oldest || tracked.idleSince < oldest[1].idleSince) oldest = entry;
    }
    if (!oldest) return false;
    const [socket, tracked] = oldest;
    this.#leave(tracked);
    setImmediate(() => {
      if (tracked.busy > 0 || socket.destroyed) return;
      if (tracked.served > 0) socket.destroy();
      else answerBusy(socket);
    });
    return true;
  }

  /** A crowded connection that sent nothing: 503 unasked, after the reads already waiting. */
  #answerIfSilent(socket: Socket, tracked: Tracked): void {
    setImmediate(() => {
      if (tracked.busy > 0 || tracked.served > 0 || socket.destroyed) return;
      this.#leave(tracked);
      answerBusy(socket);
    });
  }

  #leave(tracked: Tracked): void {
    if (tracked.leaving) return;
    tracked.leaving = true;
    this.#leaving++;
  }

  #logCap(): void {
    const now = Date.now();
    if (now - this.#loggedAt < LOG_EVERY_MS) return;
    this.#loggedAt = now;
    this.#logger.warn("connection limit reached: idle connections give way, then further ones get 503", {
      maxConnections: this.#max,
    });
  }
}

/** Answers a connection that has not sent a request with 503 and ends it. */
function answerBusy(socket: Socket): void {
  const body = rpcError(-32000, BUSY_MESSAGE);
  socket.end(
    `HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n${body}`,
  );
  const linger = setTimeout(() => socket.destroy(), LINGER_MS);
  linger.unref();
  socket.once("close", () => clearTimeout(linger));
}
