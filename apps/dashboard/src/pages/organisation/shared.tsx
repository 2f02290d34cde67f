import { useEffect, useRef, useState } from 'react';
import './organisation.css';

export const ROLES = ['admin', 'analyst', 'judge'] as const;
export type MemberRole = (typeof ROLES)[number];

export const ROLE_LABELS: Record<MemberRole, string> = {
  admin: 'Admin (runs the organisation)',
  analyst: 'Analyst (does blind work)',
  judge: 'Judge (ranks finished work blind)',
};

export const percent = (value: number) => `${(value * 100).toFixed(1)} %`;

/** Comma- or newline-separated words, trimmed, empty ones dropped. */
export const splitList = (text: string) =>
  text
    .split(/[,\n]/)
    .map((item) => item.trim())
    .filter((item) => item.length > 0);

/** A checkbox a role, ticked for the roles in `roles`; each change gives the new set. */
export function RoleChecks({
  roles,
  onChange,
  labelClassName,
}: {
  roles: Set<MemberRole>;
  onChange: (roles: Set<MemberRole>) => void;
  labelClassName?: string;
}) {
  return ROLES.map((role) => (
    <label key={role} className={labelClassName}>
      <input
        type="checkbox"
        checked={roles.has(role)}
        onChange={(event) => {
          const next = new Set(roles);
          if (event.target.checked) next.add(role);
          else next.delete(role);
          onChange(next);
        }}
      />
      {ROLE_LABELS[role]}
    </label>
  ));
}

/**
 * A destructive action asked twice: the first press shows the question and
 * moves the focus to "Yes, …"; Cancel (or Escape) puts it back.
 */
export function ConfirmButton({
  label,
  question,
  confirmLabel,
  onConfirm,
  disabled,
}: {
  /** The button's accessible name, e.g. "Disable Ada Lovelace". */
  label: string;
  question: string;
  confirmLabel: string;
  onConfirm: () => void;
  disabled?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  const yes = useRef<HTMLButtonElement>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) yes.current?.focus();
  }, [asking]);
  const cancel = () => {
    setAsking(false);
    setTimeout(() => trigger.current?.focus());
  };
  if (!asking) {
    return (
      <button
        ref={trigger}
        type="button"
        className="danger"
        disabled={disabled}
        onClick={() => setAsking(true)}
      >
        {label}
      </button>
    );
  }
  return (
    <span
      className="org-confirm"
      role="group"
      aria-label={question}
      onKeyDown={(event) => {
        if (event.key === 'Escape') cancel();
      }}
    >
      <span>{question}</span>{' '}
      <button
        ref={yes}
        type="button"
        className="danger"
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        {confirmLabel}
      </button>{' '}
      <button type="button" onClick={cancel}>
        Cancel
      </button>
    </span>
  );
}

/** A heading that takes the focus when its panel opens, so the keyboard lands where the panel is. */
export function useFocusOnMount<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  useEffect(() => ref.current?.focus(), []);
  return ref;
}

/** Test-mode credentials may read but not change this: said plainly, the forms disabled. */
export function ReadOnlyInTestMode({ what }: { what: string }) {
  return (
    <p className="org-notice-box" role="note">
      Test mode: you can see {what} here, but only change them in live mode. Switch to Live in the
      header to make changes.
    </p>
  );
}
