import { useEffect, useState } from 'react';

/** A value shown once or worth copying (an invitation link, a metadata URL) with its Copy button. */
export function CopyValue({
  value,
  label,
  testId,
}: {
  value: string;
  /** What is copied, for the button's accessible name ("Copy invitation link"). */
  label: string;
  testId?: string;
}) {
  const [copied, setCopied] = useState(false);
  useEffect(() => setCopied(false), [value]);
  return (
    <span className="copy-value">
      <code className="secret" data-testid={testId}>
        {value}
      </code>{' '}
      <button
        type="button"
        onClick={() => void navigator.clipboard.writeText(value).then(() => setCopied(true))}
      >
        {copied ? 'Copied' : `Copy ${label}`}
      </button>
    </span>
  );
}
