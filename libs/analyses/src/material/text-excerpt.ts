/** Characters (code points) of extracted text kept as a document's excerpt. */
export const EXCERPT_LENGTH = 2000;

// C0 controls other than whitespace, and DEL: PostgreSQL's jsonb refuses NUL, and none is text.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b\u000e-\u001f\u007f]/g;

/**
 * The start of a document's text as stored and shown: control characters
 * dropped, unpaired surrogates replaced (both would make the JSON unstorable),
 * every run of whitespace one space, at most `length` code points.
 */
export function textExcerpt(text: string, length = EXCERPT_LENGTH): string {
  const collapsed = text
    .replace(CONTROL_CHARACTERS, ' ')
    .toWellFormed()
    .replace(/\s+/g, ' ')
    .trim();
  let excerpt = '';
  let count = 0;
  for (const character of collapsed) {
    if (count === length) break;
    excerpt += character;
    count += 1;
  }
  return excerpt;
}
