import type { AssignmentDetail } from '@sas/sdk';
import { useQuery } from '@tanstack/react-query';

/** Lowercase hex SHA-256 of the UTF-8 string, computed in the browser. */
async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** After the work is closed: the target, and the check that it is the one committed to. */
export function Reveal({
  assignment,
}: {
  assignment: AssignmentDetail & { target: string; target_nonce: string };
}) {
  const { target, target_nonce: nonce, target_commitment: commitment } = assignment;
  const check = useQuery({
    queryKey: ['commitment-check', nonce, target, commitment],
    queryFn: async () => (await sha256Hex(`${nonce}:${target}`)) === commitment,
    staleTime: Infinity,
  });
  return (
    <section aria-labelledby="reveal" className="mw-reveal">
      <h2 id="reveal">The target, revealed</h2>
      <p className="mw-target" data-testid="revealed-target">
        {target}
      </p>
      <dl className="mw-facts">
        <dt>Reference number</dt>
        <dd>{assignment.target_reference_number}</dd>
        <dt>Nonce</dt>
        <dd>
          <code>{nonce}</code>
        </dd>
        <dt>Commitment (published when the work was tasked)</dt>
        <dd>
          <code className="secret">{commitment}</code>
        </dd>
      </dl>
      <p>
        The commitment is the SHA-256 of <code>nonce:target</code>, fixed before you started: if it
        matches, the target was not changed after the work was in. Your browser checked it:
      </p>
      <p role="status" data-testid="commitment-check">
        {check.isPending && 'Checking…'}
        {check.isError && 'The check could not run in this browser.'}
        {check.data === true && (
          <strong className="mw-verified">✓ sha256(nonce:target) matches the commitment</strong>
        )}
        {check.data === false && (
          <strong className="mw-mismatch">
            ✗ sha256(nonce:target) does not match the commitment
          </strong>
        )}
      </p>
    </section>
  );
}
