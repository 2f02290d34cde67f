/**
 * The API's descriptor vocabulary (DESCRIPTOR_VOCABULARY in libs/engines, listed in the
 * OpenAPI description of `POST /v2/sessions/{id}/results`), by the sense it is usually
 * reported through. Vocabulary terms count towards SAIC scores; free words are kept too.
 * The analysts' dashboard test checks this list against the library's.
 */
export const VOCABULARY = {
  visual: [
    'water',
    'land',
    'structure',
    'building',
    'vertical',
    'horizontal',
    'natural',
    'manmade',
    'curved',
    'angular',
    'round',
    'tall',
    'flat',
    'open',
    'enclosed',
    'bright',
    'dark',
    'colourful',
    'green',
    'blue',
    'vegetation',
    'mountain',
    'road',
    'bridge',
    'people',
  ],
  kinesthetic: [
    'metal',
    'stone',
    'wood',
    'glass',
    'cold',
    'warm',
    'wet',
    'dry',
    'rough',
    'smooth',
    'motion',
    'wind',
  ],
  auditory: ['noisy', 'quiet', 'rhythmic', 'echo'],
} as const;

export const VOCABULARY_TERMS: readonly string[] = Object.values(VOCABULARY).flat();
