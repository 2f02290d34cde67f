import type { HistoryImportReport } from '@sas/sdk';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { ApiError } from '../../api-error';
import { useSession } from '../../auth/session';
import './history.css';

type Format = 'ndjson' | 'csv';

/** The format a file's name or media type says, if either does. */
export function formatOf(file: { name: string; type: string }): Format | null {
  const name = file.name.toLowerCase();
  if (name.endsWith('.csv') || file.type === 'text/csv') return 'csv';
  if (/\.(ndjson|jsonl|json)$/.test(name) || /ndjson|jsonl|json/.test(file.type)) return 'ndjson';
  return null;
}

interface Finished {
  report: HistoryImportReport;
  fileName: string;
  format: Format;
}

/** Upload past cases as NDJSON or CSV (optionally a dry run) and read the per-row report. */
export function ImportPage() {
  const { client, tokens } = useSession();
  const queryClient = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [chosen, setChosen] = useState<'detect' | Format>('detect');
  const [dryRun, setDryRun] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const run = useMutation({
    mutationFn: async (input: { file: File; format: Format; dryRun: boolean }) => ({
      report: await client.history.import(input.file, input.format, { dryRun: input.dryRun }),
      fileName: input.file.name,
      format: input.format,
    }),
    onSuccess: ({ report }) => {
      if (!report.dry_run) return queryClient.invalidateQueries({ queryKey: ['history-search'] });
    },
  });
  const detected = file ? formatOf(file) : null;
  const format = chosen === 'detect' ? detected : chosen;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!file) {
      setProblem('Choose a file to import.');
      return;
    }
    if (!format) {
      setProblem(
        'The file name does not say whether it is NDJSON or CSV: choose the format above.',
      );
      return;
    }
    setProblem(null);
    run.mutate({ file, format, dryRun });
  };

  return (
    <>
      <h1>Import history</h1>
      <p>
        Bring the records you already have: each row becomes a case of this organisation in{' '}
        {tokens.mode} mode, searchable like the service&apos;s own work. Importing a row with an{' '}
        <code>external_id</code> imported before updates that case. A bad row is skipped and
        reported with its line; the good rows are stored.
      </p>
      <section aria-labelledby="import-file">
        <h2 id="import-file">Upload a file</h2>
        <form className="form" onSubmit={submit}>
          <label htmlFor="import-file-input">File (NDJSON or CSV, up to 100,000 rows)</label>
          <input
            id="import-file-input"
            type="file"
            accept=".ndjson,.jsonl,.json,.csv,application/x-ndjson,text/csv"
            onChange={(event) => {
              setFile(event.target.files?.[0] ?? null);
              run.reset();
            }}
          />
          <label htmlFor="import-format">Format</label>
          <select
            id="import-format"
            value={chosen}
            aria-describedby="import-format-help"
            onChange={(event) => setChosen(event.target.value as typeof chosen)}
          >
            <option value="detect">From the file name</option>
            <option value="ndjson">NDJSON (one JSON object per line)</option>
            <option value="csv">CSV (a header row, then one row per case)</option>
          </select>
          <p id="import-format-help" className="muted">
            {file
              ? detected
                ? `${file.name} reads as ${detected.toUpperCase()}.`
                : `${file.name}: choose the format.`
              : 'Files ending in .ndjson, .jsonl or .json read as NDJSON; .csv as CSV.'}
          </p>
          <label className="history-check">
            <input
              type="checkbox"
              checked={dryRun}
              onChange={(event) => setDryRun(event.target.checked)}
            />
            Dry run: check every row and report, but store nothing
          </label>
          {problem && (
            <p className="error" role="alert">
              {problem}
            </p>
          )}
          <button type="submit" disabled={run.isPending}>
            {dryRun ? 'Check the file' : 'Import'}
          </button>
        </form>
        {run.isPending && (
          <p role="status">
            <progress aria-label="Importing" /> Reading and checking the rows; a large file takes a
            few seconds…
          </p>
        )}
        {run.isError && <ApiError error={run.error} />}
      </section>
      {run.data && <ImportReport finished={run.data} />}
      <RowFormat />
    </>
  );
}

function ImportReport({ finished }: { finished: Finished }) {
  const { report, fileName, format } = finished;
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [finished]);
  // Every problem of a row under its line: a row may have several.
  const byLine = new Map<number, { field: string; issue: string }[]>();
  for (const error of report.errors) {
    const problems = byLine.get(error.line) ?? [];
    problems.push({ field: error.field, issue: error.issue });
    byLine.set(error.line, problems);
  }
  return (
    <section aria-labelledby="import-report" data-testid="import-report">
      <h2 id="import-report" tabIndex={-1} ref={heading}>
        {report.dry_run ? 'Dry run report' : 'Import report'}: {fileName}
      </h2>
      <p role="status">
        {report.dry_run
          ? `Dry run of ${format.toUpperCase()}: nothing was stored. This is what the import would do.`
          : report.failed === 0
            ? 'Every row was stored.'
            : 'The good rows were stored; the rows below were skipped.'}
      </p>
      <dl className="import-counts">
        <div>
          <dt>{report.dry_run ? 'Would import' : 'Imported'}</dt>
          <dd data-testid="count-imported">{report.imported}</dd>
        </div>
        <div>
          <dt>{report.dry_run ? 'Would update' : 'Updated'}</dt>
          <dd data-testid="count-updated">{report.updated}</dd>
        </div>
        <div>
          <dt>Failed</dt>
          <dd data-testid="count-failed">{report.failed}</dd>
        </div>
      </dl>
      {byLine.size > 0 && (
        <table className="import-problems">
          <caption>Rows refused, by line of the file</caption>
          <thead>
            <tr>
              <th scope="col">Line</th>
              <th scope="col">Problems</th>
            </tr>
          </thead>
          <tbody>
            {[...byLine].map(([line, problems]) => (
              <tr key={line}>
                <th scope="row">{line}</th>
                <td>
                  <ul>
                    {problems.map((problem, index) => (
                      <li key={index}>
                        <code>{problem.field}</code> {problem.issue}
                      </li>
                    ))}
                  </ul>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {report.errors_truncated && (
        <p className="muted">
          Only the first 1,000 problems are listed; {report.failed} rows failed in all.
        </p>
      )}
      {!report.dry_run && report.imported + report.updated > 0 && (
        <p>
          <Link to="/history">Search the history</Link> to find the imported cases.
        </p>
      )}
    </section>
  );
}

const NDJSON_EXAMPLE = `{"external_id":"case-0001","type":"remote_viewing","date":"2019-05-14","target":"A water tower","descriptors":["tall","metal"],"location":{"latitude":52.52,"longitude":13.405}}
{"external_id":"case-0002","type":"dowsing","date":"2019-06-02T10:30:00Z","target":"Lost ring","verdict":"hit","verified_by":"J. Smith"}`;

const CSV_EXAMPLE = `external_id,type,date,target,descriptors,location.latitude,location.longitude,verdict,verified_by
case-0001,remote_viewing,2019-05-14,A water tower,tall;metal,52.52,13.405,,
case-0002,dowsing,2019-06-02T10:30:00Z,Lost ring,,,,hit,J. Smith`;

function RowFormat() {
  return (
    <section aria-labelledby="import-rows">
      <h2 id="import-rows">What a row holds</h2>
      <ul>
        <li>
          Required: <code>external_id</code> (your own id, 1–200 characters), <code>type</code> (
          <code>remote_viewing</code>, <code>dowsing</code>, <code>automatic_writing</code> or{' '}
          <code>analysis</code>), <code>date</code> (ISO 8601 date or date-time, not in the future)
          and <code>target</code>.
        </li>
        <li>
          Optional: <code>outcome</code>, <code>confidence_score</code>, <code>location</code>{' '}
          (latitude and longitude), <code>client</code>, <code>analysts</code>, <code>process</code>{' '}
          (<code>duration_minutes</code>, <code>modality</code>, <code>phases</code>),{' '}
          <code>results.description</code>, <code>descriptors</code>, <code>privacy_level</code> (
          <code>public</code>, <code>private</code> or <code>classified</code>).
        </li>
        <li>
          The verified outcome: <code>verdict</code> (<code>hit</code>, <code>partial</code> or{' '}
          <code>miss</code>) with <code>verified_by</code>, and optionally{' '}
          <code>location_found</code>, <code>coordinates</code>, <code>verification</code>,{' '}
          <code>independent_verification</code>, <code>accuracy_confirmed</code>,{' '}
          <code>verified_at</code>. These are refused without a verdict.
        </li>
        <li>Unknown fields are errors.</li>
      </ul>
      <h3>NDJSON</h3>
      <p>One JSON object per line; blank lines are ignored.</p>
      <pre className="history-example" tabIndex={0} aria-label="NDJSON example">
        {NDJSON_EXAMPLE}
      </pre>
      <h3>CSV</h3>
      <p>
        A header row naming the columns; nested fields flattened with dots (
        <code>location.latitude</code>, <code>process.duration_minutes</code>,{' '}
        <code>results.description</code>); lists (<code>analysts</code>, <code>descriptors</code>,{' '}
        <code>process.phases</code>) as one cell separated by <code>;</code>; <code>true</code>/
        <code>false</code>; an empty cell means not given. The header is line 1.
      </p>
      <pre className="history-example" tabIndex={0} aria-label="CSV example">
        {CSV_EXAMPLE}
      </pre>
    </section>
  );
}
