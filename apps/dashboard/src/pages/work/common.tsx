import { SasError, type WorkRef } from '@sas/sdk';
import { type QueryKey, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
  useEffect,
  useId,
  useState,
} from 'react';
import { useSession } from '../../auth/session';
import './work.css';

/** A share in [0, 1] as a percentage. */
export const percent = (value: number) => `${(value * 100).toFixed(1)} %`;

/** A 95 % interval of shares. */
export const interval = ([low, high]: readonly [number, number]) =>
  `${percent(low)} – ${percent(high)}`;

export const dateTime = (value: string | null | undefined) =>
  value ? new Date(value).toLocaleString() : '–';

export const words = (value: string) => value.replaceAll('_', ' ');

/** A p-value as people read it. */
export const pValue = (value: number) => (value < 0.0001 ? '< 0.0001' : value.toPrecision(2));

/** The field an API error names (`details.field`), and what is wrong with it. */
export function fieldIssue(error: unknown, ...fields: string[]): string | null {
  if (!(error instanceof SasError)) return null;
  const field = error.details.field;
  if (typeof field !== 'string') return null;
  if (!fields.some((name) => field === name || field.startsWith(`${name}.`))) return null;
  const issue = error.details.issue;
  return typeof issue === 'string' ? issue : error.message;
}

/**
 * A labelled form control with its hint and the API's complaint about it,
 * tied together with aria-describedby / aria-invalid.
 */
export function Field({
  label,
  hint,
  error,
  fields,
  children,
}: {
  label: string;
  hint?: ReactNode;
  /** The last API error, if any: shown here when it names one of `fields`. */
  error?: unknown;
  /** The API fields whose complaints belong here (none for a list's filters). */
  fields?: string[];
  children: (props: {
    id: string;
    'aria-describedby'?: string;
    'aria-invalid'?: boolean;
  }) => ReactNode;
}) {
  const id = useId();
  const issue = error && fields ? fieldIssue(error, ...fields) : null;
  const described = [hint ? `${id}-hint` : null, issue ? `${id}-error` : null]
    .filter(Boolean)
    .join(' ');
  return (
    <div className="work-field">
      <label htmlFor={id}>{label}</label>
      {children({
        id,
        ...(described ? { 'aria-describedby': described } : {}),
        ...(issue ? { 'aria-invalid': true } : {}),
      })}
      {hint && (
        <span id={`${id}-hint`} className="work-hint">
          {hint}
        </span>
      )}
      {issue && (
        <span id={`${id}-error`} className="work-field-error">
          {issue}
        </span>
      )}
    </div>
  );
}

/** What a Field needs, for the controls below that bring their own. */
interface FieldFrame {
  label: string;
  hint?: ReactNode;
  error?: unknown;
  fields?: string[];
}

/** A Field holding an input, its text in `value` and every change given to `onChange`. */
export function InputField({
  label,
  hint,
  error,
  fields,
  value,
  onChange,
  ...input
}: FieldFrame &
  Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'value' | 'onChange'> & {
    value: string;
    onChange: (value: string) => void;
  }) {
  return (
    <Field label={label} hint={hint} error={error} fields={fields}>
      {(props) => (
        <input
          {...props}
          {...input}
          value={value}
          onChange={(event) => onChange(event.target.value)}
        />
      )}
    </Field>
  );
}

/** A Field holding a textarea, like InputField. */
export function TextareaField({
  label,
  hint,
  error,
  fields,
  value,
  onChange,
  ...textarea
}: FieldFrame &
  Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'id' | 'value' | 'onChange'> & {
    value: string;
    onChange: (value: string) => void;
  }) {
  return (
    <Field label={label} hint={hint} error={error} fields={fields}>
      {(props) => (
        <textarea
          {...props}
          {...textarea}
          value={value}
          onChange={(event) => onChange(event.target.value)}
        />
      )}
    </Field>
  );
}

/** A Field holding a select of `children` options, like InputField. */
export function SelectField<T extends string>({
  label,
  hint,
  error,
  fields,
  value,
  onChange,
  children,
  ...select
}: FieldFrame &
  Omit<SelectHTMLAttributes<HTMLSelectElement>, 'id' | 'value' | 'onChange'> & {
    value: T;
    onChange: (value: T) => void;
  }) {
  return (
    <Field label={label} hint={hint} error={error} fields={fields}>
      {(props) => (
        <select
          {...props}
          {...select}
          value={value}
          onChange={(event) => onChange(event.target.value as T)}
        >
          {children}
        </select>
      )}
    </Field>
  );
}

/** A status as a small badge (its colour from the status, its meaning from the text). */
export function Status({ value }: { value: string }) {
  return <span className={`work-status work-status-${value}`}>{words(value)}</span>;
}

const TERMINAL = new Set(['completed', 'failed']);

/**
 * Follows unfinished work over the WebSocket (the SDK's waitFor) while the
 * page is open: the progress as it moves, and the finished work written into
 * the query cache so the page shows its results without reloading.
 */
export function useLiveProgress<T extends { status: string }>(
  work: T | undefined,
  ref: WorkRef,
  queryKey: QueryKey,
  onDone?: (finished: T) => void,
): number | null {
  const { client } = useSession();
  const queryClient = useQueryClient();
  const id = typeof ref === 'string' ? ref : JSON.stringify(ref);
  // Kept with the id it belongs to: the page may be reused for another piece of work.
  const [progress, setProgress] = useState<{ id: string; value: number } | null>(null);
  const running = work !== undefined && !TERMINAL.has(work.status);
  const keyText = JSON.stringify(queryKey);
  useEffect(() => {
    if (!running) return;
    const controller = new AbortController();
    client
      .waitFor(ref, {
        signal: controller.signal,
        onProgress: (value) => {
          if (!controller.signal.aborted) setProgress({ id, value });
        },
      })
      .then((finished) => {
        if (controller.signal.aborted) return;
        queryClient.setQueryData(queryKey, finished);
        onDone?.(finished as unknown as T);
      })
      .catch(() => {
        // Aborted on leaving the page, or the wait failed: read the work again either way.
        if (!controller.signal.aborted) void queryClient.invalidateQueries({ queryKey });
      });
    return () => controller.abort();
    // The work's id, the key and whether it still runs decide the subscription.
  }, [running, id, keyText, client]);
  return progress?.id === id ? progress.value : null;
}

/** The progress bar of a piece of work, with an accessible name and the figure beside it. */
export function ProgressBar({ label, value }: { label: string; value: number }) {
  const clamped = Math.max(0, Math.min(100, Math.round(value)));
  return (
    <div className="work-progress">
      <progress aria-label={label} max={100} value={clamped} data-testid="work-progress">
        {clamped} %
      </progress>
      <span aria-hidden="true">{clamped} %</span>
    </div>
  );
}

/** A destructive button that asks first, in the page (keyboard and screen readers included). */
export function ConfirmButton({
  label,
  question,
  confirmLabel,
  onConfirm,
  pending,
}: {
  label: string;
  question: string;
  confirmLabel: string;
  onConfirm: () => void;
  pending: boolean;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" className="danger" onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <div className="work-confirm" role="group" aria-label={question}>
      <p>{question}</p>
      <button
        type="button"
        className="danger"
        disabled={pending}
        onClick={onConfirm}
        // The question just appeared where the button was: the focus goes with it.
        autoFocus
      >
        {confirmLabel}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Keep it
      </button>
    </div>
  );
}

/** A definition list of label / value rows, skipping the empty ones. */
export function Facts({ rows }: { rows: [string, ReactNode][] }) {
  return (
    <dl className="work-facts">
      {rows
        .filter(([, value]) => value !== null && value !== undefined && value !== '')
        .map(([term, value]) => (
          <div key={term}>
            <dt>{term}</dt>
            <dd>{value}</dd>
          </div>
        ))}
    </dl>
  );
}

/** A link to the place on OpenStreetMap (no map tiles in the page: the CSP keeps images local). */
export function Place({ latitude, longitude }: { latitude: number; longitude: number }) {
  return (
    <a
      href={`https://www.openstreetmap.org/?mlat=${latitude}&mlon=${longitude}#map=12/${latitude}/${longitude}`}
      target="_blank"
      rel="noreferrer"
    >
      {latitude.toFixed(5)}, {longitude.toFixed(5)}
      <span className="visually-hidden"> (opens OpenStreetMap in a new tab)</span>
    </a>
  );
}

/** Options of a select from an enumeration, with an "any" entry for filters. */
export function Options({ values, any }: { values: readonly string[]; any?: string }) {
  return (
    <>
      {any !== undefined && <option value="">{any}</option>}
      {values.map((value) => (
        <option key={value} value={value}>
          {words(value)}
        </option>
      ))}
    </>
  );
}

export const PER_PAGE = [10, 25, 50, 100] as const;

/** What the three create forms share about who does the work and how it is judged. */
export interface BlindWork {
  engine: string;
  analystCount: string;
  judging: boolean;
  decoyCount: string;
  targetId: string;
}

export const NO_BLIND_WORK: BlindWork = {
  engine: '',
  analystCount: '',
  judging: false,
  decoyCount: '',
  targetId: '',
};

/** The API fields of the shared part of a create body, only those given. */
export function blindWorkFields(value: BlindWork) {
  return {
    ...(value.engine ? { engine: value.engine as 'simulated' | 'analyst' } : {}),
    ...(value.analystCount ? { analyst_count: Number(value.analystCount) } : {}),
    ...(value.judging ? { judging: true } : {}),
    ...(value.judging && value.decoyCount ? { decoy_count: Number(value.decoyCount) } : {}),
    ...(value.targetId ? { target_id: value.targetId } : {}),
  };
}

/**
 * Engine, analysts, blind judging and the pool target: the fields sessions,
 * analyses and dowsing queries share (test mode always runs the simulator).
 */
export function BlindWorkFields({
  value,
  onChange,
  error,
  done,
}: {
  value: BlindWork;
  onChange: (value: BlindWork) => void;
  error: unknown;
  /** How long the simulator takes, for the hint. */
  done: string;
}) {
  const { client, tokens } = useSession();
  const targets = useQuery({
    queryKey: ['targets', tokens.mode, 'choices'],
    queryFn: () => client.targets.list().toArray(100),
    staleTime: 60_000,
  });
  const set = (patch: Partial<BlindWork>) => onChange({ ...value, ...patch });
  const test = tokens.mode === 'test';
  return (
    <fieldset>
      <legend>Who does the work</legend>
      <SelectField
        label="Engine"
        fields={['engine']}
        error={error}
        hint={
          test
            ? `Test mode always runs the simulator, which ${done}.`
            : 'Analysts when your organisation has an active analyst, else the simulator.'
        }
        value={value.engine}
        disabled={test}
        onChange={(engine) => set({ engine })}
      >
        <option value="">Default</option>
        <option value="analyst">Analysts (blind tasking)</option>
        <option value="simulated">Simulator</option>
      </SelectField>
      <InputField
        label="Analysts (optional)"
        fields={['analyst_count']}
        error={error}
        hint="Working independently on it"
        type="number"
        min={1}
        inputMode="numeric"
        value={value.analystCount}
        onChange={(analystCount) => set({ analystCount })}
      />
      <SelectField
        label="Target from your pool (optional)"
        fields={['target_id']}
        error={error}
        hint={
          targets.data?.length === 0
            ? 'Your pool is empty: add targets under Organisation to judge against them.'
            : 'The truth judging compares with; never shown to analysts.'
        }
        value={value.targetId}
        onChange={(targetId) => set({ targetId })}
      >
        <option value="">None</option>
        {targets.data?.map((target) => (
          <option key={target.target_id} value={target.target_id}>
            {target.description}
          </option>
        ))}
      </SelectField>
      <div className="work-field">
        <label>
          <input
            type="checkbox"
            checked={value.judging}
            onChange={(event) => set({ judging: event.target.checked })}
          />{' '}
          Judge it blind once completed
        </label>
      </div>
      {value.judging && (
        <InputField
          label="Decoys"
          fields={['decoy_count']}
          error={error}
          hint="Beside the true target; chance is 1 in decoys + 1"
          type="number"
          min={1}
          inputMode="numeric"
          value={value.decoyCount}
          onChange={(decoyCount) => set({ decoyCount })}
        />
      )}
    </fieldset>
  );
}
