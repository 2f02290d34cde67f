#!/usr/bin/env node
/**
 * Stops at once, with one message saying what to do, when this Node.js is not
 * the one package.json's "engines" asks for. Run by `npm ci` / `npm install`
 * (package.json's "preinstall": the first command a newcomer types), and by
 * `npm start`, `npm test` and `npm run bench` before anything else (imported
 * first by scripts/start.mjs).
 *
 * Written for old Node.js versions too: no dependencies, nothing newer than
 * what Node 16 parses and has, so the message appears instead of a
 * `TypeError` from deep inside the service.
 */
import { readFileSync } from 'node:fs';

const TOOLS_DIR = '~/.cache/sas-tools'; // as .ci/run keeps it (TOOLS_DIR)

/** [major, minor, patch] of "v24.11.0", "24.11", "24"; null if it is not a version. */
function parseVersion(text) {
  const match = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(String(text).trim());
  if (!match) return null;
  return [Number(match[1]), Number(match[2] || 0), Number(match[3] || 0)];
}

function compare(a, b) {
  for (let i = 0; i < 3; i += 1) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

/**
 * Whether `version` satisfies `range`, for the ranges "engines" uses here:
 * comparators (>=, >, <=, <, =) joined by spaces, alternatives by "||". An
 * unknown form counts as satisfied: this check must never block a valid setup.
 */
function satisfies(version, range) {
  const current = parseVersion(version);
  if (!current) return true;
  return range.split('||').some((alternative) =>
    alternative
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .every((comparator) => {
        const match = /^(>=|<=|>|<|=)?\s*(.+)$/.exec(comparator);
        const wanted = match && parseVersion(match[2]);
        if (!wanted) return true;
        const order = compare(current, wanted);
        switch (match[1]) {
          case '>=':
            return order >= 0;
          case '>':
            return order > 0;
          case '<=':
            return order <= 0;
          case '<':
            return order < 0;
          default:
            return order === 0;
        }
      }),
  );
}

/** The npm package that holds a Node.js binary for this machine, as .ci/run picks it. */
function nodePackage() {
  const arch = process.arch === 'arm64' ? 'arm64' : 'x64';
  const platform = process.platform === 'win32' ? 'win' : process.platform;
  return `node-${platform}-${arch}`;
}

function readEngines() {
  const packageJson = new URL('../package.json', import.meta.url);
  return JSON.parse(readFileSync(packageJson, 'utf8')).engines || {};
}

/** The npm running this script (npm sets npm_config_user_agent: "npm/11.19.1 node/v24…"). */
function npmVersion() {
  const match = /^npm\/(\S+)/.exec(process.env.npm_config_user_agent || '');
  return match ? match[1] : null;
}

function checkNode() {
  const engines = readEngines();
  const npm = npmVersion();
  const nodeOk = !engines.node || satisfies(process.version, engines.node);
  const npmOk = !engines.npm || !npm || satisfies(npm, engines.npm);
  if (nodeOk && npmOk) return;

  const nodeMajor = (parseVersion(String(engines.node).replace(/^\D*/, '')) || [24])[0];
  const npmMajor = (parseVersion(String(engines.npm).replace(/^\D*/, '')) || [11])[0];
  const pkg = nodePackage();
  const home = TOOLS_DIR.replace('~', '$HOME');
  const lines = [];
  if (!nodeOk) {
    lines.push(
      `error: this project needs Node.js ${nodeMajor} (package.json "engines": node "${engines.node}"),`,
      `but this is Node.js ${process.version} (${process.execPath}).`,
      `Install Node.js ${nodeMajor} from the npm registry (no root needed; .ci/run does the same)`,
      'and put it first on PATH, in this shell and in your shell profile:',
      '',
      `  npm install --prefix ${TOOLS_DIR} ${pkg}@${nodeMajor}`,
      `  export PATH="${home}/node_modules/${pkg}/bin:$PATH"`,
      '',
    );
  }
  if (!npmOk) {
    lines.push(
      `error: this project needs npm ${engines.npm} (package.json "engines"), but this is npm ${npm}.`,
      'Install it beside Node.js and put it on PATH too:',
    );
  } else if (!npm && engines.npm) {
    lines.push(`npm ${engines.npm} is needed too (npm --version); if yours is older:`);
  }
  if (!npmOk || (!npm && engines.npm)) {
    lines.push(
      '',
      `  npm install --prefix ${TOOLS_DIR} npm@${npmMajor}`,
      `  export PATH="${home}/node_modules/.bin:$PATH"`,
      '',
    );
  }
  lines.push('Then run the command again (in a fresh clone, `npm ci` first).');
  process.stderr.write(`${lines.join('\n')}\n`);
  process.exit(1);
}

checkNode();
