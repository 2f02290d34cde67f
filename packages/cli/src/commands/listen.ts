import type { Action } from '../command-context.js';
import { authHeaders, CLI_VERSION } from '../api.js';
import { resolveCredentials } from '../config.js';
import { CliError, UsageError } from '../exit-codes.js';

interface ListenOptions {
  forwardTo?: string;
  events?: string;
  live?: boolean;
}

interface ReadyFrame {
  type: 'listen.ready';
  organization_id: string;
  mode: string;
  events: string[];
  request_id: string;
}

/** How long a receiver may take to answer a forwarded event (the service gives 5 s; locally, more). */
const FORWARD_TIMEOUT_MS = 30_000;
const RECONNECT_DELAY_MS = 1_000;

/**
 * `sas webhooks listen`, as the Stripe CLI's: opens the service's event
 * stream (WebSocket /v2/events/listen, test mode unless --live), prints a
 * signing secret made for this listen, and POSTs each event frame — its
 * text unchanged, the envelope a webhook receives — to --forward-to, signed
 * with that secret exactly as the service signs deliveries (both schemes,
 * the event id as webhook-id). One line per event with the receiver's
 * answer; Ctrl-C (or SIGTERM) closes the socket and waits for forwards in flight.
 * A dropped connection (a token that expired, an instance shutting down) is
 * reopened; events in between are in `GET /v2/events`.
 */
export const listen: Action<ListenOptions> = async ({ options, globals, out }) => {
  const forwardTo = options.forwardTo;
  if (forwardTo !== undefined && !/^https?:\/\//.test(forwardTo)) {
    throw new UsageError('--forward-to must be an http:// or https:// URL');
  }
  const resolved = await resolveCredentials(globals);
  const [{ WebSocket }, sdk] = await Promise.all([import('ws'), import('@sas/sdk')]);
  const secret = sdk.generateWebhookSecret();
  const mode = options.live ? 'live' : 'test';
  const url = new URL(`${resolved.apiUrl.replace(/^http/, 'ws')}/v2/events/listen`);
  url.searchParams.set('mode', mode);
  if (options.events) url.searchParams.set('events', options.events);

  let stopping = false;
  let socket: InstanceType<typeof WebSocket> | null = null;
  let readyOnce = false;
  // Forwards run one after another, so the receiver sees events in the order they came.
  let forwarding: Promise<void> = Promise.resolve();

  const forward = async (text: string) => {
    const event = JSON.parse(text) as { id: string; type: string };
    const stamp = new Date().toISOString().slice(11, 19);
    if (!forwardTo) {
      if (out.json)
        process.stdout.write(`${JSON.stringify({ event_id: event.id, type: event.type })}\n`);
      else process.stdout.write(`${stamp}  ${event.type} [${event.id}]\n`);
      return;
    }
    const headers = await sdk.signWebhook(secret, event.id, Math.floor(Date.now() / 1000), text);
    const started = Date.now();
    let status: number | null = null;
    let failure: string | null = null;
    try {
      const response = await fetch(forwardTo, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': `sas-cli/${CLI_VERSION} (webhooks listen)`,
          ...headers,
        },
        body: text,
        redirect: 'manual',
        signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
      });
      status = response.status;
      await response.arrayBuffer().catch(() => undefined);
    } catch (error) {
      failure =
        error instanceof Error
          ? ((error.cause as Error | undefined)?.message ?? error.message)
          : String(error);
    }
    const ms = Date.now() - started;
    if (out.json) {
      process.stdout.write(
        `${JSON.stringify({ event_id: event.id, type: event.type, status, error: failure, duration_ms: ms })}\n`,
      );
      return;
    }
    const answer =
      status === null
        ? out.colour.red(`failed: ${failure}`)
        : status >= 200 && status < 300
          ? out.colour.green(`[${status}]`)
          : out.colour.red(`[${status}]`);
    process.stdout.write(
      `${stamp}  ${event.type} [${event.id}] --> POST ${forwardTo} ${answer} ${ms} ms\n`,
    );
  };

  const connect = (headers: Record<string, string>) =>
    new Promise<'closed' | 'stopped'>((resolve, reject) => {
      socket = new WebSocket(url, { headers });
      socket.on('unexpected-response', (_request, response) => {
        // Refused before the upgrade: the v2 error envelope, with its request id.
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => {
          let parsed: unknown;
          try {
            parsed = JSON.parse(body);
          } catch {
            parsed = body;
          }
          reject(
            sdk.errorFromResponse(
              response.statusCode ?? 0,
              parsed,
              new Headers(response.headers as Record<string, string>),
            ),
          );
        });
      });
      socket.on('message', (data) => {
        const text = String(data);
        const frame = JSON.parse(text) as { id?: unknown; type?: string };
        if (typeof frame.id === 'string') {
          forwarding = forwarding.then(() => forward(text));
          return;
        }
        if (frame.type === 'listen.ready') announce(frame as ReadyFrame);
        else if (frame.type === 'listen.error') out.info(`the service said: ${text}`);
      });
      socket.on('error', (error) => {
        if (!readyOnce)
          reject(new CliError(`could not open ${url.origin}${url.pathname}: ${error.message}`));
      });
      socket.on('close', (code, reason) => {
        if (stopping) return resolve('stopped');
        out.info(
          `connection closed (${code}${reason.length ? ` ${reason.toString()}` : ''}); reconnecting`,
        );
        resolve('closed');
      });
    });

  const announce = (ready: ReadyFrame) => {
    const first = !readyOnce;
    readyOnce = true;
    if (out.json) {
      process.stdout.write(
        `${JSON.stringify({ ...ready, secret, forward_to: forwardTo ?? null })}\n`,
      );
      return;
    }
    if (!first) return out.info(`reconnected (request ${ready.request_id})`);
    process.stdout.write(
      `Ready! Listening to ${ready.mode} events of ${ready.organization_id} (${ready.events.join(',')})${forwardTo ? `, forwarding to ${forwardTo}` : ''}.\n` +
        `Your webhook signing secret is ${out.colour.bold(secret)} (^C to quit)\n`,
    );
  };

  const stop = () => {
    if (stopping) return;
    stopping = true;
    const open = socket as InstanceType<typeof WebSocket> | null;
    if (open && open.readyState <= 1) open.close(1000, 'sas webhooks listen stopped');
    else finished?.();
  };
  let finished: (() => void) | undefined;
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);

  try {
    for (;;) {
      const outcome = await Promise.race([
        connect(await authHeaders(resolved)),
        new Promise<'stopped'>((resolve) => (finished = () => resolve('stopped'))),
      ]);
      if (outcome === 'stopped' || stopping) break;
      await new Promise((resolve) => setTimeout(resolve, RECONNECT_DELAY_MS));
      if (stopping) break;
    }
  } finally {
    process.removeListener('SIGINT', stop);
    process.removeListener('SIGTERM', stop);
  }
  await forwarding;
  out.info('Stopped listening.');
};
