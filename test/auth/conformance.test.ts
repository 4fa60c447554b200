// The MCP conformance suite's authorization-server scenarios (`conformance authorization`)
// against the built server in the `oauth` mode: metadata, and the authorization code grant, in
// which the suite prints an authorization URL for a person; the scripted person signs in there
// and the browser's last redirect reaches the suite's own callback listener.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { DEMO_ACCOUNTS, startTestApi, type TestApi } from "../../src/embedded/testing";
import { suiteNode } from "../conformance/suite";
import { freePort, type OAuthServer, Person, registerClient, startOAuthServer } from "./support";

const [alice] = DEMO_ACCOUNTS.map((account) => account.token) as [string];
const require = createRequire(import.meta.url);
const manifest = require.resolve("@modelcontextprotocol/conformance/package.json");
const bin = join(dirname(manifest), (require(manifest) as { bin: { conformance: string } }).bin.conformance);

let api: TestApi;
let server: OAuthServer;

beforeAll(async () => {
  api = await startTestApi();
  server = await startOAuthServer({ api });
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await api?.close();
});

it("passes the authorization server scenarios", { timeout: 90_000 }, async () => {
  const port = await freePort();
  const clientId = await registerClient(server.issuer, {
    client_name: "Conformance suite",
    redirect_uris: [`http://127.0.0.1:${port}/callback`],
  });
  const args = ["authorization", "--url", server.issuer, "--client-id", clientId, "--resource", server.url];
  const child = spawn(suiteNode(), [bin, ...args, "--port", String(port)], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  let signedIn: Promise<void> | undefined;
  const person = new Person(alice);
  const onOutput = (chunk: Buffer) => {
    output += chunk.toString();
    const url = new RegExp(`${server.issuer}/authorize\\?\\S+`).exec(output)?.[0];
    if (url && !signedIn) {
      signedIn = (async () => {
        const page = await person.open(new URL(url));
        const done = await person.submit(page, { csrf: page.csrf, token: alice });
        await (await fetch(done.url)).text(); // the browser arriving at the suite's callback
      })();
    }
  };
  child.stdout.on("data", onOutput);
  child.stderr.on("data", onOutput);
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  await signedIn;
  expect(output).toMatch(/authorization-server-metadata-endpoint/);
  expect(output).toMatch(/authorization-code-grant/);
  expect(code, output).toBe(0);
  expect(output).toMatch(/Total: [1-9]\d* passed, 0 failed/);
  expect(output).not.toMatch(/skipped/i);
});
