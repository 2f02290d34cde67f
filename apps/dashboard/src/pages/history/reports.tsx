import type { GenerateReport, Report } from '@sas/sdk';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { ApiError } from '../../api-error';
import { useSession } from '../../auth/session';
import { Pager, useCursorPages } from '../../components/cursor-pages';
import { CASE_TYPES, formatDate, typeLabel } from './labels';
import './history.css';
import { saveFile } from '../../components/save-file.js';

const REPORT_TYPES: { value: Report['report_type']; label: string; help: string }[] = [
  {
    value: 'history',
    label: 'History',
    help: 'One row per case in the range, with counts by type and hit rates',
  },
  {
    value: 'performance',
    label: 'Performance',
    help: 'Hit rates with intervals per engine, analyst, type and modality (over every case)',
  },
  { value: 'usage', label: 'Usage', help: 'Work finished per day and kind in the range' },
];

const FORMATS: { value: Report['format']; label: string }[] = [
  { value: 'csv', label: 'CSV' },
  { value: 'json', label: 'JSON' },
  { value: 'pdf', label: 'PDF' },
];

const finished = (report: Report) => report.status === 'completed' || report.status === 'failed';

/** Generate reports of the history, watch them being built, download and delete them. */
export function ReportsPage() {
  const { client, tokens } = useSession();
  const pages = useCursorPages(['reports', tokens.mode], (cursor) =>
    client.reports.list().page(cursor),
  );
  // Reports are built by the worker: look again every second while one is still on its way.
  const building = pages.items.some((report) => !finished(report));
  const { refetch } = pages.query;
  useEffect(() => {
    if (!building) return;
    const timer = setInterval(() => void refetch(), 1000);
    return () => clearInterval(timer);
  }, [building, refetch]);
  return (
    <>
      <h1>Reports</h1>
      <GenerateForm />
      <section aria-labelledby="report-list">
        <h2 id="report-list">Your reports</h2>
        <p className="muted">
          Reports are kept for a limited time (see each one&apos;s expiry), then deleted.
        </p>
        {pages.query.isSuccess && pages.items.length === 0 && (
          <p>No reports yet. Generate one above; it is ready to download in a few seconds.</p>
        )}
        {pages.items.length > 0 && <ReportTable reports={pages.items} />}
        <Pager pages={pages} label="Reports" />
      </section>
    </>
  );
}

function GenerateForm() {
  const { client } = useSession();
  const queryClient = useQueryClient();
  const [reportType, setReportType] = useState<Report['report_type']>('history');
  const [format, setFormat] = useState<Report['format']>('csv');
  const [dateFrom, setDateFrom] = useState('');
  const [dateTo, setDateTo] = useState('');
  const [type, setType] = useState('');
  const generate = useMutation({
    mutationFn: (body: GenerateReport) => client.reports.generate(body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['reports'] }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    generate.mutate({
      report_type: reportType,
      format,
      ...(dateFrom ? { date_from: dateFrom } : {}),
      ...(dateTo ? { date_to: dateTo } : {}),
      ...(type ? { type: type as GenerateReport['type'] } : {}),
    });
  };
  return (
    <section aria-labelledby="generate-report">
      <h2 id="generate-report">Generate a report</h2>
      <form className="form" onSubmit={submit}>
        <label htmlFor="report-type">Report</label>
        <select
          id="report-type"
          value={reportType}
          aria-describedby="report-type-help"
          onChange={(event) => setReportType(event.target.value as Report['report_type'])}
        >
          {REPORT_TYPES.map((entry) => (
            <option key={entry.value} value={entry.value}>
              {entry.label}
            </option>
          ))}
        </select>
        <p id="report-type-help" className="muted">
          {REPORT_TYPES.find((entry) => entry.value === reportType)?.help}. Classified cases never
          appear.
        </p>
        <label htmlFor="report-format">Format</label>
        <select
          id="report-format"
          value={format}
          onChange={(event) => setFormat(event.target.value as Report['format'])}
        >
          {FORMATS.map((entry) => (
            <option key={entry.value} value={entry.value}>
              {entry.label}
            </option>
          ))}
        </select>
        <div className="history-fields">
          <div>
            <label htmlFor="report-from">From date</label>
            <input
              id="report-from"
              type="date"
              value={dateFrom}
              onChange={(event) => setDateFrom(event.target.value)}
            />
          </div>
          <div>
            <label htmlFor="report-to">To date (inclusive)</label>
            <input
              id="report-to"
              type="date"
              value={dateTo}
              onChange={(event) => setDateTo(event.target.value)}
            />
          </div>
          <div>
            <label htmlFor="report-case-type">Case type</label>
            <select
              id="report-case-type"
              value={type}
              onChange={(event) => setType(event.target.value)}
            >
              <option value="">Every type</option>
              {CASE_TYPES.map((entry) => (
                <option key={entry.value} value={entry.value}>
                  {entry.label}
                </option>
              ))}
            </select>
          </div>
        </div>
        <button type="submit" disabled={generate.isPending}>
          Generate report
        </button>
      </form>
      {generate.isError && <ApiError error={generate.error} />}
      {generate.isSuccess && (
        <p role="status">
          Report {generate.data.report_id} queued; it appears below and is ready in a few seconds.
        </p>
      )}
    </section>
  );
}

function statusText(report: Report): string {
  switch (report.status) {
    case 'queued':
      return 'Queued…';
    case 'processing':
      return 'Being built…';
    case 'completed':
      return 'Ready';
    case 'failed':
      return 'Failed';
  }
}

function size(bytes: number | null): string {
  if (bytes === null) return '';
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function range(report: Report): string {
  const { date_from: from, date_to: to, type } = report.parameters;
  const dates =
    from || to
      ? `${from ? new Date(from).toLocaleDateString() : 'the start'} to ${to ? new Date(to).toLocaleDateString() : 'now'}`
      : 'all dates';
  return `${dates}; ${type ? typeLabel(type) : 'every type'}`;
}

function ReportTable({ reports }: { reports: Report[] }) {
  const { client } = useSession();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState<string | null>(null);
  const download = useMutation({
    mutationFn: async (report: Report) => ({
      blob: await client.reports.download(report.report_id),
      report,
    }),
    onSuccess: ({ blob, report }) =>
      saveFile(blob, report.filename ?? `${report.report_id}.${report.format}`),
  });
  const remove = useMutation({
    mutationFn: (id: string) => client.reports.delete(id),
    onSuccess: () => {
      setConfirming(null);
      return queryClient.invalidateQueries({ queryKey: ['reports'] });
    },
  });
  return (
    <>
      {download.isError && <ApiError error={download.error} />}
      {remove.isError && <ApiError error={remove.error} />}
      <table>
        <thead>
          <tr>
            <th scope="col">Report</th>
            <th scope="col">Range</th>
            <th scope="col">Status</th>
            <th scope="col">Asked for</th>
            <th scope="col">Expires</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {reports.map((report) => {
            const name = `${report.report_type} report ${report.report_id}`;
            return (
              <tr key={report.report_id} data-testid="report">
                <th scope="row">
                  {REPORT_TYPES.find((entry) => entry.value === report.report_type)?.label} (
                  {report.format.toUpperCase()})
                  <br />
                  <code className="muted">{report.report_id}</code>
                </th>
                <td>{range(report)}</td>
                <td>
                  <span aria-live="polite">{statusText(report)}</span>
                  {report.status === 'completed' && (
                    <span className="muted">
                      {' '}
                      {report.row_count ?? 0} rows, {size(report.byte_size)}
                    </span>
                  )}
                  {report.failure && <span className="muted"> ({report.failure})</span>}
                </td>
                <td>{formatDate(report.created_at)}</td>
                <td>{formatDate(report.expires_at)}</td>
                <td className="actions">
                  {report.status === 'completed' && (
                    <button
                      type="button"
                      disabled={download.isPending}
                      onClick={() => download.mutate(report)}
                    >
                      Download <span className="visually-hidden">{name}</span>
                    </button>
                  )}
                  {confirming === report.report_id ? (
                    <ConfirmDelete
                      name={name}
                      pending={remove.isPending}
                      onConfirm={() => remove.mutate(report.report_id)}
                      onCancel={() => setConfirming(null)}
                    />
                  ) : (
                    <button
                      type="button"
                      className="danger"
                      onClick={() => setConfirming(report.report_id)}
                    >
                      Delete <span className="visually-hidden">{name}</span>
                    </button>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </>
  );
}

/** The second step of deleting: takes the focus, so Enter confirms and Tab reaches "Keep it". */
function ConfirmDelete({
  name,
  pending,
  onConfirm,
  onCancel,
}: {
  name: string;
  pending: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const confirm = useRef<HTMLButtonElement>(null);
  useEffect(() => confirm.current?.focus(), []);
  return (
    <>
      <button type="button" className="danger" ref={confirm} disabled={pending} onClick={onConfirm}>
        Confirm delete <span className="visually-hidden">{name}</span>
      </button>
      <button type="button" onClick={onCancel}>
        Keep it
      </button>
    </>
  );
}
