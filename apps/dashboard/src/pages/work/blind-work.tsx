import { useQuery } from '@tanstack/react-query';
import { useSession } from '../../auth/session';
import { ControlField } from './common';

/** What every create form shares about who does the work and how it is judged. */
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

/** How many analysts or decoys: a whole number from 1. */
const COUNT = { as: 'input', type: 'number', min: 1, inputMode: 'numeric' } as const;

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
      <ControlField
        as="select"
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
      </ControlField>
      <ControlField
        {...COUNT}
        label="Analysts (optional)"
        fields={['analyst_count']}
        error={error}
        hint="Working independently on it"
        value={value.analystCount}
        onChange={(analystCount) => set({ analystCount })}
      />
      <ControlField
        as="select"
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
      </ControlField>
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
        <ControlField
          {...COUNT}
          label="Decoys"
          fields={['decoy_count']}
          error={error}
          hint="Beside the true target; chance is 1 in decoys + 1"
          value={value.decoyCount}
          onChange={(decoyCount) => set({ decoyCount })}
        />
      )}
    </fieldset>
  );
}
