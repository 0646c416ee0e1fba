/** The ticket's state in words (never colour alone): open, succeeded or failed, with its status. */
export function StatusBadge({ status, complete, errorCode }: { status: string | null; complete: boolean; errorCode: string | null }) {
  const failed = errorCode !== null || (status?.endsWith('.failed') ?? false) || status === 'error.succeeded';
  const state = !complete ? 'open' : failed ? 'failed' : 'done';
  return (
    <span class={`badge ${state}`}>
      {state} · {status ?? 'queued'}
    </span>
  );
}
