import { describe, expect, it } from 'vitest';
import type { AppSettings } from '#config';
import type { Sql, Transaction } from '#database';
import { DomainVerifier } from './domain-verifier.js';
import type { ConnectionClaim, SsoEmailDomainsRepository } from './sso-email-domains.repository.js';

const claim = (domain: string): ConnectionClaim => ({
  organizationId: 'org',
  connectionId: 'connection',
  domain,
  status: 'pending',
  token: `token-${domain}`,
});

/** A verifier whose DNS publishes `published`, over claims kept in memory. */
function verifierOver(published: Set<string>, takenElsewhere = new Set<string>()) {
  const marked: string[] = [];
  const tx = {} as Transaction;
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
  return { verifier, marked };
}

describe('DomainVerifier', () => {
  it('verifies the claims whose records are published and records the others as checked', async () => {
    const { verifier, marked } = verifierOver(new Set(['found.example']));
    expect(await verifier.check([claim('found.example'), claim('missing.example')])).toBe(1);
    expect(marked.sort()).toEqual(['checked missing.example', 'verified found.example']);
  });

  it('leaves a claim pending, checked, when another connection proved the domain first', async () => {
    const { verifier, marked } = verifierOver(
      new Set(['taken.example']),
      new Set(['taken.example']),
    );
    expect(await verifier.check([claim('taken.example')])).toBe(0);
    expect(marked).toEqual(['checked taken.example']);
  });
});
