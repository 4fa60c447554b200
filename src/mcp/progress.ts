// Progress notifications of one tool call: sent only for a progress token the server echoes,
// merged when they come faster than PROGRESS_INTERVAL_MS, and at most MAX_PROGRESS_NOTIFICATIONS
// a request, the last one always sent before the answer.
import type { ServerContext } from "@modelcontextprotocol/server";
import type { ToolContext } from "../../tools/define";
import { echoableProgressToken } from "./message-guard";

/**
 * Progress notifications one request may send, and how often: with the token's own cap
 * (message-guard.ts), what one request can make the server write, or hold for a client that does
 * not read, stays small. Updates in between are merged into the next; the last always goes.
 */
export const MAX_PROGRESS_NOTIFICATIONS = 100;
const PROGRESS_INTERVAL_MS = 100;

type ProgressUpdate = { progress: number; total?: number; message?: string };

/**
 * A `progress` callback for the handler when the request carries a progress token the server
 * echoes (one that message-guard.ts accepts: transports refuse the others before this), and
 * `flush`, which sends the last update held back, before the answer.
 */
export function progressReporter(ctx: ServerContext): Pick<ToolContext, "progress"> & { flush: () => void } {
  const progressToken = ctx.mcpReq._meta?.progressToken;
  if (!echoableProgressToken(progressToken)) return { flush: () => {} };
  let sent = 0;
  let sentAt = Number.NEGATIVE_INFINITY;
  let held: ProgressUpdate | undefined;
  const send = (update: ProgressUpdate) => {
    // A request cancelled, or whose client went away, sends no more progress: nobody reads it.
    if (ctx.mcpReq.signal.aborted) return;
    sent++;
    sentAt = Date.now();
    held = undefined;
    void ctx.mcpReq
      .notify({
        method: "notifications/progress",
        params: {
          progressToken,
          progress: update.progress,
          ...(update.total !== undefined && { total: update.total }),
          ...(update.message !== undefined && { message: update.message }),
        },
      })
      .catch(() => {});
  };
  return {
    progress: (progress, total, message) => {
      held = { progress, ...(total !== undefined && { total }), ...(message !== undefined && { message }) };
      if (sent < MAX_PROGRESS_NOTIFICATIONS - 1 && Date.now() - sentAt >= PROGRESS_INTERVAL_MS) send(held);
    },
    flush: () => {
      if (held && sent < MAX_PROGRESS_NOTIFICATIONS) send(held);
    },
  };
}
