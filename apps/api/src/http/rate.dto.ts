import { ApiProperty } from '@nestjs/swagger';
import type { Rate } from '#statistics';

/** The one shape of every rate (DESIGN §4): never a bare percentage. */
export class RateDto {
  @ApiProperty({ minimum: 0, maximum: 1, description: 'successes / n' })
  value!: number;

  @ApiProperty({ type: 'integer' })
  successes!: number;

  @ApiProperty({ type: 'integer' })
  n!: number;

  @ApiProperty({ minimum: 0, maximum: 1, description: 'Wilson 95 % interval, low end' })
  ci_low!: number;

  @ApiProperty({ minimum: 0, maximum: 1, description: 'Wilson 95 % interval, high end' })
  ci_high!: number;

  @ApiProperty({ minimum: 0, maximum: 1, description: 'The rate chance alone gives' })
  baseline!: number;

  @ApiProperty({
    minimum: 0,
    maximum: 1,
    description: 'Exact one-sided binomial P(X ≥ successes | n, baseline)',
  })
  p_value!: number;
}

export function rateDto(rate: Rate): RateDto {
  return {
    value: rate.value,
    successes: rate.successes,
    n: rate.n,
    ci_low: rate.ciLow,
    ci_high: rate.ciHigh,
    baseline: rate.baseline,
    p_value: rate.pValue,
  };
}
