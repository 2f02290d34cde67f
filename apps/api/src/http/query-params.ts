import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsNumber, IsOptional, Max, Min } from 'class-validator';

/**
 * Query parameters arrive as text. These read an integer only from plain
 * decimal digits — `limit=1e1`, `0x10`, `+5`, `5.0`, ` 5` or an empty value
 * stay text and are refused naming the parameter — and a number only as JSON
 * writes one (an empty value was read as 0); they document the bounds they
 * enforce, so the schema and the server agree.
 */
const INTEGER_TEXT = /^[0-9]{1,16}$/;
/** A JSON number: no hexadecimal, no `+`, no bare `.5`, no blanks. */
const DECIMAL_TEXT = /^-?(0|[1-9][0-9]{0,15})(\.[0-9]{1,16})?([eE][+-]?[0-9]{1,3})?$/;

const strictly =
  (pattern: RegExp) =>
  ({ value }: { value: unknown }): unknown =>
    typeof value === 'string' && pattern.test(value) ? Number(value) : value;

interface BoundedQuery {
  minimum: number;
  maximum: number;
  default?: number;
  description?: string;
  example?: number;
  /** The parameter's name in the query when it differs from the property's. */
  name?: string;
}

/** An optional integer query parameter within `minimum`..`maximum` (decimal digits only). */
export function IntegerQuery(options: BoundedQuery) {
  const rule = { message: `must be an integer between ${options.minimum} and ${options.maximum}` };
  return applyDecorators(
    ApiPropertyOptional({ type: 'integer', ...options }),
    IsOptional(),
    Transform(strictly(INTEGER_TEXT)),
    IsInt(rule),
    Min(options.minimum, rule),
    Max(options.maximum, rule),
  );
}

/** An optional number query parameter within `minimum`..`maximum`, written as JSON writes numbers (`0.8`, `1`, `5e-2`). */
export function NumberQuery(options: BoundedQuery) {
  const rule = { message: `must be a number from ${options.minimum} to ${options.maximum}` };
  return applyDecorators(
    ApiPropertyOptional({ type: 'number', ...options }),
    IsOptional(),
    Transform(strictly(DECIMAL_TEXT)),
    IsNumber({ allowNaN: false, allowInfinity: false }, rule),
    Min(options.minimum, rule),
    Max(options.maximum, rule),
  );
}
