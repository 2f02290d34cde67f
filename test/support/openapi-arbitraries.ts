import fc from 'fast-check';
import { resolve, type Schema } from './openapi-document.js';

/**
 * fast-check arbitraries built from the OpenAPI document's schemas: values a
 * schema allows, and values it does not (wrong types, out of range, unknown
 * fields, missing fields, huge and odd strings, NUL, deep nesting).
 */

/** Values that have broken parsers, databases and templates somewhere. */
export const NASTY_STRINGS = [
  '',
  ' ',
  'null',
  'undefined',
  '0',
  '-1',
  'true',
  '[]',
  '{}',
  "'; DROP TABLE sessions; --",
  '" OR "1"="1',
  '<script>alert(1)</script>',
  '../../../../etc/passwd',
  '%00',
  '%E0%A4%A',
  '\\u0000',
  '\u0000',
  'a\u0000b',
  '\u202Eevil',
  '\uFEFFbom',
  '\uD800',
  '𝕳𝖊𝖑𝖑𝖔 👩‍👩‍👧‍👦',
  'ﾟ･✿ヾ╲(｡◕‿◕｡)╱✿･ﾟ',
  '\r\nX-Injected: 1',
  'sess_01jh2x7v4ke8rbk3a8y0v0d7qz',
  'x'.repeat(1_001),
  'x'.repeat(70_000),
];

/** Query values an integer, number, boolean or date parameter must refuse or read strictly. */
export const NASTY_QUERY_VALUES = [
  ...NASTY_STRINGS.filter((value) => value.length < 2_000),
  '1e1',
  '0x10',
  '+5',
  '5.0',
  ' 5',
  '9223372036854775807',
  '-9223372036854775809',
  '1e309',
  'NaN',
  'Infinity',
  '0.1',
  '2026-02-30',
  '2026-13-01T00:00:00Z',
  'x'.repeat(3_000),
];

export interface SchemaContext {
  document: any;
  /** Arbitraries for properties and parameters by name (real ids, reachable URLs, known names). */
  hints: Record<string, fc.Arbitrary<unknown>>;
}

const plainText = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 24 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 16 }) },
  { weight: 1, arbitrary: fc.constantFrom(...NASTY_STRINGS.filter((s) => !s.includes('\u0000'))) },
);

/** A value the schema allows (NUL never: it is refused by design). */
export function validValue(
  context: SchemaContext,
  schema: Schema | undefined,
  name?: string,
  depth = 0,
): fc.Arbitrary<unknown> {
  const resolved = resolve(context.document, schema);
  let value = validOfType(context, resolved, depth);
  if (resolved.nullable) value = fc.option(value, { nil: null, freq: 5 });
  // A hint (a real id, a reachable URL) reaches deeper; the schema's own values still come up.
  const hint = name === undefined ? undefined : context.hints[name];
  return hint ? fc.oneof({ weight: 3, arbitrary: hint }, { weight: 1, arbitrary: value }) : value;
}

function validOfType(context: SchemaContext, schema: Schema, depth: number): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...(schema.enum as unknown[]).filter((v) => v !== null));
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (schema[key]) {
      return fc.oneof(
        ...(schema[key] as Schema[]).map((part) => validValue(context, part, undefined, depth + 1)),
      );
    }
  }
  const type = schema.type ?? (schema.properties ? 'object' : undefined);
  switch (type) {
    case 'string':
      return stringOf(schema);
    case 'integer':
      return fc.integer({
        min: schema.minimum ?? -1_000_000,
        max: schema.maximum ?? 1_000_000,
      });
    case 'number':
      return fc.double({
        min: schema.minimum ?? -1e6,
        max: schema.maximum ?? 1e6,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'array': {
      const items = validValue(context, schema.items, undefined, depth + 1);
      const bounds = {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 4, Math.max(schema.minItems ?? 0, 4)),
      };
      return schema.uniqueItems
        ? fc.uniqueArray(items, { ...bounds, selector: (item) => JSON.stringify(item) })
        : fc.array(items, bounds);
    }
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      if (Object.keys(properties).length === 0) {
        return depth > 3
          ? fc.constant({})
          : fc.dictionary(fc.string({ maxLength: 8 }), plainText, { maxKeys: 3 });
      }
      return fc.record(
        Object.fromEntries(
          Object.entries(properties).map(([property, propertySchema]) => [
            property,
            validValue(context, propertySchema, property, depth + 1),
          ]),
        ),
        { requiredKeys: (schema.required ?? []) as string[] },
      );
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function stringOf(schema: Schema): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = Math.min(schema.maxLength ?? 40, Math.max(min, 40));
  if (schema.format === 'date-time') {
    return fc
      .date({
        min: new Date('2000-01-01T00:00:00Z'),
        max: new Date('2099-12-31T00:00:00Z'),
        noInvalidDate: true,
      })
      .map((date) => date.toISOString());
  }
  if (schema.format === 'uri') return fc.webUrl();
  if (schema.pattern) {
    return fc
      .stringMatching(new RegExp(schema.pattern))
      .filter((text) => text.length >= min && text.length <= (schema.maxLength ?? Infinity));
  }
  return fc.oneof(
    fc.string({ minLength: min, maxLength: max }),
    fc.string({ unit: 'grapheme', minLength: min, maxLength: max }),
  );
}

/** `{"a": {"a": … 1}}`, `levels` deep, as JSON text (JSON.stringify overflows on deep values). */
export function deeplyNested(levels: number): string {
  return `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
}

const JSON_TYPE = 'application/json';

export interface InvalidBody {
  kind: string;
  json?: unknown;
  /** A body sent as it is, with its content type. */
  raw?: { body: string; contentType: string };
}

const wrongTypeValues = fc.constantFrom<unknown>(
  null,
  true,
  0,
  -1,
  1.5,
  1e308,
  -1e308,
  2 ** 53 + 2,
  '',
  'text',
  [],
  [1, 2],
  {},
  { nested: { deeper: true } },
);

/** A body the schema does not allow, made from a valid one. */
export function invalidBody(context: SchemaContext, schema: Schema): fc.Arbitrary<InvalidBody> {
  const resolved = resolve(context.document, schema);
  const valid = validValue(context, resolved);
  const properties = Object.keys(resolved.properties ?? {});
  const property = properties.length > 0 ? fc.constantFrom(...properties) : fc.constant('x');
  const withProperty = (make: (body: any, name: string) => InvalidBody) =>
    fc.tuple(valid, property).map(([body, name]) => make(objectOr(body), name));
  return fc.oneof(
    withProperty((body, name) => ({ kind: 'unknown field', json: { ...body, [`${name}_x`]: 1 } })),
    withProperty((body, name) => {
      const copy = { ...body };
      delete copy[name];
      return { kind: `without ${name}`, json: copy };
    }),
    fc.tuple(valid, property, wrongTypeValues).map(([body, name, value]) => ({
      kind: `${name} of another type`,
      json: { ...objectOr(body), [name]: value },
    })),
    fc.tuple(valid, property).chain(([body, name]) =>
      outOfRange(context, resolved.properties?.[name]).map((value) => ({
        kind: `${name} out of range`,
        json: { ...objectOr(body), [name]: value },
      })),
    ),
    fc.tuple(valid, property, fc.constantFrom(...NASTY_STRINGS)).map(([body, name, text]) => ({
      kind: `${name} odd text`,
      json: { ...objectOr(body), [name]: text },
    })),
    fc.tuple(valid, property).map(([body, name]) => ({
      kind: `${name} with NUL`,
      json: { ...objectOr(body), [name]: `a\u0000${textOf(objectOr(body)[name])}` },
    })),
    fc.tuple(valid, property, fc.integer({ min: 30, max: 20_000 })).map(([body, name, levels]) => ({
      kind: `${name} nested ${levels} deep`,
      raw: {
        body: JSON.stringify({ ...objectOr(body), [name]: '\u0001deep' }).replace(
          '"\\u0001deep"',
          deeplyNested(levels),
        ),
        contentType: JSON_TYPE,
      },
    })),
    fc.tuple(valid, property).map(([body, name]) => ({
      kind: `${name} huge`,
      json: { ...objectOr(body), [name]: 'x'.repeat(200_000) },
    })),
    fc.constantFrom<InvalidBody>(
      { kind: 'body null', json: null },
      { kind: 'body array', json: [] },
      { kind: 'body string', json: 'text' },
      { kind: 'body number', json: 42 },
      { kind: 'body deeply nested', raw: { body: deeplyNested(10_000), contentType: JSON_TYPE } },
      { kind: 'malformed JSON', raw: { body: '{"a": ', contentType: JSON_TYPE } },
      { kind: 'not JSON', raw: { body: 'a=1&b=2', contentType: 'text/plain' } },
      { kind: 'form', raw: { body: 'a=1', contentType: 'application/x-www-form-urlencoded' } },
      {
        kind: 'too large',
        raw: { body: `{"a":"${'x'.repeat(1_100_000)}"}`, contentType: JSON_TYPE },
      },
      {
        kind: 'bad charset',
        raw: { body: '{}', contentType: 'application/json; charset=utf-7' },
      },
    ),
  );
}

/** Just past each bound the schema states (or a value of another type when it states none). */
function outOfRange(context: SchemaContext, schema: Schema | undefined): fc.Arbitrary<unknown> {
  const resolved = resolve(context.document, schema);
  const values: unknown[] = [];
  if (typeof resolved.minimum === 'number')
    values.push(resolved.minimum - 1, resolved.minimum - 0.5);
  if (typeof resolved.maximum === 'number')
    values.push(resolved.maximum + 1, resolved.maximum + 0.5);
  if (resolved.type === 'integer') values.push(1.5, 2 ** 53 + 2, -(2 ** 63));
  if (typeof resolved.minLength === 'number' && resolved.minLength > 0) {
    values.push('x'.repeat(resolved.minLength - 1));
  }
  if (typeof resolved.maxLength === 'number') values.push('x'.repeat(resolved.maxLength + 1));
  if (typeof resolved.maxItems === 'number') {
    values.push(Array.from({ length: resolved.maxItems + 1 }, (_, index) => `item-${index}`));
  }
  if (typeof resolved.minItems === 'number' && resolved.minItems > 0) values.push([]);
  if (resolved.enum) values.push('not-one-of-them', String(resolved.enum[0]).toUpperCase());
  return values.length > 0 ? fc.constantFrom(...values) : wrongTypeValues;
}

function textOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function objectOr(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
