import type { Analysis } from './resources/analyses.js';
import type { DowsingQuery } from './resources/dowsing.js';
import type { Session } from './resources/sessions.js';
import { sleep, type Transport } from './transport.js';

/** A piece of work to wait for: its id, or the object the API answered with. */
export type WorkRef =
  string | { session_id: string } | { analysis_id: string } | { query_id: string };

export interface WaitOptions {
  /** Called with the progress (0–100) as it moves. */
  onProgress?: (progress: number) => void;
  /** Give up after this long (default 10 minutes): WaitTimeoutError. */
  timeoutMs?: number;
  /** How often to ask when no WebSocket can be used (default 1 s). */
  pollIntervalMs?: number;
  /** `false` polls even where a WebSocket is available. */
  live?: boolean;
  signal?: AbortSignal;
}

export class WaitTimeoutError extends Error {
  override readonly name = 'WaitTimeoutError';
}

type Kind = 'session' | 'analysis' | 'dowsing';
type Finished = Session | Analysis | DowsingQuery;

const TERMINAL = new Set(['completed', 'failed']);

/**
 * Waits until the work completes or fails and answers it as `get` would.
 * Sessions and analyses are followed over the live WebSocket
 * (`/v1/sessions/ws`) where the runtime has one (browsers, Node 22+), with
 * polling as the fallback — and always for dowsing queries, which have no
 * live updates. A socket that fails or closes falls back to polling.
 */
export async function waitForWork(
  transport: Transport,
  credentials: Parameters<Transport['authorization']>[0],
  work: WorkRef,
  options: WaitOptions = {},
): Promise<Finished> {
  const { kind, id } = workOf(work);
  const deadline = Date.now() + (options.timeoutMs ?? 10 * 60_000);
  const read = () => readWork(transport, kind, id, options.signal);
  let current = await read();
  let reported = -1;
  const report = (progress: number | undefined) => {
    if (progress === undefined || progress <= reported) return;
    reported = progress;
    options.onProgress?.(progress);
  };
  report(progressOf(current));
  if (TERMINAL.has(current.status)) return current;
  if (options.live !== false && kind !== 'dowsing' && typeof globalThis.WebSocket === 'function') {
    const ended = await followLive(
      transport,
      credentials,
      kind,
      id,
      deadline,
      report,
      options.signal,
    );
    if (ended) return read();
  }
  for (;;) {
    if (Date.now() > deadline) throw new WaitTimeoutError(`${id} did not finish in time`);
    await sleep(options.pollIntervalMs ?? 1_000, options.signal);
    current = await read();
    report(progressOf(current));
    if (TERMINAL.has(current.status)) return current;
  }
}

/**
 * Follows the work over the WebSocket until it ends (true), or until the
 * socket fails, closes or the deadline passes (false: the caller polls).
 */
async function followLive(
  transport: Transport,
  credentials: Parameters<Transport['authorization']>[0],
  kind: 'session' | 'analysis',
  id: string,
  deadline: number,
  report: (progress: number | undefined) => void,
  signal?: AbortSignal,
): Promise<boolean> {
  const headers = await transport.authorization(credentials, signal);
  const credential = headers['x-api-key'] ?? (headers.authorization ?? '').replace(/^Bearer /, '');
  const url = new URL(`${transport.baseUrl.replace(/^http/, 'ws')}/v1/sessions/ws`);
  url.searchParams.set('access_token', credential);
  const field = kind === 'session' ? 'session_id' : 'analysis_id';
  return new Promise<boolean>((resolve) => {
    let settled = false;
    const socket = new globalThis.WebSocket(url.toString());
    const finish = (ended: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
      socket.close();
      resolve(ended);
    };
    const abort = () => finish(false);
    const timer = setTimeout(() => finish(false), Math.max(0, deadline - Date.now()));
    signal?.addEventListener('abort', abort, { once: true });
    socket.addEventListener('open', () =>
      socket.send(JSON.stringify({ type: 'subscribe', [field]: id })),
    );
    socket.addEventListener('message', (message: MessageEvent) => {
      let frame: Record<string, unknown>;
      try {
        frame = JSON.parse(String(message.data)) as Record<string, unknown>;
      } catch {
        return;
      }
      if (frame[field] !== id) return;
      if (frame.type === 'error') return finish(false);
      report(typeof frame.progress === 'number' ? frame.progress : undefined);
      const type = String(frame.type);
      const ended =
        (frame.type === 'subscribed' && TERMINAL.has(String(frame.status))) ||
        type.endsWith('.completed') ||
        type.endsWith('.error');
      if (ended) finish(true);
    });
    socket.addEventListener('error', () => finish(false));
    socket.addEventListener('close', () => finish(false));
  });
}

function workOf(work: WorkRef): { kind: Kind; id: string } {
  const id =
    typeof work === 'string'
      ? work
      : 'session_id' in work
        ? work.session_id
        : 'analysis_id' in work
          ? work.analysis_id
          : work.query_id;
  if (id.startsWith('sess_')) return { kind: 'session', id };
  if (id.startsWith('anal_')) return { kind: 'analysis', id };
  if (id.startsWith('dowse_')) return { kind: 'dowsing', id };
  throw new TypeError(`not the id of a session, analysis or dowsing query: ${id}`);
}

function readWork(
  transport: Transport,
  kind: Kind,
  id: string,
  signal?: AbortSignal,
): Promise<Finished> {
  const path =
    kind === 'session'
      ? `/v2/sessions/${encodeURIComponent(id)}`
      : kind === 'analysis'
        ? `/v1/analysis/${encodeURIComponent(id)}`
        : `/v2/dowsing/queries/${encodeURIComponent(id)}`;
  return transport.request<Finished>({ method: 'GET', path }, signal ? { signal } : {});
}

function progressOf(work: Finished): number | undefined {
  const progress = (work as { progress?: unknown }).progress;
  return typeof progress === 'number' ? progress : undefined;
}
