import { z } from 'zod';
import type { EventKind } from './event-kind';
import { fieldRules } from './field-rules';
import { PERSON_ANYWHERE } from './person-keys';
import { sampleHead } from './sample-parts';

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
  patron: true,
  // A letter to a patron: whom it is for and where it goes (the receiving user inside
  // `notification_data`, with ids, names, PIN, addresses, e-mails, phones and identifiers; the
  // user printed on the letter), at whatever depth the letter puts them, and its free text.
  personal: [
    ...PERSON_ANYWHERE,
    '**.user_id',
    '**.user_primary_id',
    '**.primary_id',
    '**.message',
    '**.note',
    '**.comment',
    'address',
    'email',
  ],
  // The letter's kind and channel, and the records it is about; nothing of whom it is for (nor
  // its subject line or message, which a template may fill with a name).
  safe: [
    'notification_type',
    'letter_code',
    'channel',
    'general_data.current_date',
    'general_data.letter_name',
    'item.barcode',
    'item.title',
    'item.due_date',
    'request.request_id',
    'request.request_type',
    'request.status',
    'request.pickup_location',
    'phys_item_display.title',
    'phys_item_display.author',
    'phys_item_display.barcode',
    'phys_item_display.mms_id',
    'organization_unit.name',
    'organization_unit.code',
  ],
  identifiers: {
    thin: ['user_id'],
    // Letters differ in where they put the item and the request: found at any depth.
    history: {
      barcodes: ['**.barcode', '**.item_barcode'],
      mmsIds: ['**.mms_id'],
      loanIds: ['**.loan_id'],
      requestIds: ['**.request_id'],
    },
  },
  samples: {
    notification: ({ id, time }) => ({
      ...sampleHead(id, time, 'NOTIFICATION', 'NOTIFICATION', 'Notification'),
      notification_data: {
        notification_type: 'FulfillmentLetter',
        user_id: 'S1004217',
        letter_code: 'LoanStatusNoticeLetter',
        channel: 'EMAIL',
        recipients: ['amara@example.org', 'circulation@example.org'],
        item: [
          { barcode: '39000123456', title: 'A history of rivers', due_date: time },
          { barcode: '39000123457', title: 'Essays on memory', due_date: time },
        ],
        message: 'Your loans are due soon.',
      },
    }),
  },
  rules: fieldRules({}),
};
