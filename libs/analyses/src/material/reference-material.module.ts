import { Module } from '@nestjs/common';
import { OutboundModule } from '#outbound';
import { ReferenceMaterialReader } from './reference-material-reader.js';

/** Reading reference material (the worker); settings come from the global ConfigModule. */
@Module({
  imports: [OutboundModule],
  providers: [ReferenceMaterialReader],
  exports: [ReferenceMaterialReader],
})
export class ReferenceMaterialModule {}
