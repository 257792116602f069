import { isIP } from "node:net";
import { ContractpinError } from "../../core/errors.js";

/** Where the guard's HTTP face listens. */
export interface ListenAddress {
  /** The address bound, an IP literal (a hostname only with --listen-any). */
  host: string;
  port: number;
  /** True for 127.0.0.0/8 and ::1: the only addresses bound without --listen-any. */
  loopback: boolean;
}

/**
 * Reads `--listen HOST:PORT` (`127.0.0.1:8080`, `[::1]:0`, `localhost:0`,
 * which binds 127.0.0.1). Port 0 takes any free port.
 *
 * @throws ContractpinError USAGE for anything else, and for an address that
 *   is not loopback unless `any` (--listen-any) is given.
 */
export function parseListen(text: string, any: boolean): ListenAddress {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text);
  const port = m === null ? NaN : Number(m[3]);
  let host = m === null ? "" : (m[1] ?? m[2]!);
  if (m === null || port > 65535 || (m[1] !== undefined && isIP(host) !== 6)) {
    throw new ContractpinError(
      "USAGE",
      `--listen takes HOST:PORT (for example 127.0.0.1:0 or [::1]:8080), not '${text}'`,
    );
  }
  if (host.toLowerCase() === "localhost") host = "127.0.0.1";
  const loopback = isLoopbackName(host);
  if (!loopback && !any) {
    throw new ContractpinError(
      "USAGE",
      `--listen ${text} is not a loopback address: the guard listens on 127.0.0.1 or [::1] unless --listen-any is given`,
    );
  }
  return { host, port, loopback };
}

/** The URL clients connect to, given the port actually bound. */
export function listenUrl(address: ListenAddress, port: number): string {
  const host = isIP(address.host) === 6 ? `[${address.host}]` : address.host;
  return `http://${host}:${port}/mcp`;
}

/** True for "localhost", an IPv4 address in 127.0.0.0/8, and ::1 (also as ::ffff:127.x.y.z). */
export function isLoopbackName(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  if (h === "localhost") return true;
  const v4 = h.startsWith("::ffff:") ? h.slice(7) : h;
  if (isIP(v4) === 4) return v4.startsWith("127.");
  // The URL parser writes an IPv6 address in its shortest form.
  return isIP(h) === 6 && new URL(`http://[${h}]/`).hostname === "[::1]";
}

/**
 * True when an Origin header names a loopback origin (http or https on
 * localhost, 127.0.0.0/8 or [::1]). "null" and anything unparsable are not.
 */
export function isLoopbackOrigin(origin: string): boolean {
  try {
    const url = new URL(origin);
    return (url.protocol === "http:" || url.protocol === "https:") && isLoopbackName(url.hostname);
  } catch {
    return false;
  }
}

/** True when a Host header (name and optional port) names a loopback host. */
export function isLoopbackHost(host: string): boolean {
  try {
    return isLoopbackName(new URL(`http://${host}`).hostname);
  } catch {
    return false;
  }
}
