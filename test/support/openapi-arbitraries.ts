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
  if (schema.enum) {
    const values = (schema.enum as unknown[]).filter((v) => v !== null);
    // `enum: [null]` (the null branch of a nullable reference) allows null alone.
    return values.length > 0 ? fc.constantFrom(...values) : fc.constant(null);
  }
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
  const malformed = fc.oneof(
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
  // The few bodies with arrays of objects (the batches) get half their invalid cases there.
  const items = nonObjectItems(context, resolved, valid);
  return items === null ? malformed : fc.oneof(malformed, items);
}

/** What may stand where an array should hold objects. */
const NOT_OBJECTS = [null, 0, 1.5, '', 'text', true, [], [{}]];

/**
 * A null or other non-object item in an array of objects, anywhere in the
 * body (`queries.0`, `queries.1.points.0`); null when the schema holds no
 * such array.
 */
function nonObjectItems(
  context: SchemaContext,
  schema: Schema,
  valid: fc.Arbitrary<unknown>,
): fc.Arbitrary<InvalidBody> | null {
  const places = objectArrays(context.document, schema);
  if (places.length === 0) return null;
  // Mostly the body's own arrays, mostly null.
  const topLevel = places.filter((place) => place.length === 1);
  const place =
    topLevel.length > 0
      ? fc.oneof(
          { weight: 3, arbitrary: fc.constantFrom(...topLevel) },
          { weight: 1, arbitrary: fc.constantFrom(...places) },
        )
      : fc.constantFrom(...places);
  const item = fc.oneof(
    { weight: 2, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.constantFrom(...NOT_OBJECTS) },
  );
  return fc.tuple(valid, place, item, fc.nat(3)).map(([body, at, bad, index]) => {
    const copy = structuredClone(objectOr(body));
    const field = insertItem(copy, at, bad, index);
    return { kind: `${field} ${JSON.stringify(bad)}`, json: copy };
  });
}

/**
 * The places of a schema's arrays of objects, as property paths where `[]`
 * steps into an array's items, a few levels deep (object, `$ref`, `oneOf`,
 * `anyOf` and `allOf` items alike).
 */
function objectArrays(document: any, schema: Schema | undefined, depth = 0): string[][] {
  const resolved = resolve(document, schema);
  if (depth > 6) return [];
  const places: string[][] = [];
  for (const part of [
    ...(resolved.oneOf ?? []),
    ...(resolved.anyOf ?? []),
    ...(resolved.allOf ?? []),
  ]) {
    places.push(...objectArrays(document, part, depth + 1));
  }
  for (const [name, property] of Object.entries(
    (resolved.properties ?? {}) as Record<string, Schema>,
  )) {
    const value = resolve(document, property);
    if (value.type === 'array') {
      const items = resolve(document, value.items);
      if (
        items.type === 'object' ||
        items.properties ||
        items.oneOf ||
        items.anyOf ||
        items.allOf
      ) {
        places.push([name]);
        places.push(
          ...objectArrays(document, items, depth + 1).map((inner) => [name, '[]', ...inner]),
        );
      }
    } else {
      places.push(...objectArrays(document, value, depth + 1).map((inner) => [name, ...inner]));
    }
  }
  const unique = new Map(places.map((place) => [place.join('.'), place]));
  return [...unique.values()];
}

/**
 * Puts `item` into the array at `place` of `body` (at `index`, or at its end
 * when shorter), making the objects and arrays on the way where the valid body
 * has none; the field path the server should name.
 */
function insertItem(
  body: Record<string, unknown>,
  place: string[],
  item: unknown,
  index: number,
): string {
  let target: Record<string, unknown> = body;
  const field: string[] = [];
  for (let i = 0; i < place.length - 1; i++) {
    const name = place[i]!;
    if (place[i + 1] === '[]') {
      const list = Array.isArray(target[name]) ? (target[name] as unknown[]) : [];
      if (list.length === 0 || objectOr(list[0]) !== list[0]) list.splice(0, list.length, {});
      target[name] = list;
      target = list[0] as Record<string, unknown>;
      field.push(name, '0');
      i++;
    } else {
      if (objectOr(target[name]) !== target[name]) target[name] = {};
      target = target[name] as Record<string, unknown>;
      field.push(name);
    }
  }
  const name = place.at(-1)!;
  const list = Array.isArray(target[name]) ? [...(target[name] as unknown[])] : [];
  const at = Math.min(index, list.length);
  list.splice(at, 0, item);
  target[name] = list;
  return [...field, name, String(at)].join('.');
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
