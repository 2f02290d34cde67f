import { describe, expect, it } from 'vitest';
import type { SessionEngine } from './session-engine.js';
import { EngineRegistry } from './engine-registry.js';
import { SimulatedSessionEngine } from './simulated-session-engine.js';

const analyst: SessionEngine = {
  name: 'analyst',
  kind: 'session',
  version: 'analyst-test',
  run: () => Promise.reject(new Error('people do this work')),
};

describe('EngineRegistry', () => {
  it('gives the sandbox the simulated engine, and live work the analyst engine once there is one', () => {
    const simulatedOnly = new EngineRegistry([new SimulatedSessionEngine()]);
    expect(simulatedOnly.engineFor('session', 'test')).toBe('simulated');
    expect(simulatedOnly.engineFor('session', 'live')).toBe('simulated');

    const both = new EngineRegistry([new SimulatedSessionEngine(), analyst]);
    expect(both.engineFor('session', 'test')).toBe('simulated');
    expect(both.engineFor('session', 'live')).toBe('analyst');
  });

  it('finds work’s engine again by the name stored with it', () => {
    const registry = new EngineRegistry([new SimulatedSessionEngine(), analyst]);
    expect(registry.session('analyst')).toBe(analyst);
    expect(registry.session('simulated')).toBeInstanceOf(SimulatedSessionEngine);
    expect(() => registry.session('oracle')).toThrow(/no session engine named oracle/);
  });

  it('refuses two engines of one kind under one name', () => {
    expect(() => new EngineRegistry([analyst, { ...analyst }])).toThrow(/two session engines/);
  });
});
