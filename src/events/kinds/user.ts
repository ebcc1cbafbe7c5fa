import { z } from 'zod';
import { CodeValue } from '../canonical-event';
import type { EventKind } from './event-kind';
import { fieldRules } from './field-rules';
import { USER_RECORD_KEYS } from './person-keys';
import { sampleHead } from './sample-parts';

/**
 * The user kind's subject, `webhook_user`: the user record under `user` (an empty object when the
 * platform sends no record, e.g. on deletion), with `method` and `cause`.
 */
export const UserSubject = z.looseObject({
  method: z.string().optional(),
  cause: z.string().optional(),
  user: z
    .looseObject({
      primary_id: z.string().optional(),
      user_group: CodeValue.optional(),
      status: CodeValue.optional(),
    })
    .optional(),
});
export type UserSubject = z.infer<typeof UserSubject>;

const code = (...codes: string[]): ReturnType<typeof fieldRules> => fieldRules({ codes });

/** `user_identifier[].status` and `user_block[].block_status` are bare strings: not codes. */
const userRules = fieldRules({
  codes: [
    'record_type',
    'user_title',
    'job_category',
    'gender',
    'user_group',
    'campus_code',
    'preferred_language',
    'cataloger_level',
    'account_type',
    'status',
  ],
  lists: [
    'user_identifier',
    'user_role',
    'user_block',
    'user_note',
    'user_statistic',
    'proxy_for_user',
    'rs_library',
    'library_notice',
  ],
  objects: {
    contact_info: fieldRules({
      lists: ['address', 'email', 'phone'],
      objects: {
        address: fieldRules({
          codes: ['country', 'address_type'],
          lists: ['address_type'],
          booleans: ['preferred'],
        }),
        email: fieldRules({
          codes: ['email_type'],
          lists: ['email_type'],
          booleans: ['preferred'],
        }),
        phone: fieldRules({
          codes: ['phone_type'],
          lists: ['phone_type'],
          booleans: ['preferred', 'preferred_sms'],
        }),
      },
    }),
    user_identifier: code('id_type'),
    user_role: fieldRules({
      codes: ['status', 'scope', 'role_type'],
      lists: ['parameter'],
      objects: { parameter: code('type', 'scope', 'value') },
    }),
    user_block: code('block_type', 'block_description'),
    user_note: fieldRules({ codes: ['note_type'], booleans: ['user_viewable', 'popup_note'] }),
    user_statistic: code('statistic_category', 'category_type'),
    rs_library: code('code'),
    library_notice: code('code'),
  },
});

/**
 * Everything in a user record that names or reaches the person: ids, names, birth date, PIN,
 * addresses, e-mails, phones (with the notes on them), identifiers (library cards), notes about
 * them, the people they are proxy for, and the web links that carry the id.
 */
const USER_PERSONAL: readonly string[] = [
  ...[
    ...USER_RECORD_KEYS,
    'contact_info.address.line1',
    'contact_info.address.line2',
    'contact_info.address.line3',
    'contact_info.address.line4',
    'contact_info.address.line5',
    'contact_info.address.city',
    'contact_info.address.state_province',
    'contact_info.address.postal_code',
    'contact_info.address.address_note',
    'contact_info.email.email_address',
    'contact_info.email.description',
    'contact_info.phone.phone_number',
    'contact_info.phone.description',
    'user_identifier.value',
    'user_identifier.note',
    'user_note.note_text',
    'user_block.block_note',
    'user_statistic.statistic_note',
    'proxy_for_user',
  ].map((path) => `user.${path}`),
  'user_id',
  'primary_id',
];

export const user: EventKind = {
  name: 'user',
  subject: 'webhook_user',
  schema: UserSubject,
  patron: true,
  personal: USER_PERSONAL,
  // What the change was, and the record's codes that say no more than a group does (not a title
  // or gender, not statistics, not an address's country).
  safe: [
    'method',
    'cause',
    'user.record_type',
    'user.user_group',
    'user.status',
    'user.account_type',
    'user.expiry_date',
    'user.purge_date',
    'user.preferred_language',
    'user.campus_code',
    'user.user_identifier.id_type',
    'user.user_role.role_type',
    'user.user_role.status',
    'user.user_role.scope',
    'user.user_note.note_type',
    'user.user_block.block_type',
    'user.user_block.block_status',
  ],
  identifiers: { thin: ['user.primary_id'], history: {} },
  samples: {
    user: ({ id, time }) => ({
      ...sampleHead(id, time, 'USER', 'USER_UPDATED', 'User updated'),
      webhook_user: {
        method: 'UPDATE',
        cause: 'API',
        user: {
          record_type: { value: 'PUBLIC', desc: 'Public' },
          primary_id: 'S1004217',
          first_name: 'Amara',
          last_name: 'Okafor',
          user_group: { value: 'UGRAD', desc: 'Undergraduate' },
          expiry_date: '2027-06-30Z',
          status: { value: 'ACTIVE', desc: 'Active' },
          contact_info: {
            email: [
              {
                preferred: true,
                segment_type: 'Internal',
                email_address: 'amara@example.org',
                email_type: [{ value: 'personal', desc: 'Personal' }],
              },
            ],
          },
        },
      },
    }),
  },
  rules: fieldRules({ objects: { user: userRules } }),
};
