/**
 * A cell a spreadsheet would read as a formula (OWASP "CSV injection"):
 * text starting with `=`, `+`, `-`, `@`, a tab or a carriage return gets a
 * leading `'`, which spreadsheets show as text. Numbers are written as
 * numbers (a negative number is not a formula), so only text is changed.
 */
export function neutralizeCell(value: unknown): string | number | boolean | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (value instanceof Date) return value.toISOString();
  const text = Array.isArray(value) ? value.join('; ') : String(value);
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}
