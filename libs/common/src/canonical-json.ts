/**
 * Canonical JSON: object keys sorted, `undefined` members dropped, no
 * whitespace. Two equal requests therefore hash to the same seed however
 * their objects were built. Non-finite numbers have no JSON form and would
 * silently become null, so they are rejected.
 */
export type JsonValue =
  string | number | boolean | null | undefined | JsonValue[] | { [key: string]: JsonValue };

export function canonicalJson(value: JsonValue): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string')
    return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError(`canonical JSON cannot encode ${value}`);
    return JSON.stringify(value);
  }
  if (value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const members = Object.keys(value)
    .filter((key) => value[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`);
  return `{${members.join(',')}}`;
}
