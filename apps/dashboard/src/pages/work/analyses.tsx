import type { AnalysisFilters, CreateAnalysis } from '@sas/sdk';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { getRouteApi, Link, useNavigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { ApiError } from '../../api-error';
import { useSession } from '../../auth/session';
import { useCursorPages } from '../../components/cursor-pages';
import {
  type BlindWork,
  blindWorkFields,
  BlindWorkFields,
  dateTime,
  InputField,
  NO_BLIND_WORK,
  Options,
  percent,
  SelectField,
  Status,
  TextareaField,
  words,
} from './common';
import { PerPageFilter, SelectFilter, useSearchUpdate, WorkList } from './list';
import { ANALYSIS_STATUSES as STATUSES, analysisSearch, PRIORITIES, TARGET_TYPES } from './search';

const listRoute = getRouteApi('/analyses');

const ANALYSIS_TYPES = ['comprehensive', 'quick_scan', 'deep_dive'] as const;

/** Target analyses: submit one, and the list with the v2 filters, a page at a time. */
export function AnalysesPage() {
  return (
    <>
      <h1>Analyses</h1>
      <CreateAnalysisForm />
      <AnalysisList />
    </>
  );
}

const lines = (text: string) =>
  text
    .split(/\s*\n\s*/)
    .map((line) => line.trim())
    .filter(Boolean);

function CreateAnalysisForm() {
  const { client, tokens } = useSession();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [targetType, setTargetType] = useState<CreateAnalysis['target_type']>('location');
  const [description, setDescription] = useState('');
  const [analysisType, setAnalysisType] = useState('');
  const [priority, setPriority] = useState('');
  const [photos, setPhotos] = useState('');
  const [documents, setDocuments] = useState('');
  const [latitude, setLatitude] = useState('');
  const [longitude, setLongitude] = useState('');
  const [blind, setBlind] = useState<BlindWork>(NO_BLIND_WORK);
  const create = useMutation({
    mutationFn: (body: CreateAnalysis) => client.analyses.create(body),
    onSuccess: async (submitted) => {
      await queryClient.invalidateQueries({ queryKey: ['analyses', tokens.mode] });
      await navigate({
        to: '/analyses/$analysisId',
        params: { analysisId: submitted.analysis_id },
      });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const material: NonNullable<CreateAnalysis['reference_material']> = {
      ...(lines(photos).length ? { photos: lines(photos) } : {}),
      ...(lines(documents).length ? { documents: lines(documents) } : {}),
      ...(latitude !== '' || longitude !== ''
        ? { coordinates: { latitude: Number(latitude), longitude: Number(longitude) } }
        : {}),
    };
    create.mutate({
      target_type: targetType,
      ...(description.trim() ? { description: description.trim() } : {}),
      ...(analysisType ? { analysis_type: analysisType as CreateAnalysis['analysis_type'] } : {}),
      ...(priority ? { priority: priority as CreateAnalysis['priority'] } : {}),
      ...(Object.keys(material).length ? { reference_material: material } : {}),
      ...blindWorkFields(blind),
    });
  };
  const error = create.error;
  return (
    <section aria-labelledby="new-analysis">
      <h2 id="new-analysis">Analyse a target</h2>
      <form className="work-form" onSubmit={submit} noValidate>
        <SelectField
          label="Target type"
          fields={['target_type']}
          error={error}
          value={targetType}
          onChange={setTargetType}
        >
          <Options values={TARGET_TYPES} />
        </SelectField>
        <InputField
          label="Description (optional)"
          fields={['description']}
          error={error}
          hint="What the target is; earlier work with the same description is cross-referenced."
          value={description}
          onChange={setDescription}
        />
        <SelectField
          label="Depth"
          fields={['analysis_type']}
          error={error}
          value={analysisType}
          onChange={setAnalysisType}
        >
          <option value="">Default (comprehensive)</option>
          <Options values={ANALYSIS_TYPES} />
        </SelectField>
        <SelectField
          label="Priority"
          fields={['priority']}
          error={error}
          value={priority}
          onChange={setPriority}
        >
          <option value="">Default (medium)</option>
          <Options values={PRIORITIES} />
        </SelectField>
        <fieldset>
          <legend>Reference material (optional)</legend>
          <TextareaField
            label="Photo URLs"
            fields={['reference_material.photos']}
            error={error}
            hint="https addresses, one a line (up to 20)"
            rows={3}
            cols={40}
            value={photos}
            onChange={setPhotos}
          />
          <TextareaField
            label="Document URLs"
            fields={['reference_material.documents']}
            error={error}
            hint="PDF or plain text, one a line (up to 20)"
            rows={3}
            cols={40}
            value={documents}
            onChange={setDocuments}
          />
          <InputField
            label="Latitude"
            fields={['reference_material.coordinates.latitude', 'reference_material.coordinates']}
            error={error}
            type="number"
            step="any"
            value={latitude}
            onChange={setLatitude}
          />
          <InputField
            label="Longitude"
            fields={['reference_material.coordinates.longitude']}
            error={error}
            type="number"
            step="any"
            value={longitude}
            onChange={setLongitude}
          />
        </fieldset>
        <BlindWorkFields
          value={blind}
          onChange={setBlind}
          error={error}
          done="completes in seconds"
        />
        <div className="work-form-actions">
          <button type="submit" disabled={create.isPending}>
            {create.isPending ? 'Submitting…' : 'Submit analysis'}
          </button>
        </div>
        {error && <ApiError error={error} />}
      </form>
    </section>
  );
}

function AnalysisList() {
  const { client, tokens } = useSession();
  const search = listRoute.useSearch();
  const update = useSearchUpdate('/analyses', search, analysisSearch);
  const filters: AnalysisFilters = {
    per_page: search.per_page ?? 25,
    ...(search.status ? { status: search.status as AnalysisFilters['status'] } : {}),
    ...(search.target_type
      ? { target_type: search.target_type as AnalysisFilters['target_type'] }
      : {}),
    ...(search.priority ? { priority: search.priority as AnalysisFilters['priority'] } : {}),
  };
  const pages = useCursorPages(['analyses', tokens.mode, filters], (cursor) =>
    client.analyses.list(filters).page(cursor),
  );
  return (
    <WorkList
      id="analysis-list"
      heading="Your analyses"
      filtersLabel="Filter analyses"
      filters={
        <>
          <SelectFilter
            label="Status"
            value={search.status}
            values={STATUSES}
            any="Any status"
            onChange={(status) => update({ status })}
          />
          <SelectFilter
            label="Target type"
            value={search.target_type}
            values={TARGET_TYPES}
            any="Any target type"
            onChange={(target_type) => update({ target_type })}
          />
          <SelectFilter
            label="Priority"
            value={search.priority}
            values={PRIORITIES}
            any="Any priority"
            onChange={(priority) => update({ priority })}
          />
          <PerPageFilter value={search.per_page} onChange={(per_page) => update({ per_page })} />
        </>
      }
      pages={pages}
      filtered={Object.keys(filters).length > 1}
      empty={{
        filtered: 'No analysis matches these filters. Clear a filter to see more.',
        none: 'No analyses yet in this mode. Submit a target with the form above, or from the API.',
      }}
      caption="Analyses, newest first"
      columns={[
        { label: 'Analysis' },
        { label: 'Target' },
        { label: 'Depth' },
        { label: 'Priority' },
        { label: 'Status' },
        { label: 'Confidence', number: true },
        { label: 'Created' },
      ]}
      rowKey={(analysis) => analysis.analysis_id}
      row={(analysis) => (
        <>
          <th scope="row">
            <Link to="/analyses/$analysisId" params={{ analysisId: analysis.analysis_id }}>
              <code>{analysis.analysis_id}</code>
            </Link>
          </th>
          <td>
            {words(analysis.target_type)}
            {analysis.description && `: ${analysis.description}`}
          </td>
          <td>{words(analysis.analysis_type)}</td>
          <td>{analysis.priority}</td>
          <td>
            <Status value={analysis.status} />
            {analysis.status === 'processing' && ` ${analysis.progress} %`}
          </td>
          <td className="work-number">
            {analysis.confidence_score === null ? '–' : percent(analysis.confidence_score)}
          </td>
          <td>{dateTime(analysis.created_at)}</td>
        </>
      )}
      pagerLabel="Analyses"
    />
  );
}
