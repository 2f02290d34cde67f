import { AppError } from '#common';
import type { DowsingPeople } from '#dowsing';
import {
  dowsingRequestProblem,
  MATERIALS,
  type DowsingContext,
  type DowsingQueryType,
  type DowsingRequest,
  type DowsingVariant,
  type DowsingVariantInput,
} from '#engines';
import {
  MAX_PARAMETER_KEYS,
  MAX_PARAMETERS_BYTES,
  type ChartAnalysisDto,
  type DepthAnalysisDto,
  type DowsingContextDto,
  type DowsingQueryDto,
  type EnergyDetectionDto,
  type EnergyMapDto,
  type LocationFindingDto,
  type MaterialIdentificationDto,
  type MultiPointDto,
} from './dowsing-request.dto.js';
import { type WorkTaskingFields, workPeople } from '../assignments/work-tasking.dto.js';

/** The tasking fields of any dowsing body, in the service's form. */
export function dowsingPeople(
  body: {
    analyst_count?: number;
    duration_minutes?: number;
  } & WorkTaskingFields,
): DowsingPeople {
  return {
    ...workPeople(body),
    analystCount: body.analyst_count,
    durationMinutes: body.duration_minutes,
  };
}

/** What each variant asks when the body gives no question, and of which type its answer is. */
export const VARIANT_DEFAULTS: Record<
  Exclude<DowsingVariant, 'query'>,
  { queryType: DowsingQueryType; question: string }
> = {
  multi_point: { queryType: 'location', question: 'Which of these points reads strongest?' },
  energy_map: { queryType: 'location', question: 'Where in this area is the energy strongest?' },
  depth_analysis: { queryType: 'information', question: 'How deep is it?' },
  material_identification: { queryType: 'information', question: 'What material is this?' },
  chart_analysis: { queryType: 'information', question: 'Which option does the chart show?' },
  location_finding: { queryType: 'location', question: 'Where is what is sought?' },
  energy_detection: { queryType: 'information', question: 'What energy is present here?' },
};

const DEFAULT_MAX_DEPTH_METERS = 100;
const DEFAULT_MAX_CANDIDATES = 3;

/** The plain query (POST /v1/dowsing/query). `at` prefixes field names inside a batch (`queries.3.`). */
export function queryRequest(body: DowsingQueryDto, at = ''): DowsingRequest {
  const context = contextOf(body.context, at);
  if (body.query_type === 'location' && !context.location) {
    throw AppError.invalid(`${at}context.location`, 'is required for a location query');
  }
  return answerable(
    {
      queryType: body.query_type,
      question: question(body.question, at),
      precisionLevel: body.precision_level ?? 'standard',
      context,
      input: { variant: 'query' },
    },
    at,
  );
}

/** A variant's body, with its input checked beyond what the DTO can say. */
export function variantRequest(
  variant: Exclude<DowsingVariant, 'query'>,
  body:
    | MultiPointDto
    | EnergyMapDto
    | DepthAnalysisDto
    | MaterialIdentificationDto
    | ChartAnalysisDto
    | LocationFindingDto
    | EnergyDetectionDto,
  at = '',
): DowsingRequest {
  const defaults = VARIANT_DEFAULTS[variant];
  return answerable(
    {
      queryType: defaults.queryType,
      question: question(body.question ?? defaults.question, at),
      precisionLevel: body.precision_level ?? 'standard',
      context: contextOf(body.context, at),
      input: variantInput(variant, body, at),
    },
    at,
  );
}

/**
 * The engine's own preconditions, as a 400 naming the field: the checks above
 * say it better where they can, and this keeps anything they miss from
 * reaching the engine (which would refuse it with an error, a 500).
 */
function answerable(request: DowsingRequest, at: string): DowsingRequest {
  const problem = dowsingRequestProblem(request);
  if (problem === null) return request;
  const match = /^([\w.[\]]+?)(?::\s*|\s+)(.*)$/.exec(problem);
  const field = (match?.[1] ?? 'body').replace(/\[(\d*)\]/g, (_, i: string) => (i ? `.${i}` : ''));
  throw AppError.invalid(`${at}${field}`, match?.[2] ?? problem);
}

function variantInput(
  variant: Exclude<DowsingVariant, 'query'>,
  body: object,
  at: string,
): DowsingVariantInput {
  switch (variant) {
    case 'multi_point': {
      const { points } = body as MultiPointDto;
      const names = new Set<string>();
      points.forEach((point, i) => {
        if (names.has(point.name)) {
          throw AppError.invalid(
            `${at}points.${i}.name`,
            'must differ from the other points’ names',
          );
        }
        names.add(point.name);
      });
      return {
        variant,
        points: points.map(({ name, latitude, longitude }) => ({ name, latitude, longitude })),
      };
    }
    case 'energy_map': {
      const { bounds, grid } = body as EnergyMapDto;
      if (bounds.north <= bounds.south) {
        throw AppError.invalid(`${at}bounds.north`, 'must be north of south');
      }
      if (bounds.east === bounds.west) {
        throw AppError.invalid(`${at}bounds.east`, 'must differ from west');
      }
      if (grid.rows * grid.columns < 2) {
        throw AppError.invalid(`${at}grid`, 'must have at least 2 cells');
      }
      return { variant, bounds: { ...bounds }, grid: { rows: grid.rows, columns: grid.columns } };
    }
    case 'depth_analysis': {
      const { point, max_depth_meters } = body as DepthAnalysisDto;
      return {
        variant,
        point: { latitude: point.latitude, longitude: point.longitude },
        max_depth_meters: max_depth_meters ?? DEFAULT_MAX_DEPTH_METERS,
      };
    }
    case 'material_identification': {
      const { point, sample_description, candidates } = body as MaterialIdentificationDto;
      candidates?.forEach((candidate, i) => {
        if (!(MATERIALS as readonly string[]).includes(candidate)) {
          throw AppError.invalid(`${at}candidates.${i}`, `must be one of ${MATERIALS.join(', ')}`);
        }
      });
      if (!point && sample_description === undefined) {
        throw AppError.invalid(
          `${at}sample_description`,
          'send a point, a sample_description, or both',
        );
      }
      return {
        variant,
        point: point ? { latitude: point.latitude, longitude: point.longitude } : null,
        sample_description: sample_description ?? null,
        candidates: candidates ?? null,
      };
    }
    case 'chart_analysis': {
      const { chart_type, options } = body as ChartAnalysisDto;
      return { variant, chart_type: chart_type ?? 'pendulum', options: [...options] };
    }
    case 'location_finding': {
      const { area, sought, max_candidates } = body as LocationFindingDto;
      return {
        variant,
        area: {
          latitude: area.latitude,
          longitude: area.longitude,
          radius_meters: area.radius_meters,
        },
        sought,
        max_candidates: max_candidates ?? DEFAULT_MAX_CANDIDATES,
      };
    }
    case 'energy_detection': {
      const { point, window } = body as EnergyDetectionDto;
      const from = new Date(window.from);
      const to = new Date(window.to);
      if (to < from) throw AppError.invalid(`${at}window.to`, 'must not be before from');
      return {
        variant,
        point: { latitude: point.latitude, longitude: point.longitude },
        window: { from: from.toISOString(), to: to.toISOString() },
      };
    }
  }
}

function question(text: string, at: string): string {
  if (text.trim() === '') throw AppError.invalid(`${at}question`, 'must not be blank');
  return text;
}

/** The context with its free parameters bounded: at most 50 keys and 8 KiB, `options` 2–100 strings. */
function contextOf(context: DowsingContextDto | undefined, at: string): DowsingContext {
  if (!context) return {};
  const { location, timeframe, parameters } = context;
  if (parameters !== undefined) {
    if (Object.keys(parameters).length > MAX_PARAMETER_KEYS) {
      throw AppError.invalid(
        `${at}context.parameters`,
        `can hold at most ${MAX_PARAMETER_KEYS} keys`,
      );
    }
    if (Buffer.byteLength(JSON.stringify(parameters)) > MAX_PARAMETERS_BYTES) {
      throw AppError.invalid(
        `${at}context.parameters`,
        `must be at most ${MAX_PARAMETERS_BYTES / 1024} KiB as JSON`,
      );
    }
    const options = parameters.options;
    if (
      options !== undefined &&
      (!Array.isArray(options) ||
        options.length < 2 ||
        options.length > 100 ||
        options.some(
          (option) => typeof option !== 'string' || option.length < 1 || option.length > 200,
        ))
    ) {
      throw AppError.invalid(
        `${at}context.parameters.options`,
        'must be an array of 2 to 100 distinct strings of 1 to 200 characters',
      );
    }
  }
  return {
    ...(location && {
      location: {
        latitude: location.latitude,
        longitude: location.longitude,
        radius_meters: location.radius_meters,
      },
    }),
    ...(timeframe && { timeframe }),
    ...(parameters && { parameters }),
  };
}
