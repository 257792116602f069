// A real Secret Service of the test file's own: a private D-Bus session bus
// (dbus-daemon with a configuration that activates no service, so that
// nothing is started behind the test's back) and, on it, gnome-keyring's
// secrets component, its login keyring created and unlocked with a test
// password given on stdin. Both are children of the test process, ended by
// pid (SIGKILL) when the file ends, and their files live in a temporary
// folder: the user's own keyring and session bus are never touched.
//
// secret-tool, dbus-daemon and gnome-keyring-daemon must be installed
// (.ci/run installs libsecret-tools, gnome-keyring and dbus-daemon from
// Debian): without them these tests fail, they do not skip.
import { spawn, spawnSync, type SpawnSyncReturns } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { killAtEnd, tempDir } from "./cleanup.js";

const MISSING =
  "is not installed: the Secret Service tests need secret-tool, dbus-daemon and " +
  "gnome-keyring-daemon (apt-get install libsecret-tools gnome-keyring dbus-daemon; .ci/run does)";

export interface SecretService {
  /** The environment that reaches this bus (and no other), for secret-tool and contractpin. */
  env: Record<string, string>;
  /** Runs secret-tool on this bus; the secret, if any, on stdin. */
  tool(args: string[], input?: string): SpawnSyncReturns<string>;
  /** Locks the login keyring, as a desktop does when the screen locks. */
  lock(): void;
}

/** The environment of this process without anything that names a bus or a display. */
function baseEnv(dir: string): Record<string, string> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k, v]) => v !== undefined && !/^(DBUS_|DISPLAY$|WAYLAND_|GNOME_KEYRING)/.test(k),
    ),
  ) as Record<string, string>;
  for (const sub of ["home", "data", "runtime"]) mkdirSync(join(dir, sub), { mode: 0o700 });
  return {
    ...env,
    HOME: join(dir, "home"),
    XDG_DATA_HOME: join(dir, "data"),
    XDG_RUNTIME_DIR: join(dir, "runtime"),
  };
}

/**
 * An environment whose secret-tool finds no Secret Service: `how` is "no-bus"
 * (no session bus at all), "no-socket" (an address whose socket does not
 * exist), or "no-keyring" (a running bus on which no Secret Service is, nor can be started).
 */
export async function unreachableSecretService(
  how: "no-bus" | "no-socket" | "no-keyring",
): Promise<Record<string, string>> {
  if (how === "no-keyring") return (await startSecretService({ keyring: false })).env;
  const dir = tempDir("contractpin-nobus-");
  const env = baseEnv(dir);
  if (how === "no-socket") env.DBUS_SESSION_BUS_ADDRESS = `unix:path=${join(dir, "no-such-bus")}`;
  return env;
}

/**
 * Starts a private bus and on it, unless `keyring` is false, gnome-keyring:
 * with its login keyring created and unlocked, or ("no-login") with none, as
 * on a server where the bus starts gnome-keyring but no login unlocked it.
 */
export async function startSecretService({
  keyring = true as boolean | "no-login",
} = {}): Promise<SecretService> {
  const dir = tempDir("contractpin-secret-service-");
  const env = baseEnv(dir);
  mkdirSync(join(dir, "bus"), { mode: 0o700 });
  const config = join(dir, "bus.conf");
  writeFileSync(
    config,
    `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir=${join(dir, "bus")}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`,
  );
  const bus = spawn("dbus-daemon", [`--config-file=${config}`, "--nofork", "--print-address=1"], {
    env,
    stdio: ["ignore", "pipe", "ignore"],
  });
  killAtEnd(bus);
  env.DBUS_SESSION_BUS_ADDRESS = await new Promise<string>((resolve, reject) => {
    let out = "";
    bus.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) resolve(out.split("\n")[0]!.trim());
    });
    bus.once("error", (err) => reject(new Error(`dbus-daemon ${MISSING} (${err.message})`)));
    bus.once("exit", (code) =>
      reject(new Error(`dbus-daemon exited (${code}) before it listened`)),
    );
  });
  const tool = (args: string[], input = "") => {
    const r = spawnSync("secret-tool", args, { env, input, encoding: "utf8", timeout: 30_000 });
    if ((r.error as NodeJS.ErrnoException | undefined)?.code === "ENOENT")
      throw new Error(`secret-tool ${MISSING}`);
    return r;
  };
  if (keyring) {
    const unlock = keyring === true ? ["--unlock"] : [];
    const daemon = spawn(
      "gnome-keyring-daemon",
      ["--foreground", ...unlock, "--components=secrets"],
      { env, stdio: ["pipe", "ignore", "ignore"] },
    );
    killAtEnd(daemon);
    const failed = new Promise<never>((_, reject) => {
      daemon.once("error", (err) =>
        reject(new Error(`gnome-keyring-daemon ${MISSING} (${err.message})`)),
      );
      daemon.once("exit", (code) => reject(new Error(`gnome-keyring-daemon exited (${code})`)));
    });
    failed.catch(() => undefined);
    // --unlock reads the password up to end of file: it creates the login
    // keyring with it, unlocked.
    daemon.stdin!.end(keyring === true ? "contractpin-test-password" : "");
    await Promise.race([ready(tool, keyring === true), failed]);
  } else {
    tool([]); // fails when secret-tool is missing
  }
  return {
    env,
    tool,
    lock: () => {
      const r = spawnSync(
        "dbus-send",
        [
          "--session",
          "--print-reply",
          "--dest=org.freedesktop.secrets",
          "/org/freedesktop/secrets",
          "org.freedesktop.Secret.Service.Lock",
          "array:objpath:/org/freedesktop/secrets/collection/login",
        ],
        { env, encoding: "utf8", timeout: 10_000 },
      );
      if (r.status !== 0) throw new Error(`could not lock the keyring: ${r.stderr}`);
    },
  };
}

/** Waits until the keyring answers a search and, if `saves`, can save an item (10 s at most). */
async function ready(
  tool: (args: string[], input?: string) => SpawnSyncReturns<string>,
  saves: boolean,
) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const r = saves
      ? tool(["store", "--label=ready", "test", "ready"], "ready")
      : tool(["search", "test", "ready"]);
    if (r.status === 0) {
      if (saves) tool(["clear", "test", "ready"]);
      return;
    }
    if (Date.now() > deadline) throw new Error(`the keyring never became ready: ${r.stderr}`);
    await sleep(100);
  }
}
