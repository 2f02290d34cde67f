import type { Request } from 'express';

interface RouterLayer {
  route?: { methods: Record<string, boolean> };
  match(path: string): boolean;
}

/**
 * Methods registered for a path, read from Express's own router so it can never
 * disagree with what is served. Used to answer 405 with `Allow` instead of 404.
 */
export function allowedMethods(request: Request): string[] {
  const router = (request.app as unknown as { router?: { stack: RouterLayer[] } }).router;
  const methods = new Set<string>();
  for (const layer of router?.stack ?? []) {
    // Middleware mounted for every method (`app.all`, Nest's forRoutes('*')) says nothing about this path.
    if (!layer.route || answersEveryMethod(layer.route.methods) || !layer.match(request.path))
      continue;
    for (const [method, enabled] of Object.entries(layer.route.methods)) {
      if (enabled && method !== '_all') methods.add(method.toUpperCase());
    }
  }
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}

function answersEveryMethod(methods: Record<string, boolean>): boolean {
  return Boolean(
    methods._all || (methods.get && methods.post && methods.put && methods.patch && methods.delete),
  );
}
