import { SasError, type WorkRef } from '@sas/sdk';
import { type QueryKey, useQueryClient } from '@tanstack/react-query';
import {
  type ChangeEvent,
  createElement,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
  useEffect,
  useId,
  useState,
} from 'react';
import { useSession } from '../../auth/session';
import { words } from './format';
import './work.css';

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

/** What a Field needs besides the control it holds. */
export interface FieldFrame {
  label: string;
  hint?: ReactNode;
  error?: unknown;
  fields?: string[];
}

type Attributes<T> = Omit<T, 'id' | 'value' | 'onChange'>;

/**
 * The element a ControlField holds, with that element's own attributes (a
 * select's options as its children).
 */
export type Control =
  | ({ as: 'input' } & Attributes<InputHTMLAttributes<HTMLInputElement>>)
  | ({ as: 'textarea' } & Attributes<TextareaHTMLAttributes<HTMLTextAreaElement>>)
  | ({ as: 'select' } & Attributes<SelectHTMLAttributes<HTMLSelectElement>>);

type ControlElement = HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement;

/** A Field holding one control, its text in `value` and every change given to `onChange`. */
export function ControlField({
  label,
  hint,
  error,
  fields,
  value,
  onChange,
  ...control
}: FieldFrame &
  Control & {
    value: string;
    onChange: (value: string) => void;
  }) {
  const { as, ...attributes } = control;
  return (
    <Field label={label} hint={hint} error={error} fields={fields}>
      {(props) =>
        createElement(as, {
          ...props,
          ...attributes,
          value,
          onChange: (event: ChangeEvent<ControlElement>) => onChange(event.target.value),
        })
      }
    </Field>
  );
}

/** A heading and its list of texts, left out when there are none. */
export function TextList({
  heading,
  items,
  className,
}: {
  heading: string;
  items: string[];
  className?: string;
}) {
  if (items.length === 0) return null;
  return (
    <>
      <h3>{heading}</h3>
      <ul className={className}>
        {items.map((item) => (
          <li key={item}>{item}</li>
        ))}
      </ul>
    </>
  );
}

/** A status as a small badge (its colour from the status, its meaning from the text). */
export function Status({ value }: { value: string }) {
  return <span className={`work-status work-status-${value}`}>{words(value)}</span>;
}

const TERMINAL = new Set(['completed', 'failed']);

/**
 * Follows unfinished work over the WebSocket (the SDK's waitFor) while the
 * page is open: the progress as it moves (each step also reads the work again,
 * for its status and phase), and the finished work written into the query
 * cache so the page shows its results without reloading.
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
          if (controller.signal.aborted) return;
          setProgress({ id, value });
          // The socket carries the progress only: read the work again for its status and phase,
          // which would otherwise stay as first read (`initiated`, `queued`) while the bar moves.
          void queryClient.invalidateQueries({ queryKey });
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

/** A table's column headings; those named in `numbers` are set right. */
export function ColumnHeadings({ labels, numbers = [] }: { labels: string[]; numbers?: string[] }) {
  return (
    <thead>
      <tr>
        {labels.map((label) => (
          <th
            key={label}
            scope="col"
            className={numbers.includes(label) ? 'work-number' : undefined}
          >
            {label}
          </th>
        ))}
      </tr>
    </thead>
  );
}

/** Figures read together (statistics) as a table of labelled rows. */
export function FigureTable({ caption, rows }: { caption: string; rows: [string, ReactNode][] }) {
  return (
    <table>
      <caption className="visually-hidden">{caption}</caption>
      <tbody>
        {rows.map(([label, value]) => (
          <tr key={label}>
            <th scope="row">{label}</th>
            <td>{value}</td>
          </tr>
        ))}
      </tbody>
    </table>
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

/** The choices of a select: an enumeration, named in words unless `labels` names them. */
export interface Choices {
  values: readonly string[];
  /** The entry for no value ("Any status", "Default"), first. */
  any?: string;
  labels?: Readonly<Record<string, string>>;
}

/** Options of a select from an enumeration. */
export function Options({ values, any, labels }: Choices) {
  return (
    <>
      {any !== undefined && <option value="">{any}</option>}
      {values.map((value) => (
        <option key={value} value={value}>
          {labels?.[value] ?? words(value)}
        </option>
      ))}
    </>
  );
}
