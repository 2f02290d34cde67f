import { createRoute } from '@tanstack/react-router';
import { rootRoute } from '../../root-route';
import { AssignmentsPage } from './assignments';
import { AssignmentPage } from './assignment';
import { JudgingTasksPage } from './judging-tasks';
import { JudgingTaskPage } from './judging-task';

export const memberRoutes = [
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/assignments',
    component: AssignmentsPage,
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/assignments/$assignmentId',
    component: AssignmentPage,
  }),
  createRoute({ getParentRoute: () => rootRoute, path: '/judging', component: JudgingTasksPage }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/judging/$taskId',
    component: JudgingTaskPage,
  }),
] as const;
