const ISO_TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?))?$/i;

/**
 * An ISO 8601 date (midnight UTC) or date-time with `Z` or an offset (`+02`,
 * `+0200`, `+02:00`; a space for the `T`, as database exports write it) —
 * never a local time, which would depend on the server's zone — or null when
 * the text is not one or names a day that does not exist (2023-02-29).
 */
export function parseIsoTimestamp(text: string): Date | null {
  const match = ISO_TIMESTAMP.exec(text);
  if (!match) return null;
  const [, year, month, day, hour, minute, second, fraction, zone] = match;
  const fields = [year, month, day, hour ?? '0', minute ?? '0', second ?? '0'].map(Number);
  const [y, mo, d, h, mi, s] = fields as [number, number, number, number, number, number];
  if (y < 1 || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return null;
  const utc = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  utc.setUTCFullYear(y);
  if (utc.getUTCMonth() !== mo - 1 || utc.getUTCDate() !== d) return null;
  let offsetMinutes = 0;
  if (zone !== undefined && zone.toUpperCase() !== 'Z') {
    const digits = zone.slice(1).replace(':', '');
    const zoneHours = Number(digits.slice(0, 2));
    const zoneMinutes = Number(digits.slice(2) || '0');
    if (zoneHours > 23 || zoneMinutes > 59) return null;
    offsetMinutes = (zoneHours * 60 + zoneMinutes) * (zone.startsWith('-') ? -1 : 1);
  }
  const millis = fraction === undefined ? 0 : Math.floor(Number(`0.${fraction}`) * 1000);
  return new Date(utc.getTime() + millis - offsetMinutes * 60_000);
}
