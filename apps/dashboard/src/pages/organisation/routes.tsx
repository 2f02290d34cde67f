import { createRoute } from '@tanstack/react-router';
import { rootRoute } from '../../root-route';
import { MembersPage } from './members';
import { SsoConnectionsPage } from './sso-connections';
import { TargetsPage } from './targets';

export const organisationRoutes = [
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/organisation/members',
    component: MembersPage,
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/organisation/sso',
    component: SsoConnectionsPage,
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/organisation/targets',
    component: TargetsPage,
  }),
] as const;
