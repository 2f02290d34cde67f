// Runs the bench's phases one by one so that none can take the others down: each phase's result
// is printed and saved as soon as it ends, a failing phase is reported (its error with every cause,
// and what it had measured so far) and the run goes on with the next one.
//
// Files, in bench/results/ (git-ignored):
//   <run>-<phase>.json   one per phase, written when it ends: status ok | failed, timings, and its
//                        result, or its error and the figures it had measured before failing
//   <run>-run.json       the whole run so far (settings, environment, every phase's record, server
//                        restarts; at the end the report and the failed phases), rewritten after
//                        every phase
//   latest.json          the same as the newest <run>-run.json
// <run> is the run's start time, e.g. 2026-11-23T23-33-05Z, so files of successive runs sort.

import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { describeError, errorToJson } from './errors.mjs';

/** A run's name from its start time: ISO 8601 in UTC, seconds, with `-` for `:` (file names). */
export const runStamp = (date = new Date()) =>
  date
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replaceAll(':', '-');

const clip = (text, length) => (text.length > length ? `${text.slice(0, length - 1)}…` : text);

const slug = (name) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** JSON.stringify without the typed arrays of raw samples (latencies), which belong to no file. */
const replacer = (_key, value) => (ArrayBuffer.isView(value) ? `(${value.length} samples)` : value);

function writeJson(file, value) {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(value, replacer, 2)}\n`);
  renameSync(temporary, file); // a reader never sees half a file, a crash never leaves one
}

/**
 * What a bench script's run file starts with: its name, its settings (the database URL's
 * credentials and the secrets left out) and the machine it ran on.
 */
export function benchHeader(bench, settings, environment = {}) {
  return {
    bench,
    settings: {
      ...settings,
      databaseUrl: settings.databaseUrl.replace(/\/\/[^@]*@/, '//…@'),
      signingKeySecret: '(set)',
      clientSecret: '(set)',
    },
    environment: {
      node: process.version,
      cpus: os.availableParallelism(),
      cpuModel: os.cpus()[0]?.model,
      loadAverage: os.loadavg(),
      ...environment,
    },
  };
}

export class PhaseRunner {
  /**
   * @param {object} options
   * @param {string} options.dir      where the files go
   * @param {string} options.root     the repository, for the paths printed
   * @param {(line: string) => void} options.log
   * @param {object} options.header   what the run file starts with (environment, settings)
   */
  constructor({ dir, root, log, header }) {
    this.dir = dir;
    this.root = root;
    this.log = log;
    this.stamp = runStamp();
    this.startedAt = new Date().toISOString();
    this.header = header;
    this.records = [];
    /** Servers restarted between phases because they had died or stopped answering. */
    this.restarts = [];
    this.extra = {};
    mkdirSync(dir, { recursive: true });
  }

  get failed() {
    return this.records.filter((record) => record.status === 'failed');
  }

  path(file) {
    return relative(this.root, join(this.dir, file));
  }

  /**
   * Runs `fn(partial)`. `partial` is an object the phase fills with what it has measured as it
   * goes; when the phase throws, that is what its record keeps. Returns the phase's result, or
   * undefined when it failed.
   *  - `toJson(result)`: what of the result goes to the files (default: all of it)
   *  - `print(result)`: prints the result when the phase succeeded
   *  - `printPartial(partial)`: prints what a failed phase had measured (default: as JSON)
   *  - `fatal`: nothing else can run when this phase fails (said so instead of going on)
   */
  async run(name, fn, { toJson = (result) => result, print, printPartial, fatal = false } = {}) {
    const partial = {};
    const startedAt = new Date().toISOString();
    const started = performance.now();
    const seconds = () => Math.round((performance.now() - started) / 100) / 10;
    let result;
    try {
      result = await fn(partial);
    } catch (error) {
      const record = {
        phase: name,
        status: 'failed',
        startedAt,
        seconds: seconds(),
        error: errorToJson(error),
        partial,
      };
      const file = this.#save(record);
      const lines = [
        '',
        `PHASE FAILED: ${name}, after ${record.seconds} s`,
        ...describeError(error)
          .split('\n')
          .map((line) => `  ${line}`),
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
      if (Object.keys(partial).length === 0) this.log(`  ${name} had measured nothing yet.`);
      else {
        this.log(`  what ${name} had measured:`);
        this.#print(() =>
          printPartial
            ? printPartial(partial)
            : process.stdout.write(`${JSON.stringify(partial, replacer, 2)}\n`),
        );
      }
      this.log(
        `  saved ${file}; ${fatal ? 'no other phase can run without it' : 'going on with the next phase'}.\n`,
      );
      return undefined;
    }
    const record = {
      phase: name,
      status: 'ok',
      startedAt,
      seconds: seconds(),
      result: toJson(result),
    };
    const file = this.#save(record);
    if (print) this.#print(() => print(result));
    this.log(`  ${name}: done in ${record.seconds} s, saved ${file}`);
    return result;
  }

  /** A phase not run, and why (a setting, or a phase it needs that failed). */
  skip(name, reason) {
    this.#save({ phase: name, status: 'skipped', reason });
    this.log(`${name}: skipped (${reason}).`);
  }

  /** Records a server restarted between phases, and why (it counts as a failure of the run). */
  restarted(entry) {
    this.restarts.push({ ...entry, at: new Date().toISOString() });
    this.saveRun();
  }

  /** Rewrites <run>-run.json and latest.json with everything so far, plus `extra`. */
  saveRun(extra = {}) {
    Object.assign(this.extra, extra);
    const failed = this.failed.map((record) => record.phase);
    const run = {
      run: this.stamp,
      startedAt: this.startedAt,
      updatedAt: new Date().toISOString(),
      status: this.extra.finished
        ? failed.length > 0 || this.restarts.length > 0
          ? 'failed'
          : 'ok'
        : 'running',
      failedPhases: failed,
      ...this.header,
      phases: this.records,
      serverRestarts: this.restarts,
      ...this.extra,
    };
    try {
      writeJson(join(this.dir, `${this.stamp}-run.json`), run);
      writeJson(join(this.dir, 'latest.json'), run);
    } catch (error) {
      this.log(`could not write the run file:\n${describeError(error)}`);
    }
  }

  /** Prints which phases ran, failed or were skipped, and the servers restarted; saves the run. */
  finish(extra = {}) {
    this.saveRun({ ...extra, finished: true });
    const lines = ['', `Phases of run ${this.stamp}:`];
    for (const record of this.records) {
      const what =
        record.status === 'failed'
          ? `FAILED after ${record.seconds} s — ${clip(describeError(record.error, { oneLine: true }), 400)}`
          : record.status === 'skipped'
            ? `skipped (${record.reason})`
            : `ok (${record.seconds} s)`;
      lines.push(`  ${record.phase.padEnd(28)} ${what}`);
    }
    for (const restart of this.restarts)
      lines.push(
        `  RESTARTED ${restart.server} before ${restart.before}: ${clip(restart.reason.split('\n')[0], 400)}`,
      );
    const failed = this.failed;
    lines.push(
      failed.length > 0
        ? `${failed.length} phase${failed.length > 1 ? 's' : ''} failed: ${failed.map((r) => r.phase).join(', ')}.`
        : this.restarts.length > 0
          ? 'Every phase ran, but a server had to be restarted between phases.'
          : 'Every phase ran.',
      `Results: ${this.path(`${this.stamp}-*.json`)} (the whole run: ${this.path(`${this.stamp}-run.json`)} = ${this.path('latest.json')}).`,
    );
    process.stdout.write(`${lines.join('\n')}\n`);
    return failed.length === 0 && this.restarts.length === 0;
  }

  #save(record) {
    this.records.push(record);
    const file = `${this.stamp}-${slug(record.phase)}.json`;
    try {
      writeJson(join(this.dir, file), { run: this.stamp, ...record });
    } catch (error) {
      this.log(`could not write ${file}:\n${describeError(error)}`);
    }
    this.saveRun();
    return this.path(file);
  }

  /** A printer's own failure must not turn a measured phase into a lost one. */
  #print(print) {
    try {
      print();
    } catch (error) {
      this.log(`  (could not print it: ${describeError(error, { frames: 2 })})`);
    }
  }
}
