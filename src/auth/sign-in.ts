// The person's step of the authorization: GET shows the form for an interaction, POST takes the
// Parts API token, checks it with the upstream, and only then seals it to a new grant and lets
// the authorization continue. The token travels only in the POST body: never in a URL, a log
// or a page; a refused one is dropped.
import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type Provider from "oidc-provider";
import type { OAuthConfig } from "../config";
import type { Logger } from "../log/logger";
import { clientText, messagePage, signInPage } from "./page";
import { clientAddress, type RateLimits } from "./rate-limit";
import { readText, sendPage, tooManyPage } from "./respond";
import type { OAuthStore } from "./store";

export const SIGN_IN_PATH = "/sign-in";
/** A sign-in page's exact path: /sign-in/<interaction uid>. */
export const SIGN_IN_PAGE = /^\/sign-in\/[A-Za-z0-9_-]{1,64}$/;
const MAX_FORM_BYTES = 16 * 1024;
const MAX_TOKEN_LENGTH = 4_096;
const TOKEN_FORMAT = /^[\x21-\x7e]+$/;
const READ = "parts:read";
const KNOWN_SCOPES = new Set([READ, "parts:write"]);

export type TokenCheck = "accepted" | "refused" | "unavailable";

export interface SignInDeps {
  provider: Provider;
  store: OAuthStore;
  config: OAuthConfig;
  limits: RateLimits;
  /** Whether the client's address is the last X-Forwarded-For entry (see clientAddress). */
  behindProxy: boolean;
  /** Whether the upstream accepts a token. */
  checkToken(token: string): Promise<TokenCheck>;
  /** Keys the CSRF tokens and the account ids. */
  secret: Buffer;
  logger: Logger;
}

export async function handleSignIn(
  req: IncomingMessage,
  res: ServerResponse,
  deps: SignInDeps,
): Promise<void> {
  const uid = (req.url ?? "").slice(SIGN_IN_PATH.length + 1).split("?", 1)[0] ?? "";
  if (req.method !== "GET" && req.method !== "POST") {
    return sendPage(res, 405, messagePage("Not allowed", "Open the sign-in link from your assistant."), {
      Allow: "GET, POST",
    });
  }
  if (req.method === "POST") {
    const wait = await deps.limits.take("signIn", clientAddress(req, deps.behindProxy));
    if (wait !== undefined) return tooManyPage(req, res, "Too many attempts", wait);
  }
  let details: Awaited<ReturnType<Provider["interactionDetails"]>>;
  try {
    details = await deps.provider.interactionDetails(req, res);
  } catch {
    req.resume();
    return sendPage(
      res,
      400,
      messagePage(
        "This sign-in has expired",
        "Go back to your assistant and connect again: it opens a fresh sign-in.",
      ),
    );
  }
  if (details.uid !== uid) {
    req.resume();
    return sendPage(res, 400, messagePage("Wrong sign-in", "Go back to your assistant and connect again."));
  }
  const clientId = String(details.params.client_id);
  if (req.method === "POST") {
    const wait = await deps.limits.client(clientId);
    if (wait !== undefined) return tooManyPage(req, res, "Too many attempts", wait);
  }
  const client = await deps.provider.Client.find(clientId);
  const scopes = requestedScopes(details.params.scope);
  const csrf = csrfToken(deps.secret, uid);
  const view = {
    action: `${SIGN_IN_PATH}/${uid}`,
    csrf,
    clientName: clientText(client?.clientName),
    redirectHost: clientText(hostOf(details.params.redirect_uri)) ?? "an unknown address",
    documentHost: clientText(clientId.startsWith("https://") ? hostOf(clientId) : undefined),
    scopes,
  };
  if (req.method === "GET") return sendPage(res, 200, signInPage(view));

  const text = await readText(req, MAX_FORM_BYTES);
  if (text === undefined)
    return sendPage(res, 413, signInPage({ ...view, error: "That was far too long for a token." }));
  const form = new URLSearchParams(text);
  const sent = form.get("csrf") ?? "";
  if (!constantEqual(sent, csrf)) {
    return sendPage(
      res,
      403,
      messagePage("Form expired", "Reload the sign-in page from your assistant and send it again."),
    );
  }
  const token = (form.get("token") ?? "").trim();
  if (token.length === 0 || token.length > MAX_TOKEN_LENGTH || !TOKEN_FORMAT.test(token)) {
    return sendPage(
      res,
      400,
      signInPage({
        ...view,
        error: "That does not look like a personal access token: paste the token alone, without spaces.",
      }),
    );
  }
  const verdict = await deps.checkToken(token);
  if (verdict !== "accepted") {
    deps.logger.info("sign-in refused", { client: clientId, reason: verdict });
    return sendPage(
      res,
      verdict === "refused" ? 401 : 503,
      signInPage({
        ...view,
        error:
          verdict === "refused"
            ? "The Parts API did not accept this token. Check that you copied the whole token and that it has not expired."
            : "The Parts API could not be reached to check the token. Try again in a minute.",
      }),
    );
  }

  const accountId = createHmac("sha256", deps.secret)
    .update(`account:${token}`)
    .digest("base64url")
    .slice(0, 32);
  const grant = new deps.provider.Grant({ accountId, clientId });
  grant.addResourceScope(deps.config.publicUrl.href, scopes.join(" "));
  // oidc-provider also counts the scopes it advertises as the authorization's own.
  const openid = String(details.params.scope ?? "")
    .split(" ")
    .includes("openid")
    ? ["openid"]
    : [];
  grant.addOIDCScope([...scopes, ...openid].join(" "));
  const grantId = await grant.save();
  await deps.store.saveGrantToken(grantId, accountId, token, Date.now() + deps.config.refreshTtlS * 1000);
  deps.logger.info("signed in", { client: clientId, scopes: scopes.join(" ") });
  await deps.provider.interactionFinished(
    req,
    res,
    { login: { accountId }, consent: { grantId } },
    { mergeWithLastSubmission: false },
  );
}

/** The host of a URL (its scheme when it has none, as an app's `com.example:/callback`). */
function hostOf(url: unknown): string | undefined {
  if (typeof url !== "string" || !URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  return parsed.host || parsed.protocol;
}

/** parts:read always, and parts:write when asked for. */
function requestedScopes(scope: unknown): string[] {
  const asked = new Set(typeof scope === "string" ? scope.split(" ").filter((s) => KNOWN_SCOPES.has(s)) : []);
  asked.add(READ);
  return [...KNOWN_SCOPES].filter((s) => asked.has(s));
}

function csrfToken(secret: Buffer, uid: string): string {
  return createHmac("sha256", secret).update(`csrf:${uid}`).digest("base64url");
}

function constantEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
