// A pseudo-terminal for tests of what the CLI does when its output is a
// terminal (colour, live progress): python3's pty module opens one, so no
// native addon is needed.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { CLI } from "./cli.js";

/** Runs the CLI on a pseudo-terminal of `rows` rows; returns its exit code and what the terminal received. */
export function onTerminal(
  args: string[],
  env: Record<string, string | undefined>,
  cwd: string,
  rows = 24,
): { code: number; data: string } {
  const script = `
import fcntl, json, os, pty, struct, subprocess, sys, termios
main, sub = pty.openpty()
fcntl.ioctl(sub, termios.TIOCSWINSZ, struct.pack("HHHH", int(sys.argv[1]), 80, 0, 0))
env = dict(os.environ)
for k, v in json.loads(sys.argv[2]).items():
    if v is None:
        env.pop(k, None)
    else:
        env[k] = v
p = subprocess.Popen(json.loads(sys.argv[3]), stdout=sub, stderr=sub, env=env)
os.close(sub)
data = b""
while True:
    try:
        chunk = os.read(main, 1 << 16)
    except OSError:
        break
    if not chunk:
        break
    data += chunk
sys.stdout.write(json.dumps({"code": p.wait(), "data": data.decode("utf-8", "replace")}))
`;
  const r = spawnSync(
    "python3",
    [
      "-c",
      script,
      String(rows),
      JSON.stringify(env),
      JSON.stringify([process.execPath, CLI, ...args]),
    ],
    { cwd, encoding: "utf8", timeout: 60_000 },
  );
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as { code: number; data: string };
}
