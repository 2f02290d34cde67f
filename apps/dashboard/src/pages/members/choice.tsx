/** A filter's select inside its label: "any" (the empty value) or one of `values`, named by `labels`. */
export function Choice<T extends string>({
  label,
  value,
  onChange,
  values,
  labels,
  any,
}: {
  label: string;
  value: T | '';
  onChange: (value: T | '') => void;
  values: readonly T[];
  labels: Record<T, string>;
  any: string;
}) {
  return (
    <label>
      {label}{' '}
      <select value={value} onChange={(event) => onChange(event.target.value as T | '')}>
        <option value="">{any}</option>
        {values.map((option) => (
          <option key={option} value={option}>
            {labels[option]}
          </option>
        ))}
      </select>
    </label>
  );
}
