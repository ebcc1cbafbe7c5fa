/** A LOAN event as the platform sends it (action LOAN, event LOAN_CREATED), as JSON text. */
export function loanEventJson(id: string, institution?: string): string {
  return JSON.stringify({
    id,
    action: 'LOAN',
    event: { value: 'LOAN_CREATED' },
    time: '2024-11-06T10:15:30Z',
    ...(institution === undefined ? {} : { institution: { value: institution } }),
    item_loan: { loan_id: `L${id}` },
  });
}
