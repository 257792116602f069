// server-everything (it serves instructions, prompts, resources and
// templates) pinned whole and guarded, with the official client over stdio
// and --listen: what is pinned and unchanged reaches the client exactly as
// a direct connection serves it, and the guard says nothing.
import { describe, it } from "node:test";
import { join } from "node:path";
import { tempDir } from "../helpers/cleanup.js";
import { runCli } from "../helpers/cli.js";
import { SERVERS } from "../helpers/servers.js";
import { assert, listPages, officialClient, rawRequest, type Loose } from "./guard-harness.js";
import { closedAfterFile, FACES } from "./surface-faces.js";

const connect = closedAfterFile();

describe("server-everything pinned whole (--resources) and guarded, with the official client", () => {
  const dir = tempDir("contractpin-guard-everything-surface-");
  const lock = join(dir, "contractpin.lock");
  const command = [process.execPath, SERVERS.everything];
  const lists: [string, string][] = [
    ["prompts/list", "prompts"],
    ["resources/templates/list", "resourceTemplates"],
    ["resources/list", "resources"],
  ];

  for (const face of FACES) {
    it(`${face}: sees its instructions, prompts, templates and resources exactly as served directly`, async () => {
      if (face === FACES[0]) {
        const add = runCli([
          "add",
          "everything",
          "--resources",
          "--lock",
          lock,
          "--no-snapshot",
          "--",
          ...command,
        ]);
        assert.equal(add.code, 0, add.stderr);
      }
      const direct = (await officialClient(command)).client;
      const guarded = await connect(face, ["everything", "--lock", lock]);
      try {
        const { client } = guarded;
        assert.ok((direct.getInstructions() ?? "").length > 0);
        assert.equal(client.getInstructions(), direct.getInstructions());
        for (const [method, member] of lists) {
          const pages = (await listPages(client, method)) as Loose[];
          assert.deepEqual(pages, await listPages(direct, method), method);
          assert.ok(pages.flatMap((p: Loose) => p[member] as Loose[]).length > 0, method);
        }
        const prompt = { name: "simple-prompt", arguments: {} };
        assert.deepEqual(
          await rawRequest(client, "prompts/get", prompt),
          await rawRequest(direct, "prompts/get", prompt),
        );
        const [first] = ((await listPages(direct, "resources/list"))[0] as Loose).resources;
        assert.deepEqual(
          await rawRequest(client, "resources/read", { uri: first.uri }),
          await rawRequest(direct, "resources/read", { uri: first.uri }),
        );
        assert.equal(guarded.stderr(), "");
      } finally {
        await direct.close();
      }
    });
  }
});
