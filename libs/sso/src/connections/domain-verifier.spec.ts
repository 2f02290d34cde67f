import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { newUuid, toPublicId } from '#common';
import type { AppSettings } from '#config';
import type { Sql, Transaction } from '#database';
import { AuditLog } from '#events';
import { DOMAIN_RECHECK_ACTOR, DomainVerifier } from './domain-verifier.js';
import type { ConnectionClaim, SsoEmailDomainsRepository } from './sso-email-domains.repository.js';

const connectionId = newUuid();
const claim = (domain: string): ConnectionClaim => ({
  organizationId: 'org',
  connectionId,
  domain,
  status: 'pending',
  token: `token-${domain}`,
});

/** A verifier whose DNS publishes `published`, over claims kept in memory. */
function verifierOver(published: Set<string>, takenElsewhere = new Set<string>()) {
  const marked: string[] = [];
  const tx = { open: true } as unknown as Transaction;
  const sql = { transaction: <T>(work: (tx: Transaction) => Promise<T>) => work(tx) };
  const domains = {
    markVerified: (_tx: Transaction, organizationId: string, { domain }: ConnectionClaim) => {
      expect(organizationId).toBe('org');
      if (takenElsewhere.has(domain)) {
        return Promise.reject(Object.assign(new Error('duplicate key'), { code: '23505' }));
      }
      marked.push(`verified ${domain}`);
      return Promise.resolve(true);
    },
    markChecked: (_tx: Transaction, organizationId: string, { domain }: ConnectionClaim) => {
      expect(organizationId).toBe('org');
      marked.push(`checked ${domain}`);
      return Promise.resolve();
    },
  };
  const verifier = new DomainVerifier(
    sql as unknown as Sql,
    domains as unknown as SsoEmailDomainsRepository,
    { dnsResolvers: [] } as unknown as AppSettings,
  );
  verifier.published = ({ domain }) => Promise.resolve(published.has(domain));
  return { verifier, marked, tx };
}

let audited: MockInstance<typeof AuditLog.record>;
beforeEach(() => {
  audited = vi.spyOn(AuditLog, 'record').mockResolvedValue(undefined);
});
afterEach(() => vi.restoreAllMocks());

describe('DomainVerifier', () => {
  it('verifies the claims whose records are published and records the others as checked', async () => {
    const { verifier, marked, tx } = verifierOver(new Set(['found.example']));
    const actor = { type: 'person' as const, id: toPublicId('user', newUuid()) };
    expect(await verifier.check([claim('found.example'), claim('missing.example')], actor)).toBe(1);
    expect(marked.sort()).toEqual(['checked missing.example', 'verified found.example']);
    // The verified domain only, in its own transaction, by whoever asked.
    expect(audited).toHaveBeenCalledTimes(1);
    expect(audited).toHaveBeenCalledWith(
      tx,
      { organizationId: 'org', mode: 'live' },
      {
        action: 'sso_connection.domains_verified',
        actor,
        target: { type: 'sso_connection', id: toPublicId('ssoConnection', connectionId) },
        details: { domains: ['found.example'] },
      },
    );
  });

  it('leaves a claim pending, checked, when another connection proved the domain first', async () => {
    const { verifier, marked } = verifierOver(
      new Set(['taken.example']),
      new Set(['taken.example']),
    );
    expect(await verifier.check([claim('taken.example')], DOMAIN_RECHECK_ACTOR)).toBe(0);
    expect(marked).toEqual(['checked taken.example']);
    expect(audited).not.toHaveBeenCalled();
  });
});
