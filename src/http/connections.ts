// The cap on open HTTP connections. Node's own `server.maxConnections` resets the sockets past it
// without a word, so a client cannot tell "busy" from "broken"; here a connection past the cap is
// let in just long enough to be answered 503 with Retry-After (handler.ts asks `crowded`), and is
// closed after a second if it sends nothing. One log line per burst says the cap was reached.
import type { Server } from "node:http";
import type { Socket } from "node:net";
import type { Logger } from "../log";

/** How long a connection past the cap may take to send its request before it is closed. */
const CROWDED_GRACE_MS = 1_000;
/** At most one "limit reached" line in this long. */
const LOG_EVERY_MS = 10_000;

export class ConnectionCap {
  readonly #max: number;
  readonly #logger: Logger;
  readonly #crowded = new WeakSet<Socket>();
  #open = 0;
  #loggedAt = Number.NEGATIVE_INFINITY;

  constructor(max: number, logger: Logger) {
    this.#max = max;
    this.#logger = logger;
  }

  attach(server: Server): void {
    server.on("connection", (socket: Socket) => {
      this.#open++;
      socket.once("close", () => this.#open--);
      if (this.#open <= this.#max) return;
      this.#crowded.add(socket);
      socket.setTimeout(CROWDED_GRACE_MS, () => socket.destroy());
      const now = Date.now();
      if (now - this.#loggedAt >= LOG_EVERY_MS) {
        this.#loggedAt = now;
        this.#logger.warn("connection limit reached: requests on further connections get 503", {
          maxConnections: this.#max,
        });
      }
    });
  }

  /** Whether this connection came in past the cap, and is only to be told to come back. */
  crowded(socket: Socket): boolean {
    return this.#crowded.has(socket);
  }
}
