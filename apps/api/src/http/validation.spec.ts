import { IsIn, IsInt, Max, Min, validate } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { toValidationError } from './validation.js';

class Body {
  @IsIn(['remote_viewing', 'dowsing', 'automatic_writing'], {
    message: 'must be one of remote_viewing, dowsing, automatic_writing',
  })
  type!: string;

  @IsInt({ message: 'must be an integer between 5 and 180' })
  @Min(5, { message: 'must be an integer between 5 and 180' })
  @Max(180, { message: 'must be an integer between 5 and 180' })
  duration_minutes!: number;
}

async function problem(values: Partial<Body>) {
  const body = Object.assign(new Body(), { type: 'dowsing', duration_minutes: 30, ...values });
  return toValidationError(await validate(body)).details;
}

describe('validation errors', () => {
  it('name the field and suggest the nearest bound', async () => {
    expect(await problem({ duration_minutes: 2 })).toMatchObject({
      field: 'duration_minutes',
      suggested_value: 5,
    });
    expect(await problem({ duration_minutes: 999 })).toMatchObject({
      field: 'duration_minutes',
      suggested_value: 180,
    });
  });

  it('suggest the rounded value for a fraction and the closest spelling for an enum', async () => {
    expect(await problem({ duration_minutes: 30.4 })).toMatchObject({ suggested_value: 30 });
    expect(await problem({ type: 'dowssing' })).toMatchObject({
      field: 'type',
      suggested_value: 'dowsing',
    });
  });

  it('list every problem when there are several', async () => {
    const details = await problem({ type: 'x', duration_minutes: 1 });
    expect(details.errors).toEqual([
      { field: 'type', issue: 'must be one of remote_viewing, dowsing, automatic_writing' },
      { field: 'duration_minutes', issue: 'must be an integer between 5 and 180' },
    ]);
  });
});
