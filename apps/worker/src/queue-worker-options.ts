import { Processor, type ProcessorOptions, type WorkerHost } from '@nestjs/bullmq';
import type { Provider, Type } from '@nestjs/common';
import type { WorkerOptions } from 'bullmq';
import type { Settings } from '#config';

/** Where @Processor keeps its two arguments (@nestjs/bullmq's bull.constants, not exported). */
const PROCESSOR_METADATA = 'bullmq:processor_metadata';
const WORKER_METADATA = 'bullmq:worker_metadata';

/** A Worker's options as @Processor takes them (its last overload's). */
type ProcessorWorkerOptions = Parameters<typeof Processor>[1];

/** The BullMQ Worker options every queue worker takes from the settings. */
export function queueWorkerOptions(
  settings: Pick<Settings, 'queueLocks'>,
): Pick<WorkerOptions, 'lockDuration' | 'stalledInterval'> {
  return {
    lockDuration: settings.queueLocks.lockDurationMs,
    stalledInterval: settings.queueLocks.stalledIntervalMs,
  };
}

/**
 * A queue processor whose BullMQ Worker takes the settings' options besides
 * its own. @Processor fixes a Worker's options when the class is declared,
 * before any setting is read, and @nestjs/bullmq passes a Worker nothing else
 * of the module's configuration but its connection and prefix. So the class
 * is provided as a subclass declared again with the same queue and options
 * plus these: injection, `process` and the @OnWorkerEvent handlers are
 * inherited, and the class stays the provider's token.
 */
export function withQueueWorkerOptions(
  processor: Type<WorkerHost>,
  settings: Pick<Settings, 'queueLocks'>,
): Provider {
  const queue = Reflect.getMetadata(PROCESSOR_METADATA, processor) as ProcessorOptions | undefined;
  if (queue === undefined) throw new Error(`${processor.name} has no @Processor decorator`);
  const own = (Reflect.getMetadata(WORKER_METADATA, processor) ?? {}) as ProcessorWorkerOptions;
  // Typed as any class: WorkerHost's `process` is abstract, the processor's own is not.
  const configured = class extends (processor as Type<object>) {};
  Object.defineProperty(configured, 'name', { value: processor.name });
  Processor(queue, { ...own, ...queueWorkerOptions(settings) })(configured);
  return { provide: processor, useClass: configured };
}
