import assert from "node:assert/strict";
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { lineMasker } from "../../src/config/wrap/secrets.js";
import { unifiedDiff } from "../../src/config/wrap/unified-diff.js";
import { writeConfig } from "../../src/config/wrap/write-config.js";
import { renderDiff } from "../../src/cli/render/wrap-text.js";
import { isContractpinError } from "../../src/core/errors.js";
import { tempDir } from "../helpers/cleanup.js";
import { fakeSecrets, fixture } from "./fixtures.js";
import { wrapText } from "./wrap-harness.js";

describe("wrap's diff", () => {
  it("is a unified diff with three lines of context, computed by hand", () => {
    const before = "a\nb\nc\nd\ne\nf\ng\nh\ni\n";
    const at = before.indexOf("e");
    const diff = unifiedDiff(
      before,
      [{ span: [at, at + 1], text: "E1\nE2" }],
      { old: "x", new: "x" },
      (l) => l,
    );
    assert.equal(diff, "--- x\n+++ x\n@@ -2,7 +2,8 @@\n b\n c\n d\n-e\n+E1\n+E2\n f\n g\n h\n");
  });

  it("says when the last line has no line break, and merges changes close together into one hunk", () => {
    const before = "1\n2\n3\nend";
    const diff = unifiedDiff(
      before,
      [
        { span: [0, 1], text: "one" },
        { span: [6, 9], text: "END" },
      ],
      { old: "f", new: "f" },
      (l) => l,
    );
    assert.equal(
      diff,
      "--- f\n+++ f\n@@ -1,4 +1,4 @@\n-1\n+one\n 2\n 3\n-end\n\\ No newline at end of file\n+END\n\\ No newline at end of file\n",
    );
  });

  it("masks every literal secret of the fixtures, the stored originals, and shows hidden characters", () => {
    const secrets = fakeSecrets();
    for (const rel of [
      "home/.config/Claude/claude_desktop_config.json",
      "project/.cursor/mcp.json",
      "home/.codex/config.toml",
      "home/.codeium/windsurf/mcp_config.json",
      "home/.gemini/settings.json",
      "home/.claude.json",
    ]) {
      const file = rel.endsWith(".toml") ? "c.toml" : "mcp.json";
      const text = new TextDecoder().decode(fixture(rel));
      const diff = renderDiff([{ plan: wrapText(text, undefined, file) }]);
      assert.match(diff, /^@@ /m, rel);
      for (const s of secrets) assert.ok(!diff.includes(s), `${rel}: ${s.slice(0, 8)}…`);
    }
    // A bidi override may stand raw in JSON text: the diff shows it.
    const plan = wrapText('{"mcpServers": {"e\u202evil": {"command": "node"}}}');
    assert.match(renderDiff([{ plan }]), /"e<U\+202E>vil": \{/);
  });

  it("shows a header that refers to a variable as written; a literal one, or one with a literal credential beside its reference, masked", () => {
    const entry = (value: string) =>
      JSON.stringify(
        {
          mcpServers: {
            search: {
              type: "http",
              url: "https://mcp.example.com/mcp",
              headers: { Authorization: value },
            },
          },
        },
        null,
        2,
      );
    const shown = renderDiff([{ plan: wrapText(entry("Bearer ${SEARCH_TOKEN}")) }]);
    assert.match(shown, /^-.*"Authorization": "Bearer \$\{SEARCH_TOKEN\}"/m);
    assert.doesNotMatch(shown, /\*\*\*/);
    const literal = "ghp_FAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKE1234";
    for (const value of [`Bearer ${literal}`, `Bearer ${literal} \${SEARCH_TOKEN}`]) {
      const masked = renderDiff([{ plan: wrapText(entry(value)) }]);
      assert.ok(!masked.includes(literal), masked);
    }
  });

  it("the masker keeps references and ordinary values", () => {
    const mask = lineMasker(["s3cr3t-value-1234"]);
    assert.equal(
      mask('"Authorization": "Bearer ${TOKEN}",'),
      '"Authorization": "Bearer ${TOKEN}",',
    );
    assert.equal(mask('"API_KEY": "hunter22"'), '"API_KEY": "***"');
    assert.equal(mask('x = "s3cr3t-value-1234"'), 'x = "***"');
    assert.equal(mask('"args": ["-y", "pkg@1.2.3"]'), '"args": ["-y", "pkg@1.2.3"]');
    assert.equal(mask('"token": "ghp_FAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKE1234"'), '"token": "***"');
    assert.equal(
      mask('"CONTRACTPIN_WRAPPED_ENTRY": "{\\"a\\": 1}"'),
      '"CONTRACTPIN_WRAPPED_ENTRY": "…(the original entry, for unwrap)…"',
    );
  });
});

describe("writing a config", () => {
  it("keeps one backup in .contractpin-backup/ (mode 0700) beside the file, with its permissions, ignored by git", async () => {
    const dir = tempDir();
    const file = join(dir, "mcp.json");
    writeFileSync(file, "one");
    chmodSync(file, 0o600);
    const first = await writeConfig(file, Buffer.from("one"), "two");
    assert.equal(first, join(dir, ".contractpin-backup", "mcp.json"));
    assert.equal(readFileSync(first, "utf8"), "one");
    assert.equal(statSync(first).mode & 0o777, 0o600);
    assert.equal(readFileSync(file, "utf8"), "two");
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.match(readFileSync(join(dir, ".contractpin-backup", ".gitignore"), "utf8"), /^\*$/m);
    // Backups may hold secrets: the folder is the user's alone.
    assert.equal(statSync(join(dir, ".contractpin-backup")).mode & 0o777, 0o700);
    // The next write replaces it: one backup, however many writes.
    const second = await writeConfig(file, Buffer.from("two"), "three");
    assert.equal(second, first);
    assert.equal(readFileSync(second, "utf8"), "two");
    assert.deepEqual(readdirSync(dir).sort(), [".contractpin-backup", "mcp.json"]);
    assert.deepEqual(readdirSync(join(dir, ".contractpin-backup")).sort(), [
      ".gitignore",
      "mcp.json",
    ]);
  });

  it("a .gitignore committed in the backup folder that would let git track the backup is replaced", async () => {
    const dir = tempDir();
    const file = join(dir, "mcp.json");
    writeFileSync(file, "one");
    mkdirSync(join(dir, ".contractpin-backup"));
    writeFileSync(join(dir, ".contractpin-backup", ".gitignore"), "!mcp.json\n");
    await writeConfig(file, Buffer.from("one"), "two");
    assert.match(readFileSync(join(dir, ".contractpin-backup", ".gitignore"), "utf8"), /^\*$/m);
    assert.doesNotMatch(readFileSync(join(dir, ".contractpin-backup", ".gitignore"), "utf8"), /!/);
  });

  it("never writes a backup through a symbolic link", async () => {
    const elsewhere = tempDir();
    const victim = join(elsewhere, "victim");
    writeFileSync(victim, "keep");
    // A repository commits the backup's place as a link: it is replaced, not followed.
    const dir = tempDir();
    const file = join(dir, "mcp.json");
    writeFileSync(file, "one");
    mkdirSync(join(dir, ".contractpin-backup"));
    symlinkSync(victim, join(dir, ".contractpin-backup", "mcp.json"));
    symlinkSync(victim, join(dir, ".contractpin-backup", ".gitignore"));
    const kept = await writeConfig(file, Buffer.from("one"), "two");
    assert.equal(readFileSync(victim, "utf8"), "keep");
    assert.equal(lstatSync(join(dir, ".contractpin-backup", ".gitignore")).isSymbolicLink(), false);
    assert.equal(lstatSync(kept).isSymbolicLink(), false);
    assert.equal(readFileSync(kept, "utf8"), "one");
    // ... or commits the folder as a link: refused, nothing written.
    const other = tempDir();
    const file2 = join(other, "mcp.json");
    writeFileSync(file2, "one");
    symlinkSync(elsewhere, join(other, ".contractpin-backup"));
    await assert.rejects(
      writeConfig(file2, Buffer.from("one"), "two"),
      (err) =>
        isContractpinError(err, "CONFIG_CHANGED") && /not a folder/.test((err as Error).message),
    );
    assert.equal(readFileSync(file2, "utf8"), "one");
    assert.deepEqual(readdirSync(elsewhere), ["victim"]);
  });

  it("a file that changed since it was read is left alone (CONFIG_CHANGED)", async () => {
    const dir = tempDir();
    const file = join(dir, "mcp.json");
    writeFileSync(file, "changed by the client");
    await assert.rejects(writeConfig(file, Buffer.from("as read"), "new"), (err) =>
      isContractpinError(err, "CONFIG_CHANGED"),
    );
    assert.equal(readFileSync(file, "utf8"), "changed by the client");
  });
});
