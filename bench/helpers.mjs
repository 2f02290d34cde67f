// Small helpers bench/run.mjs's modules share: its log line, waiting, one HTTP request, a URL
// without its password, and public ids (sess_…, org_…) as the UUIDs the tables hold.

import { TypeID } from 'typeid-js';

export function log(message) {
  process.stdout.write(`[bench] ${message}\n`);
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** `promise`, or an error naming `what` when it has not settled after `ms`. */
export function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: nothing after ${ms / 1000} s`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * One request with fetch. Its deadline is generous (a loaded 2-core machine can take seconds
 * over a request between phases); what failed is named, the reason kept as the error's cause.
 */
export async function request(base, method, path, { headers = {}, body, timeoutMs = 30_000 } = {}) {
  let response;
  let text;
  try {
    response = await fetch(`${base}${path}`, {
      method,
      headers,
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    text = await response.text();
  } catch (error) {
    throw new Error(`${method} ${base}${path} failed (deadline ${timeoutMs / 1000} s)`, {
      cause: error,
    });
  }
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json, text };
}

export function redactUrl(url) {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

/** sess_… → UUID, with the same library the service uses. */
export function uuidOf(publicId) {
  return TypeID.fromString(publicId, 'sess').toUUID();
}
/** org_… → UUID. */
export function uuidOfOrganization(publicId) {
  return TypeID.fromString(publicId, 'org').toUUID();
}
