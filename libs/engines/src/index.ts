/** Engines behind one interface (docs/architecture.md, "Engines"): today the simulated sandbox engines. */
export { chooseEngine, WORK_KINDS, type Engine, type EngineName, type WorkKind } from './engine.js';
export { ENGINES, EngineRegistry } from './engine-registry.js';
export { EnginesModule } from './engines.module.js';
export type {
  CompletedOutcome,
  Evidence,
  FailedOutcome,
  FailureReason,
  JudgingSummary,
  Modality,
  PrivacyLevel,
  SessionEngine,
  SessionEngineOutcome,
  SessionResultsData,
  SessionType,
  SessionWorkInput,
  SimulatedSketch,
} from './session-engine.js';
export { SimulatedSessionEngine } from './simulated-session-engine.js';
export { SIMULATED_ENGINE_VERSION } from './engine-version.js';
export {
  MAGIC_INPUTS,
  SLOW_STEP_MULTIPLIER,
  magicEffects,
  type MagicEffects,
} from './magic-inputs.js';
export { renderSketchSvg } from './sketch-svg.js';
export { sessionSeed, truthSeed, normalizeInput, MAX_SIMULATED_ANALYSTS } from './session-seed.js';
export {
  DESCRIPTOR_VOCABULARY,
  DESCRIPTOR_TERMS,
  type Descriptor,
  type Sense,
} from './descriptor-vocabulary.js';
export {
  type AnalystContribution,
  CHANCE_HIT_RATE,
  JUDGING_SET_SIZE,
  type SessionGroundTruth,
  TRIALS_PER_ANALYST,
} from './session-protocol.js';
export { scoreSession, type AnalystScore, type SessionScores } from './score-session.js';
export { simulatedAnalystId } from './simulated-analysts.js';
export * from './analysis-engine.js';
export {
  GPS_FAR_METERS,
  LOW_AGREEMENT,
  RISK_FACTORS,
  riskLevel,
  SimulatedAnalysisEngine,
  type RiskFactor,
} from './simulated-analysis-engine.js';
export * from './dowsing-engine.js';
export {
  DEPTH_TOLERANCE_SHARE,
  dowsingRequestProblem,
  dowsingSeed,
  LOCATION_ACCURACY_SHARE,
  MAX_DOWSING_OPTIONS,
  MIN_DOWSING_OPTIONS,
  READINGS_PER_PRECISION,
} from './dowsing-protocol.js';
export {
  COMPASS_SECTORS,
  ENERGY_SIGNATURES,
  type EnergySignature,
  type Material,
  MATERIALS,
  UNMEASURED_SIGNATURE,
  YES_NO_ANSWERS,
  type YesNoAnswer,
} from './dowsing-vocabulary.js';
export { CHART_FOR_QUERY_TYPE, SimulatedDowsingEngine } from './simulated-dowsing-engine.js';
export type * from './dowsing-variant-results.js';
export {
  ANALYSIS_DEFAULT_BASELINE,
  DOWSING_DEFAULT_BASELINE,
  SESSION_DEFAULT_BASELINE,
} from './chance-baselines.js';
export {
  verifiedSentence,
  verifiedStatistics,
  verifiedSummary,
  type VerifiedSummary,
} from './verified-evidence.js';
