/**
 * The shape of `variant_result` for each dowsing variant (null for `query`):
 * plain JSON with stable field names, for the HTTP layer's schemas. Every
 * `confidence`, `probability` and `strength` here is a calibrated share of
 * the readings, (support + 2·chance) / (n + 2), rounded to 6 places; where
 * a list's shares add up to 1 they do so exactly after rounding (in units
 * of 1e-6). docs/statistics.md, "Dowsing", says how each is computed.
 */

/** multi_point: the points in the request's order; `strongest` is the answer. */
export interface MultiPointResult {
  points: {
    name: string;
    latitude: number;
    longitude: number;
    /** Share of the readings that chose the point (0..1). */
    reading: number;
    /** Calibrated share (prior mean 1/k); the points' confidences add up to 1. */
    confidence: number;
  }[];
  strongest: string;
}

/** energy_map: row 0 is the northernmost, column 0 the westernmost; the answer is "row r, column c". */
export interface EnergyMapResult {
  grid: {
    rows: number;
    columns: number;
    /** cells[row][column]: share of the readings that chose the cell (0..1). */
    cells: number[][];
    /** Along a meridian, and along the box's middle parallel. */
    cell_size_meters: { north_south: number; east_west: number };
  };
  strongest_cell: { row: number; column: number; latitude: number; longitude: number };
}

/** depth_analysis: the answer is "<depth_meters> m". */
export interface DepthAnalysisResult {
  depth_meters: number;
  /** [low, high] within 0..max_depth_meters; its share of that range is the baseline. */
  depth_interval_meters: [number, number];
}

/** material_identification: most probable first; the top one is the answer. */
export interface MaterialIdentificationResult {
  /** Probabilities add up to exactly 1. */
  candidates: { material: string; probability: number }[];
}

/** chart_analysis: strengths in the request's order, adding up to exactly 1. */
export interface ChartAnalysisResult {
  chosen_option: string;
  option_strengths: { option: string; strength: number }[];
}

/** location_finding: best first, at most max_candidates, all inside the area. */
export interface LocationFindingResult {
  candidates: {
    latitude: number;
    longitude: number;
    accuracy_meters: number;
    /** Calibrated share of the marks within accuracy of it (prior mean: the area share). */
    confidence: number;
  }[];
}

/** energy_detection: the signature is the answer. */
export interface EnergyDetectionResult {
  /** Share of the readings that named the signature (0..1). */
  signal_strength: number;
  energy_signature: string;
  /** The request's window, echoed. */
  window: { from: string; to: string };
}

/** Each variant's `variant_result`. */
export interface DowsingVariantResults {
  query: null;
  multi_point: MultiPointResult;
  energy_map: EnergyMapResult;
  depth_analysis: DepthAnalysisResult;
  material_identification: MaterialIdentificationResult;
  chart_analysis: ChartAnalysisResult;
  location_finding: LocationFindingResult;
  energy_detection: EnergyDetectionResult;
}
