import { checkResourceAllowed } from "@modelcontextprotocol/client";
import { ContractpinError } from "../core/errors.js";
import { visibleText } from "../core/visible-text.js";

/**
 * The resource indicator of a credential bound to `pinned` (the MCP server's
 * canonical URL): the protected resource metadata's `resource` only when it
 * covers the server's URL, else `pinned`.
 *
 * @throws ContractpinError AUTH_FAILED for metadata naming another resource.
 */
export function pinnedResource(pinned: string, serverUrl: string | URL, advertised?: string): URL {
  if (
    advertised !== undefined &&
    !checkResourceAllowed({ requestedResource: serverUrl, configuredResource: advertised })
  ) {
    throw new ContractpinError(
      "AUTH_FAILED",
      `the server's protected resource metadata names ${visibleText(advertised)}, which is not ${pinned}`,
    );
  }
  return new URL(advertised ?? pinned);
}
