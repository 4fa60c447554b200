// Sign-ins of the oauth mode counted in the metrics an OTLP receiver gets (parts_mcp.sign_ins, by
// outcome): a token the Parts API refuses, then one it accepts, through the real sign-in page.
import { afterAll, beforeAll, expect, it } from "vitest";
import { DEMO_ACCOUNTS, startTestApi, type TestApi } from "../../src/embedded/testing";
import { connectWithSignIn, type OAuthServer, Person, startOAuthServer, TestHost } from "../auth/support";
import { type OtlpReceiver, otlpEnv, startOtlpReceiver } from "./support";

let api: TestApi;
let receiver: OtlpReceiver;
let server: OAuthServer;

beforeAll(async () => {
  [api, receiver] = await Promise.all([startTestApi(), startOtlpReceiver()]);
  server = await startOAuthServer({ api, env: otlpEnv(receiver) });
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await api?.close();
  await receiver?.close();
});

const signIns = (outcome: string) =>
  receiver.metrics
    .filter((metric) => metric.name === "parts_mcp.sign_ins")
    .flatMap((metric) => metric.points)
    .filter((point) => point.attributes["parts_mcp.sign_in.outcome"] === outcome)
    .reduce((most, point) => Math.max(most, point.value), 0);

it("counts each token checked at sign-in by its outcome", async () => {
  const host = new TestHost("Telemetry Host");
  const [alice] = DEMO_ACCOUNTS.map((account) => account.token) as [string];
  // A wrong token first: the page says so, and it counts as refused.
  const wrong = new Person("pat_not_a_token_the_api_knows_0000");
  await expect(connectWithSignIn(server.url, host, wrong)).rejects.toThrow(
    /sign-in did not reach the callback/,
  );
  await receiver.waitFor(() => (signIns("refused") >= 1 ? true : undefined));
  // Then the person's own token.
  const client = await connectWithSignIn(server.url, new TestHost("Telemetry Host 2"), new Person(alice));
  await client.close();
  await receiver.waitFor(() => (signIns("accepted") >= 1 ? true : undefined));
  expect(signIns("refused")).toBe(1);
});
