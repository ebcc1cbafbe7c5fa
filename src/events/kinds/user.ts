import { z } from 'zod';
import { CodeValue } from '../canonical-event';
import type { EventKind } from './event-kind';
import { fieldRules } from './field-rules';

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

export const user: EventKind = {
  name: 'user',
  subject: 'webhook_user',
  schema: UserSubject,
  rules: fieldRules({ objects: { user: userRules } }),
};
