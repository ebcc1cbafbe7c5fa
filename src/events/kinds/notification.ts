import { z } from 'zod';
import type { EventKind } from './event-kind';
import { fieldRules } from './field-rules';

/**
 * The notification kind's subject, `notification_data` (its key in real payloads; not
 * `notification`). Its fields are not shown anywhere public enough to name codes or lists, so it
 * is kept as sent: no field of it is turned into anything else.
 */
export const NotificationSubject = z.looseObject({});
export type NotificationSubject = z.infer<typeof NotificationSubject>;

export const notification: EventKind = {
  name: 'notification',
  subject: 'notification_data',
  schema: NotificationSubject,
  // A letter to a patron: whom it is for, where it goes, and its text (which may greet them).
  personal: [
    'user_id',
    'user_primary_id',
    'recipients',
    'receivers',
    'message',
    'address',
    'email',
  ],
  rules: fieldRules({}),
};
