import { Module } from '@nestjs/common';
import { DestinationPolicy } from './destination-policy.js';
import { OutboundFetcher } from './outbound-fetcher.js';
import { OutboundSockets } from './outbound-sockets.js';

/**
 * Connecting outward under the destination policy: the policy itself (webhook
 * registration checks it), the fetcher of documents (reference material,
 * photos, SAML metadata) and raw sockets (LDAP directories). Every outbound
 * connection of the service is opened here (test: outbound-sockets.spec.ts).
 * Settings come from the global ConfigModule the apps configure.
 */
@Module({
  providers: [DestinationPolicy, OutboundFetcher, OutboundSockets],
  exports: [DestinationPolicy, OutboundFetcher, OutboundSockets],
})
export class OutboundModule {}
