// `parts-mcp healthcheck`: asks the HTTP server listening on this machine for /healthz, exits 0 when
// it answers 200 and 1 otherwise, with one line on stderr that says why. The image's HEALTHCHECK
// runs it (deploy/Containerfile): the image has Node but no curl.
import { get } from "node:http";
import type { ListenAddress, Output } from "../config";
import { urlHost } from "../net/hosts";

/** Docker's and podman's health checks default to 30 s; an answer takes milliseconds. */
const TIME_LIMIT_MS = 5_000;
/** /healthz answers a line of JSON; more is not read. */
const MAX_BODY_CHARS = 1_000;

type Outcome = { status: number; body: string } | { error: string };

export async function checkHealth({ host, port }: ListenAddress, output: Output): Promise<number> {
  const url = `http://${urlHost(host)}:${port}/healthz`;
  const outcome = await ask(url);
  if ("status" in outcome && outcome.status === 200) return 0;
  const what =
    "error" in outcome
      ? `could not ask ${url} (${outcome.error}): is parts-mcp serving --http on port ${port} here?`
      : `${url} answered ${outcome.status} ${outcome.body.slice(0, 200)}`;
  output.stderr(`parts-mcp healthcheck: unhealthy: ${what}\n`);
  return 1;
}

function ask(url: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const request = get(url, { signal: AbortSignal.timeout(TIME_LIMIT_MS) }, (response) => {
      let body = "";
      response.setEncoding("utf8").on("data", (chunk: string) => {
        if (body.length < MAX_BODY_CHARS) body += chunk;
      });
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: body.trim() }));
      response.on("error", (error) => resolve({ error: describe(error) }));
    });
    request.on("error", (error) => resolve({ error: describe(error) }));
  });
}

function describe(error: Error): string {
  if (error.name === "AbortError") return `no answer within ${TIME_LIMIT_MS / 1000} s`;
  return (error as NodeJS.ErrnoException).code ?? error.message;
}
