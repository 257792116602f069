// The macOS keychain cannot be run here (the suite runs on Linux), and a fake
// `security` would only test itself: what is checked is what contractpin
// would pass to the real one, and which tool it picks on which platform.
import assert from "node:assert/strict";
import { dirname } from "node:path";
import { describe, it } from "node:test";
import {
  keychainTool,
  securityCommand,
  securitySecret,
} from "../../src/auth/store/store-keychain.js";
import { validEntries } from "../../src/auth/store/store-entry.js";
import { parseJson } from "../../src/core/json/strict-json.js";
import { tempDir } from "../helpers/cleanup.js";

const R = "https://mcp.example.com/mcp";
const SECRET = JSON.stringify({ "https://a/": { tokens: { access_token: 'x"y\nz ü' } } });

describe("the macOS keychain through security", () => {
  it("never puts the secret on the command line: -w comes last, the secret is fed on stdin twice", () => {
    const save = securityCommand("write", R, SECRET);
    assert.deepEqual(save.args, ["add-generic-password", "-U", "-s", "contractpin", "-a", R, "-w"]);
    assert.ok(save.args.every((a) => !a.includes("access_token")));
    // security asks for the password, then for it again.
    assert.equal(save.input, `${SECRET}\n${SECRET}\n`);
  });

  it("gives security a printable-ASCII password that is the same JSON, awkward values included", () => {
    const entries = {
      "https://a.example/": {
        resource: "https://r.example/mcp",
        issuer: "https://a.example/",
        tokens: { access_token: 'q"uote\\ new\nline ünï 日本 🔑 \u007f', token_type: "bearer" },
      },
    };
    const secret = securitySecret(entries);
    assert.match(secret, /^[\x20-\x7e]+$/);
    assert.deepEqual(validEntries(parseJson(secret), "test"), entries);
    assert.ok(
      securityCommand("write", "https://r.example/mcp", secret).args.every(
        (a) => !a.includes("access_token"),
      ),
    );
  });

  it("reads with -w (the password alone on stdout) and deletes by service and account", () => {
    assert.deepEqual(securityCommand("read", R), {
      args: ["find-generic-password", "-s", "contractpin", "-a", R, "-w"],
      input: "",
    });
    assert.deepEqual(securityCommand("write", R, ""), {
      args: ["delete-generic-password", "-s", "contractpin", "-a", R],
      input: "",
    });
  });

  it("security is the tool on darwin, secret-tool elsewhere, each only where PATH has it", () => {
    const empty = tempDir();
    assert.equal(keychainTool({ PATH: empty }, "darwin"), undefined);
    assert.equal(keychainTool({ PATH: empty }, "linux"), undefined);
    // The suite installs secret-tool (tests/helpers/secret-service.ts says how).
    const linux = keychainTool({ PATH: `${empty}:/usr/local/bin:/usr/bin:/bin` }, "linux");
    assert.equal(linux?.name, "secret-tool");
    assert.equal(keychainTool({ PATH: dirname(linux!.path) }, "darwin"), undefined);
  });
});
