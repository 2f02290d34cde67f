import { createRoute, createRouter } from '@tanstack/react-router';
import { ApiKeysPage } from './pages/api-keys';
import { historyRoutes } from './pages/history/routes';
import { memberRoutes } from './pages/members/routes';
import { organisationRoutes } from './pages/organisation/routes';
import { OverviewPage } from './pages/overview';
import { WebhooksPage } from './pages/webhooks';
import { workRoutes } from './pages/work/routes';
import { rootRoute } from './root-route';

const routeTree = rootRoute.addChildren([
  createRoute({ getParentRoute: () => rootRoute, path: '/', component: OverviewPage }),
  createRoute({ getParentRoute: () => rootRoute, path: '/api-keys', component: ApiKeysPage }),
  createRoute({ getParentRoute: () => rootRoute, path: '/webhooks', component: WebhooksPage }),
  ...workRoutes,
  ...historyRoutes,
  ...organisationRoutes,
  ...memberRoutes,
]);

export function createAppRouter() {
  return createRouter({ routeTree, basepath: '/dashboard' });
}

declare module '@tanstack/react-router' {
  interface Register {
    router: ReturnType<typeof createAppRouter>;
  }
}
