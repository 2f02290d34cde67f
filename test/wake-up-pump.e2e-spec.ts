import { Logger } from '@nestjs/common';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WakeUpPump } from '#database';
import { testDatabaseUrl } from './support/scope.js';
import { waitFor } from './support/wait.js';

let admin: pg.Client;
const pumps: WakeUpPump[] = [];

beforeAll(async () => {
  // The lost connection below is logged as a warning by design; the run stays quiet.
  Logger.overrideLogger(false);
  admin = new pg.Client({ connectionString: testDatabaseUrl() });
  await admin.connect();
});
afterEach(async () => {
  await Promise.all(pumps.splice(0).map((pump) => pump.stop()));
});
afterAll(() => admin?.end());

/** A pump on a channel of its own that counts its passes; each pass asks for a long wait. */
function countingPump(channel: string, pass: () => Promise<void> = () => Promise.resolve()) {
  const counter = { passes: 0 };
  const pump = new WakeUpPump({
    name: 'TestPump',
    databaseUrl: testDatabaseUrl(),
    channel,
    pass: async () => {
      counter.passes += 1;
      await pass();
      return 3_600_000;
    },
    retryMs: 3_600_000,
  });
  pumps.push(pump);
  return { pump, counter };
}

async function notify(channel: string): Promise<void> {
  await admin.query('SELECT pg_notify($1, $2)', [channel, '']);
}

describe('WakeUpPump', () => {
  it('runs a pass at start and at every NOTIFY on its channel, not on another', async () => {
    const { pump, counter } = countingPump('pump_test_notify');
    await pump.start();
    await waitFor(async () => (counter.passes === 1 ? true : null));
    await notify('pump_test_other');
    await notify('pump_test_notify');
    await waitFor(async () => (counter.passes === 2 ? true : null));
    await notify('pump_test_notify');
    await waitFor(async () => (counter.passes === 3 ? true : null));
  });

  it('runs one more pass after the current one when woken during it, never two at once', async () => {
    let release: (() => void) | undefined;
    let inPass = 0;
    let most = 0;
    const { pump, counter } = countingPump('pump_test_overlap', async () => {
      inPass += 1;
      most = Math.max(most, inPass);
      if (counter.passes === 1) await new Promise<void>((resolve) => (release = resolve));
      inPass -= 1;
    });
    await pump.start();
    await waitFor(async () => (release ? true : null));
    pump.wake();
    pump.wake();
    release!();
    await waitFor(async () => (counter.passes === 2 ? true : null));
    expect(most).toBe(1);
  });

  it('listens again after its connection is lost, and catches up at once', async () => {
    const { pump, counter } = countingPump('pump_test_reconnect');
    await pump.start();
    await waitFor(async () => (pump.listening ? true : null));
    await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = current_database() AND query ILIKE 'LISTEN "pump_test_reconnect"%'`,
    );
    await waitFor(async () => (pump.listening ? null : true));
    await waitFor(async () => (pump.listening ? true : null));
    const before = counter.passes;
    await notify('pump_test_reconnect');
    await waitFor(async () => (counter.passes > before ? true : null));
  });

  it('waits for the pass in progress when stopped, and runs none after', async () => {
    let release: (() => void) | undefined;
    const { pump, counter } = countingPump('pump_test_stop', async () => {
      if (counter.passes === 1) await new Promise<void>((resolve) => (release = resolve));
    });
    await pump.start();
    await waitFor(async () => (release ? true : null));
    let stopped = false;
    const stopping = pump.stop().then(() => (stopped = true));
    await notify('pump_test_stop');
    expect(stopped).toBe(false);
    release!();
    await stopping;
    pump.wake();
    expect(counter.passes).toBe(1);
  });
});
