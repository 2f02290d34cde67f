import type { Type } from '@nestjs/common';
import { getSchemaPath } from '@nestjs/swagger';

/**
 * An object of `type`, or null. OpenAPI 3.0's `nullable` beside a `$ref`
 * (as `nullable: true` on a class property writes it) still requires the
 * referenced object, so null is its own alternative. Register the class
 * with ApiExtraModels where it is used.
 */
export function nullableRef(type: Type) {
  return {
    oneOf: [
      { $ref: getSchemaPath(type) },
      { type: 'object' as const, nullable: true, enum: [null] },
    ],
  };
}

/**
 * A nullable object written out in place: OpenAPI 3.0 has no nullable $ref (a
 * `nullable` beside `allOf` is ignored by validators), so small objects that
 * may be null are inline schemas.
 */
export function nullableObject(properties: Record<string, Record<string, unknown>>) {
  return {
    type: 'object',
    nullable: true,
    required: Object.keys(properties),
    properties,
  } as const;
}
