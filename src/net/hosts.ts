// Small facts about host names and addresses, written once for the configuration, the HTTP
// server, the embedded API and the import-file URL policy: which hosts are loopback, which
// addresses mean "every interface", how an IPv6 address is written inside a URL, and what a
// failed listen() means in plain words.

/** `::1` becomes `[::1]`; names, IPv4 and already bracketed addresses are left as they are. */
export function bracketHost(host: string): string {
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}

/** `[::1]` becomes `::1`; anything else is left as it is. */
export function unbracketHost(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

/**
 * A host that can only be this machine: localhost (and *.localhost), 127.0.0.0/8, ::1 and the
 * IPv4-mapped forms of 127.x. Takes a URL's hostname (`[::1]`) or a bare address (`::1`).
 */
export function isLoopbackHost(host: string): boolean {
  const bare = unbracketHost(host.toLowerCase());
  return (
    bare === "localhost" ||
    bare.endsWith(".localhost") ||
    bare === "::1" ||
    /^127(?:\.\d{1,3}){3}$/.test(bare) ||
    /^::ffff:127(?:\.\d{1,3}){3}$/.test(bare) ||
    /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(bare)
  );
}

/** 0.0.0.0, :: and friends (bracketed or not, or empty): every interface. */
export function isWildcardHost(host: string): boolean {
  const bare = unbracketHost(host);
  return bare === "0.0.0.0" || bare === "::" || bare === "0:0:0:0:0:0:0:0" || bare === "";
}

/**
 * The host to put in a URL that reaches a server listening on `host`: a wildcard address is
 * reached on loopback (of the same family), an IPv6 address is bracketed.
 */
export function urlHost(host: string): string {
  if (isWildcardHost(host)) return host.includes(":") ? "[::1]" : "127.0.0.1";
  return bracketHost(host);
}

export interface ListenFailure {
  /** What went wrong, in plain words: "port 8787 is already in use". */
  reason: string;
  /** Which of the two settings the person should change. */
  change: "port" | "host";
}

/** A listen() error explained, or undefined when it is not one a person can fix by choosing. */
export function explainListenError(error: unknown, host: string, port: number): ListenFailure | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case "EADDRINUSE":
      return { reason: `port ${port} is already in use`, change: "port" };
    case "EACCES":
      return { reason: `listening on port ${port} is not permitted`, change: "port" };
    case "EADDRNOTAVAIL":
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return { reason: `${host} is not an address of this machine`, change: "host" };
    default:
      return undefined;
  }
}
