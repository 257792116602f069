// The files a Simple API project page lists, with their sha256 (SPEC.md
// 11.2): PEP 691 JSON `hashes.sha256`, PEP 503 HTML `#sha256=` fragments.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { htmlPageFiles, jsonPageFiles } from "../../src/registry/simple-api.js";

const A = "a".repeat(64);
const B = "B".repeat(64);

describe("project page files", () => {
  it("PEP 691 JSON: each file's version and sha256 (lower-cased); yanked files kept and marked; no sha256, none", async () => {
    const page = {
      meta: { "api-version": "1.1" },
      name: "acme-files",
      files: [
        { filename: "acme_files-1.0.0-py3-none-any.whl", url: "x", hashes: { sha256: A } },
        { filename: "acme_files-1.0.0.tar.gz", url: "x", hashes: { sha256: B }, yanked: "bad" },
        { filename: "acme_files-1.1.0.tar.gz", url: "x", hashes: { md5: "00" } },
        { filename: "other-1.0.0.tar.gz", url: "x", hashes: { sha256: A } },
      ],
    };
    const { files } = await jsonPageFiles(Buffer.from(JSON.stringify(page)), "acme-files");
    assert.deepEqual(files, [
      { filename: "acme_files-1.0.0-py3-none-any.whl", version: "1.0.0", yanked: false, sha256: A },
      {
        filename: "acme_files-1.0.0.tar.gz",
        version: "1.0.0",
        yanked: true,
        sha256: B.toLowerCase(),
      },
      { filename: "acme_files-1.1.0.tar.gz", version: "1.1.0", yanked: false },
      { filename: "other-1.0.0.tar.gz", version: undefined, yanked: false, sha256: A },
    ]);
  });

  it("PEP 503 HTML: the file name from the href's last segment, the hash from its #sha256= fragment", async () => {
    const html = `<a href="../../files/acme_files-1.0.0-py3-none-any.whl#sha256=${A}">w</a>
<a href="https://files.example/p/acme%5Ffiles-1.0.0.tar.gz#sha256=${B}" data-yanked="">s</a>
<a href="../../files/acme_files-1.1.0.tar.gz#md5=00">o</a>`;
    assert.deepEqual(await htmlPageFiles(html, "acme-files"), [
      { filename: "acme_files-1.0.0-py3-none-any.whl", version: "1.0.0", yanked: false, sha256: A },
      {
        filename: "acme_files-1.0.0.tar.gz",
        version: "1.0.0",
        yanked: true,
        sha256: B.toLowerCase(),
      },
      { filename: "acme_files-1.1.0.tar.gz", version: "1.1.0", yanked: false },
    ]);
  });
});
