// The Host and Origin guard on every path of the built HTTP server, not only /mcp: /healthz, the
// 404s, and in the oauth mode discovery, /register, /authorize, /token, /sign-in/* and the rest
// answer 403 to `Host: evil.example` or a foreign Origin. What must keep working does: a health
// checker that sends the address it dials (or no Host), and the sign-in form's `Origin: null`.
import { connect as connectSocket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../../src/embedded/testing";
import { embeddedDataDir, newKey, type OAuthServer, startOAuthServer } from "../auth/support";
import { type HttpServerProcess, type RawResponse, raw, spawnHttpServer } from "./support";

let api: TestApi;
let plain: HttpServerProcess;
let oauth: OAuthServer;

beforeAll(async () => {
  let dataDir: string;
  [api, dataDir] = await Promise.all([startTestApi(), embeddedDataDir("guard")]);
  [plain, oauth] = await Promise.all([
    spawnHttpServer({ api }),
    startOAuthServer({ api, store: { dataDir }, keys: `k1:${newKey()}` }),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([plain?.stop(), oauth?.stop()]);
  await api?.close();
});

const originOf = (url: string) => new URL(url).origin;

/** The guard's own refusal: 403 naming the header it refused. */
function expectGuardRefusal(res: RawResponse, header: "Host" | "Origin", what: string): void {
  expect(res.status, what).toBe(403);
  expect(JSON.parse(res.body).error, what).toMatch(new RegExp(`^${header} .* is not allowed`));
}

function expectNotGuardRefusal(res: RawResponse, what: string): void {
  expect(res.body, what).not.toMatch(/(Host|Origin) .* is not allowed/);
}

/** One HTTP/1.0 request with no Host header at all, as simple health probes send it. */
function withoutHost(url: string, path: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connectSocket({ host: hostname, port: Number(port) }, () => {
      socket.write(`GET ${path} HTTP/1.0\r\n\r\n`);
    });
    let answer = "";
    socket.setEncoding("utf8").on("data", (chunk: string) => {
      answer += chunk;
    });
    socket.on("end", () => resolve(answer));
    socket.on("error", reject);
  });
}

const OAUTH_REQUESTS: { path: string; method: string; body?: string; type?: string }[] = [
  { path: "/.well-known/oauth-authorization-server", method: "GET" },
  { path: "/.well-known/openid-configuration", method: "GET" },
  { path: "/.well-known/oauth-protected-resource", method: "GET" },
  { path: "/.well-known/oauth-protected-resource/mcp", method: "GET" },
  { path: "/jwks", method: "GET" },
  {
    path: "/register",
    method: "POST",
    body: JSON.stringify({ redirect_uris: ["http://127.0.0.1:9/callback"], client_name: "x" }),
    type: "application/json",
  },
  { path: "/authorize?client_id=x&response_type=code", method: "GET" },
  {
    path: "/token",
    method: "POST",
    body: "grant_type=authorization_code&code=x",
    type: "application/x-www-form-urlencoded",
  },
  { path: "/revoke", method: "POST", body: "token=x", type: "application/x-www-form-urlencoded" },
  { path: "/sign-in/some-interaction", method: "GET" },
  {
    path: "/sign-in/some-interaction",
    method: "POST",
    body: "token=x",
    type: "application/x-www-form-urlencoded",
  },
  { path: "/request", method: "POST", body: "", type: "application/x-www-form-urlencoded" },
  { path: "/session/end", method: "GET" },
  { path: "/healthz", method: "GET" },
  { path: "/no-such-path", method: "GET" },
];

function send(base: string, request: (typeof OAUTH_REQUESTS)[number], headers: Record<string, string>) {
  return raw(`${base}${request.path}`, {
    method: request.method,
    headers: { ...(request.type && { "content-type": request.type }), ...headers },
    ...(request.body !== undefined && { body: request.body }),
  });
}

describe("the guard outside /mcp (no auth mode)", () => {
  it("refuses Host: evil.example and a foreign Origin on /healthz and on unknown paths", async () => {
    const base = originOf(plain.url);
    for (const path of ["/healthz", "/no-such-path", "/.well-known/oauth-authorization-server"]) {
      const url = `${base}${path}`;
      expectGuardRefusal(await raw(url, { method: "GET", headers: { host: "evil.example" } }), "Host", path);
      const port = new URL(base).port;
      expectGuardRefusal(
        await raw(url, { method: "GET", headers: { host: `evil.example:${port}` } }),
        "Host",
        path,
      );
      expectGuardRefusal(
        await raw(url, { method: "GET", headers: { origin: "https://evil.example" } }),
        "Origin",
        path,
      );
    }
  });

  it("answers a health checker that sends the address it dials, or no Host at all", async () => {
    const url = `${originOf(plain.url)}/healthz`;
    for (const host of ["127.0.0.1", "10.1.2.3:8788", "0.0.0.0:8788", "[::]:8788", "[fd00::7]:8788"]) {
      const res = await raw(url, { method: "GET", headers: { host } });
      expect(res.status, host).toBe(200);
    }
    expect(await withoutHost(plain.url, "/healthz")).toMatch(/^HTTP\/1\.1 200 /);
    // An address is accepted on /healthz only: /mcp and other paths still want a name of its own.
    expectGuardRefusal(
      await raw(`${originOf(plain.url)}/no-such-path`, { method: "GET", headers: { host: "10.1.2.3:8788" } }),
      "Host",
      "an address elsewhere",
    );
    expect(await withoutHost(plain.url, "/no-such-path")).toMatch(/^HTTP\/1\.1 403 /);
  });
});

describe("the guard outside /mcp (oauth mode)", () => {
  it("refuses Host: evil.example on every route of the authorization server", async () => {
    for (const request of OAUTH_REQUESTS) {
      const what = `${request.method} ${request.path}`;
      expectGuardRefusal(await send(oauth.origin, request, { host: "evil.example" }), "Host", what);
    }
  });

  it("refuses a foreign Origin on every route", async () => {
    for (const request of OAUTH_REQUESTS) {
      const what = `${request.method} ${request.path}`;
      for (const origin of ["https://evil.example", `http://evil.example:${new URL(oauth.origin).port}`]) {
        expectGuardRefusal(await send(oauth.origin, request, { origin }), "Origin", `${what} from ${origin}`);
      }
    }
  });

  it("still serves its own Host and Origin, and the sign-in form's Origin: null", async () => {
    const own = { origin: oauth.origin };
    const discovery = await raw(`${oauth.origin}/.well-known/oauth-authorization-server`, {
      method: "GET",
      headers: own,
    });
    expect(discovery.status).toBe(200);
    expect(JSON.parse(discovery.body).issuer).toBe(oauth.issuer);
    for (const request of OAUTH_REQUESTS) {
      expectNotGuardRefusal(await send(oauth.origin, request, own), `${request.method} ${request.path}`);
    }
    const signIn = OAUTH_REQUESTS.find((request) => request.path.startsWith("/sign-in/") && request.body);
    if (!signIn) throw new Error("no sign-in post in the list");
    expectNotGuardRefusal(await send(oauth.origin, signIn, { origin: "null" }), "sign-in post, Origin: null");
    const health = await raw(`${oauth.origin}/healthz`, {
      method: "GET",
      headers: { host: "10.1.2.3:8788" },
    });
    expect(health.status).toBe(200);
  });
});
