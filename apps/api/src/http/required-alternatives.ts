import type { Type } from '@nestjs/common';

const REQUIRED_ALTERNATIVES = 'sas:required-alternatives';

/**
 * A body that needs one field of each group, whichever is given — a field or
 * its other spelling (`target` or `cue`). `required` would refuse the other
 * spelling, so the OpenAPI document states each group as `anyOf` of
 * `required` (openapi-request-rules.ts); the server checks the groups itself.
 * A subclass's groups replace its parent's.
 */
export function ApiRequiredAlternatives(...groups: string[][]): ClassDecorator {
  return (target) => Reflect.defineMetadata(REQUIRED_ALTERNATIVES, groups, target);
}

/** The class's groups (inherited ones included), none if it has none. */
export function requiredAlternativesOf(type: Type): string[][] {
  return (Reflect.getMetadata(REQUIRED_ALTERNATIVES, type) as string[][] | undefined) ?? [];
}
