import { Resolver } from 'node:dns/promises';
import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { Principal } from '#common';
import { AppSettings } from '#config';
import { Sql } from '#database';
import { AuditLog, type AuditActor } from '#events';
import { PeriodicTasks } from '#queue';
import { connectionTarget } from './connection-audit.js';
import { verificationRecord, type DomainClaim } from './domain-claims.js';
import { SsoEmailDomainsRepository, type ConnectionClaim } from './sso-email-domains.repository.js';

/** Who verifies domains nobody asked about: the worker's hourly look-up. */
export const DOMAIN_RECHECK_ACTOR: AuditActor = { type: 'system', id: 'sso.domain-verification' };

/** A lookup that has not answered by then counts as not found; the next check asks again. */
const LOOKUP_TIMEOUT_MS = 3_000;
/** Lookups in flight at once, each holding a database connection only to record its result. */
const PARALLEL_LOOKUPS = 10;
/** PostgreSQL's unique_violation: another connection verified the domain first. */
const UNIQUE_VIOLATION = '23505';

/**
 * Looks up the TXT records that prove SSO email domains, with the system's
 * resolver or the servers DNS_RESOLVERS names.
 */
@Injectable()
export class DomainVerifier {
  private readonly resolver = new Resolver({ timeout: LOOKUP_TIMEOUT_MS, tries: 2 });

  constructor(
    private readonly sql: Sql,
    private readonly domains: SsoEmailDomainsRepository,
    settings: AppSettings,
  ) {
    if (settings.dnsResolvers.length > 0) this.resolver.setServers(settings.dnsResolvers);
  }

  /** Whether the domain publishes the claim's record now (a long TXT value comes in chunks). */
  async published(claim: Pick<DomainClaim, 'domain' | 'token'>): Promise<boolean> {
    const { name, value } = verificationRecord(claim);
    try {
      const records = await this.resolver.resolveTxt(name);
      return records.some((chunks) => chunks.join('').trim() === value);
    } catch {
      // No such name, no TXT record, or no answer: not proven (yet).
      return false;
    }
  }

  /**
   * Looks each claim up and records it; how many are verified now. Several
   * at once: a resolver that does not answer costs each lookup its whole
   * timeout, and one connection may list 50 domains. `actor`: who asked (the
   * caller of "Verify now", or the worker), named by each verification's
   * audit event.
   */
  async check(claims: ConnectionClaim[], actor: AuditActor | Principal): Promise<number> {
    let verified = 0;
    let next = 0;
    const lookUpTheRest = async (): Promise<void> => {
      while (next < claims.length) {
        const claim = claims[next++]!;
        if (await this.record(claim, await this.published(claim), actor)) verified += 1;
      }
    };
    await Promise.all(Array.from({ length: PARALLEL_LOOKUPS }, lookUpTheRest));
    return verified;
  }

  /**
   * Records a lookup: `found` marks the claim verified, unless another
   * connection proved the domain meanwhile (then it stays pending). Whether it
   * is verified now. The attempt commits alone, with its audit event: a
   * unique violation ends its transaction.
   */
  private async record(
    claim: ConnectionClaim,
    found: boolean,
    actor: AuditActor | Principal,
  ): Promise<boolean> {
    if (found) {
      try {
        const verified = await this.sql.transaction(async (tx) => {
          if (!(await this.domains.markVerified(tx, claim.organizationId, claim))) return false;
          // Connections are live-mode things, whichever mode the caller's credential is of.
          await AuditLog.record(
            tx,
            { organizationId: claim.organizationId, mode: 'live' },
            {
              action: 'sso_connection.domains_verified',
              actor,
              target: connectionTarget(claim.connectionId),
              details: { domains: [claim.domain] },
            },
          );
          return true;
        });
        if (verified) return true;
      } catch (error) {
        if ((error as { code?: string }).code !== UNIQUE_VIOLATION) throw error;
      }
    }
    await this.sql.transaction((tx) => this.domains.markChecked(tx, claim.organizationId, claim));
    return false;
  }
}

const HOUR_MS = 3600_000;
/** Pending claims looked up per run at most; the next run takes the rest. */
const BATCH = 200;

/**
 * The worker's side: pending domains are looked up again every hour, so a
 * record published after the last "Verify now" is found without anyone asking.
 */
@Injectable()
export class DomainVerificationRecheck implements OnModuleInit {
  private readonly logger = new Logger(DomainVerificationRecheck.name);

  constructor(
    private readonly domains: SsoEmailDomainsRepository,
    private readonly verifier: DomainVerifier,
    private readonly tasks: PeriodicTasks,
  ) {}

  onModuleInit(): void {
    this.tasks.register({
      name: 'sso.domain-verification',
      everyMs: 600_000,
      run: () => this.run(),
    });
  }

  async run(now = new Date()): Promise<{ checked: number; verified: number }> {
    const due = await this.domains.pendingDueAcrossTenants(
      new Date(now.getTime() - HOUR_MS),
      BATCH,
    );
    const verified = await this.verifier.check(due, DOMAIN_RECHECK_ACTOR);
    if (verified > 0) this.logger.log({ verified }, 'SSO email domains verified');
    return { checked: due.length, verified };
  }
}
