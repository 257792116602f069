/**
 * Wall time of whole commands: runs each command of a set in turn, round after
 * round, so background load falls on all of them alike, and reports medians.
 */
import { spawnSync } from "node:child_process";

/** Runs every command `rounds` times (interleaved, after one warm-up each); returns the median ms of each. */
export function medians(commands, rounds, options = {}) {
  const samples = commands.map(() => []);
  for (const c of commands) run(c, options);
  for (let r = 0; r < rounds; r++) {
    commands.forEach((c, i) => samples[i].push(run(c, options)));
  }
  return samples.map((s) => s.sort((a, b) => a - b)[Math.floor(s.length / 2)]);
}

function run([command, ...args], { cwd, env, okCodes = [] }) {
  const start = process.hrtime.bigint();
  // stdout and stderr are pipes, as in a CI job (and the output is read, as CI
  // reads it); stdin is closed.
  const r = spawnSync(command, args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    maxBuffer: 64 * 1024 * 1024,
  });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.error) throw r.error;
  // A failing command would be timed as fast: refuse to report it.
  if (r.status !== 0 && !okCodes.includes(r.status))
    throw new Error(`${command} ${args.join(" ")} exited ${r.status}`);
  return ms;
}
