import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';
import { AppError } from '#common';
import { cacheValidationMetadata } from './validation-metadata-cache.js';

/**
 * Validation of every body and query: unknown fields are refused, nothing is
 * coerced silently, and the first problem is reported naming its field (with a
 * suggested value for version 2 where one can be worked out).
 */
export function createValidationPipe(): ValidationPipe {
  cacheValidationMetadata();
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: true, value: true },
    exceptionFactory: (errors) => toValidationError(errors),
  });
}

export function toValidationError(errors: ValidationError[]): AppError {
  // A wrong value says more than the unknown fields beside it (a batch item with an unknown
  // `variant` has none of its fields known), so it is named first.
  const flat = flatten(errors).sort(
    (a, b) => Number(a.issue === UNKNOWN_FIELD) - Number(b.issue === UNKNOWN_FIELD),
  );
  const first = flat[0];
  if (!first) return new AppError('INVALID_REQUEST', 'Invalid request');
  const error = AppError.invalid(first.field, first.issue, first.suggestedValue);
  if (flat.length > 1) {
    error.details.errors = flat.map(({ field, issue }) => ({ field, issue }));
  }
  return error;
}

const UNKNOWN_FIELD = 'is not a recognised field';

interface FieldProblem {
  field: string;
  issue: string;
  suggestedValue: unknown;
}

function flatten(errors: ValidationError[], parent = ''): FieldProblem[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own: FieldProblem[] = error.constraints
      ? [{ field, issue: issueOf(error), suggestedValue: suggest(error) }]
      : [];
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

function issueOf(error: ValidationError): string {
  const constraints = error.constraints ?? {};
  if (constraints.whitelistValidation) return UNKNOWN_FIELD;
  // The most specific message first: presence, then type, then range.
  const order = [
    'isDefined',
    'isNotEmpty',
    'isArray',
    'isObject',
    'isString',
    'isInt',
    'isNumber',
    'isIn',
    'isEnum',
  ];
  const key = order.find((name) => constraints[name]) ?? Object.keys(constraints)[0]!;
  return constraints[key]!.replace(new RegExp(`^${error.property} `), '');
}

/** A value that would pass, from the failed constraint's own arguments. */
function suggest(error: ValidationError): unknown {
  const failed = Object.keys(error.constraints ?? {});
  const target = error.target?.constructor;
  if (!target) return undefined;
  const metadata = getMetadataStorage()
    .getTargetValidationMetadatas(target, '', true, false)
    .filter((m) => m.propertyName === error.property);
  const argument = (name: string): unknown =>
    metadata.find((m) => m.name === name)?.constraints?.[0];
  const value = error.value;
  if (failed.includes('min')) return argument('min');
  if (failed.includes('max')) return argument('max');
  if (failed.includes('maxLength') && typeof value === 'string')
    return value.slice(0, Number(argument('maxLength')));
  if (failed.includes('isInt') && typeof value === 'number' && Number.isFinite(value))
    return Math.round(value);
  if (failed.includes('isIn')) return closest(value, argument('isIn') as unknown[]);
  return undefined;
}

function closest(value: unknown, allowed: unknown[] | undefined): unknown {
  if (!allowed || allowed.length === 0) return undefined;
  if (typeof value !== 'string') return allowed[0];
  let best = allowed[0];
  let bestDistance = Infinity;
  for (const candidate of allowed) {
    const distance = editDistance(value.toLowerCase(), String(candidate).toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length]!;
}
