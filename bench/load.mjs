// The load generators of bench/run.mjs: autocannon's closed loop (`cannon`), and an open loop at a
// fixed rate (`paced`) over a lean keep-alive client of its own (`RawClient`).

import net from 'node:net';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';

/** Closed-loop load: `connections` keep-alive connections, each sending its next request when the previous one answered. */
export async function cannon(target, { duration, connections, overallRate }) {
  const latencies = [];
  let ok = 0;
  const instance = autocannon({
    url: `${target.base}${target.path}`,
    method: target.method,
    headers: target.headers,
    body: target.body,
    duration,
    connections,
    pipelining: 1,
    timeout: 10,
    ...(overallRate ? { overallRate, ignoreCoordinatedOmission: true } : {}),
  });
  // Our own latency record (float ms, 2xx only): autocannon's histogram keeps whole milliseconds.
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    if (statusCode >= 200 && statusCode < 300) {
      ok += 1;
      latencies.push(responseTime);
    }
  });
  const result = await instance;
  return {
    latencies,
    ok,
    durationS: result.duration,
    failures: {
      non2xx: result.non2xx,
      errors: result.errors,
      timeouts: result.timeouts,
      statusCodes: result.statusCodeStats,
    },
  };
}

/**
 * A lean keep-alive HTTP/1.1 client for the paced run (much cheaper per request than
 * node:http's client, so the load generator steals less CPU on a small machine). Each socket
 * carries one request at a time; requests wait in a FIFO when all `maxSockets` are busy.
 * Responses must carry Content-Length (both servers send it).
 */
export class RawClient {
  constructor(base, maxSockets) {
    const { hostname, port } = new URL(base);
    this.host = hostname;
    this.port = Number(port);
    this.maxSockets = maxSockets;
    this.idle = [];
    this.open = 0;
    this.waiting = [];
  }

  /** Resolves with the status code (0 on a socket error). */
  send(payload) {
    return new Promise((resolve) => {
      const job = { payload, resolve, retried: false };
      const conn = this.idle.pop();
      if (conn) this.#start(conn, job);
      else if (this.open < this.maxSockets) this.#start(this.#connect(), job);
      else this.waiting.push(job);
    });
  }

  #connect() {
    this.open += 1;
    const socket = net.connect({ host: this.host, port: this.port, noDelay: true });
    const conn = {
      socket,
      job: null,
      buf: null,
      headerEnd: -1,
      bodyLength: 0,
      status: 0,
      close: false,
      used: false,
      dead: false,
    };
    socket.on('data', (chunk) => this.#onData(conn, chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      conn.dead = true;
      this.open -= 1;
      const index = this.idle.indexOf(conn);
      if (index >= 0) this.idle.splice(index, 1);
      const job = conn.job;
      conn.job = null;
      if (!job) return;
      // The server closed an idle keep-alive socket just as we reused it: retry once on a new one.
      if (conn.used && conn.buf === null && !job.retried) {
        job.retried = true;
        this.#start(this.#connect(), job);
      } else job.resolve(0);
    });
    return conn;
  }

  #start(conn, job) {
    conn.job = job;
    conn.buf = null;
    conn.headerEnd = -1;
    conn.socket.write(job.payload);
  }

  #onData(conn, chunk) {
    if (!conn.job) return;
    conn.buf = conn.buf === null ? chunk : Buffer.concat([conn.buf, chunk]);
    if (conn.headerEnd < 0) {
      conn.headerEnd = conn.buf.indexOf('\r\n\r\n');
      if (conn.headerEnd < 0) return;
      const head = conn.buf.toString('latin1', 0, conn.headerEnd).toLowerCase();
      conn.status = Number(head.slice(9, 12));
      conn.bodyLength = Number(/\r\ncontent-length:\s*(\d+)/.exec(head)?.[1] ?? 0);
      conn.close = /\r\nconnection:\s*close/.test(head);
    }
    if (conn.buf.length < conn.headerEnd + 4 + conn.bodyLength) return;
    const job = conn.job;
    conn.job = null;
    conn.buf = null;
    conn.used = true;
    if (conn.close) conn.socket.destroy();
    else {
      const next = this.waiting.shift();
      if (next) this.#start(conn, next);
      else this.idle.push(conn); // LIFO: few sockets stay hot, the rest may time out and close
    }
    job.resolve(conn.status);
  }

  destroy() {
    for (const conn of this.idle) conn.socket.destroy();
  }
}

/**
 * Open-loop load at a fixed rate: requests start on an even schedule (checked every ~1 ms)
 * whatever the previous ones are doing. Latency runs from the moment a request is issued,
 * so time spent waiting for a free connection counts.
 */
export async function paced(target, { rate, duration, client }) {
  const headerLines = Object.entries({
    host: new URL(target.base).host,
    ...target.headers,
    ...(target.body ? { 'content-length': Buffer.byteLength(target.body) } : {}),
  })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  const payload = Buffer.from(
    `${target.method} ${target.path} HTTP/1.1\r\n${headerLines}\r\n${target.body ?? ''}`,
  );
  const total = rate * duration;
  const latencies = [];
  const failures = { non2xx: 0, errors: 0, timeouts: 0, statusCodes: {} };
  let ok = 0;
  let sent = 0;
  let settled = 0;
  const start = performance.now();
  let lastSettle = start;
  await new Promise((finish) => {
    let deadline;
    const resolve = () => {
      clearTimeout(deadline);
      finish();
    };
    const fire = () => {
      sent += 1;
      const t0 = performance.now();
      client.send(payload).then((status) => {
        if (settled < 0) return;
        const now = performance.now();
        if (status === 0) failures.errors += 1;
        else {
          failures.statusCodes[status] = { count: (failures.statusCodes[status]?.count ?? 0) + 1 };
          if (status >= 200 && status < 300) {
            ok += 1;
            latencies.push(now - t0);
          } else failures.non2xx += 1;
        }
        settled += 1;
        lastSettle = now;
        if (settled === total) resolve();
      });
    };
    // Never hang on a stalled server: whatever has not answered 15 s after the last send is a timeout.
    deadline = setTimeout(
      () => {
        failures.timeouts = total - settled;
        failures.errors += total - settled;
        settled = -Infinity; // late answers no longer count
        resolve();
      },
      duration * 1000 + 15_000,
    );
    const tick = () => {
      const due = Math.min(total, Math.floor(((performance.now() - start) * rate) / 1000));
      while (sent < due) fire();
      if (sent < total) setTimeout(tick, 1);
    };
    tick();
  });
  // Achieved rate: completions over the span from the first send to the last answer.
  return { latencies, ok, durationS: (lastSettle - start) / 1000, failures };
}
