import { Module } from '@nestjs/common';
import { ENGINES, EngineRegistry } from './engine-registry.js';
import { SimulatedAnalysisEngine } from './simulated-analysis-engine.js';
import { SimulatedDowsingEngine } from './simulated-dowsing-engine.js';
import { SimulatedSessionEngine } from './simulated-session-engine.js';

/**
 * The engines of this deployment and the registry that picks and finds them.
 * A new engine is a provider here and one more entry of ENGINES.
 */
@Module({
  providers: [
    SimulatedSessionEngine,
    SimulatedAnalysisEngine,
    SimulatedDowsingEngine,
    {
      provide: ENGINES,
      inject: [SimulatedSessionEngine, SimulatedAnalysisEngine, SimulatedDowsingEngine],
      useFactory: (...engines: unknown[]) => engines,
    },
    EngineRegistry,
  ],
  exports: [EngineRegistry],
})
export class EnginesModule {}
