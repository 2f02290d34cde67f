// The processes bench/run.mjs starts (servers, workers, the webhook receiver, the migration): each
// logs to bench/results/<name>.log, is stopped with SIGTERM then SIGKILL, and none outlives the
// run. Also waiting for one to answer on a URL.

import { spawn } from 'node:child_process';
import { closeSync, fstatSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describeError } from './errors.mjs';
import { sleep } from './helpers.mjs';
import { CONFIG, RESULTS, ROOT } from './run-config.mjs';

const env = process.env;

const children = new Set();

export function startChild(name, args, childEnv, { ipc = false, append = false } = {}) {
  mkdirSync(RESULTS, { recursive: true });
  const logFile = join(RESULTS, `${name}.log`);
  // A restart appends, so the log of what went wrong before stays.
  const fd = openSync(logFile, append ? 'a' : 'w');
  if (append) writeSync(fd, `\n----- [bench] restarted at ${new Date().toISOString()} -----\n`);
  const logStart = fstatSync(fd).size;
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...env, ...childEnv },
    stdio: CONFIG.profile || ipc ? ['ignore', fd, fd, 'ipc'] : ['ignore', fd, fd],
  });
  closeSync(fd);
  child.benchName = name;
  child.logFile = logFile;
  child.logStart = logStart;
  child.exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  children.add(child);
  child.exited.then(() => children.delete(child));
  return child;
}

export const running = (child) => child.exitCode === null && child.signalCode === null;

export async function stopChild(child) {
  if (!running(child)) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => running(child) && child.kill('SIGKILL'), 8_000);
  await child.exited;
  clearTimeout(timer);
}

export const stopAll = () => Promise.all([...children].map(stopChild));

process.on('exit', () => {
  for (const child of children) if (running(child)) child.kill('SIGKILL');
});

/** The last lines this child wrote (not those of an earlier process appending to the same log). */
export function logTail(child, lines = 30) {
  try {
    return readFileSync(child.logFile)
      .subarray(child.logStart)
      .toString('utf8')
      .trimEnd()
      .split('\n')
      .slice(-lines)
      .join('\n');
  } catch {
    return '(no log)';
  }
}

export async function runToCompletion(name, args, childEnv) {
  const child = startChild(name, args, childEnv);
  const { code, signal } = await child.exited;
  if (code !== 0)
    throw new Error(`${name} failed (${signal ?? `exit ${code}`}):\n${logTail(child)}`);
}

/** Resolves once `url` answers 2xx; throws when `child` exits first, or after `timeoutMs`. */
export async function waitFor(url, child, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (!running(child))
      throw new Error(`${child.benchName} exited during start-up:\n${logTail(child)}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
      const text = await response.text();
      if (response.ok) return;
      last = `HTTP ${response.status}: ${text.slice(0, 300)}`;
    } catch (error) {
      last = describeError(error, { frames: 0 });
    }
    await sleep(250);
  }
  throw new Error(
    `${child.benchName} not ready at ${url} after ${timeoutMs / 1000} s (${last}):\n${logTail(child)}`,
  );
}
