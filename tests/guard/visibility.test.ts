// Issue 36: what reaches the model from an admitted tool. `_meta.ui.visibility`
// (MCP Apps) decides whether the model sees a tool, so the guard checks it
// against the lock's side pin (SPEC.md 13): with the official client over
// stdio and --listen, and a real SDK server (tests/fixtures/servers/apps-sdk-server.mjs),
// an app tool made model-visible after the pin is withheld as drifted, its
// call refused, the line naming `_meta.ui.visibility` (stderr and --log),
// also under --on-drift=graded; served as pinned, it is relayed as served.
import { describe, it } from "node:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { tempDir } from "../helpers/cleanup.js";
import { runCli } from "../helpers/cli.js";
import {
  allPages,
  assert,
  officialClient,
  refusedAsDrifted,
  stderrShows,
  toolNames,
  type Loose,
} from "./guard-harness.js";
import { closedAfterFile, FACES, logEvents } from "./surface-faces.js";

const SERVER = fileURLToPath(new URL("../fixtures/servers/apps-sdk-server.mjs", import.meta.url));

/** A lock pinning the fixture with show_chart for the app only, its variant file and a log path. */
function pinned() {
  const dir = tempDir("contractpin-guard-visibility-");
  const lock = join(dir, "contractpin.lock");
  const variant = join(dir, "variant.json");
  writeFileSync(variant, "{}");
  const add = runCli([
    "add",
    "apps",
    "--lock",
    lock,
    "--env",
    `APPS_VARIANT_FILE=${variant}`,
    "--",
    process.execPath,
    SERVER,
  ]);
  assert.equal(add.code, 0, add.stderr);
  return { lock, variant, log: join(dir, "guard.log") };
}

const connect = closedAfterFile();

/** The official client straight to the fixture, closed after the test file. */
async function direct(variant: string) {
  const { client } = await officialClient([process.execPath, SERVER], undefined, undefined, {
    APPS_VARIANT_FILE: variant,
  });
  return client;
}

const LINE =
  /^contractpin: guard: server apps: withheld tool "show_chart": drifted \(pinned (sha256:[0-9a-f]{12})\.\.\., live (sha256:[0-9a-f]{12})\.\.\.; changed _meta\.ui\.visibility\)$/m;

for (const face of FACES)
  describe(`the guard (${face}) and a tool's _meta.ui.visibility`, () => {
    it("served as pinned: relayed exactly as the server serves it, _meta included", async () => {
      const { lock, variant } = pinned();
      const guarded = await connect(face, ["apps", "--lock", lock]);
      const plain = await direct(variant);
      try {
        const pages = await allPages(guarded.client);
        assert.deepEqual(pages, await allPages(plain));
        const chart = (pages[0] as Loose).tools.find((t: Loose) => t.name === "show_chart");
        assert.deepEqual(chart._meta.ui.visibility, ["app"]);
        assert.equal(guarded.stderr(), "");
      } finally {
        await plain.close();
      }
    });

    it('flipped from ["app"] to ["model","app"]: withheld as drifted, its call refused, the field named', async () => {
      const { lock, variant, log } = pinned();
      writeFileSync(variant, JSON.stringify({ visibility: ["model", "app"] }));
      const guarded = await connect(face, ["apps", "--lock", lock, "--log", log]);
      assert.deepEqual(toolNames(await allPages(guarded.client)), ["lookup"]);
      await assert.rejects(
        guarded.client.callTool({ name: "show_chart", arguments: { data: [1] } }),
        refusedAsDrifted("show_chart"),
      );
      await stderrShows(guarded.stderr, LINE);
      const [, pin, live] = LINE.exec(guarded.stderr())!;
      // The contract did not move: one tool digest on both sides.
      assert.equal(pin, live);
      const withheld = logEvents(log).find((e) => e.event === "withheld");
      assert.deepEqual(withheld.changed, ["_meta.ui.visibility"]);
      assert.equal(withheld.tool, "show_chart");
      assert.equal(withheld.reason, "drifted");
    });

    it("removed (the model sees the tool by default): withheld too", async () => {
      const { lock, variant } = pinned();
      writeFileSync(variant, JSON.stringify({ visibility: null }));
      const guarded = await connect(face, ["apps", "--lock", lock]);
      assert.deepEqual(toolNames(await allPages(guarded.client)), ["lookup"]);
    });

    it("--on-drift=graded never passes it, even with a change graded low beside it", async () => {
      // The same reworded description alone passes graded: the control.
      const reworded = "Draw a chart of the given numbers inside the app.";
      const control = pinned();
      writeFileSync(control.variant, JSON.stringify({ description: reworded }));
      const passes = await connect(face, ["apps", "--lock", control.lock, "--on-drift=graded"]);
      assert.deepEqual(toolNames(await allPages(passes.client)), ["show_chart", "lookup"]);

      const { lock, variant } = pinned();
      writeFileSync(variant, JSON.stringify({ description: reworded, visibility: ["model"] }));
      const graded = await connect(face, ["apps", "--lock", lock, "--on-drift=graded"]);
      assert.deepEqual(toolNames(await allPages(graded.client)), ["lookup"]);
      await stderrShows(
        graded.stderr,
        /withheld tool "show_chart": drifted \(.*; changed _meta\.ui\.visibility\)/,
      );
      assert.doesNotMatch(graded.stderr(), /passed tool "show_chart"/);
    });
  });
