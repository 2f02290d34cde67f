import { Module } from '@nestjs/common';
import { WorkModule } from '../work.module.js';
import { AnalystDeadlines } from './analyst-deadlines.js';

/** The deadlines of work done by people: the worker only (each kind's work module imports it). */
@Module({
  imports: [WorkModule],
  providers: [AnalystDeadlines],
})
export class AnalystDeadlinesModule {}
