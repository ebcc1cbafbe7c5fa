import { z } from 'zod';
import { CodeValue } from '../canonical-event';
import type { EventKind } from './event-kind';
import { fieldRules } from './field-rules';

/** The loan kind's subject, `item_loan`: a loan as the platform's loan objects have it. */
export const LoanSubject = z.looseObject({
  loan_id: z.string().optional(),
  user_id: z.string().optional(),
  item_barcode: z.string().optional(),
  mms_id: z.string().optional(),
  item_id: z.string().optional(),
  library: CodeValue.optional(),
  circ_desk: CodeValue.optional(),
  loan_status: z.string().optional(),
  due_date: z.string().optional(),
});
export type LoanSubject = z.infer<typeof LoanSubject>;

export const loan: EventKind = {
  name: 'loan',
  subject: 'item_loan',
  schema: LoanSubject,
  // The borrower, and free text a desk may write about them.
  personal: ['user_id', 'user_primary_id', 'note.content'],
  rules: fieldRules({
    // `loan_status` and `process_status` are bare strings in the platform's JSON: not codes.
    codes: [
      'library',
      'circ_desk',
      'return_circ_desk',
      'location_code',
      'item_policy',
      'last_renew_status',
      'request_id',
    ],
    numbers: ['loan_fine'],
    booleans: ['renewable'],
  }),
};
