/**
 * A finished ticket's row for writing straight into the store, as another process would have
 * stored it: complete, so no worker takes it, and created at `at`.
 */
export function finishedTicketRow(id: string, project: string, at: number, tenant = 'acme') {
  return {
    id,
    tenant,
    project,
    user_name: 'u',
    target: 'pdf',
    status: 'renderpdf.succeeded',
    complete: 1,
    run_after: at,
    params: '{}',
    input_type: 'xml',
    priority: 0,
    attempt: 1,
    redeliveries: 0,
    messages: '[]',
    input_size: 0,
    processing_msecs: 0,
    processing_pages: 0,
    shipped: 0,
    created: at,
    updated: at,
  };
}
