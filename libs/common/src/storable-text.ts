/**
 * Why PostgreSQL could not store or compare this text, or null: the NUL
 * character, or an unpaired surrogate (which jsonb refuses). The one rule
 * for every request's text and every imported row's.
 */
export function storableTextIssue(text: string): string | null {
  if (text.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  return text.isWellFormed()
    ? null
    : 'must be well-formed Unicode (an unpaired surrogate such as \\ud800 cannot be stored)';
}
