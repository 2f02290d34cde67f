import type { Action } from '../command-context.js';
export const check: Action = async () => undefined;
export const apply: Action = async () => undefined;
