// The Secret Service store (src/auth/store/store-secret-service.ts) against a real
// gnome-keyring on a private bus (tests/helpers/secret-service.ts), and what
// openStore does when secret-tool is installed but no Secret Service answers.
// secret-tool, dbus-daemon and gnome-keyring-daemon must be installed: without
// them these tests fail, they do not skip.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { isContractpinError } from "../../src/core/errors.js";
import {
  openStore,
  readEntry,
  writeEntry,
  type CredentialEntry,
  type ResourceEntries,
} from "../../src/auth/store/store.js";
import { tempDir } from "../helpers/cleanup.js";
import {
  startSecretService,
  unreachableSecretService,
  type SecretService,
} from "../helpers/secret-service.js";

const R1 = "https://mcp.example.com/mcp";
const R2 = "http://127.0.0.1:8123/mcp";
const ISS1 = "https://auth.example.com/";
const ISS2 = "https://login.example.org/tenant/";
// Quotes, a backslash, newlines, and text beyond ASCII (an astral character included).
const AWKWARD = `a"b'c\\d\nline two\r\n ünïcödé 日本語 🔑`;

const entry = (resource: string, issuer: string, token: string): CredentialEntry => ({
  resource,
  issuer,
  client: { client_id: `client ${AWKWARD}`, client_secret: `secret\n"${token}"` },
  tokens: { access_token: `${token} ${AWKWARD}`, token_type: "bearer", refresh_token: token },
  savedAt: 1_700_000_000_000,
});

async function rejectsStore(p: Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(isContractpinError(err), String(err));
    assert.equal(err.code, "CREDENTIAL_STORE", err.message);
    assert.match(err.message, pattern);
    return true;
  });
}

describe("the Secret Service keychain, on a real gnome-keyring", () => {
  let ss: SecretService;
  let config: string;
  let env: Record<string, string>;
  const warnings: string[] = [];
  const open = () => openStore(env, (w) => warnings.push(w));
  const lookup = (resource: string) =>
    ss.tool(["lookup", "service", "contractpin", "resource", resource]);
  before(async () => {
    ss = await startSecretService();
    config = join(tempDir(), "config");
    env = { ...ss.env, CONTRACTPIN_CONFIG_DIR: config, CONTRACTPIN_CREDENTIAL_STORE: "auto" };
  });

  it("round-trips the entries of two resources and two issuers, awkward values intact, and writes no file", async () => {
    const store = open();
    assert.equal(store.where, "the Secret Service keychain");
    assert.deepEqual(await store.read(R1), {});
    await writeEntry(store, R1, ISS1, entry(R1, ISS1, "t-11"));
    await writeEntry(store, R1, ISS2, entry(R1, ISS2, "t-12"));
    await writeEntry(store, R2, ISS1, entry(R2, ISS1, "t-21"));
    await writeEntry(store, R2, ISS2, entry(R2, ISS2, "t-22"));
    // Read back through a new store, as the next command would.
    const again = open();
    for (const [r, i, t] of [
      [R1, ISS1, "t-11"],
      [R1, ISS2, "t-12"],
      [R2, ISS1, "t-21"],
      [R2, ISS2, "t-22"],
    ] as const)
      assert.deepEqual(await readEntry(again, r, i), entry(r, i, t));
    // One item per resource, whose secret is the JSON of its entries.
    const item = lookup(R1);
    assert.equal(item.status, 0, item.stderr);
    assert.deepEqual(JSON.parse(item.stdout) as ResourceEntries, {
      [ISS1]: entry(R1, ISS1, "t-11"),
      [ISS2]: entry(R1, ISS2, "t-12"),
    });
    const items = ss.tool(["search", "--all", "service", "contractpin"]);
    // secret-tool prints each item's path on stdout (its attributes on stderr).
    assert.equal((items.stdout.match(/^\[\//gm) ?? []).length, 2, items.stdout);
    assert.equal(existsSync(config), false, "nothing was written to the file store");
    assert.deepEqual(warnings, []);
  });

  it("removing one issuer keeps the other; removing the last removes the item", async () => {
    const store = open();
    await writeEntry(store, R1, ISS1, undefined);
    assert.equal(await readEntry(store, R1, ISS1), undefined);
    assert.deepEqual(await readEntry(store, R1, ISS2), entry(R1, ISS2, "t-12"));
    await writeEntry(store, R1, ISS2, undefined);
    assert.deepEqual(await store.read(R1), {});
    assert.equal(lookup(R1).status, 1, "secret-tool finds no item");
    assert.equal(lookup(R1).stdout, "");
    // Removing what is not there is not a failure.
    await store.write(R1, {});
  });

  it("an item contractpin cannot read is a CREDENTIAL_STORE error, never an empty credential", async () => {
    const store = open();
    for (const [resource, secret] of [
      ["https://corrupt.example/a", "not json"],
      ["https://corrupt.example/b", '{"https://x/":{"issuer":"https://y/","resource":"r"}}'],
      ["https://corrupt.example/c", "[]"],
    ]) {
      const r = ss.tool(
        ["store", "--label=corrupt", "service", "contractpin", "resource", resource!],
        secret,
      );
      assert.equal(r.status, 0, r.stderr);
      await rejectsStore(store.read(resource!), /holds an item .* contractpin cannot read/);
      await rejectsStore(
        writeEntry(store, resource!, ISS1, entry(resource!, ISS1, "t")),
        /cannot read/,
      );
    }
  });

  it("ready() saves and removes an item of its own", async () => {
    await open().ready();
    const left = ss.tool(["search", "--all", "service", "contractpin", "probe", "write"]);
    assert.equal(left.stdout, "");
  });

  // Last: the keyring stays locked.
  it("a locked keyring: reads and saves are errors naming the unlock, at once, never 'no credential'", async () => {
    const store = open();
    await writeEntry(store, R2, ISS1, entry(R2, ISS1, "t-21"));
    ss.lock();
    const started = Date.now();
    // secret-tool's own lookup says nothing for a locked item, as for a missing one.
    assert.equal(lookup(R2).stdout, "");
    await rejectsStore(
      store.read(R2),
      /locked keyring; unlock it .*CONTRACTPIN_CREDENTIAL_STORE=file/,
    );
    await rejectsStore(open().ready(), /cannot save a credential .*locked/);
    await rejectsStore(
      store.write(R2, { [ISS1]: entry(R2, ISS1, "t") }),
      /not saved .*CONTRACTPIN_CREDENTIAL_STORE=file/,
    );
    await rejectsStore(store.write(R2, {}), /not removed/);
    // A resource with no item is still no credential.
    assert.deepEqual(await store.read("https://nothing.example/mcp"), {});
    assert.ok(Date.now() - started < 10_000, "nothing waited for an unlock prompt");
    assert.equal(existsSync(config), false);
  });
});

describe("a Secret Service without a login keyring (gnome-keyring started, never unlocked)", () => {
  it("answers, so the keychain is used: nothing is found, and ready() says why it cannot save", async () => {
    const ss = await startSecretService({ keyring: "no-login" });
    const config = join(tempDir(), "config");
    const warnings: string[] = [];
    const store = openStore(
      { ...ss.env, CONTRACTPIN_CONFIG_DIR: config, CONTRACTPIN_CREDENTIAL_STORE: "auto" },
      (w) => warnings.push(w),
    );
    assert.equal(store.where, "the Secret Service keychain");
    assert.deepEqual(await store.read(R1), {});
    await rejectsStore(
      store.ready(),
      /cannot save a credential \(secret-tool: Object does not exist at path .*\); unlock the keyring \(or create a default one\), or set CONTRACTPIN_CREDENTIAL_STORE=file/,
    );
    await rejectsStore(store.write(R1, { [ISS1]: entry(R1, ISS1, "t") }), /not saved/);
    assert.deepEqual(warnings, []);
    assert.equal(existsSync(config), false);
  });
});

describe("secret-tool installed, but no Secret Service answers", () => {
  for (const how of ["no-bus", "no-socket", "no-keyring"] as const) {
    it(`${how}: auto uses the file with one warning; keychain is one error naming the file`, async () => {
      const base = await unreachableSecretService(how);
      const config = join(tempDir(), "config");
      const env = { ...base, CONTRACTPIN_CONFIG_DIR: config, CONTRACTPIN_CREDENTIAL_STORE: "auto" };
      const warnings: string[] = [];
      const started = Date.now();
      const store = openStore(env, (w) => warnings.push(w));
      assert.ok(Date.now() - started < 5_000, "decided without waiting for the 30 s timeout");
      assert.equal(store.where, `the credentials file ${join(config, "credentials.json")}`);
      assert.equal(warnings.length, 1, warnings.join("\n"));
      assert.match(
        warnings[0]!,
        /^secret-tool is installed, but the Secret Service does not answer \(.+\): using the credentials file /,
      );
      await writeEntry(store, R1, ISS1, entry(R1, ISS1, "t"));
      // The next store in this process uses the same file, without another warning.
      assert.deepEqual(
        await readEntry(
          openStore(env, (w) => warnings.push(w)),
          R1,
          ISS1,
        ),
        entry(R1, ISS1, "t"),
      );
      assert.equal(warnings.length, 1);
      assert.ok(existsSync(join(config, "credentials.json")));
      assert.throws(
        () => openStore({ ...env, CONTRACTPIN_CREDENTIAL_STORE: "keychain" }),
        (err: unknown) =>
          isContractpinError(err) &&
          err.code === "CREDENTIAL_STORE" &&
          /^CONTRACTPIN_CREDENTIAL_STORE=keychain, but the Secret Service does not answer \(.+\); set CONTRACTPIN_CREDENTIAL_STORE=file/.test(
            err.message,
          ),
      );
    });
  }
});
