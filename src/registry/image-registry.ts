import { homedir } from "node:os";
import type { RunnerPackage } from "../core/source/package-runner.js";
import type { SpawnSpec } from "../sources/live/spawn-server.js";
import { exactVersion, registryFail } from "./fetch-failure.js";
import type { Registry } from "./registry-types.js";
import { imageCredential } from "./image-auth.js";
import { imageName, parseImageName, podmanShortName, TAG } from "./image-ref.js";
import { listTags, manifestDigest } from "./image-tags-api.js";
import { Pace } from "./pace.js";
import { compareTags, isVersionTag, newestLike, newestVersionTag } from "./tag-order.js";

/**
 * Container runners (docker run, podman run): the image's registry, resolved
 * and asked as the runner would, with the credential the runner's
 * configuration holds for it (read with the server's env and HOME).
 *
 * The newest tag is the newest of the pinned tag's shape (`1.2.3` → `X.Y.Z`,
 * `1.2.3-alpine` → `X.Y.Z-alpine`); an image run at `latest` reports the
 * newest plain version tag. A tag that is not a version (`stable`), a pinned
 * tag the registry no longer has, and an image pinned by digest fail closed
 * with the reason: never "the newest".
 */
export const imageRegistry: Registry = {
  async versions(pkg, spawn, options) {
    const { name, ref, shown, fail, credential } = imageTarget(pkg, spawn);
    const tags = await listTags(ref, credential, fail, options);
    // Choosing among the tags is paced too: the run's interrupt stops it.
    const pace = new Pace(options.signal);
    if (pkg.spec.includes("@")) {
      const newest = await newestVersionTag(tags, pace);
      throw fail(
        `${name} is pinned by digest, which no tag can be compared with` +
          (newest === undefined ? "" : `; its newest version tag is ${newest}`),
      );
    }
    const pinned = pkg.version;
    if (pinned === undefined) {
      const latest = await newestVersionTag(tags, pace);
      if (latest === undefined) throw fail(`${ref.repository} has no version tag`);
      return { registry: shown, latest, versions: tags };
    }
    if (!isVersionTag(pinned))
      throw fail(`tag ${pinned} is not a version: which tag is newer cannot be told`);
    if (!tags.includes(pinned)) throw fail(`${ref.repository} has no tag ${pinned}`);
    return { registry: shown, latest: (await newestLike(pinned, tags, pace))!, versions: tags };
  },
  async artifact(pkg, spawn, options) {
    const tag = exactVersion(pkg);
    const { ref, shown, fail, credential } = imageTarget(pkg, spawn);
    const digest = await manifestDigest(ref, tag, credential, fail, options);
    return { registry: shown, artifact: { kind: "image", image: pkg.name, tag, digest } };
  },
  compare: compareTags,
  isVersion: (tag) => TAG.test(tag),
};

/**
 * The registry an image runner asks for `pkg`, resolved as the runner
 * resolves it, and the credential the runner's configuration holds for it
 * (read with the server's env and HOME).
 */
function imageTarget(pkg: RunnerPackage, spawn: SpawnSpec) {
  const podman = /(?:^|[\\/])podman(?:\.exe)?\s/i.test(pkg.invocation);
  const name = imageName(pkg.spec);
  const plain = registryFail();
  const short = podman ? podmanShortName(name) : undefined;
  if (short !== undefined) throw plain(short);
  const ref = parseImageName(name);
  if (typeof ref === "string") throw plain(`${name} is not an image reference: ${ref}`);
  const shown = `${ref.api}/`;
  const fail = registryFail(`registry ${shown}`);
  const credential = imageCredential(ref, podman, spawn.env, spawn.env["HOME"] ?? homedir());
  return { name, ref, shown, fail, credential };
}
