// Reading the bench scripts' numeric settings from the environment, and the median their rounds
// report. Shared by bench/run-config.mjs (bench/run.mjs's settings) and the other bench scripts.

/** A whole number ≥ `min` from the environment variable `name`; `fallback` when unset or empty. */
export function wholeNumber(name, fallback, min = 1) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min)
    throw new Error(
      `${name} must be a ${min > 0 ? 'positive' : 'non-negative'} whole number, got "${raw}"`,
    );
  return value;
}

/** The middle value, or the mean of the two middle ones. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
