import type { StoredOAuthClientInformation } from "@modelcontextprotocol/client";
import { ContractpinError } from "../core/errors.js";
import { listenForCallback, type CallbackListener } from "./callback-listener.js";
import { latestEntry, type CredentialStore } from "./store/store.js";

// A login's callback is http://127.0.0.1:PORT/callback (callback-listener.ts).
const LOOPBACK_CALLBACK = /^http:\/\/127\.0\.0\.1:(\d{1,5})\/callback$/;

/**
 * Whether a stored client was registered dynamically for other redirect URIs
 * than `redirectUrl`. A registration response carries the `redirect_uris` it
 * registered (RFC 7591 §3.2.1; the client library requires them); a client ID
 * metadata document is stored as its URL alone, without any, and has no
 * registration to redo. An authorization server may compare redirect URIs
 * exactly, loopback ports included (RFC 8252 §7.3 says it should not, but
 * many do), so the URI must be one of them as it is.
 */
export function registeredElsewhere(
  client: StoredOAuthClientInformation,
  redirectUrl: string,
): boolean {
  const uris: unknown = (client as { redirect_uris?: unknown }).redirect_uris;
  return Array.isArray(uris) && !uris.includes(redirectUrl);
}

/**
 * The loopback port a dynamically registered client of the resource is called
 * back on: that of the latest entry (the one a read uses), if its client has
 * one.
 */
export async function registeredPort(
  store: CredentialStore,
  resource: string,
): Promise<number | undefined> {
  const latest = latestEntry(await store.read(resource));
  const uris: unknown = (latest?.client as { redirect_uris?: unknown } | undefined)?.redirect_uris;
  if (!Array.isArray(uris)) return undefined;
  for (const uri of uris) {
    const port = typeof uri === "string" ? Number(LOOPBACK_CALLBACK.exec(uri)?.[1]) : NaN;
    if (port > 0 && port <= 65535) return port;
  }
  return undefined;
}

/**
 * The login's callback listener. A port the person gave is used or fails the
 * login. Otherwise the port of the client registered at an earlier login is
 * tried first, so that its redirect URI is this login's too; if another
 * program holds it, a free port is used and `onBusy` is told, since the
 * client will then be registered again (the provider sees that its redirect
 * URIs lack this one).
 */
export async function listenForLogin(options: {
  store: CredentialStore;
  resource: string;
  state: string;
  callbackPort?: number;
  onBusy: (port: number) => Promise<void>;
}): Promise<CallbackListener> {
  if (options.callbackPort !== undefined)
    return listenForCallback(options.callbackPort, options.state);
  const port = await registeredPort(options.store, options.resource);
  if (port === undefined) return listenForCallback(0, options.state);
  try {
    return await listenForCallback(port, options.state);
  } catch (err) {
    if (!(err instanceof ContractpinError) || err.code !== "USAGE") throw err;
    await options.onBusy(port);
    return listenForCallback(0, options.state);
  }
}
