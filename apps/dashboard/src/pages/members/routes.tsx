import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { rootRoute } from '../../root-route';

export const memberRoutes = [
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/assignments',
    component: lazyRouteComponent(() => import('./assignments'), 'AssignmentsPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/assignments/$assignmentId',
    component: lazyRouteComponent(() => import('./assignment'), 'AssignmentPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/judging',
    component: lazyRouteComponent(() => import('./judging-tasks'), 'JudgingTasksPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/judging/$taskId',
    component: lazyRouteComponent(() => import('./judging-task'), 'JudgingTaskPage'),
  }),
] as const;
