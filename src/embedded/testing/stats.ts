// Counters of the embedded API, for tests and benchmarks only: requests received (faulted ones
// included), requests whose client went away before the response was complete, and the headers
// of the last request.
import type { IncomingHttpHeaders } from "node:http";
import type { EndpointName } from "../../api/endpoints";

export type RequestHeaders = Record<string, string | string[] | undefined>;

export interface ApiStats {
  /** Requests received, all (unknown routes and /openapi.json included) or for one endpoint. */
  requests(endpoint?: EndpointName): number;
  /** Requests whose client connection closed before the response was complete. */
  closedEarly(endpoint?: EndpointName): number;
  /** Headers of the last request, all or for one endpoint (names in lower case). */
  lastHeaders(endpoint?: EndpointName): RequestHeaders | undefined;
  reset(): void;
}

export class StatsRecorder implements ApiStats {
  private total = 0;
  private totalClosedEarly = 0;
  private last: RequestHeaders | undefined;
  private readonly perEndpoint = new Map<EndpointName, number>();
  private readonly closedPerEndpoint = new Map<EndpointName, number>();
  private readonly lastPerEndpoint = new Map<EndpointName, RequestHeaders>();

  /** Counts one request; `endpoint` is undefined when the request matched no endpoint. */
  recordRequest(endpoint: EndpointName | undefined, headers: IncomingHttpHeaders): void {
    this.total++;
    this.last = headers;
    if (endpoint === undefined) return;
    this.perEndpoint.set(endpoint, (this.perEndpoint.get(endpoint) ?? 0) + 1);
    this.lastPerEndpoint.set(endpoint, headers);
  }

  recordClosedEarly(endpoint: EndpointName | undefined): void {
    this.totalClosedEarly++;
    if (endpoint !== undefined)
      this.closedPerEndpoint.set(endpoint, (this.closedPerEndpoint.get(endpoint) ?? 0) + 1);
  }

  requests(endpoint?: EndpointName): number {
    return endpoint === undefined ? this.total : (this.perEndpoint.get(endpoint) ?? 0);
  }

  closedEarly(endpoint?: EndpointName): number {
    return endpoint === undefined ? this.totalClosedEarly : (this.closedPerEndpoint.get(endpoint) ?? 0);
  }

  lastHeaders(endpoint?: EndpointName): RequestHeaders | undefined {
    return endpoint === undefined ? this.last : this.lastPerEndpoint.get(endpoint);
  }

  reset(): void {
    this.total = 0;
    this.totalClosedEarly = 0;
    this.last = undefined;
    this.perEndpoint.clear();
    this.closedPerEndpoint.clear();
    this.lastPerEndpoint.clear();
  }
}
