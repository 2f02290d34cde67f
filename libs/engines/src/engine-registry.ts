import { Inject, Injectable } from '@nestjs/common';
import type { Mode } from '#common';
import { chooseEngine, type Engine, type EngineName, type WorkKind } from './engine.js';
import type { AnalysisEngine } from './analysis-engine.js';
import type { DowsingEngine } from './dowsing-engine.js';
import type { SessionEngine } from './session-engine.js';

/** Every engine this deployment has, as one injected list (see EnginesModule). */
export const ENGINES = Symbol('ENGINES');

/**
 * The engines of every kind of work, by name. Work is created with the
 * engine `engineFor` picks and stored with its name; the worker looks the
 * engine up again by that name, so a piece of work always finishes with the
 * engine it started with.
 */
@Injectable()
export class EngineRegistry {
  private readonly byKey: Map<string, Engine>;

  constructor(@Inject(ENGINES) engines: readonly Engine[]) {
    this.byKey = new Map();
    for (const engine of engines) {
      const key = keyOf(engine.kind, engine.name);
      if (this.byKey.has(key)) throw new Error(`two ${engine.kind} engines named ${engine.name}`);
      this.byKey.set(key, engine);
    }
  }

  /** The engine a new piece of work of this kind, in this mode, is done by. */
  engineFor(kind: WorkKind, mode: Mode): EngineName {
    const name = chooseEngine(kind, mode, new Set(this.byKey.keys()));
    this.get(kind, name);
    return name;
  }

  session(name: string): SessionEngine {
    return this.get('session', name) as SessionEngine;
  }

  analysis(name: string): AnalysisEngine {
    return this.get('analysis', name) as AnalysisEngine;
  }

  dowsing(name: string): DowsingEngine {
    return this.get('dowsing', name) as DowsingEngine;
  }

  private get(kind: WorkKind, name: string): Engine {
    const engine = this.byKey.get(keyOf(kind, name));
    // Work stored with an engine this deployment lacks cannot go on: a deployment error, not input.
    if (!engine) throw new Error(`no ${kind} engine named ${name} in this deployment`);
    return engine;
  }
}

function keyOf(kind: WorkKind, name: string): string {
  return `${kind}:${name}`;
}
