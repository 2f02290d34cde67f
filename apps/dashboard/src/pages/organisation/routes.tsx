import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { rootRoute } from '../../root-route';
import { validateAuditSearch } from './audit-search';

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
    path: '/organisation/audit-log',
    component: lazyRouteComponent(() => import('./audit-log'), 'AuditLogPage'),
    // The filters live in the address: a selection can be bookmarked, shared and gone back to.
    validateSearch: validateAuditSearch,
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/organisation/targets',
    component: lazyRouteComponent(() => import('./targets'), 'TargetsPage'),
  }),
] as const;
