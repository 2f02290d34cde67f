export {
  MAX_SKETCH_BYTES,
  MAX_SKETCHES,
  prepareSketch,
  SKETCH_TYPES,
  type PreparedSketch,
  type SketchType,
} from './prepare-sketch.js';
