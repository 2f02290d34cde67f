import type { RequestExamples } from '../http/request-examples.js';

/** One working example per body: Swagger UI's "Try it out" sends them as they stand. */
export const DOWSING_EXAMPLES = {
  query: {
    yes_no: {
      summary: 'A yes/no question',
      value: {
        query_type: 'yes_no',
        question: 'Is there water under the north field?',
        context: { timeframe: 'present' },
        precision_level: 'standard',
      },
    },
    location: {
      summary: 'Where, within a search circle',
      value: {
        query_type: 'location',
        question: 'Where is the lost key?',
        context: { location: { latitude: 51.5074, longitude: -0.1278, radius_meters: 500 } },
        precision_level: 'high',
      },
    },
    information: {
      summary: 'Which of several options',
      value: {
        query_type: 'information',
        question: 'Which well holds the cleanest water?',
        context: { parameters: { options: ['north well', 'south well', 'east well'] } },
      },
    },
  },
  multi_point: {
    three: {
      summary: 'Three named points',
      value: {
        question: 'Which gate reads strongest?',
        points: [
          { name: 'north gate', latitude: 51.509, longitude: -0.128 },
          { name: 'east gate', latitude: 51.507, longitude: -0.125 },
          { name: 'south gate', latitude: 51.505, longitude: -0.128 },
        ],
      },
    },
  },
  energy_map: {
    grid: {
      summary: 'A 10 × 10 grid over a small box',
      value: {
        bounds: { south: 51.5, west: -0.13, north: 51.51, east: -0.11 },
        grid: { rows: 10, columns: 10 },
      },
    },
  },
  depth_analysis: {
    well: {
      summary: 'Depth of water at a point',
      value: {
        question: 'How deep is the water table?',
        point: { latitude: 51.5074, longitude: -0.1278 },
        max_depth_meters: 60,
      },
    },
  },
  material_identification: {
    sample: {
      summary: 'A sample, among chosen materials',
      value: {
        sample_description: 'grey powder from the cellar floor',
        candidates: ['limestone', 'clay', 'iron'],
      },
    },
  },
  chart_analysis: {
    chart: {
      summary: 'A pendulum chart of four options',
      value: {
        question: 'Which room was the ring left in?',
        chart_type: 'pendulum',
        options: ['kitchen', 'hall', 'bedroom', 'garden'],
      },
    },
  },
  location_finding: {
    ring: {
      summary: 'Up to three candidate places',
      value: {
        area: { latitude: 51.5074, longitude: -0.1278, radius_meters: 300 },
        sought: 'the lost wedding ring',
        max_candidates: 3,
      },
    },
  },
  energy_detection: {
    week: {
      summary: 'A point over one week',
      value: {
        point: { latitude: 51.5074, longitude: -0.1278 },
        window: { from: '2026-11-01T00:00:00Z', to: '2026-11-08T00:00:00Z' },
      },
    },
  },
} satisfies Record<string, RequestExamples>;
