import assert from "node:assert/strict";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { isContractpinError } from "../../src/core/errors.js";
import {
  openStore,
  readEntry,
  writeEntry,
  type CredentialEntry,
} from "../../src/auth/store/store.js";
import { checkedPath, configDir } from "../../src/auth/store/store-file.js";
import { tempDir } from "../helpers/cleanup.js";

const R = "http://127.0.0.1:1/mcp";
const ISS = "http://127.0.0.1:2/";
const entry = (token: string): CredentialEntry => ({
  resource: R,
  issuer: ISS,
  tokens: { access_token: token, token_type: "bearer" },
  savedAt: 1,
});

async function rejectsCode(p: Promise<unknown>, code: string): Promise<string> {
  let message = "";
  await assert.rejects(p, (err: unknown) => {
    assert.ok(isContractpinError(err), String(err));
    assert.equal(err.code, code, err.message);
    message = err.message;
    return true;
  });
  return message;
}

describe("credential file store", () => {
  it("creates a 0700 directory and a 0600 file, and reads back what it saved", async () => {
    const dir = join(tempDir(), "nested", "contractpin");
    const store = openStore({ CONTRACTPIN_CONFIG_DIR: dir });
    assert.equal(await readEntry(store, R, ISS), undefined);
    await writeEntry(store, R, ISS, entry("tok-1"));
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.equal(statSync(join(dir, "credentials.json")).mode & 0o777, 0o600);
    assert.deepEqual(await readEntry(store, R, ISS), entry("tok-1"));
    // Another issuer for the same resource is another entry.
    await writeEntry(store, R, "https://other.example/", {
      ...entry("tok-2"),
      issuer: "https://other.example/",
    });
    assert.equal((await readEntry(store, R, ISS))?.tokens?.access_token, "tok-1");
    await writeEntry(store, R, ISS, undefined);
    assert.equal(await readEntry(store, R, ISS), undefined);
    assert.equal(
      (await readEntry(store, R, "https://other.example/"))?.tokens?.access_token,
      "tok-2",
    );
  });

  it("refuses a file or a directory that others can read, or a symbolic link", async () => {
    const dir = join(tempDir(), "c");
    const store = openStore({ CONTRACTPIN_CONFIG_DIR: dir });
    await writeEntry(store, R, ISS, entry("tok-1"));
    const file = join(dir, "credentials.json");
    chmodSync(file, 0o644);
    assert.match(await rejectsCode(store.read(R), "CREDENTIAL_STORE"), /mode is 0644/);
    await rejectsCode(writeEntry(store, R, ISS, entry("tok-2")), "CREDENTIAL_STORE");
    chmodSync(file, 0o600);
    chmodSync(dir, 0o755);
    assert.match(await rejectsCode(store.read(R), "CREDENTIAL_STORE"), /mode is 0755/);
    chmodSync(dir, 0o700);
    const linked = join(tempDir(), "l");
    mkdirSync(linked, { mode: 0o700 });
    symlinkSync(file, join(linked, "credentials.json"));
    const viaLink = openStore({ CONTRACTPIN_CONFIG_DIR: linked });
    assert.match(await rejectsCode(viaLink.read(R), "CREDENTIAL_STORE"), /not a file/);
    // Nothing was weakened or rewritten along the way.
    assert.equal(
      JSON.parse(readFileSync(file, "utf8")).resources[R][ISS].tokens.access_token,
      "tok-1",
    );
  });

  it("refuses a file or a directory another user owns, whoever runs the tests", async () => {
    const me = process.getuid!();
    const dir = join(tempDir(), "c");
    const store = openStore({ CONTRACTPIN_CONFIG_DIR: dir });
    await writeEntry(store, R, ISS, entry("tok-1"));
    const file = join(dir, "credentials.json");
    const refusal = (path: string) =>
      `refusing ${path}, which should hold contractpin's credentials: another user owns it (remove it)`;
    // The check itself, for any user: told that another user must own what this one does.
    for (const [path, kind] of [
      [dir, "directory"],
      [file, "file"],
    ] as const) {
      assert.equal(checkedPath(path, kind, true, me), true);
      assert.throws(
        () => checkedPath(path, kind, true, me + 1),
        (err: unknown) =>
          isContractpinError(err) &&
          err.code === "CREDENTIAL_STORE" &&
          err.message === refusal(path),
      );
    }
    // Through the store, with a real owner: root gives the file, then the
    // directory, to another user; any other user points it at a directory
    // root owns (it cannot give away its own).
    if (me === 0) {
      for (const path of [file, dir]) {
        chownSync(path, 4242, 4242);
        assert.equal(await rejectsCode(store.read(R), "CREDENTIAL_STORE"), refusal(path));
        await rejectsCode(writeEntry(store, R, ISS, entry("tok-2")), "CREDENTIAL_STORE");
        chownSync(path, 0, 0);
      }
    } else {
      assert.equal(statSync("/").uid, 0);
      const theirs = openStore({ CONTRACTPIN_CONFIG_DIR: "/" });
      assert.equal(await rejectsCode(theirs.read(R), "CREDENTIAL_STORE"), refusal("/"));
    }
    assert.equal((await readEntry(store, R, ISS))?.tokens?.access_token, "tok-1");
  });

  it("a save that fails is an error", async () => {
    const base = tempDir();
    writeFileSync(join(base, "file"), "");
    const store = openStore({ CONTRACTPIN_CONFIG_DIR: join(base, "file", "contractpin") });
    await rejectsCode(writeEntry(store, R, ISS, entry("t")), "CREDENTIAL_STORE");
  });

  it("refuses a file that is not a credentials file", async () => {
    const dir = join(tempDir(), "c");
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(join(dir, "credentials.json"), '{"version":1,"resources":{"a":1,"a":2}}', {
      mode: 0o600,
    });
    await rejectsCode(openStore({ CONTRACTPIN_CONFIG_DIR: dir }).read(R), "CREDENTIAL_STORE");
  });

  it("never uses a keychain when CONTRACTPIN_CONFIG_DIR is set, and uses one when chosen", async () => {
    const bin = tempDir();
    const log = join(bin, "calls");
    writeFileSync(join(bin, "secret-tool"), `#!/bin/sh\necho "$@" >> ${log}\nexit 1\n`, {
      mode: 0o755,
    });
    const dir = join(tempDir(), "c");
    const env = { CONTRACTPIN_CONFIG_DIR: dir, PATH: bin };
    await writeEntry(openStore(env), R, ISS, entry("t"));
    assert.equal(existsSync(log), false);
    assert.ok(existsSync(join(dir, "credentials.json")));
    // A chosen keychain that does not answer is an error, not a fall-back to
    // the file (tests/auth/keychain-secret-service.test.ts drives a real one).
    assert.throws(
      () => openStore({ ...env, CONTRACTPIN_CREDENTIAL_STORE: "keychain" }),
      (err: unknown) => isContractpinError(err) && err.code === "CREDENTIAL_STORE",
    );
    assert.equal(readFileSync(log, "utf8"), "search service contractpin probe reachable\n");
  });

  it("the config directory follows XDG_CONFIG_HOME, then HOME", () => {
    assert.equal(configDir({ XDG_CONFIG_HOME: "/x" }), "/x/contractpin");
    assert.equal(configDir({ HOME: "/h" }), "/h/.config/contractpin");
    assert.equal(configDir({ CONTRACTPIN_CONFIG_DIR: "/c", XDG_CONFIG_HOME: "/x" }), "/c");
  });
});
