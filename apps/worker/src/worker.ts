import 'reflect-metadata';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { quietStartup } from '#common';
import type { Settings } from '#config';
import { WorkerModule } from './worker.module.js';

/** The worker as an application context: no HTTP server (main.ts and the tests share it). */
export async function createWorker(settings: Settings): Promise<INestApplicationContext> {
  const worker = await NestFactory.createApplicationContext(WorkerModule.forSettings(settings), {
    bufferLogs: true,
  });
  worker.useLogger(quietStartup(worker.get(Logger)));
  worker.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  await worker.init();
  return worker;
}
