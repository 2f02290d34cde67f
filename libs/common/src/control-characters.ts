/**
 * Control characters in text people type. A short field (a name, a target,
 * a descriptor) is one line: a line break or any other C0/C1 control or DEL
 * in it only serves to break what shows it — a CSV row, a log line, a
 * terminal. Free text (notes, descriptions) keeps line breaks and tabs and
 * refuses the rest. The patterns match the whole text when it is acceptable,
 * so they can be written into the OpenAPI document as they are.
 */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
export const SINGLE_LINE_TEXT = /^[^\u0000-\u001f\u007f-\u009f]*$/;
// eslint-disable-next-line no-control-regex -- finding control characters is the point
export const FREE_TEXT = /^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]*$/;

export const SINGLE_LINE_TEXT_ISSUE =
  'must be one line of text: no line breaks, tabs or other control characters';
export const FREE_TEXT_ISSUE =
  'must not contain control characters other than line breaks and tabs';

export function singleLineTextIssue(text: string): string | null {
  return SINGLE_LINE_TEXT.test(text) ? null : SINGLE_LINE_TEXT_ISSUE;
}

export function freeTextIssue(text: string): string | null {
  return FREE_TEXT.test(text) ? null : FREE_TEXT_ISSUE;
}
