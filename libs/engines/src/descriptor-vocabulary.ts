/**
 * Controlled vocabulary that descriptors are coded against (docs/statistics.md):
 * SAIC-style scoring needs target and response coded over the same fixed
 * list. Each entry names the sense it is usually reported through, which
 * the simulator uses to colour a session's modality.
 */
export type Sense = 'visual' | 'kinesthetic' | 'auditory';

export const DESCRIPTOR_VOCABULARY = [
  { term: 'water', sense: 'visual' },
  { term: 'land', sense: 'visual' },
  { term: 'structure', sense: 'visual' },
  { term: 'building', sense: 'visual' },
  { term: 'vertical', sense: 'visual' },
  { term: 'horizontal', sense: 'visual' },
  { term: 'natural', sense: 'visual' },
  { term: 'manmade', sense: 'visual' },
  { term: 'curved', sense: 'visual' },
  { term: 'angular', sense: 'visual' },
  { term: 'round', sense: 'visual' },
  { term: 'tall', sense: 'visual' },
  { term: 'flat', sense: 'visual' },
  { term: 'open', sense: 'visual' },
  { term: 'enclosed', sense: 'visual' },
  { term: 'bright', sense: 'visual' },
  { term: 'dark', sense: 'visual' },
  { term: 'colourful', sense: 'visual' },
  { term: 'green', sense: 'visual' },
  { term: 'blue', sense: 'visual' },
  { term: 'vegetation', sense: 'visual' },
  { term: 'mountain', sense: 'visual' },
  { term: 'road', sense: 'visual' },
  { term: 'bridge', sense: 'visual' },
  { term: 'people', sense: 'visual' },
  { term: 'metal', sense: 'kinesthetic' },
  { term: 'stone', sense: 'kinesthetic' },
  { term: 'wood', sense: 'kinesthetic' },
  { term: 'glass', sense: 'kinesthetic' },
  { term: 'cold', sense: 'kinesthetic' },
  { term: 'warm', sense: 'kinesthetic' },
  { term: 'wet', sense: 'kinesthetic' },
  { term: 'dry', sense: 'kinesthetic' },
  { term: 'rough', sense: 'kinesthetic' },
  { term: 'smooth', sense: 'kinesthetic' },
  { term: 'motion', sense: 'kinesthetic' },
  { term: 'wind', sense: 'kinesthetic' },
  { term: 'noisy', sense: 'auditory' },
  { term: 'quiet', sense: 'auditory' },
  { term: 'rhythmic', sense: 'auditory' },
  { term: 'echo', sense: 'auditory' },
] as const satisfies readonly { term: string; sense: Sense }[];

export type Descriptor = (typeof DESCRIPTOR_VOCABULARY)[number]['term'];

export const DESCRIPTOR_TERMS: readonly Descriptor[] = DESCRIPTOR_VOCABULARY.map((d) => d.term);
