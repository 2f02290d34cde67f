import { ValidateIf } from 'class-validator';

/**
 * An optional field: left out, its rules are skipped; sent as `null`, it is
 * checked like any other value (and refused), not read as "absent" the way
 * class-validator's IsOptional() reads it.
 */
export const Optional = () => ValidateIf((_object: object, value: unknown) => value !== undefined);

/** An optional field that may also be `null` (a PATCH clearing it): both skip its rules. */
export const OptionalOrNull = () =>
  ValidateIf((_object: object, value: unknown) => value !== null && value !== undefined);
