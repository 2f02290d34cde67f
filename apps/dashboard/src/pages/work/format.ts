// How the work pages write figures, dates and the API's names.

/** A share in [0, 1] as a percentage. */
export const percent = (value: number) => `${(value * 100).toFixed(1)} %`;

/** A 95 % interval of shares. */
export const interval = ([low, high]: readonly [number, number]) =>
  `${percent(low)} – ${percent(high)}`;

export const dateTime = (value: string | null | undefined) =>
  value ? new Date(value).toLocaleString() : '–';

export const words = (value: string) => value.replaceAll('_', ' ');

/** A p-value as people read it. */
export const pValue = (value: number) => (value < 0.0001 ? '< 0.0001' : value.toPrecision(2));

/** Why work failed, as the status line says it. */
export const failure = (reason: string | null | undefined, message?: string | null) =>
  `Failed${reason ? `: ${words(reason)}` : ''}${message ? ` (${message})` : ''}.`;

/** The engine that did the work, with its version when known. */
export const engine = (metadata: { engine: string; engine_version?: string | null }) =>
  `${metadata.engine}${metadata.engine_version ? ` (${metadata.engine_version})` : ''}`;

/** A sample's size and what it counts: verified outcomes once the evidence is verified. */
export const sample = (size: number, evidence: string | null | undefined, otherwise: string) =>
  `${size} ${evidence === 'verified' ? 'verified outcomes' : otherwise}`;
