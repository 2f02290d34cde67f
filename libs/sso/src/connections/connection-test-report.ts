import { X509Certificate } from 'node:crypto';
import { AppError } from '#common';
import type { OutboundFetcher } from '#outbound';
import type { LdapTestResult } from '../ldap/index.js';
import { fetchIdpMetadata } from './connection-config.js';
import type { SamlConfig } from './sso-connection.js';

/** What `POST …/sso-connections/{id}/test` found, check by check. */
export interface SsoTestReport {
  ok: boolean;
  checks: { check: string; ok: boolean; error: string | null }[];
}

export function ldapReport(result: LdapTestResult): SsoTestReport {
  return {
    ok: result.ok,
    checks: result.steps.map((step) => ({
      check: step.step,
      ok: step.ok,
      error: step.error ?? null,
    })),
  };
}

export async function samlReport(
  config: SamlConfig,
  fetcher: OutboundFetcher,
): Promise<SsoTestReport> {
  const checks: SsoTestReport['checks'] = [];
  if (config.idpMetadataUrl !== null) {
    try {
      await fetchIdpMetadata(config.idpMetadataUrl, fetcher);
      checks.push({ check: 'metadata', ok: true, error: null });
    } catch (error) {
      checks.push({
        check: 'metadata',
        ok: false,
        error: error instanceof AppError ? String(error.details.issue) : 'could not be read',
      });
    }
  }
  const now = Date.now();
  config.idpCertificates.forEach((pem, index) => {
    const certificate = new X509Certificate(pem);
    const inDate =
      Date.parse(certificate.validFrom) <= now && now < Date.parse(certificate.validTo);
    checks.push({
      check: `idp_certificates.${index}`,
      ok: inDate,
      error: inDate ? null : `valid ${certificate.validFrom} to ${certificate.validTo}`,
    });
  });
  return { ok: checks.every((check) => check.ok), checks };
}
