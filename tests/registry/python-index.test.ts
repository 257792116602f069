import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { ContractpinError } from "../../src/core/errors.js";
import { netrcAuthorization } from "../../src/registry/netrc.js";
import { pipIndexPlan } from "../../src/registry/pip-index.js";
import { uvIndexPlan } from "../../src/registry/uv-index.js";
import { cleanUp, tempDir } from "../helpers/cleanup.js";

after(() => cleanUp());

// A HOME and XDG dirs of their own, so the machine's own uv.toml / pip.conf never count.
function home(files: Record<string, string> = {}) {
  const dir = tempDir("contractpin-pyhome-");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const env = { HOME: dir, XDG_CONFIG_DIRS: join(dir, "no-system"), PIP_CONFIG_FILE: "" };
  return {
    dir,
    spawn: (extra: Record<string, string> = {}) => ({
      command: "uvx",
      args: [],
      cwd: dir,
      env: { ...env, ...extra },
    }),
  };
}

const refused = (f: () => unknown, re: RegExp) =>
  assert.throws(
    f,
    (e: unknown) =>
      e instanceof ContractpinError && re.test(e.message) && !e.message.includes("\n"),
  );

test("uv: default PyPI; --index and extra indexes before the default; options over variables over uv.toml", () => {
  const h = home();
  assert.deepEqual(uvIndexPlan(h.spawn(), [], h.dir), {
    indexes: ["https://pypi.org/simple"],
    strategy: "first",
  });
  assert.deepEqual(
    uvIndexPlan(
      h.spawn({ UV_INDEX: "http://a/ http://b/", UV_DEFAULT_INDEX: "http://d/" }),
      [],
      h.dir,
    ).indexes,
    ["http://a/", "http://b/", "http://d/"],
  );
  // An option given makes uv ignore the variable of the same setting.
  assert.deepEqual(
    uvIndexPlan(
      h.spawn({ UV_INDEX: "http://a/" }),
      ["--index", "http://c/", "--extra-index-url=http://e/", "-i", "http://d/"],
      h.dir,
    ).indexes,
    ["http://c/", "http://e/", "http://d/"],
  );
  const cfg = home({
    ".config/uv/uv.toml":
      '[[index]]\nurl = "http://u/"\n[[index]]\nurl = "http://x/"\nexplicit = true\n[[index]]\nname = "corp"\nurl = "http://corp/"\ndefault = true\n',
  });
  assert.deepEqual(uvIndexPlan(cfg.spawn(), [], cfg.dir).indexes, ["http://u/", "http://corp/"]);
  // XDG_CONFIG_HOME moves the user's uv.toml; a named index takes UV_INDEX_{NAME}_USERNAME/PASSWORD.
  const xdg = home({ "xdg/uv/uv.toml": 'index-url = "http://legacy/"\n' });
  assert.deepEqual(
    uvIndexPlan(xdg.spawn({ XDG_CONFIG_HOME: join(xdg.dir, "xdg") }), [], xdg.dir).indexes,
    ["http://legacy/"],
  );
  assert.deepEqual(
    uvIndexPlan(
      cfg.spawn({ UV_INDEX_CORP_USERNAME: "me", UV_INDEX_CORP_PASSWORD: "pw" }),
      [],
      cfg.dir,
    ).indexes,
    ["http://u/", "http://me:pw@corp/"],
  );
  assert.equal(
    uvIndexPlan(h.spawn({ UV_INDEX_STRATEGY: "unsafe-best-match" }), [], h.dir).strategy,
    "all",
  );
  // unsafe-first-match takes every index's versions, but only of the first that has the package.
  assert.equal(
    uvIndexPlan(h.spawn({ UV_INDEX_STRATEGY: "unsafe-first-match" }), [], h.dir).strategy,
    "first",
  );
  assert.equal(
    uvIndexPlan(h.spawn(), ["--index-strategy", "unsafe-first-match"], h.dir).strategy,
    "first",
  );
  assert.equal(uvIndexPlan(h.spawn(), [], h.dir).strategy, "first");
  assert.equal(uvIndexPlan(h.spawn(), ["--prerelease", "allow"], h.dir).pre, true);
  assert.equal(uvIndexPlan(h.spawn({ UV_PRERELEASE: "if-necessary" }), [], h.dir).pre, undefined);
  assert.deepEqual(uvIndexPlan(cfg.spawn({ UV_NO_CONFIG: "1" }), [], cfg.dir).indexes, [
    "https://pypi.org/simple",
  ]);
  // A project's uv.toml is not read by tool commands.
  const project = home({ "uv.toml": 'index-url = "http://project/"\n' });
  assert.deepEqual(uvIndexPlan(project.spawn(), [], project.dir).indexes, [
    "https://pypi.org/simple",
  ]);
});

test("uv: what contractpin cannot ask as uv would is refused, one line", () => {
  const h = home();
  refused(() => uvIndexPlan(h.spawn(), ["--keyring-provider", "subprocess"], h.dir), /keyring/);
  refused(() => uvIndexPlan(h.spawn({ UV_FIND_LINKS: "./wheels" }), [], h.dir), /find-links/);
  refused(() => uvIndexPlan(h.spawn(), ["--no-index"], h.dir), /no index/);
  refused(
    () => uvIndexPlan(h.spawn({ UV_INDEX: "file:///srv/wheels" }), [], h.dir),
    /not an http\(s\) URL/,
  );
  const bad = home({ ".config/uv/uv.toml": "index-url = \n" });
  refused(() => uvIndexPlan(bad.spawn(), [], bad.dir), /is not valid TOML/);
});

test("pip (pipx run): pipx's --index-url and --pip-args, then PIP_*, then pip.conf; every index merged", () => {
  const h = home({
    ".config/pip/pip.conf":
      "[global]\nindex-url = http://conf/\nextra-index-url =\n    http://x1/\n    http://x2/\n[install]\nindex_url = http://install/\n",
  });
  assert.deepEqual(pipIndexPlan(h.spawn(), [], h.dir), {
    indexes: ["http://install/", "http://x1/", "http://x2/"],
    strategy: "all",
  });
  assert.deepEqual(
    pipIndexPlan(
      h.spawn({ PIP_INDEX_URL: "http://env/", PIP_EXTRA_INDEX_URL: "http://e1/ http://e2/" }),
      [],
      h.dir,
    ).indexes,
    ["http://env/", "http://e1/", "http://e2/"],
  );
  assert.deepEqual(
    pipIndexPlan(
      h.spawn({ PIP_INDEX_URL: "http://env/" }),
      ["--spec", "p==1", "--index-url", "http://cli/", "--pip-args=--extra-index-url http://pa/"],
      h.dir,
    ).indexes,
    ["http://cli/", "http://x1/", "http://x2/", "http://pa/"],
  );
  // PIP_CONFIG_FILE replaces the user's files; /dev/null reads none; --isolated ignores PIP_* and the user's.
  const own = join(h.dir, "own.conf");
  writeFileSync(own, "[global]\nindex-url = http://own/\n");
  assert.deepEqual(pipIndexPlan(h.spawn({ PIP_CONFIG_FILE: own }), [], h.dir).indexes, [
    "http://own/",
  ]);
  assert.deepEqual(pipIndexPlan(h.spawn({ PIP_CONFIG_FILE: "/dev/null" }), [], h.dir).indexes, [
    "https://pypi.org/simple",
  ]);
  assert.deepEqual(
    pipIndexPlan(h.spawn({ PIP_INDEX_URL: "http://env/" }), ["--pip-args", "--isolated"], h.dir)
      .indexes,
    ["https://pypi.org/simple"],
  );
  assert.equal(pipIndexPlan(h.spawn(), ["--pip-args=--pre"], h.dir).pre, true);
  assert.equal(pipIndexPlan(h.spawn({ PIP_PRE: "1" }), [], h.dir).pre, true);
  const legacy = home({ ".pip/pip.conf": "[global]\nindex-url = http://legacy/\n" });
  assert.deepEqual(pipIndexPlan(legacy.spawn(), [], legacy.dir).indexes, ["http://legacy/"]);
});

test("pip: find-links, no-index, keyring, quoting in --pip-args, an unreadable pip.conf are refused, one line", () => {
  const h = home();
  refused(() => pipIndexPlan(h.spawn(), ["--pip-args", "--find-links ./w"], h.dir), /find-links/);
  refused(() => pipIndexPlan(h.spawn({ PIP_NO_INDEX: "1" }), [], h.dir), /no index/);
  refused(
    () => pipIndexPlan(h.spawn({ PIP_KEYRING_PROVIDER: "subprocess" }), [], h.dir),
    /keyring/,
  );
  refused(
    () => pipIndexPlan(h.spawn(), ["--pip-args", "--index-url 'http://a b/'"], h.dir),
    /quoting/,
  );
  const bad = home({ ".config/pip/pip.conf": "index-url = http://no-section/\n" });
  refused(() => pipIndexPlan(bad.spawn(), [], bad.dir), /cannot read pip's configuration .*line 1/);
});

test(".netrc: NETRC, else HOME's; the machine's entry, else default; comments and account skipped", () => {
  const h = home({
    ".netrc":
      "# mine\nmachine idx.example login alice account x password s3cret\ndefault login anon password guest\n",
  });
  const plan = pipIndexPlan(h.spawn(), [], h.dir);
  assert.ok(plan.netrc !== undefined);
  const basic = (s: string) => `Basic ${Buffer.from(s).toString("base64")}`;
  assert.equal(netrcAuthorization(plan.netrc, "idx.example"), basic("alice:s3cret"));
  assert.equal(netrcAuthorization(plan.netrc, "other.example"), basic("anon:guest"));
  assert.equal(netrcAuthorization("machine a login b\n", "a"), undefined);
  const other = join(h.dir, "elsewhere");
  writeFileSync(other, "machine idx.example login bob password pw\n");
  const viaEnv = uvIndexPlan(h.spawn({ NETRC: other }), [], h.dir).netrc!;
  assert.equal(netrcAuthorization(viaEnv, "idx.example"), basic("bob:pw"));
  const none = home();
  assert.equal(uvIndexPlan(none.spawn(), [], none.dir).netrc, undefined);
});
