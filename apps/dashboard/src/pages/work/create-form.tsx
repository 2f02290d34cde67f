import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { ApiError } from '../../api-error';
import { useSession } from '../../auth/session';
import { type BlindWork, blindWorkFields, BlindWorkFields, NO_BLIND_WORK } from './blind-work';
import { ControlField, Options } from './common';
import type { FormControl, FormGroup, FormValues, LiveWork, WorkKind } from './kind';

const controlsOf = (form: (FormControl | FormGroup)[]) =>
  form.flatMap((item) => ('legend' in item ? item.controls : [item]));

/**
 * A kind's create form: its controls, who does the work, and the API's
 * complaints at the fields they name (the API validates; the form does not).
 * Once created, the work's page opens.
 */
export function CreateWorkForm<Item, Work extends LiveWork, Body, Created>({
  kind,
}: {
  kind: WorkKind<Item, Work, Body, Created>;
}) {
  const { client, tokens } = useSession();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const { create } = kind;
  const [values, setValues] = useState<FormValues>(() =>
    Object.fromEntries(controlsOf(create.form).map(({ name, initial }) => [name, initial ?? ''])),
  );
  const [blind, setBlind] = useState<BlindWork>(NO_BLIND_WORK);
  const mutation = useMutation({
    mutationFn: (body: Body) => kind.api(client).create(body),
    onSuccess: async (answer) => {
      await queryClient.invalidateQueries({ queryKey: [kind.keys.list, tokens.mode] });
      const id = create.created(answer);
      if (create.answerIsWork) queryClient.setQueryData([kind.keys.one, tokens.mode, id], answer);
      await navigate(kind.link(id));
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    mutation.mutate({ ...create.body(values), ...blindWorkFields(blind) });
  };
  const error = mutation.error;
  const control = ({ name, initial: _, choices, shown, ...field }: FormControl) =>
    (shown?.(values) ?? true) && (
      <ControlField
        key={name}
        {...field}
        {...(choices ? { children: <Options {...choices} /> } : {})}
        error={error}
        value={values[name]!}
        onChange={(value) => setValues({ ...values, [name]: value })}
      />
    );
  return (
    <section aria-labelledby={create.id}>
      <h2 id={create.id}>{create.heading}</h2>
      <form className="work-form" onSubmit={submit} noValidate>
        {create.form.map((item) =>
          'legend' in item ? (
            <fieldset key={item.controls[0]!.name}>
              <legend>{typeof item.legend === 'string' ? item.legend : item.legend(values)}</legend>
              {item.controls.map(control)}
            </fieldset>
          ) : (
            control(item)
          ),
        )}
        <BlindWorkFields
          value={blind}
          onChange={setBlind}
          error={error}
          done={create.simulatorTakes}
        />
        <div className="work-form-actions">
          <button type="submit" disabled={mutation.isPending}>
            {mutation.isPending ? create.submitting : create.submit}
          </button>
        </div>
        {error && <ApiError error={error} />}
      </form>
    </section>
  );
}
