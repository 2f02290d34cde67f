import { Module } from '@nestjs/common';
import { DestinationPolicy } from './destination-policy.js';
import { OutboundFetcher } from './outbound-fetcher.js';

/**
 * Connecting outward under the destination policy: the policy itself (webhook
 * registration checks it) and the fetcher of documents (reference material).
 * Settings come from the global ConfigModule the apps configure.
 */
@Module({
  providers: [DestinationPolicy, OutboundFetcher],
  exports: [DestinationPolicy, OutboundFetcher],
})
export class OutboundModule {}
