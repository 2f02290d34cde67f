import { Type } from 'class-transformer';
import { IsIn, IsInt, IsString, Max, Min, ValidateNested, validate } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { AppError } from '#common';
import { refuseNonObjectItems, toValidationError } from './validation.js';

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

class Point {
  @IsInt()
  x!: number;
}

class Line {
  @IsIn(['line'])
  kind!: 'line';

  @ValidateNested({ each: true })
  @Type(() => Point)
  points!: Point[];
}

class Label {
  @IsIn(['label'])
  kind!: 'label';

  @IsString()
  text!: string;
}

class Drawing {
  @ValidateNested({ each: true })
  @Type(() => Label, {
    discriminator: {
      property: 'kind',
      subTypes: [
        { value: Line, name: 'line' },
        { value: Label, name: 'label' },
      ],
    },
    keepDiscriminatorProperty: true,
  })
  shapes!: (Line | Label)[];

  @ValidateNested()
  @Type(() => Line)
  outline?: Line;
}

function refusal(body: unknown): unknown {
  try {
    refuseNonObjectItems(Drawing, body);
    return null;
  } catch (error) {
    return error instanceof AppError ? error.details : error;
  }
}

describe('arrays of nested objects', () => {
  it('refuse an item that is not an object, naming its place, at any depth', () => {
    for (const item of [null, 0, 'text', true, [], [{}]]) {
      expect(refusal({ shapes: [{ kind: 'label', text: 'a' }, item] })).toEqual({
        field: 'shapes.1',
        issue: 'must be an object',
      });
    }
    expect(refusal({ shapes: [{ kind: 'line', points: [{ x: 1 }, null] }] })).toMatchObject({
      field: 'shapes.0.points.1',
    });
    expect(refusal({ shapes: [], outline: { kind: 'line', points: [7] } })).toMatchObject({
      field: 'outline.points.0',
    });
  });

  it('leave everything else to the rules of the class', () => {
    expect(
      refusal({
        shapes: [
          { kind: 'label', text: 'a' },
          { kind: 'line', points: [] },
        ],
      }),
    ).toBe(null);
    // Not an array, or not an object where one belongs: @IsArray and @IsObject name them.
    expect(refusal({ shapes: null, outline: [null] })).toBe(null);
    // A label has no nested points: an unknown field is the whitelist's to refuse.
    expect(refusal({ shapes: [{ kind: 'label', points: [null] }] })).toBe(null);
  });
});
