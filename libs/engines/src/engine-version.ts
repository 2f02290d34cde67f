/**
 * Version of the simulated engine's algorithm. It is hashed into every seed,
 * so bumping it changes all simulated outputs: bump it whenever a change
 * would alter any output, and never otherwise.
 */
export const SIMULATED_ENGINE_VERSION = 'simulated-1.1.0';
