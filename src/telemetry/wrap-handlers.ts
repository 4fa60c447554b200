// The one place that works around the SDK's lack of a public hook around its request handlers:
// servers set their handlers as they are built (some in the SDK's own constructors), so from
// wrapHandlers on, every handler any Server sets through its public setRequestHandler goes through
// `wrap` at each request, which decides whether it is traced (./server-spans.ts).

export type Handler = (
  request: { method: string; params?: Record<string, unknown> },
  ctx: HandlerContext,
) => unknown;

interface HandlerContext {
  sessionId?: string;
  mcpReq?: { id?: string | number; envelope?: Record<string, unknown> };
  http?: { req?: { headers?: Headers } };
}

/** The SDK's Server class as the server's bundle has it (its prototype is where handlers are set). */
export interface HandlerOwner {
  prototype: { setRequestHandler(method: string, ...rest: unknown[]): void };
}

/**
 * From now on, the handler `server` sets for `method` runs as `wrap(server, method, handler)` at
 * each request. Returns the restore: servers built after it set their handlers as the SDK does.
 */
export function wrapHandlers(
  serverClass: HandlerOwner,
  wrap: (server: object, method: string, handler: Handler) => Handler,
): () => void {
  const set = serverClass.prototype.setRequestHandler;
  const setWrapped = function (this: object, method: string, ...rest: unknown[]) {
    const handler = rest[0];
    if (rest.length !== 1 || typeof handler !== "function") return set.call(this, method, ...rest);
    return set.call(this, method, (request: Parameters<Handler>[0], ctx: HandlerContext) =>
      wrap(this, method, handler as Handler)(request, ctx),
    );
  };
  serverClass.prototype.setRequestHandler = setWrapped;
  return () => {
    if (serverClass.prototype.setRequestHandler === setWrapped) serverClass.prototype.setRequestHandler = set;
  };
}
