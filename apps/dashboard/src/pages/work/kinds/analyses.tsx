import type { Analysis, AnalysisListItem, CreateAnalysis } from '@sas/sdk';
import { Status } from '../common';
import { finishFact, WorkDetailPage } from '../detail';
import { dateTime, words } from '../format';
import { confidenceColumn, createdColumn, type FormValues, type WorkKind } from '../kind';
import { WorkListPage } from '../list';
import { ANALYSIS_FILTERS, PRIORITIES, TARGET_TYPES } from '../search';
import { AnalysisSections } from './analysis-results';

const lines = (text: string) =>
  text
    .split(/\s*\n\s*/)
    .map((line) => line.trim())
    .filter(Boolean);

function analysisBody(form: FormValues) {
  const photos = lines(form.photos!);
  const documents = lines(form.documents!);
  const material = {
    ...(photos.length ? { photos } : {}),
    ...(documents.length ? { documents } : {}),
    ...(form.latitude !== '' || form.longitude !== ''
      ? { coordinates: { latitude: Number(form.latitude), longitude: Number(form.longitude) } }
      : {}),
  };
  const description = form.description!.trim();
  return {
    target_type: form.targetType,
    ...(description ? { description } : {}),
    ...(form.depth ? { analysis_type: form.depth } : {}),
    ...(form.priority ? { priority: form.priority } : {}),
    ...(Object.keys(material).length ? { reference_material: material } : {}),
  } as CreateAnalysis;
}

const analyses: WorkKind<AnalysisListItem, Analysis, CreateAnalysis, { analysis_id: string }> = {
  api: (client) => client.analyses,
  path: '/analyses',
  keys: { list: 'analyses', one: 'analysis' },
  link: (analysisId) => ({ to: '/analyses/$analysisId', params: { analysisId } }),
  title: 'Analyses',
  create: {
    id: 'new-analysis',
    heading: 'Analyse a target',
    form: [
      {
        name: 'targetType',
        as: 'select',
        label: 'Target type',
        fields: ['target_type'],
        initial: 'location',
        choices: { values: TARGET_TYPES },
      },
      {
        name: 'description',
        as: 'input',
        label: 'Description (optional)',
        fields: ['description'],
        hint: 'What the target is; earlier work with the same description is cross-referenced.',
      },
      {
        name: 'depth',
        as: 'select',
        label: 'Depth',
        fields: ['analysis_type'],
        choices: {
          values: ['comprehensive', 'quick_scan', 'deep_dive'],
          any: 'Default (comprehensive)',
        },
      },
      {
        name: 'priority',
        as: 'select',
        label: 'Priority',
        fields: ['priority'],
        choices: { values: PRIORITIES, any: 'Default (medium)' },
      },
      {
        legend: 'Reference material (optional)',
        controls: [
          {
            name: 'photos',
            as: 'textarea',
            label: 'Photo URLs',
            fields: ['reference_material.photos'],
            hint: 'https addresses, one a line (up to 20)',
            rows: 3,
            cols: 40,
          },
          {
            name: 'documents',
            as: 'textarea',
            label: 'Document URLs',
            fields: ['reference_material.documents'],
            hint: 'PDF or plain text, one a line (up to 20)',
            rows: 3,
            cols: 40,
          },
          {
            name: 'latitude',
            as: 'input',
            label: 'Latitude',
            fields: ['reference_material.coordinates.latitude', 'reference_material.coordinates'],
            type: 'number',
            step: 'any',
          },
          {
            name: 'longitude',
            as: 'input',
            label: 'Longitude',
            fields: ['reference_material.coordinates.longitude'],
            type: 'number',
            step: 'any',
          },
        ],
      },
    ],
    body: analysisBody,
    simulatorTakes: 'completes in seconds',
    submit: 'Submit analysis',
    submitting: 'Submitting…',
    created: (submitted) => submitted.analysis_id,
  },
  list: {
    id: 'analysis-list',
    heading: 'Your analyses',
    filtersLabel: 'Filter analyses',
    filters: ANALYSIS_FILTERS,
    empty: {
      filtered: 'No analysis matches these filters. Clear a filter to see more.',
      none: 'No analyses yet in this mode. Submit a target with the form above, or from the API.',
    },
    caption: 'Analyses, newest first',
    columns: [
      { label: 'Analysis', cell: (analysis) => <code>{analysis.analysis_id}</code> },
      {
        label: 'Target',
        cell: (analysis) =>
          `${words(analysis.target_type)}${analysis.description ? `: ${analysis.description}` : ''}`,
      },
      { label: 'Depth', cell: (analysis) => words(analysis.analysis_type) },
      { label: 'Priority', cell: (analysis) => analysis.priority },
      {
        label: 'Status',
        cell: (analysis) => (
          <>
            <Status value={analysis.status} />
            {analysis.status === 'processing' && ` ${analysis.progress} %`}
          </>
        ),
      },
      confidenceColumn((analysis) => analysis.confidence_score),
      createdColumn(),
    ],
    idOf: (analysis) => analysis.analysis_id,
  },
  detail: {
    param: 'analysisId',
    title: { noun: 'Analysis', withId: true },
    statusId: 'analysis-status',
    running: (analysis) => `${words(analysis.current_step)}: following it live…`,
    completed: 'Completed: the results are below.',
    progressLabel: 'Analysis progress',
    facts: (analysis, running) => [
      ['Target type', words(analysis.target_type)],
      ['Description', analysis.description],
      ['Depth', words(analysis.analysis_type)],
      ['Priority', analysis.priority],
      ['Created', dateTime(analysis.created_at)],
      ['Started', analysis.started_at && dateTime(analysis.started_at)],
      finishFact(analysis, running),
      ['Processing time', analysis.processing_time],
      ['Batch', analysis.batch_id],
    ],
    noun: 'analysis',
    deleteQuestion: 'Delete this analysis and its results for good?',
    cancelReturnsWork: true,
    Sections: AnalysisSections,
  },
};

/** Target analyses: submit one, and the list with the v2 filters, a page at a time. */
export const AnalysesPage = () => <WorkListPage kind={analyses} />;

/** One analysis: live progress while it runs, then its results, evidence and statistics. */
export const AnalysisPage = () => <WorkDetailPage kind={analyses} />;
