import type { Mode } from '#common';

/**
 * What an engine does work of (docs/architecture.md, "Engines"): each kind has its own input and
 * outcome types and its own engines, all behind this one registry.
 */
export const WORK_KINDS = ['session', 'analysis', 'dowsing'] as const;
export type WorkKind = (typeof WORK_KINDS)[number];

/** `simulated` runs the sandbox and any live work an organisation chooses it for; `analyst` is people. */
export type EngineName = 'simulated' | 'analyst';

/** What every engine says about itself; each kind's interface adds how its work is done. */
export interface Engine {
  readonly name: EngineName;
  readonly kind: WorkKind;
  /** Kept with every piece of work it does, for audit and reproducibility. */
  readonly version: string;
}

/**
 * Which engine does a new piece of work (docs/architecture.md, "Engines"): the sandbox is always
 * `simulated`; live work goes to the `analyst` engine where one is registered
 * for the kind, else to `simulated`. The choice is stored with the work, so
 * the worker runs it with the engine it was created for.
 */
export function chooseEngine(
  kind: WorkKind,
  mode: Mode,
  available: ReadonlySet<string>,
): EngineName {
  if (mode === 'live' && available.has(`${kind}:analyst`)) return 'analyst';
  return 'simulated';
}
