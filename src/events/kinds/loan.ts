import { z } from 'zod';
import { CodeValue } from '../canonical-event';
import type { EventKind } from './event-kind';
import { fieldRules } from './field-rules';
import { PERSON_ANYWHERE } from './person-keys';
import { SAMPLE_BASE, SAMPLE_DESK, SAMPLE_LIBRARY, sampleHead } from './sample-parts';

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
  patron: true,
  // The borrower (by id, or a user object), and free text a desk may write about them.
  personal: ['user_id', 'user_primary_id', 'note.content', ...PERSON_ANYWHERE],
  // The loan and its item; not `link` (it carries the borrower's id) nor any note.
  safe: [
    'loan_id',
    'item_barcode',
    'mms_id',
    'holding_id',
    'item_id',
    'request_id',
    'title',
    'author',
    'description',
    'publication_year',
    'call_number',
    'library',
    'circ_desk',
    'return_circ_desk',
    'location_code',
    'item_policy',
    'loan_status',
    'process_status',
    'loan_date',
    'due_date',
    'return_date',
    'last_renew_date',
    'last_renew_status',
    'renewable',
    'loan_fine',
  ],
  identifiers: {
    thin: ['loan_id', 'user_id', 'item_id', 'item_barcode', 'mms_id'],
    history: {
      loanIds: ['loan_id'],
      barcodes: ['item_barcode'],
      mmsIds: ['mms_id'],
      requestIds: ['request_id'],
    },
  },
  samples: {
    loan: ({ id, time, n }) => ({
      ...sampleHead(id, time, 'LOAN', 'LOAN_CREATED', 'Loan created'),
      item_loan: {
        loan_id: `234001${n}`,
        circ_desk: SAMPLE_DESK,
        library: SAMPLE_LIBRARY,
        user_id: 'S1004217',
        item_barcode: '39000123456',
        due_date: new Date(Date.parse(time) + 28 * 86_400_000).toISOString(),
        loan_status: 'ACTIVE',
        loan_date: time,
        process_status: 'NORMAL',
        mms_id: '991234560000561',
        holding_id: '221234560000561',
        item_id: '231234560000561',
        title: 'A history of rivers',
        author: 'Okafor, Amara',
        location_code: { value: 'STACKS', name: 'Main stacks' },
        item_policy: { value: '01', description: 'Regular loan' },
        renewable: true,
        link: `${SAMPLE_BASE}/users/S1004217/loans/234001${n}`,
      },
    }),
  },
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
