import type { INestApplication, Type } from '@nestjs/common';
import { PARAMTYPES_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { MetadataScanner, ModulesContainer } from '@nestjs/core';
import type {
  OpenAPIObject,
  ParameterObject,
  ReferenceObject,
  ResponseObject,
  SchemaObject,
} from '@nestjs/swagger';
import { getMetadataStorage, ValidationTypes, type MetadataStorage } from 'class-validator';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from './error-translation.js';
import { MAX_BODY_DEPTH } from './input-guards.js';
import { requiredAlternativesOf } from './required-alternatives.js';
import { operationsOf } from './openapi-operations.js';

/**
 * The request side of the OpenAPI document says what the server enforces, so
 * generated clients, Swagger UI and fuzzers agree with it:
 *
 * - every bound a request DTO's class-validator decorators enforce (length,
 *   range, array size, uniqueness, pattern, allowed values, dates) is written into its
 *   schema — bodies and query parameters alike — from those decorators, so the
 *   two cannot drift;
 * - a body needing one field of each group (a field or its other spelling,
 *   ApiRequiredAlternatives) says so with `anyOf` of `required`;
 * - every object schema of a request body refuses unknown fields
 *   (`additionalProperties: false`), as validation does, unless it says
 *   otherwise;
 * - the 400 and 503 every operation can answer are documented on each.
 */
export function documentRequestRules(app: INestApplication, document: OpenAPIObject): void {
  documentEnforcedBounds(app, document);
  closeRequestBodySchemas(document);
  documentCommonErrors(document);
}

type Schema = SchemaObject | ReferenceObject;

function isReference(schema: Schema | undefined): schema is ReferenceObject {
  return schema !== undefined && '$ref' in schema;
}

function referencedName(schema: ReferenceObject): string {
  return schema.$ref.replace('#/components/schemas/', '');
}

// --- bounds from class-validator ---------------------------------------------

type ValidationMetadata = ReturnType<MetadataStorage['getTargetValidationMetadatas']>[number];

/** The body and query DTO classes of every route, keyed by the route's operationId (without `_vN`). */
function routeDtos(app: INestApplication): Map<string, { body?: Type; query?: Type }> {
  const scanner = new MetadataScanner();
  const routes = new Map<string, { body?: Type; query?: Type }>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as Type | null;
      if (!controller) continue;
      for (const method of scanner.getAllMethodNames(controller.prototype)) {
        const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, method) ?? {}) as Record<
          string,
          { index: number }
        >;
        const types = (Reflect.getMetadata(PARAMTYPES_METADATA, controller.prototype, method) ??
          []) as Type[];
        const route: { body?: Type; query?: Type } = {};
        for (const [key, { index }] of Object.entries(args)) {
          const [kind] = key.split(':');
          if (Number(kind) === RouteParamtypes.BODY) route.body = types[index];
          if (Number(kind) === RouteParamtypes.QUERY) route.query = types[index];
        }
        if (route.body || route.query) routes.set(`${controller.name}_${method}`, route);
      }
    }
  }
  return routes;
}

function documentEnforcedBounds(app: INestApplication, document: OpenAPIObject): void {
  const routes = routeDtos(app);
  const done = new Set<Type>();
  for (const { operation } of operationsOf(document)) {
    const route = routes.get((operation.operationId ?? '').replace(/_v\d+$/, ''));
    if (!route) continue;
    if (route.body && isDto(route.body)) boundSchemaOf(document, route.body, done);
    if (route.query && isDto(route.query)) {
      for (const parameter of (operation.parameters ?? []) as ParameterObject[]) {
        if (parameter.in !== 'query' || !parameter.schema || isReference(parameter.schema))
          continue;
        const rules = rulesOf(route.query).get(propertyOf(route.query, parameter.name));
        if (rules) applyRules(parameter.schema, rules);
      }
    }
  }
}

/** A class with validation rules (not String, Object or a plain type). */
function isDto(type: Type | undefined): type is Type {
  return (
    typeof type === 'function' &&
    getMetadataStorage().getTargetValidationMetadatas(type, '', true, false).length > 0
  );
}

/** The class's schema (named after it) and those of the DTOs nested in it. */
function boundSchemaOf(document: OpenAPIObject, type: Type, done: Set<Type>): void {
  if (done.has(type)) return;
  done.add(type);
  const schema: Schema | undefined = document.components?.schemas?.[type.name];
  if (!schema || isReference(schema)) return;
  for (const [property, rules] of rulesOf(type)) {
    const target = schema.properties?.[property];
    if (target && !isReference(target)) applyRules(target, rules);
  }
  requireAlternatives(schema, requiredAlternativesOf(type));
  for (const nested of nestedDtos(type)) boundSchemaOf(document, nested, done);
}

/** One field of each group is required (`target` or `cue`): `anyOf` of `required`, each group. */
function requireAlternatives(schema: SchemaObject, groups: string[][]): void {
  if (groups.length === 0) return;
  const grouped = new Set(groups.flat());
  const required = (schema.required ?? []).filter((field) => !grouped.has(field));
  if (required.length > 0) schema.required = required;
  else delete schema.required;
  const oneOfGroup = (group: string[]): SchemaObject => ({
    anyOf: group.map((field) => ({ required: [field] })),
  });
  if (groups.length === 1) Object.assign(schema, oneOfGroup(groups[0]!));
  else schema.allOf = [...(schema.allOf ?? []), ...groups.map(oneOfGroup)];
}

/** The query parameter's property: the same name unless the property renames it. */
function propertyOf(type: Type, parameterName: string): string {
  const renamed = Object.entries(swaggerProperties(type)).find(
    ([property, metadata]) => (metadata?.name ?? property) === parameterName,
  );
  return renamed?.[0] ?? parameterName;
}

/** @nestjs/swagger's metadata of the class's documented properties (inherited ones included). */
function swaggerProperties(type: Type): Record<string, { name?: string; type?: unknown }> {
  const names = (Reflect.getMetadata('swagger/apiModelPropertiesArray', type.prototype) ??
    []) as string[];
  return Object.fromEntries(
    names.map((entry) => {
      const property = entry.replace(/^:/, '');
      return [
        property,
        Reflect.getMetadata('swagger/apiModelProperties', type.prototype, property),
      ];
    }),
  );
}

/** DTO classes its properties are documented with (`type: [CreateSessionV1Dto]`). */
function nestedDtos(type: Type): Type[] {
  return Object.values(swaggerProperties(type)).flatMap(({ type: nested } = {}) => {
    const candidate = Array.isArray(nested) ? nested[0] : nested;
    return isDto(candidate as Type) ? [candidate as Type] : [];
  });
}

interface Rule {
  name: string;
  constraints: unknown[];
  each: boolean;
}

/** class-validator's rules of each property, inherited ones included. */
function rulesOf(type: Type): Map<string, Rule[]> {
  const rules = new Map<string, Rule[]>();
  const metadata: ValidationMetadata[] = getMetadataStorage().getTargetValidationMetadatas(
    type,
    '',
    true,
    false,
  );
  for (const entry of metadata) {
    if (entry.type !== ValidationTypes.CUSTOM_VALIDATION || !entry.name) continue;
    const list = rules.get(entry.propertyName) ?? [];
    list.push({
      name: entry.name,
      constraints: entry.constraints ?? [],
      each: entry.each ?? false,
    });
    rules.set(entry.propertyName, list);
  }
  return rules;
}

/** Writes what the rules enforce into the schema (the enforced value wins over a documented one). */
function applyRules(schema: SchemaObject, rules: Rule[]): void {
  for (const rule of rules) {
    const target = rule.each ? schema.items : schema;
    if (!target || isReference(target)) continue;
    const [first, second] = rule.constraints;
    switch (rule.name) {
      case 'isLength':
        if (typeof first === 'number' && first > 0) target.minLength = first;
        if (typeof second === 'number') target.maxLength = second;
        break;
      case 'minLength':
        if (typeof first === 'number') target.minLength = first;
        break;
      case 'maxLength':
        if (typeof first === 'number') target.maxLength = first;
        break;
      case 'min':
        if (typeof first === 'number') target.minimum = first;
        break;
      case 'max':
        if (typeof first === 'number') target.maximum = first;
        break;
      case 'arrayMinSize':
        if (typeof first === 'number') target.minItems = first;
        break;
      case 'arrayMaxSize':
        if (typeof first === 'number') target.maxItems = first;
        break;
      case 'arrayUnique':
        target.uniqueItems = true;
        break;
      case 'matches': {
        const pattern = first instanceof RegExp ? first : null;
        // A case-insensitive (or otherwise flagged) pattern has no JSON Schema spelling.
        if (pattern && pattern.flags === '') target.pattern = pattern.source;
        if (typeof first === 'string' && !second) target.pattern = first;
        break;
      }
      case 'isIn':
        if (Array.isArray(first)) target.enum = [...first];
        break;
      case 'isInt':
        target.type = 'integer';
        break;
      case 'isDateString':
        // ISO 8601 dates (2026-01-01) pass as well as date-times; `date-time` would refuse them.
        if (target.format === 'date-time') delete target.format;
        break;
    }
  }
}

// --- unknown fields -----------------------------------------------------------

/** Object schemas reached from request bodies refuse fields they do not list. */
function closeRequestBodySchemas(document: OpenAPIObject): void {
  const schemas = document.components?.schemas ?? {};
  const seen = new Set<Schema>();
  const close = (schema: Schema | undefined): void => {
    if (!schema || seen.has(schema)) return;
    seen.add(schema);
    if (isReference(schema)) return close(schemas[referencedName(schema)]);
    for (const part of [...(schema.allOf ?? []), ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])])
      close(part);
    if (schema.items) close(schema.items);
    // Only a schema listing its own fields: `additionalProperties` does not see the fields
    // of an `allOf` beside it, so closing such a wrapper would refuse every field.
    if (schema.properties) {
      schema.additionalProperties ??= false;
      for (const property of Object.values(schema.properties ?? {})) close(property);
    }
  };
  for (const { operation } of operationsOf(document)) {
    const body = operation.requestBody;
    if (!body || '$ref' in body) continue;
    const json = body.content['application/json'];
    if (json?.schema) close(json.schema);
  }
}

// --- errors every operation can answer ------------------------------------------

const ERROR_CONTENT = {
  'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelopeDto' } },
};

const BAD_INPUT: ResponseObject = {
  description: `INVALID_REQUEST (v2: VALIDATION_ERROR) naming the field: refused before the route reads it — malformed JSON, a body nested more than ${MAX_BODY_DEPTH} levels deep, or the NUL character (U+0000) in the body, the query or the path`,
  content: ERROR_CONTENT,
};

const TOO_LARGE: ResponseObject = {
  description: 'PAYLOAD_TOO_LARGE: the body is larger than BODY_LIMIT (1 MiB unless configured)',
  content: ERROR_CONTENT,
};

const NOT_JSON: ResponseObject = {
  description:
    'UNSUPPORTED_MEDIA_TYPE: the body is not `application/json` (or is in an unsupported charset)',
  content: ERROR_CONTENT,
};

const DATABASE_UNAVAILABLE = `PostgreSQL cannot be reached: SERVICE_UNAVAILABLE with \`Retry-After\` (${UNAVAILABLE_RETRY_AFTER_SECONDS} seconds); nothing was done, retry`;

const RETRY_AFTER = {
  'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } },
};

/**
 * Input is checked (depth, NUL) before any route runs, so every operation
 * documents 400, and every JSON body's 413 and 415 (a route that already
 * documents one keeps its own words). Every
 * authenticated route reads PostgreSQL and documents 503 already (request
 * limits); its description gains the database.
 */
function documentCommonErrors(document: OpenAPIObject): void {
  for (const { operation } of operationsOf(document)) {
    const responses = operation.responses;
    responses['400'] ??= BAD_INPUT;
    // Every JSON body goes through the same parser, with its size limit and content type.
    const body = operation.requestBody;
    if (body && !('$ref' in body) && body.content['application/json']) {
      responses['413'] ??= TOO_LARGE;
      responses['415'] ??= NOT_JSON;
    }
    const unavailable = responses['503'];
    if (
      unavailable !== undefined &&
      !('$ref' in unavailable) &&
      JSON.stringify(unavailable.content ?? {}).includes('ErrorEnvelopeDto') &&
      !unavailable.description.includes('PostgreSQL')
    ) {
      unavailable.description = `${unavailable.description}. Also when ${DATABASE_UNAVAILABLE}`;
      unavailable.headers = { ...RETRY_AFTER, ...unavailable.headers };
    }
  }
}
