// Telemetry hooks: what the server, the API client, the HTTP layer, the reference cache and the logger call, no-ops until startTelemetry loads OpenTelemetry (./otel.ts, through its one dynamic import) because an OTLP endpoint or a metrics port is set.
import { Server, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/server";
import { ConfigError } from "../config/errors";
import { TELEMETRY_ENV, type TelemetryConfig } from "../config/telemetry";
import type { RunningTelemetry, Telemetry, TelemetrySources } from "./types";
import type { HandlerOwner } from "./wrap-handlers";

export type { RunningTelemetry, Telemetry, TelemetrySources } from "./types";

const noop = (): void => {};

/** The hooks in use: no-ops until startTelemetry replaces them. */
export const telemetry: Telemetry = {
  instrument: noop,
  attempt: () => undefined,
  cacheLookup: noop,
  shed: noop,
  signIn: noop,
  logFields: () => undefined,
};

/** Loads OpenTelemetry and installs the real hooks, when `settings` asks for any telemetry. */
export async function startTelemetry(
  settings: TelemetryConfig | undefined,
  sources: TelemetrySources,
): Promise<RunningTelemetry | undefined> {
  if (!settings) return undefined;
  const { openTelemetry } = await import("./otel");
  // This bundle's SDK: the telemetry part is a bundle of its own, which must not carry a copy.
  const sdk = { Server: Server as unknown as HandlerOwner, protocolVersions: SUPPORTED_PROTOCOL_VERSIONS };
  const { hooks, running } = await openTelemetry(settings, sources, sdk).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code !== "EADDRINUSE" && error.code !== "EACCES" && error.code !== "EADDRNOTAVAIL")
        throw error;
      throw new ConfigError(
        `Cannot serve /metrics on ${settings.metricsHost}:${settings.metricsPort} (${error.code}): choose another port with ${TELEMETRY_ENV.metricsPort} or another address with ${TELEMETRY_ENV.metricsHost}.`,
        TELEMETRY_ENV.metricsPort,
      );
    },
  );
  Object.assign(telemetry, hooks);
  return running;
}
