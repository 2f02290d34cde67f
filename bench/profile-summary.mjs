// Summarises V8 .cpuprofile files written by `BENCH_PROFILE=1 node bench/run.mjs`.
//
//   node bench/profile-summary.mjs bench/results/profiles/service-read.cpuprofile [top]
//       where the main thread's time goes, by package and by function
//   node bench/profile-summary.mjs bench/results/profiles/service-read.cpuprofile bench/results/profiles/reference-read.cpuprofile [top]
//       side by side, per request, by package (what the service spends that the reference does not)
//
// "self" is time in the function itself; "total" includes its callees. When the bench left a
// sidecar .json with the request count, times are also given in µs per request.
// Caveat: samples are taken on wall-clock ticks, so time the thread spends descheduled inside
// a system call (socket writes) on a busy machine is counted there.
import { existsSync, readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const files = args.filter((arg) => arg.endsWith('.cpuprofile'));
const top = Number(args.find((arg) => /^\d+$/.test(arg)) ?? 25);
if (files.length === 0 || files.length > 2) {
  process.stderr.write('usage: node bench/profile-summary.mjs A.cpuprofile [B.cpuprofile] [top]\n');
  process.exit(2);
}
process.stdout.on('error', () => process.exit(0)); // piped into head

function load(file) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const sidecar = file.replace(/\.cpuprofile$/, '.json');
  const requests = existsSync(sidecar) ? JSON.parse(readFileSync(sidecar, 'utf8')).requests : null;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parent.set(child, node.id);
  const selfMs = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    selfMs.set(id, (selfMs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  }
  let total = 0;
  let idle = 0;
  const byPackage = new Map();
  const byFunction = new Map();
  const inclusive = new Map();
  const add = (map, key, ms) => map.set(key, (map.get(key) ?? 0) + ms);
  for (const [id, ms] of selfMs) {
    const node = byId.get(id);
    total += ms;
    if (node.callFrame.functionName === '(idle)') {
      idle += ms;
      continue;
    }
    add(byPackage, area(node), ms);
    add(byFunction, label(node), ms);
    const seen = new Set(); // count a function once per stack (recursion)
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const key = label(byId.get(at));
      if (!seen.has(key)) {
        seen.add(key);
        add(inclusive, key, ms);
      }
    }
  }
  return { file, requests, total, busy: total - idle, byPackage, byFunction, inclusive };
}

function area(node) {
  const { url = '', functionName } = node.callFrame;
  if (url === '') {
    if (functionName === '(garbage collector)' || functionName === '(program)') return functionName;
    return '(native: syscalls, crypto, JSON, …)';
  }
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + 14).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const dist = url.indexOf('/dist/');
  if (dist >= 0)
    return `(service code) ${url
      .slice(dist + 6)
      .split('/')
      .slice(0, 3)
      .join('/')}`;
  if (url.includes('/bench/')) return '(reference code)';
  return url.replace(/^file:\/\//, '');
}

function label(node) {
  const frame = node.callFrame;
  const url = (frame.url ?? '').replace(/^file:\/\/.*?\/(node_modules|dist|bench)\//, '$1/');
  return `${frame.functionName || '(anonymous)'}  ${url}${url ? `:${frame.lineNumber + 1}` : ''}`;
}

const sorted = (map) => [...map].sort((a, b) => b[1] - a[1]);
const out = (line = '') => process.stdout.write(`${line}\n`);
const perRequest = (p, ms) =>
  p.requests ? `${((ms * 1000) / p.requests).toFixed(0).padStart(6)} µs/req` : '';

function header(p) {
  out(
    `${p.file}: ${(p.total / 1000).toFixed(1)} s sampled, ${(p.busy / 1000).toFixed(1)} s busy (${((100 * p.busy) / p.total).toFixed(0)} % of the main thread)` +
      (p.requests
        ? `, ${p.requests} requests → ${((p.busy * 1000) / p.requests).toFixed(0)} µs of main-thread time per request`
        : ''),
  );
}

const profiles = files.map(load);
if (profiles.length === 1) {
  const [p] = profiles;
  header(p);
  const table = (title, map) => {
    out(`\n${title} (share of busy time)`);
    for (const [key, ms] of sorted(map).slice(0, top)) {
      out(
        `  ${((100 * ms) / p.busy).toFixed(1).padStart(5)} %  ${ms.toFixed(0).padStart(7)} ms ${perRequest(p, ms)}  ${key}`,
      );
    }
  };
  table('Self time by package / area', p.byPackage);
  table('Self time by function', p.byFunction);
  table('Total (inclusive) time by function', p.inclusive);
} else {
  const [a, b] = profiles;
  header(a);
  header(b);
  const unit = a.requests && b.requests ? 'µs/request' : 'ms';
  const value = (p, ms) => (p.requests && unit !== 'ms' ? (ms * 1000) / p.requests : ms);
  const keys = new Set([...a.byPackage.keys(), ...b.byPackage.keys()]);
  const rows = [...keys].map((key) => [
    key,
    value(a, a.byPackage.get(key) ?? 0),
    value(b, b.byPackage.get(key) ?? 0),
  ]);
  rows.sort((x, y) => y[1] - y[2] - (x[1] - x[2]));
  out(
    `\nSelf time by package / area, ${unit}: A = ${a.file.split('/').pop()}, B = ${b.file.split('/').pop()}`,
  );
  out(`  ${'A'.padStart(8)} ${'B'.padStart(8)} ${'A − B'.padStart(8)}  area`);
  const fmt = (n) => n.toFixed(0).padStart(8);
  for (const [key, x, y] of rows.slice(0, top)) out(`  ${fmt(x)} ${fmt(y)} ${fmt(x - y)}  ${key}`);
  const sum = (p) => value(p, p.busy);
  out(`  ${fmt(sum(a))} ${fmt(sum(b))} ${fmt(sum(a) - sum(b))}  (all busy time)`);
}
