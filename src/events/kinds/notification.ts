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
  rules: fieldRules({}),
};
