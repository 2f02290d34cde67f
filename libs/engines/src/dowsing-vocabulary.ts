/**
 * The answers a dowsing reading can give where the request does not list its
 * own (docs/statistics.md, "Dowsing"). Chance is 1/k over the list a reading
 * chooses from, so each list is short and fixed: changing one changes every
 * baseline computed from it (and needs a new SIMULATED_ENGINE_VERSION).
 */

/**
 * A yes/no question's answers, in pendulum order: a reading's number on the
 * chart is its index / 2 (negative 0, neutral 0.5, positive 1). Chance 1/3.
 */
export const YES_NO_ANSWERS = ['negative', 'neutral', 'positive'] as const;
export type YesNoAnswer = (typeof YES_NO_ANSWERS)[number];

/**
 * An information question answered without options
 * (`context.parameters.options`): the eight sectors of the radar chart,
 * clockwise from north. Chance 1/8.
 */
export const COMPASS_SECTORS = [
  'north',
  'north_east',
  'east',
  'south_east',
  'south',
  'south_west',
  'west',
  'north_west',
] as const;

/** What `material_identification` chooses from unless the request narrows it. Chance 1/10. */
export const MATERIALS = [
  'water',
  'iron',
  'copper',
  'gold',
  'silver',
  'limestone',
  'granite',
  'clay',
  'oil',
  'void',
] as const;
export type Material = (typeof MATERIALS)[number];

/**
 * What `energy_detection` reads at a point; `neutral` is a reading of
 * nothing distinctive. Chance 1/8.
 */
export const ENERGY_SIGNATURES = [
  'water',
  'mineral',
  'metallic',
  'geomagnetic',
  'thermal',
  'void',
  'organic',
  'neutral',
] as const;
export type EnergySignature = (typeof ENERGY_SIGNATURES)[number];

/**
 * The `energy_signature` of a location whose energy was not read (every
 * variant but `energy_detection`): nothing is invented where nothing was
 * measured.
 */
export const UNMEASURED_SIGNATURE = 'unmeasured';
