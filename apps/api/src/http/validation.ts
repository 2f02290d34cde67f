import { createRequire } from 'node:module';
import { ValidationPipe, type ArgumentMetadata, type ValidationError } from '@nestjs/common';
import type { TypeMetadata } from 'class-transformer';
import { getMetadataStorage, ValidationTypes } from 'class-validator';
import { AppError } from '#common';
import { cacheValidationMetadata } from './validation-metadata-cache.js';

/**
 * Validation of every body and query: unknown fields are refused, nothing is
 * coerced silently, and the first problem is reported naming its field (with a
 * suggested value for version 2 where one can be worked out).
 */
export function createValidationPipe(): ValidationPipe {
  cacheValidationMetadata();
  return new ApiValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: true, value: true },
    exceptionFactory: (errors) => toValidationError(errors),
  });
}

/** Nest's pipe, with the shape of nested objects checked before class-transformer builds them. */
class ApiValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    refuseNonObjectItems(metadata.metatype, value);
    return super.transform(value, metadata);
  }
}

/**
 * class-transformer's registry of `@Type`, which its index does not export:
 * the class each nested property holds (the same module instance Nest's
 * ValidationPipe and the DTOs' decorators use: the package's CommonJS build).
 */
const typeRegistry = (
  createRequire(import.meta.url)('class-transformer/cjs/storage.js') as {
    defaultMetadataStorage: {
      findTypeMetadata(target: object, property: string): TypeMetadata | undefined;
    };
  }
).defaultMetadataStorage;

/**
 * Every array a body holds nested objects in (`@ValidateNested({ each: true })`),
 * at any depth, holds only objects: a null, a number, a string or an array in
 * it is refused naming its place (`queries.0`), before class-transformer builds
 * the nested objects — which reads a discriminated array's items (the v2
 * dowsing batch) as objects, so a null one threw a TypeError (a 500). What is
 * not an array or not an object where one belongs is left to the class's own
 * rules (`@IsArray`, `@IsObject`), which name it.
 */
export function refuseNonObjectItems(metatype: unknown, value: unknown, at = ''): void {
  if (typeof metatype !== 'function' || !isPlainObject(value)) return;
  for (const { property, each } of nestedProperties(metatype)) {
    const nested = value[property];
    const type = typeRegistry.findTypeMetadata(metatype, property);
    if (each && Array.isArray(nested)) {
      nested.forEach((item: unknown, index) => {
        const field = `${at}${property}.${index}`;
        if (!isPlainObject(item)) throw AppError.invalid(field, 'must be an object');
        refuseNonObjectItems(classOf(type, item), item, `${field}.`);
      });
    } else if (!each && isPlainObject(nested)) {
      refuseNonObjectItems(classOf(type, nested), nested, `${at}${property}.`);
    }
  }
}

const nestedByClass = new WeakMap<object, { property: string; each: boolean }[]>();

function nestedProperties(metatype: object): { property: string; each: boolean }[] {
  let nested = nestedByClass.get(metatype);
  if (nested === undefined) {
    nested = getMetadataStorage()
      .getTargetValidationMetadatas(metatype as new () => object, '', true, false)
      .filter((rule) => rule.type === ValidationTypes.NESTED_VALIDATION)
      .map((rule) => ({ property: rule.propertyName, each: rule.each }));
    nestedByClass.set(metatype, nested);
  }
  return nested;
}

/** The class class-transformer builds `item` as: its discriminated subtype, else the declared one. */
function classOf(type: TypeMetadata | undefined, item: Record<string, unknown>): unknown {
  if (type === undefined) return undefined;
  const discriminator = type.options.discriminator;
  const subtype = discriminator?.subTypes.find(
    (candidate) => candidate.name === item[discriminator.property],
  );
  return subtype?.value ?? type.typeFunction();
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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
