import { z } from 'zod';
import { CodeValue } from '../canonical-event';
import type { EventKind } from './event-kind';
import { fieldRules } from './field-rules';

/** The request kind's subject, `user_request`: a patron's request on a title or an item. */
export const RequestSubject = z.looseObject({
  request_id: z.string().optional(),
  user_primary_id: z.string().optional(),
  request_type: z.string().optional(),
  request_sub_type: CodeValue.optional(),
  request_status: z.string().optional(),
  mms_id: z.string().optional(),
  item_id: z.string().optional(),
});
export type RequestSubject = z.infer<typeof RequestSubject>;

export const request: EventKind = {
  name: 'request',
  subject: 'user_request',
  schema: RequestSubject,
  // The requester, and the comment they or the desk wrote.
  personal: ['user_primary_id', 'user_id', 'comment'],
  rules: fieldRules({
    // `request_type`, `request_status`, `pickup_location*` and `managed_by_*` are bare strings.
    codes: ['request_sub_type', 'material_type', 'target_destination'],
    numbers: ['place_in_queue'],
    booleans: ['partial_digitization'],
    objects: { resource_sharing: fieldRules({ codes: ['status'] }) },
  }),
};
