import type { AssignmentDetail, Submission } from '@sas/sdk';
import { useMutation } from '@tanstack/react-query';
import { type ChangeEvent, type FormEvent, useEffect, useState } from 'react';
import { ApiError } from '../../api-error';
import { useSession } from '../../auth/session';
import { SketchPad } from './sketch-pad';
import { VOCABULARY, VOCABULARY_TERMS } from './vocabulary';
import { type Point, WorldMap } from './world-map';

const MAX_SKETCHES = 10;
const SKETCH_TYPES = ['image/png', 'image/jpeg', 'image/svg+xml'];
const SENSES: Record<keyof typeof VOCABULARY, string> = {
  visual: 'Seen',
  kinesthetic: 'Felt',
  auditory: 'Heard',
};

/** The analyst's submission (or amendment): descriptors, a place, notes, confidence, sketches. */
export function SubmissionForm({
  assignment,
  onSubmitted,
}: {
  assignment: AssignmentDetail;
  onSubmitted: (assignment: AssignmentDetail) => void;
}) {
  const { client } = useSession();
  const earlier = assignment.submission;
  const [terms, setTerms] = useState<Set<string>>(
    () => new Set(earlier?.descriptors.filter((word) => VOCABULARY_TERMS.includes(word)) ?? []),
  );
  const [freeWords, setFreeWords] = useState(
    () => earlier?.descriptors.filter((word) => !VOCABULARY_TERMS.includes(word)).join(', ') ?? '',
  );
  const [latitude, setLatitude] = useState(earlier?.coordinates?.latitude.toString() ?? '');
  const [longitude, setLongitude] = useState(earlier?.coordinates?.longitude.toString() ?? '');
  const [notes, setNotes] = useState(earlier?.notes ?? '');
  const [confidence, setConfidence] = useState(
    earlier?.confidence != null ? String(Math.round(earlier.confidence * 100)) : '',
  );
  const [sketches, setSketches] = useState<File[]>([]);
  const [problem, setProblem] = useState<string | null>(null);

  const submit = useMutation({
    mutationFn: (submission: Submission) => {
      const resource = {
        session: client.sessions,
        analysis: client.analyses,
        dowsing: client.dowsing,
      }[assignment.kind];
      return resource.submitResults(assignment.work_id, submission);
    },
    onSuccess: (updated) => {
      setSketches([]);
      onSubmitted(updated);
    },
  });

  const point: Point | null =
    latitude.trim() !== '' &&
    longitude.trim() !== '' &&
    Number.isFinite(Number(latitude)) &&
    Number.isFinite(Number(longitude))
      ? { latitude: Number(latitude), longitude: Number(longitude) }
      : null;

  const toggle = (term: string, checked: boolean) =>
    setTerms((current) => {
      const next = new Set(current);
      if (checked) next.add(term);
      else next.delete(term);
      return next;
    });

  const addSketches = (files: File[]) => {
    const wrong = files.filter((file) => !SKETCH_TYPES.includes(file.type));
    const fitting = files.filter((file) => SKETCH_TYPES.includes(file.type));
    const room = MAX_SKETCHES - sketches.length;
    setSketches([...sketches, ...fitting.slice(0, Math.max(0, room))]);
    if (wrong.length > 0)
      setProblem(`${wrong.map((f) => f.name).join(', ')}: not PNG, JPEG or SVG.`);
    else if (fitting.length > room) setProblem(`At most ${MAX_SKETCHES} sketches per submission.`);
    else setProblem(null);
  };
  const pick = (event: ChangeEvent<HTMLInputElement>) => {
    addSketches(Array.from(event.target.files ?? []));
    event.target.value = '';
  };

  const send = (event: FormEvent) => {
    event.preventDefault();
    const words = freeWords
      .split(/[,\n]/)
      .map((word) => word.trim())
      .filter((word) => word !== '');
    const descriptors = [...terms, ...words];
    if (descriptors.length === 0) {
      setProblem('Choose or write at least one descriptor.');
      return;
    }
    if ((latitude.trim() === '') !== (longitude.trim() === '')) {
      setProblem('Give both latitude and longitude, or neither.');
      return;
    }
    setProblem(null);
    submit.mutate({
      descriptors,
      ...(point ? { coordinates: point } : {}),
      ...(notes.trim() !== '' ? { notes } : {}),
      ...(confidence !== '' ? { confidence: Number(confidence) / 100 } : {}),
      ...(sketches.length > 0 ? { sketches } : {}),
    });
  };

  const amending = earlier !== null;
  return (
    <section aria-labelledby="submit-heading">
      <h2 id="submit-heading">{amending ? 'Amend your submission' : 'Your submission'}</h2>
      {amending && (
        <p className="muted">
          Sending again before the deadline replaces your submission. New sketches replace the
          earlier ones; send none to keep them.
        </p>
      )}
      <form className="form mw-submission" onSubmit={send} noValidate>
        <fieldset>
          <legend>Descriptors: what you perceived</legend>
          {(Object.keys(VOCABULARY) as (keyof typeof VOCABULARY)[]).map((sense) => (
            <fieldset key={sense} className="mw-terms">
              <legend>{SENSES[sense]}</legend>
              {VOCABULARY[sense].map((term) => (
                <label key={term}>
                  <input
                    type="checkbox"
                    checked={terms.has(term)}
                    onChange={(event) => toggle(term, event.target.checked)}
                  />{' '}
                  {term}
                </label>
              ))}
            </fieldset>
          ))}
          <label htmlFor="free-words">Other words (comma-separated)</label>
          <input
            id="free-words"
            value={freeWords}
            aria-describedby="free-words-help"
            onChange={(event) => setFreeWords(event.target.value)}
          />
          <p id="free-words-help" className="muted">
            Your own words, 1–64 characters each. The terms above count towards judged scores.
          </p>
        </fieldset>

        <fieldset>
          <legend>Coordinates (optional)</legend>
          <WorldMap
            label="World map: where the target is"
            value={point}
            onChange={(next) => {
              setLatitude(String(next.latitude));
              setLongitude(String(next.longitude));
            }}
          />
          <div className="mw-coordinates">
            <label>
              Latitude{' '}
              <input
                type="number"
                min={-90}
                max={90}
                step="any"
                value={latitude}
                onChange={(event) => setLatitude(event.target.value)}
              />
            </label>
            <label>
              Longitude{' '}
              <input
                type="number"
                min={-180}
                max={180}
                step="any"
                value={longitude}
                onChange={(event) => setLongitude(event.target.value)}
              />
            </label>
            <button
              type="button"
              onClick={() => {
                setLatitude('');
                setLongitude('');
              }}
            >
              Clear coordinates
            </button>
          </div>
        </fieldset>

        <label htmlFor="notes">Notes (optional)</label>
        <textarea
          id="notes"
          rows={5}
          maxLength={10_000}
          value={notes}
          onChange={(event) => setNotes(event.target.value)}
        />

        <label htmlFor="confidence">Your confidence, 0–100 % (optional)</label>
        <input
          id="confidence"
          type="number"
          min={0}
          max={100}
          step={1}
          value={confidence}
          onChange={(event) => setConfidence(event.target.value)}
        />

        <fieldset>
          <legend>Sketches (optional, up to {MAX_SKETCHES})</legend>
          <label htmlFor="sketch-files">Upload sketches (PNG, JPEG or SVG)</label>
          <input
            id="sketch-files"
            type="file"
            multiple
            accept="image/png,image/jpeg,image/svg+xml"
            onChange={pick}
          />
          <details className="mw-draw">
            <summary>Or draw a sketch here</summary>
            <SketchPad
              disabled={sketches.length >= MAX_SKETCHES}
              onAdd={(file) => addSketches([file])}
            />
          </details>
          {sketches.length > 0 && (
            <ul className="mw-sketches" aria-label="Sketches to send">
              {sketches.map((file, index) => (
                <li key={`${file.name}-${index}`}>
                  <FilePreview file={file} />
                  <button
                    type="button"
                    onClick={() => setSketches(sketches.filter((_, i) => i !== index))}
                  >
                    Remove <span className="visually-hidden">{file.name}</span>
                  </button>
                </li>
              ))}
            </ul>
          )}
        </fieldset>

        {problem && (
          <p className="error" role="alert">
            {problem}
          </p>
        )}
        {submit.isError && <ApiError error={submit.error} />}
        <button type="submit" disabled={submit.isPending}>
          {submit.isPending ? 'Sending…' : amending ? 'Send amendment' : 'Submit'}
        </button>
        {submit.isSuccess && (
          <p role="status">
            {amending ? 'Submission sent.' : 'Submitted.'} You can amend it until the deadline.
          </p>
        )}
      </form>
    </section>
  );
}

/** A picked or drawn file, shown from a blob: URL released with it. */
function FilePreview({ file }: { file: File }) {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    const objectUrl = URL.createObjectURL(file);
    setUrl(objectUrl);
    return () => URL.revokeObjectURL(objectUrl);
  }, [file]);
  return (
    <figure>
      {url && <img src={url} alt={`Sketch to send: ${file.name}`} className="mw-sketch-image" />}
      <figcaption>
        {file.name} <span className="muted">({Math.ceil(file.size / 1024)} KiB)</span>
      </figcaption>
    </figure>
  );
}
