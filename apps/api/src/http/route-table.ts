import type { NextFunction, Request, Response } from 'express';
import { AppError } from '#common';
import { routerLayers, type RouterLayer } from './prefix-routing.js';

/** Express's own router layers, so these answers can never disagree with what is served. */
function routeLayers(request: Request): RouterLayer[] {
  // Middleware mounted for every method (`app.all`, Nest's forRoutes('*')) says nothing about a path.
  return routerLayers(request.app).filter(
    (layer) => layer.route !== undefined && !answersEveryMethod(layer.route.methods),
  );
}

function matchOf(layer: RouterLayer, path: string): false | { params: Record<string, string> } {
  try {
    return layer.match(path);
  } catch {
    // A parameter that is not valid percent-encoding.
    return false;
  }
}

function matches(layer: RouterLayer, path: string): boolean {
  return matchOf(layer, path) !== false;
}

/**
 * Methods a path answers. Used to answer 405 with `Allow` instead of 404. A
 * path that is a route of its own answers only its own methods, whatever a
 * parameterised route would match (preferLiteralRoutes refuses the others).
 */
export function allowedMethods(request: Request): string[] {
  return (
    literalRoutes(request).get(literalKey(request.path)) ??
    methodsOf(routeLayers(request).filter((layer) => matches(layer, request.path)))
  );
}

function methodsOf(layers: RouterLayer[]): string[] {
  const methods = new Set<string>();
  for (const layer of layers) {
    for (const [method, enabled] of Object.entries(layer.route!.methods)) {
      if (enabled && method !== '_all') methods.add(method.toUpperCase());
    }
  }
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}

/**
 * The decoded path parameters of the route this request reaches (by method,
 * else any), `undecodable` when that route's parameters are not valid
 * percent-encoding, or null when no route matches.
 */
export function routeParams(request: Request): Record<string, string> | 'undecodable' | null {
  const layers = routeLayers(request);
  const method = request.method.toLowerCase();
  let undecodable = false;
  const matched = (candidates: RouterLayer[]) => {
    for (const layer of candidates) {
      try {
        const match = layer.match(request.path);
        if (match) return match.params;
      } catch {
        undecodable = true;
      }
    }
    return null;
  };
  const params = matched(layers.filter((layer) => layer.route!.methods[method])) ?? matched(layers);
  if (params) return { ...params };
  return undecodable ? 'undecodable' : null;
}

/**
 * A path that is a route of its own (`/v2/sessions/create`, no parameters)
 * answers 405 to the other methods, even when a parameterised route of that
 * method would take its last segment as an id (`GET /v2/sessions/{session_id}`
 * reading "create"): the literal path names the resource the client meant.
 */
export function preferLiteralRoutes(
  request: Request,
  _response: Response,
  next: NextFunction,
): void {
  const allow = literalRoutes(request).get(literalKey(request.path));
  if (allow === undefined || allow.includes(request.method) || request.method === 'OPTIONS') {
    return next();
  }
  next(
    new AppError(
      'METHOD_NOT_ALLOWED',
      `${request.method} is not allowed on ${request.path}`,
      { issue: `allowed methods: ${allow.join(', ')}` },
      { Allow: allow.join(', ') },
    ),
  );
}

/** Routes are fixed once an application serves, so each router's literal routes are read once. */
const literalRouteTables = new WeakMap<object, Map<string, string[]>>();

function literalRoutes(request: Request): Map<string, string[]> {
  const router = (request.app as unknown as { router?: object }).router ?? request.app;
  let table = literalRouteTables.get(router);
  if (table === undefined) {
    const byPath = new Map<string, RouterLayer[]>();
    for (const layer of routeLayers(request)) {
      if (/[:*{]/.test(layer.route!.path)) continue;
      const key = literalKey(layer.route!.path);
      byPath.set(key, [...(byPath.get(key) ?? []), layer]);
    }
    table = new Map([...byPath].map(([path, layers]) => [path, methodsOf(layers)]));
    literalRouteTables.set(router, table);
  }
  return table;
}

/** Express matches paths case-insensitively and with or without a trailing slash. */
function literalKey(path: string): string {
  return path.toLowerCase().replace(/\/+$/, '') || '/';
}

function answersEveryMethod(methods: Record<string, boolean>): boolean {
  return Boolean(
    methods._all || (methods.get && methods.post && methods.put && methods.patch && methods.delete),
  );
}
