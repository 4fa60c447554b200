// The Error shape of every non-200 answer: {status, message, code}, with a stable string code
// per status (the specification declares {status, message}; decisions add `code`).

/** Stable error codes by HTTP status. */
const ERROR_CODES: Readonly<Record<number, string>> = {
  302: "redirect",
  307: "redirect",
  400: "invalid_argument",
  401: "unauthenticated",
  403: "permission_denied",
  404: "not_found",
  405: "method_not_allowed",
  408: "request_timeout",
  409: "conflict",
  413: "payload_too_large",
  415: "unsupported_media_type",
  422: "invalid_argument",
  429: "rate_limited",
  431: "request_header_fields_too_large",
  500: "internal",
  501: "not_implemented",
  502: "bad_gateway",
  503: "unavailable",
  504: "deadline_exceeded",
};

function errorCodeFor(status: number): string {
  return (
    ERROR_CODES[status] ?? (status >= 500 ? "internal" : status >= 400 ? "failed_precondition" : "unknown")
  );
}

/** A failure that becomes an Error-shape response. */
export class ApiError extends Error {
  readonly code: string;

  constructor(
    readonly status: number,
    message: string,
    code?: string,
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(message);
    this.name = "ApiError";
    this.code = code ?? errorCodeFor(status);
  }
}

export function errorJson(status: number, message: string, code = errorCodeFor(status)): string {
  return JSON.stringify({ status, message, code });
}

/** A value quoted for a message: JSON-escaped (no raw control characters) and cut to 80 characters. */
export function quote(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
}
