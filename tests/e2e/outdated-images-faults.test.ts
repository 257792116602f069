import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, test } from "node:test";
import { startCli } from "../helpers/cli.js";
import { atEnd, cleanUp } from "../helpers/cleanup.js";
import { imageProject } from "../helpers/image-project.js";

// A registry that misbehaves, one way per repository: outdated bounds what it
// reads and says what went wrong in one line, exit 1, never "the newest".
let host: string;
let pagesServed = 0;

before(async () => {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://registry");
    const repo = /^\/v2\/(.+)\/tags\/list$/.exec(url.pathname)?.[1];
    const json = { "content-type": "application/json" };
    if (repo === "fault/endless") {
      pagesServed++;
      const link = `</v2/fault/endless/tags/list?last=${pagesServed}>; rel="next"`;
      res.writeHead(200, { ...json, link }).end(JSON.stringify({ tags: [`1.0.${pagesServed}`] }));
    } else if (repo === "fault/huge") {
      // 17 MiB of tags in one page, past the 16 MiB a look-up may read.
      res.writeHead(200, json);
      res.write('{"name":"fault/huge","tags":["1.0.0"');
      const chunk = ',"1.0.0-padding-padding-padding-padding"'.repeat(1024);
      for (let i = 0; i < 17 * 26; i++) res.write(chunk);
      res.end("]}");
    } else if (repo === "fault/duplicate") {
      res.writeHead(200, json).end('{"tags":["1.0.0"],"tags":["9.0.0"]}');
    } else if (repo === "fault/elsewhere") {
      const link = `<http://127.0.0.2:1/v2/fault/elsewhere/tags/list?last=1.0.0>; rel="next"`;
      res.writeHead(200, { ...json, link }).end(JSON.stringify({ tags: ["1.0.0"] }));
    } else if (repo === "fault/negotiate") {
      res.writeHead(401, { "www-authenticate": "Negotiate" }).end();
    } else if (repo === "fault/redirect") {
      res.writeHead(302, { location: "http://127.0.0.2:1/v2/x/tags/list" }).end();
    } else {
      res.writeHead(404, json).end('{"errors":[{"code":"NAME_UNKNOWN"}]}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  atEnd(() => server.close());
  host = `127.0.0.1:${(server.address() as { port: number }).port}`;
});
after(() => cleanUp());

test("a registry's faults: endless pages, an oversized answer, duplicate members, a page on another host, an unknown challenge, a redirect", async () => {
  const names = ["endless", "huge", "duplicate", "elsewhere", "negotiate", "redirect"];
  const ws = imageProject(
    Object.fromEntries(
      names.map((name) => [name, { command: ["docker", "run", `${host}/fault/${name}:1.0.0`] }]),
    ),
  );
  const r = await startCli(["outdated"], { cwd: ws.dir, env: { HOME: ws.path("home") } }).done;
  assert.equal(r.code, 1, r.stderr);
  const line = (name: string, why: string) =>
    `${name}: ${host}/fault/${name} not checked: registry http://${host}/: ${why}`;
  assert.equal(
    r.stdout,
    [
      line("duplicate", "sent a tag list that is not JSON"),
      line("elsewhere", "sent a next page on another host"),
      line("endless", "fault/endless has over 200 pages of tags"),
      line("huge", "sent a tag list past 16 MiB of answers"),
      line("negotiate", "asked for an authentication docker does not know (HTTP 401)"),
      line("redirect", "answered a redirect (HTTP 302) for fault/redirect, not followed"),
      "",
    ].join("\n"),
  );
  assert.equal(pagesServed, 200);
});
