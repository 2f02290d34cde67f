import type { CreateTarget, Target } from '@sas/sdk';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ApiError } from '../../api-error';
import { useSession } from '../../auth/session';
import { BlobImage } from '../../components/blob-image';
import { Pager, useCursorPages } from '../../components/cursor-pages';
import { ConfirmButton, splitList } from './shared';

const MAX_PHOTOS = 5;

/** The organisation's target pool: what blind work is tasked against and judging draws decoys from. */
export function TargetsPage() {
  const { client, tokens } = useSession();
  const pages = useCursorPages(['targets', tokens.mode], (cursor) =>
    client.targets.list().page(cursor),
  );
  return (
    <>
      <h1>Target pool</h1>
      <p className="muted">
        Your own targets ({tokens.mode} mode). Work can be tasked against one of them, and blind
        judging draws its decoys from them: keep at least as many as your judging sets have decoys
        (4 by default). Analysts and judges never see this page.
      </p>
      <CreateTarget />
      <section aria-labelledby="pool">
        <h2 id="pool">Targets</h2>
        {pages.query.isSuccess && pages.items.length === 0 && (
          <p>The pool is empty. Add a target above, with photos if you have them.</p>
        )}
        {pages.items.length > 0 && (
          <ul className="org-targets">
            {pages.items.map((target) => (
              <TargetItem key={target.target_id} target={target} />
            ))}
          </ul>
        )}
        <Pager pages={pages} label="Targets" />
      </section>
    </>
  );
}

function CreateTarget() {
  const { client } = useSession();
  const queryClient = useQueryClient();
  const [description, setDescription] = useState('');
  const [descriptors, setDescriptors] = useState('');
  const [latitude, setLatitude] = useState('');
  const [longitude, setLongitude] = useState('');
  const [photos, setPhotos] = useState('');
  const photoUrls = splitList(photos.replace(/\s+/g, '\n'));
  const create = useMutation({
    mutationFn: (body: CreateTarget) => client.targets.create(body),
    onSuccess: () => {
      setDescription('');
      setDescriptors('');
      setLatitude('');
      setLongitude('');
      setPhotos('');
      return queryClient.invalidateQueries({ queryKey: ['targets'] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({
      description: description.trim(),
      descriptors: splitList(descriptors),
      coordinates:
        latitude && longitude ? { latitude: Number(latitude), longitude: Number(longitude) } : null,
      photos: photoUrls,
    });
  };
  const failed = create.data?.photos.filter((photo) => photo.status === 'failed') ?? [];
  return (
    <section aria-labelledby="add-target">
      <h2 id="add-target">Add a target</h2>
      <form className="form" onSubmit={submit}>
        <label htmlFor="target-description">Description</label>
        <textarea
          id="target-description"
          required
          rows={3}
          maxLength={2000}
          value={description}
          onChange={(event) => setDescription(event.target.value)}
        />
        <label htmlFor="target-descriptors">Descriptors (comma-separated, optional)</label>
        <span className="muted" id="target-descriptors-hint">
          The ground truth judging scores submissions against, e.g. &quot;tall, metal, water&quot;.
        </span>
        <input
          id="target-descriptors"
          aria-describedby="target-descriptors-hint"
          value={descriptors}
          onChange={(event) => setDescriptors(event.target.value)}
        />
        <fieldset>
          <legend>Coordinates (optional, if it is a place)</legend>
          <div className="filters">
            <label>
              Latitude
              <input
                type="number"
                step="any"
                min={-90}
                max={90}
                required={longitude !== ''}
                value={latitude}
                onChange={(event) => setLatitude(event.target.value)}
              />
            </label>
            <label>
              Longitude
              <input
                type="number"
                step="any"
                min={-180}
                max={180}
                required={latitude !== ''}
                value={longitude}
                onChange={(event) => setLongitude(event.target.value)}
              />
            </label>
          </div>
        </fieldset>
        <label htmlFor="target-photos">Photo URLs (https, one a line, up to {MAX_PHOTOS})</label>
        <span className="muted" id="target-photos-hint">
          Fetched while you wait and stored: PNG, JPEG, WebP or GIF. A photo that cannot be fetched
          is kept with the reason and never stops the target.
        </span>
        <textarea
          id="target-photos"
          rows={3}
          aria-describedby="target-photos-hint"
          value={photos}
          onChange={(event) => setPhotos(event.target.value)}
        />
        {photoUrls.length > MAX_PHOTOS && (
          <p className="error">At most {MAX_PHOTOS} photos: remove some.</p>
        )}
        <button type="submit" disabled={create.isPending || photoUrls.length > MAX_PHOTOS}>
          {create.isPending ? 'Adding…' : 'Add target'}
        </button>
      </form>
      {create.isPending && photoUrls.length > 0 && (
        <p role="status">
          Fetching {photoUrls.length} photo{photoUrls.length === 1 ? '' : 's'}…
        </p>
      )}
      {create.isError && <ApiError error={create.error} />}
      {create.isSuccess && (
        <p role="status">
          Target added
          {create.data.photos.length > 0 &&
            ` with ${create.data.photos.length - failed.length} of ${create.data.photos.length} photos stored`}
          {failed.length > 0 && '; the failed ones say why below'}.
        </p>
      )}
    </section>
  );
}

function TargetItem({ target }: { target: Target }) {
  const { client, tokens } = useSession();
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () => client.targets.delete(target.target_id),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['targets'] }),
  });
  const short =
    target.description.length > 80 ? `${target.description.slice(0, 77)}…` : target.description;
  return (
    <li data-testid="target">
      <h3>{short}</h3>
      {short !== target.description && <p>{target.description}</p>}
      <dl className="org-facts">
        <dt>Target id</dt>
        <dd>
          <code>{target.target_id}</code>
        </dd>
        <dt>Descriptors</dt>
        <dd>{target.descriptors.join(', ') || 'none'}</dd>
        <dt>Coordinates</dt>
        <dd>
          {target.coordinates
            ? `${target.coordinates.latitude}, ${target.coordinates.longitude}`
            : 'none'}
        </dd>
        <dt>Added</dt>
        <dd>{new Date(target.created_at).toLocaleString()}</dd>
      </dl>
      {target.photos.length > 0 && (
        <ul className="org-photos" aria-label={`Photos of ${short}`}>
          {target.photos.map((photo, index) => (
            <li key={photo.photo_id}>
              {photo.status === 'fetched' ? (
                <BlobImage
                  queryKey={['target-photo', tokens.mode, target.target_id, photo.photo_id]}
                  load={() => client.targets.photo(target.target_id, photo.photo_id)}
                  alt={`Photo ${index + 1} of ${short}`}
                />
              ) : (
                <p className="org-check-failed">
                  Photo {index + 1} failed: {photo.failure}
                  <br />
                  <span className="muted secret">{photo.source_url}</span>
                </p>
              )}
            </li>
          ))}
        </ul>
      )}
      <ConfirmButton
        label={`Delete target ${short}`}
        question="Delete this target? Judging tasks that showed it keep what they showed."
        confirmLabel="Yes, delete"
        disabled={remove.isPending}
        onConfirm={() => remove.mutate()}
      />
      {remove.isError && <ApiError error={remove.error} />}
    </li>
  );
}
