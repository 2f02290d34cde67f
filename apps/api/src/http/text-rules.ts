import { Matches, type ValidationOptions } from 'class-validator';
import { FREE_TEXT, FREE_TEXT_ISSUE, SINGLE_LINE_TEXT, SINGLE_LINE_TEXT_ISSUE } from '#common';

/**
 * A short text field (a name, a target, a descriptor): no line breaks, tabs or
 * other control characters (400 naming the field). A pattern, so the OpenAPI
 * document states the rule too (openapi-request-rules.ts).
 */
export const SingleLineText = (options: Pick<ValidationOptions, 'each'> = {}) =>
  Matches(SINGLE_LINE_TEXT, { ...options, message: SINGLE_LINE_TEXT_ISSUE });

/** Free text (notes, descriptions): line breaks and tabs, no other control characters. */
export const FreeText = (options: Pick<ValidationOptions, 'each'> = {}) =>
  Matches(FREE_TEXT, { ...options, message: FREE_TEXT_ISSUE });
