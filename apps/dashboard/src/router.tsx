import { createRootRoute, createRoute, createRouter } from '@tanstack/react-router';
import { ApiKeysPage } from './pages/api-keys';
import { NotFoundPage } from './pages/not-found';
import { OverviewPage } from './pages/overview';
import { WebhooksPage } from './pages/webhooks';
import { Shell } from './shell';

const rootRoute = createRootRoute({ component: Shell, notFoundComponent: NotFoundPage });
const routes = [
  createRoute({ getParentRoute: () => rootRoute, path: '/', component: OverviewPage }),
  createRoute({ getParentRoute: () => rootRoute, path: '/api-keys', component: ApiKeysPage }),
  createRoute({ getParentRoute: () => rootRoute, path: '/webhooks', component: WebhooksPage }),
];

export function createAppRouter() {
  return createRouter({ routeTree: rootRoute.addChildren(routes), basepath: '/dashboard' });
}

declare module '@tanstack/react-router' {
  interface Register {
    router: ReturnType<typeof createAppRouter>;
  }
}
