import type { ApiResponse, TestClient } from './client.js';
import type { TestDnsServer } from './dns-server.js';

interface ClaimedConnection {
  id: string;
  domains: { domain: string; verification: { name: string; value: string } }[];
}

/**
 * Proves a connection's email domains as its organisation would: publishes
 * each domain's TXT record on the test's DNS server (the stack started with
 * DNS_RESOLVERS = `dns.address`), then `POST …/verify-domains`. Fails unless
 * every domain comes back verified; answers the connection as that call did.
 */
export async function proveDomains(
  client: TestClient,
  dns: TestDnsServer,
  connectionsPath: string,
  connection: ClaimedConnection,
  auth: { token?: string; apiKey?: string },
): Promise<ApiResponse> {
  for (const { verification } of connection.domains) {
    dns.publishTxt(verification.name, verification.value);
  }
  const verified = await client.post(`${connectionsPath}/${connection.id}/verify-domains`, auth);
  const statuses = (verified.body?.domains ?? []).map(
    (claim: { domain: string; status: string }) => `${claim.domain} ${claim.status}`,
  );
  const expected = connection.domains.map(({ domain }) => `${domain} verified`);
  if (verified.status !== 200 || JSON.stringify(statuses) !== JSON.stringify(expected)) {
    throw new Error(
      `verify-domains of ${connection.id}: ${verified.status} ${verified.text}, expected ${expected.join(', ')}`,
    );
  }
  return verified;
}
