import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import { newUuid, toPublicId, type Principal } from '#common';
import type { Sql, Transaction } from '#database';
import { AuditLog, type EventLog } from '#events';
import type { HistoryCase, OutcomeInput } from './history-case.js';
import type { HistoryCasesRepository } from './history-cases.repository.js';
import { HistoryService } from './history.service.js';
import { refusal } from '#common/testing';

/**
 * Recording what really happened on a history case (PUT
 * /v1/history/{case_id}/outcome), with the cases repository, the event log
 * and the audit trail faked: what is refused, and what one unit of work
 * writes for a first outcome and for a correction.
 */

const principal: Principal = {
  organizationId: newUuid(),
  mode: 'live',
  credential: 'api_key',
  subject: 'key_123',
  scopes: ['history:write'],
};
const tx = { open: true } as unknown as Transaction;
/** An event as the faked log takes it. */
type Appended = [Transaction, Principal, string, Record<string, unknown>, string | null];

function historyCase(overrides: Partial<HistoryCase> = {}): HistoryCase {
  const now = new Date();
  return {
    organizationId: principal.organizationId,
    mode: principal.mode,
    id: newUuid(),
    sourceType: 'session',
    sourceId: newUuid(),
    externalId: null,
    type: 'remote_viewing',
    subtype: 'visual',
    workStatus: 'completed',
    classified: false,
    date: now,
    target: 'The lighthouse at Cape Wrath',
    client: null,
    analysts: [],
    durationMinutes: 30,
    modality: 'visual',
    phases: [],
    descriptors: ['tall'],
    description: null,
    latitude: 58.6,
    longitude: -5,
    confidenceScore: 0.4,
    chanceBaseline: 0.2,
    verdict: null,
    outcome: null,
    locationFound: null,
    trueLatitude: null,
    trueLongitude: null,
    verification: null,
    independentVerification: false,
    accuracyConfirmed: false,
    verifiedBy: null,
    verifiedAt: null,
    eventSequence: 1,
    createdAt: now,
    updatedAt: now,
    ...overrides,
  };
}

const outcome: OutcomeInput = {
  verdict: 'hit',
  outcome: 'The lighthouse, as sketched',
  locationFound: true,
  coordinates: { latitude: 58.62, longitude: -4.99 },
  verification: 'site visit',
  independentVerification: true,
  accuracyConfirmed: true,
  verifiedBy: 'Field team',
  verifiedAt: new Date(Date.now() - 3_600_000),
};

/** The case as recordOutcome leaves it: the input written, its sequence moved on. */
function afterOutcome(earlier: HistoryCase, input: OutcomeInput): HistoryCase {
  return {
    ...earlier,
    verdict: input.verdict,
    outcome: input.outcome,
    locationFound: input.locationFound,
    trueLatitude: input.coordinates?.latitude ?? null,
    trueLongitude: input.coordinates?.longitude ?? null,
    verification: input.verification,
    independentVerification: input.independentVerification,
    accuracyConfirmed: input.accuracyConfirmed,
    verifiedBy: input.verifiedBy,
    verifiedAt: input.verifiedAt,
    eventSequence: earlier.eventSequence + 1,
  };
}

let audited: MockInstance<typeof AuditLog.record>;
beforeEach(() => {
  audited = vi.spyOn(AuditLog, 'record').mockResolvedValue(undefined);
});
afterEach(() => vi.restoreAllMocks());

function service(stored: HistoryCase | null) {
  const cases = {
    find: vi.fn(() => Promise.resolve(stored)),
    findForUpdate: vi.fn(() => Promise.resolve(stored)),
    recordOutcome: vi.fn((_tx: Transaction, _tenant: unknown, _id: string, input: OutcomeInput) =>
      Promise.resolve(stored && afterOutcome(stored, input)),
    ),
  };
  const events = { append: vi.fn((..._event: Appended) => Promise.resolve('evt')) };
  const transactions: Transaction[] = [];
  const sql = {
    transaction: (work: (tx: Transaction) => Promise<unknown>) => {
      transactions.push(tx);
      return work(tx);
    },
  };
  const history = new HistoryService(
    sql as unknown as Sql,
    cases as unknown as HistoryCasesRepository,
    events as unknown as EventLog,
  );
  return { history, cases, events, transactions };
}

describe('HistoryService.get', () => {
  it('finds the case in the caller’s tenant, and answers 404 for a malformed or unknown id', async () => {
    const stored = historyCase();
    const { history, cases } = service(stored);
    expect(await history.get(principal, toPublicId('history', stored.id))).toBe(stored);
    expect(cases.find).toHaveBeenCalledWith(principal, stored.id);

    expect((await refusal(history.get(principal, 'hist_nope'))).code).toBe('NOT_FOUND');
    const missing = service(null);
    const unknown = toPublicId('history', newUuid());
    expect((await refusal(missing.history.get(principal, unknown))).code).toBe('NOT_FOUND');
  });
});

describe('HistoryService.recordOutcome refuses, writing nothing', () => {
  it('an outcome verified in the future, beyond a few minutes of clock skew', async () => {
    const stored = historyCase();
    const { history, transactions } = service(stored);
    const error = await refusal(
      history.recordOutcome(
        principal,
        toPublicId('history', stored.id),
        { ...outcome, verifiedAt: new Date(Date.now() + 3_600_000) },
        null,
      ),
    );
    expect(error.code).toBe('INVALID_REQUEST');
    expect(error.details.field).toBe('verified_at');
    expect(transactions).toEqual([]);
  });

  it('a malformed id or a case the tenant does not have, as not found', async () => {
    const { history, transactions } = service(historyCase());
    expect((await refusal(history.recordOutcome(principal, 'hist_x', outcome, null))).code).toBe(
      'NOT_FOUND',
    );
    expect(transactions).toEqual([]);

    const missing = service(null);
    const unknown = toPublicId('history', newUuid());
    const error = await refusal(missing.history.recordOutcome(principal, unknown, outcome, null));
    expect(error.code).toBe('NOT_FOUND');
    expect(missing.cases.recordOutcome).not.toHaveBeenCalled();
    expect(missing.events.append).not.toHaveBeenCalled();
    expect(audited).not.toHaveBeenCalled();
  });

  it('a case whose work failed: there is no result to verify', async () => {
    const stored = historyCase({ workStatus: 'failed' });
    const { history, cases, events } = service(stored);
    const error = await refusal(
      history.recordOutcome(principal, toPublicId('history', stored.id), outcome, null),
    );
    expect(error.code).toBe('CONFLICT');
    expect(error.details.field).toBe('case_id');
    expect(cases.recordOutcome).not.toHaveBeenCalled();
    expect(events.append).not.toHaveBeenCalled();
    expect(audited).not.toHaveBeenCalled();
  });
});

describe('HistoryService.recordOutcome', () => {
  it('records a first outcome with its event and an audit event of its fields, none earlier', async () => {
    const stored = historyCase();
    const publicId = toPublicId('history', stored.id);
    const { history, cases, events, transactions } = service(stored);

    const recorded = await history.recordOutcome(principal, publicId, outcome, 'req_1');

    expect(transactions).toEqual([tx]);
    expect(cases.findForUpdate).toHaveBeenCalledWith(tx, principal, stored.id);
    expect(cases.recordOutcome).toHaveBeenCalledWith(tx, principal, stored.id, outcome);
    expect(recorded).toMatchObject({ verdict: 'hit', eventSequence: 2 });
    expect(events.append).toHaveBeenCalledWith(
      tx,
      principal,
      'history.outcome_verified',
      {
        case_id: publicId,
        type: 'remote_viewing',
        source: { type: 'session', id: toPublicId('session', stored.sourceId!) },
        verdict: 'hit',
        location_found: true,
        independent_verification: true,
        accuracy_confirmed: true,
        verified_at: outcome.verifiedAt.toISOString(),
        corrected: false,
        sequence: 2,
      },
      'req_1',
    );
    // A first outcome: every field is new, so each change's `before` is null.
    const recordedChanges = audited.mock.calls[0]![2].changes!;
    expect(audited).toHaveBeenCalledWith(tx, principal, {
      action: 'history_case.outcome_recorded',
      actor: principal,
      target: { type: 'history_case', id: publicId },
      changes: expect.objectContaining({ verdict: { before: null, after: 'hit' } }),
    });
    expect(Object.values(recordedChanges).every((change) => change.before === null)).toBe(true);
    // Locked first, written next, then announced and audited.
    expect(cases.findForUpdate.mock.invocationCallOrder[0]).toBeLessThan(
      cases.recordOutcome.mock.invocationCallOrder[0]!,
    );
    expect(cases.recordOutcome.mock.invocationCallOrder[0]).toBeLessThan(
      events.append.mock.invocationCallOrder[0]!,
    );
  });

  it('corrects an earlier outcome, the audit event holding each changed field before and after', async () => {
    const earlierAt = new Date(Date.now() - 86_400_000);
    const stored = historyCase({
      verdict: 'miss',
      outcome: 'Nothing like it',
      locationFound: false,
      trueLatitude: 10,
      trueLongitude: 20,
      verification: 'phone call',
      independentVerification: false,
      accuracyConfirmed: false,
      verifiedBy: 'Client',
      verifiedAt: earlierAt,
      eventSequence: 3,
    });
    const publicId = toPublicId('history', stored.id);
    const { history, events } = service(stored);

    await history.recordOutcome(principal, publicId, { ...outcome, verdict: 'partial' }, 'req_2');

    expect(events.append.mock.calls[0]![3]).toMatchObject({
      verdict: 'partial',
      corrected: true,
      sequence: 4,
    });
    expect(audited).toHaveBeenCalledWith(tx, principal, {
      action: 'history_case.outcome_corrected',
      actor: principal,
      target: { type: 'history_case', id: publicId },
      changes: expect.objectContaining({
        verdict: { before: 'miss', after: 'partial' },
        outcome: { before: 'Nothing like it', after: outcome.outcome },
        verified_by: { before: 'Client', after: outcome.verifiedBy },
        verified_at: { before: earlierAt.toISOString(), after: outcome.verifiedAt.toISOString() },
      }),
    });
  });

  it('names no source for an imported case', async () => {
    const stored = historyCase({ sourceType: 'import', sourceId: null, externalId: 'ext-1' });
    const { history, events } = service(stored);
    await history.recordOutcome(principal, toPublicId('history', stored.id), outcome, null);
    expect(events.append.mock.calls[0]![3]).toMatchObject({ source: null });
  });
});
