import { describe, expect, it } from 'vitest';
import { SimulatedSessionEngine, type SessionEngine } from '#engines';
import { mergedSettings, mergeRefusal } from './merge-rules.js';

const engine = new SimulatedSessionEngine();
const source = {
  status: 'completed' as const,
  mergedFrom: null,
  type: 'remote_viewing' as const,
  target: 'The object in envelope 4711',
  engine: 'simulated',
  engineVersion: engine.version,
  modality: 'visual' as const,
  durationMinutes: 30,
  privacyLevel: 'private' as const,
  analystCount: 1,
};

describe('mergeRefusal', () => {
  it('accepts completed sessions of one engine version on the same type and target', () => {
    expect(mergeRefusal({ ...source, analystCount: 3 }, source, engine)).toBeNull();
  });

  it.each([
    [{ status: 'in_progress' as const }, 'it is in_progress, not completed'],
    [{ mergedFrom: ['00000000-0000-7000-8000-000000000001'] }, 'it is itself a merge'],
    [{ type: 'dowsing' as const }, 'its type dowsing is not remote_viewing'],
    [{ target: 'Another target' }, 'its target differs'],
    [{ engineVersion: 'simulated-1.0.0' }, 'only simulated-'],
    [{ engine: 'analyst' }, 'produced by engine analyst'],
  ])('refuses %j: %s', (change, reason) => {
    expect(mergeRefusal({ ...source, ...change }, source, engine)).toContain(reason);
  });

  it('refuses the work of an engine that cannot merge', () => {
    const people: SessionEngine = { ...engine, name: 'analyst', run: engine.run, merge: undefined };
    expect(mergeRefusal(source, source, people)).toBe('its engine analyst cannot merge work');
  });
});

describe('mergedSettings', () => {
  it('take the strictest privacy, the shared modality, the longest duration and every analyst', () => {
    expect(
      mergedSettings([
        source,
        { ...source, privacyLevel: 'classified', durationMinutes: 90, analystCount: 4 },
        { ...source, privacyLevel: 'public', durationMinutes: 45 },
      ]),
    ).toEqual({
      modality: 'visual',
      durationMinutes: 90,
      privacyLevel: 'classified',
      analystCount: 6,
    });
  });

  it('keep no modality when the sources differ', () => {
    expect(mergedSettings([source, { ...source, modality: 'auditory' }]).modality).toBeNull();
    expect(mergedSettings([source, { ...source, privacyLevel: 'public' }]).privacyLevel).toBe(
      'private',
    );
  });
});
