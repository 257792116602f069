// Which client configs verify and check read (SPEC.md 12), and reading them:
// the files the lock covers (each must be there), the project configs found
// where clients keep them, and with --user the user-level ones. The parsers
// are loaded only when some file exists: a project without client configs
// pays a few stat calls.
import path from "node:path";
import type { Lock } from "../core/lock/lock.js";
import type { ConfigFinding, ConfigInput } from "./config-check.js";
import { readConfigFile } from "./config-file.js";
import { configLocations, folderConfigs } from "./locations.js";

/** What the config set is read from. */
export interface ConfigSetOptions {
  /** Where the project configs are found, as `init` finds them (the current directory). */
  projectDir: string;
  /** The lock's directory, which `configs.files` is relative to. */
  lockDir: string;
  /** For `${userHome}` and the user-level locations. */
  home: string;
  /** Also read every user-level config (`check --user`). */
  user: boolean;
  /** Default process.platform. */
  platform?: NodeJS.Platform;
  /** Default process.env (APPDATA, XDG_CONFIG_HOME, CODEX_HOME). */
  env?: Record<string, string | undefined>;
}

/** The config set checked: the files read (as reports name them) and what was found. */
export interface ConfigReport {
  files: string[];
  findings: ConfigFinding[];
}

interface Candidate {
  path: string;
  client: string;
  /** The folder a client opens with this config: what `${workspaceFolder}` stands for. */
  workspace: string;
  /** The lock covers it: a missing file is a finding. */
  required: boolean;
}

/**
 * Reads the config set of `lock` and checks it (config-check.ts). A file the
 * lock covers that is missing or unreadable, and any file found that does not
 * parse, is a `config-unreadable` finding: never a pass.
 */
export async function checkConfigSet(lock: Lock, options: ConfigSetOptions): Promise<ConfigReport> {
  const candidates = configCandidates(lock, options);
  const read: { candidate: Candidate; bytes?: Uint8Array; error?: string }[] = [];
  for (const candidate of candidates) {
    const got = readConfigFile(candidate.path);
    if ("bytes" in got) {
      read.push({ candidate, bytes: got.bytes });
      continue;
    }
    if (got.absent && !candidate.required) continue;
    read.push({
      candidate,
      error: `${shown(candidate.path)}: ${got.why}${candidate.required ? " (the lock covers it: configs.files)" : ""}`,
    });
  }
  const files = read.map((r) => shown(r.candidate.path));
  if (read.length === 0) return { files, findings: [] };
  const [{ checkConfigs }, { unwrapped }] = await Promise.all([
    import("./config-check.js"),
    import("./discover.js"),
  ]);
  const inputs: ConfigInput[] = [];
  for (const { candidate, bytes, error } of read) {
    const file = shown(candidate.path);
    if (bytes === undefined) {
      inputs.push({
        file,
        client: candidate.client,
        workspace: candidate.workspace,
        read: { error: error! },
      });
      continue;
    }
    try {
      const plain = await unwrapped(bytes, file, {
        projectDir: candidate.workspace,
        home: options.home,
        required: candidate.required,
      });
      inputs.push({
        file,
        client: candidate.client,
        workspace: candidate.workspace,
        required: candidate.required,
        read: { bytes, unwrapped: plain },
      });
    } catch (err) {
      inputs.push({
        file,
        client: candidate.client,
        workspace: candidate.workspace,
        read: { error: (err as Error).message },
      });
    }
  }
  const findings = checkConfigs(lock, inputs, { home: options.home, lockDir: options.lockDir });
  return { files, findings };
}

/** The files of the config set, each once, covered ones first. */
function configCandidates(lock: Lock, options: ConfigSetOptions): Candidate[] {
  const platform = options.platform ?? process.platform;
  const env = options.env ?? process.env;
  const locations = configLocations({
    projectDir: options.projectDir,
    home: options.home,
    platform,
    env,
  }).filter((l) => l.scope === "project" || options.user);
  const clientOf = new Map<string, string>();
  const found: Candidate[] = [];
  for (const l of locations) {
    for (const file of l.folder ? folderConfigs(l.path) : [l.path]) {
      clientOf.set(path.resolve(file), l.client);
      found.push({ path: file, client: l.client, workspace: options.projectDir, required: false });
    }
  }
  // A covered file at a project location (`app/.vscode/mcp.json`) is opened with its folder (`app`).
  const suffixes = configLocations({ projectDir: "/", home: "/", platform: "linux", env: {} })
    .filter((l) => l.scope === "project")
    .map((l) => ({ suffix: l.path.slice(1), folder: l.folder === true, client: l.client }));
  const covered = (lock.configs?.files ?? []).map((f) => {
    const file = path.resolve(options.lockDir, ...f.split("/"));
    const at = suffixes.find((s) =>
      s.folder ? path.posix.dirname(f).endsWith(s.suffix) : `/${f}`.endsWith(`/${s.suffix}`),
    );
    const depth = at === undefined ? 0 : at.suffix.split("/").length + (at.folder ? 1 : 0);
    const workspace =
      at === undefined
        ? options.projectDir
        : path.resolve(file, ...Array<string>(depth).fill(".."));
    return {
      path: file,
      client: clientOf.get(file) ?? at?.client ?? file,
      workspace,
      required: true,
    };
  });
  const seen = new Set<string>();
  return [...covered, ...found].filter((c) => {
    const key = path.resolve(c.path);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A path as reports show it: relative to the current directory when inside it. */
function shown(file: string): string {
  const rel = path.relative(process.cwd(), file);
  return rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel : file;
}
