import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { rootRoute } from '../../root-route';

export const organisationRoutes = [
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/organisation/members',
    component: lazyRouteComponent(() => import('./members'), 'MembersPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/organisation/sso',
    component: lazyRouteComponent(() => import('./sso-connections'), 'SsoConnectionsPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/organisation/targets',
    component: lazyRouteComponent(() => import('./targets'), 'TargetsPage'),
  }),
] as const;
