import { expect } from 'vitest';
import { AppError } from '../errors.js';

/**
 * The AppError a promise is refused with; fails the test when it resolves or
 * fails otherwise. Unit specs' tool (`#common/testing`): the build leaves
 * `testing/` out, and dependency-cruiser keeps it out of production code.
 */
export async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}
