// The login's `state` (RFC 6749 §10.12, CSRF): a callback that does not carry
// the state this login sent is refused, and nothing of it is used, not even
// its authorization code. The driver requests the fixture's real callback
// (tests/fixtures/servers/oauth-server.mjs approves at once), with the code it
// issued but another state, or none; a callback a forging page sends looks
// the same to the loopback listener.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { tempDir } from "../helpers/cleanup.js";
import { oneLine } from "../helpers/cli.js";
import {
  loginOnTerminal,
  startOAuthFixture,
  tokenGrants,
  type CallbackState,
  type OAuthFixture,
} from "../helpers/oauth.js";

/** The tokens of every credential in the file store of `dir` (none when it holds no file). */
function storedTokens(dir: string): unknown[] {
  const file = join(dir, "config", "credentials.json");
  if (!existsSync(file)) return [];
  const { resources } = JSON.parse(readFileSync(file, "utf8")) as {
    resources: Record<string, Record<string, { tokens?: unknown }>>;
  };
  return Object.values(resources)
    .flatMap((byIssuer) => Object.values(byIssuer))
    .flatMap((entry) => (entry.tokens === undefined ? [] : [entry.tokens]));
}

async function loginWith(state: CallbackState) {
  const dir = tempDir();
  const fx: OAuthFixture = await startOAuthFixture(dir);
  const env = { CONTRACTPIN_CONFIG_DIR: join(dir, "config"), CI: "" };
  const r = loginOnTerminal(["--url", fx.url, "--no-browser"], env, dir, state);
  return { dir, fx, r };
}

describe("login refuses a callback without the state it sent", () => {
  for (const [state, what] of [
    ["forged", "another state"],
    ["none", "no state"],
  ] as const) {
    it(`a callback with the fixture's code but ${what}: refused (exit 1), the code never exchanged, nothing stored`, async () => {
      const { dir, fx, r } = await loginWith(state);
      assert.equal(r.code, 1, r.data);
      const shown = r.data.replace(/\r\n/g, "\n");
      assert.match(
        shown,
        /contractpin: the authorization callback came back with another state than the one sent: the login was stopped\n$/,
      );
      assert.ok(oneLine(shown.slice(shown.indexOf("contractpin: "))), shown);
      assert.doesNotMatch(shown, /logged in/);
      // The browser is told, and the authorization server was asked for no token.
      assert.equal(r.callback?.status, 400, JSON.stringify(r.callback));
      assert.match(r.callback!.body, /this callback is not for the login in progress/);
      assert.ok(fx.report().some((e) => e.path === "/authorize"));
      assert.deepEqual(tokenGrants(fx), []);
      assert.deepEqual(storedTokens(dir), []);
    });
  }

  it("the same login with the state as sent logs in (what the refusals above differ by)", async () => {
    const { dir, fx, r } = await loginWith("as-sent");
    assert.equal(r.code, 0, r.data);
    assert.match(r.data, /logged in to /);
    assert.deepEqual(
      tokenGrants(fx).map((g) => g.grant_type),
      ["authorization_code"],
    );
    assert.equal(storedTokens(dir).length, 1);
  });
});
