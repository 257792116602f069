import type { OutdatedEntry } from "../../engine/outdated.js";
import { displayName, sanitizeLine } from "./style.js";

/** One line per server: what it runs, and what its registry offers. */
export function renderOutdatedText(entries: readonly OutdatedEntry[]): string {
  const lines = entries.map((e) => {
    const name = displayName(e.name);
    // Package names and registry answers come from files and servers: one sanitised line.
    const say = (text: string) => `${name}: ${sanitizeLine(text)}`;
    switch (e.status) {
      case "outdated":
        return say(`${e.pkg.name} ${e.current} -> ${e.latest} is newer (${e.registry})`);
      case "current":
        return say(`${e.pkg.name} ${e.current} is the newest (${e.registry})`);
      case "unpinned":
        // An image's runner takes `latest` (or whatever image of that name it has), not the highest version.
        return say(
          e.pkg.ecosystem === "docker"
            ? `${e.pkg.name} is not pinned: ${e.pkg.invocation} runs the tag 'latest'; the newest version tag is ${e.latest} (${e.registry})`
            : `${e.pkg.name} is not pinned: ${e.pkg.invocation} runs the newest, now ${e.latest} (${e.registry})`,
        );
      case "unreachable":
        return say(`${e.pkg.name} not checked: ${e.reason}`);
      case "unsupported":
        return say(`${e.pkg.name} not checked (${e.pkg.invocation}: ecosystem not supported yet)`);
      case "installed":
        return say(
          `${e.pkg.name} not checked: ${e.pkg.invocation} is told not to install, so it runs only what is already installed (a dependency of the project pins its version)`,
        );
      case "no-package":
        return say("no package runner, no version to check");
    }
  });
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}

/** The JSON report: one object per server, registry text as plain JSON strings. */
export function renderOutdatedJson(entries: readonly OutdatedEntry[], exitCode: number): string {
  const servers = entries.map((e) => {
    const pkg =
      "pkg" in e
        ? { package: e.pkg.name, runner: e.pkg.invocation, ecosystem: e.pkg.ecosystem }
        : {};
    const { name, status } = e;
    return {
      name,
      status,
      ...pkg,
      ...("current" in e ? { current: e.current } : {}),
      ...("latest" in e ? { latest: e.latest } : {}),
      ...("registry" in e ? { registry: e.registry } : {}),
      ...("reason" in e ? { reason: e.reason } : {}),
    };
  });
  return `${JSON.stringify({ exit_code: exitCode, servers }, null, 2)}\n`;
}
