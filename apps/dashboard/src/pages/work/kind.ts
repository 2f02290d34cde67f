import type { Client, CursorPage } from '@sas/sdk';
import type { LinkOptions } from '@tanstack/react-router';
import type { ComponentType, ReactNode } from 'react';
import type { Choices, Control, FieldFrame } from './common';
import { dateTime, percent } from './format';
import type { WorkFilter } from './search';

// What the generic work pages (list.tsx, create-form.tsx, detail.tsx) need to know
// of a kind of work: everything they show, ask and send. A kind is one such object.

/** A kind's list, where its filters stand in the address and a deleted piece of work leads back. */
export type ListPath = '/sessions' | '/analyses' | '/dowsing';

/** Enough of a piece of work to follow it live and say why it failed. */
export interface LiveWork {
  status: string;
  progress?: number;
  failure_reason?: string | null;
  failure_message?: string | null;
}

/** The SDK's calls for a kind (`client.sessions`); cancel where the API has it. */
export interface WorkResource<Item, Work, Body, Created> {
  create(body: Body): Promise<Created>;
  get(id: string): Promise<Work>;
  list(filters: Record<string, string | number>): {
    page(cursor: string | undefined): Promise<CursorPage<Item>>;
  };
  delete(id: string): Promise<void>;
  cancel?(id: string): Promise<unknown>;
}

/** A column of the list: its heading, and a row's cell (numbers are set right). */
export interface WorkColumn<Item> {
  label: string;
  number?: boolean;
  cell: (item: Item) => ReactNode;
}

/** The list's confidence column: the score as a percentage, a dash until there is one. */
export function confidenceColumn<Item>(
  score: (item: Item) => number | null | undefined,
): WorkColumn<Item> {
  return {
    label: 'Confidence',
    number: true,
    cell: (item) => {
      const value = score(item);
      return value === null || value === undefined ? '–' : percent(value);
    },
  };
}

/** The list's last column: when the work was made, in the kind's word ("Created", "Asked"). */
export function createdColumn<Item extends { created_at: string }>(
  label = 'Created',
): WorkColumn<Item> {
  return { label, cell: (item) => dateTime(item.created_at) };
}

/** The form's values, each control's text by its name. */
export type FormValues = Record<string, string>;

/** One control of a create form, bound to `values[name]`. */
export type FormControl = Omit<FieldFrame, 'error'> &
  Control & {
    name: string;
    /** Its value before anything is chosen; empty unless given. */
    initial?: string;
    /** A select's options. */
    choices?: Choices;
    /** Whether it is offered for what else is chosen; always unless given. */
    shown?: (values: FormValues) => boolean;
  };

/** Controls grouped under a legend that may depend on what is chosen. */
export interface FormGroup {
  legend: string | ((values: FormValues) => string);
  controls: FormControl[];
}

/**
 * A kind of work as its pages show it: `Item` a row of its list, `Work` one
 * piece as its page reads it, `Body` what creates one and `Created` the answer.
 */
export interface WorkKind<Item, Work extends LiveWork, Body, Created> {
  api: (client: Client) => WorkResource<Item, Work, Body, Created>;
  path: ListPath;
  /** The query keys' first parts: the list's ('sessions') and one piece of work's ('session'). */
  keys: { list: string; one: string };
  /** Where one piece of work is shown, for the list's rows and once created. */
  link: (id: string) => LinkOptions;
  /** The list page's heading, its pager's name ("Sessions pages") and the back link's ("← All sessions"). */
  title: string;
  create: {
    /** The section's heading and its id, which names the section. */
    id: string;
    heading: string;
    form: (FormControl | FormGroup)[];
    /** The request body from the form's values (who does the work is added to it). */
    body: (values: FormValues) => Body;
    /** How long the simulator takes, for the engine's hint. */
    simulatorTakes: string;
    /** The submit button's text, and its text while the request is under way. */
    submit: string;
    submitting: string;
    /** The created work's id in the answer. */
    created: (answer: Created) => string;
    /** The answer is the work as its page reads it: the page opens without asking again. */
    answerIsWork?: boolean;
  };
  list: {
    /** The section's heading and its id, which names the section. */
    id: string;
    heading: string;
    filtersLabel: string;
    filters: readonly WorkFilter[];
    /** What the empty list says, with filters set and without. */
    empty: { filtered: string; none: string };
    caption: string;
    /** The first column's cell is the row's header and links to the piece of work. */
    columns: WorkColumn<Item>[];
    idOf: (item: Item) => string;
  };
  detail: {
    /** The route's parameter holding the id. */
    param: 'sessionId' | 'analysisId' | 'queryId';
    /** The page's heading: the noun, then the id, unless the status heading names the work. */
    title: { noun: string; withId: boolean };
    /** The status section's id, and its heading ("Status" unless given). */
    statusId: string;
    statusHeading?: (work: Work) => ReactNode;
    /** What the status line says while the work runs. */
    running: (work: Work) => string;
    /** What it says once completed, if anything. */
    completed?: string;
    /** The progress bar's name; none without it. */
    progressLabel?: string;
    facts: (work: Work, running: boolean) => [string, ReactNode][];
    /** The work as the buttons name it: "Cancel session", "Delete session". */
    noun: string;
    deleteQuestion: string;
    /** The API answers a cancel with the cancelled work itself, else it is read again. */
    cancelReturnsWork?: boolean;
    /** What follows the status: results, material. */
    Sections: ComponentType<{ work: Work }>;
  };
}
