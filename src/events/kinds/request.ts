import { z } from 'zod';
import { CodeValue } from '../canonical-event';
import type { EventKind } from './event-kind';
import { fieldRules } from './field-rules';
import { PERSON_ANYWHERE } from './person-keys';
import { sampleHead } from './sample-parts';

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
  patron: true,
  // The requester (by id, or a requester or user object), and the comments they or a desk wrote.
  personal: ['user_primary_id', 'user_id', 'comment', '**.note', ...PERSON_ANYWHERE],
  // The request and what it is for; not the comments nor who asked.
  safe: [
    'request_id',
    'request_type',
    'request_sub_type',
    'request_status',
    'title',
    'author',
    'description',
    'mms_id',
    'item_id',
    'barcode',
    'material_type',
    'pickup_location',
    'pickup_location_type',
    'pickup_location_library',
    'pickup_location_circulation_desk',
    'target_destination',
    'place_in_queue',
    'request_date',
    'request_time',
    'expiry_date',
    'task_name',
    'partial_digitization',
    'resource_sharing.id',
    'resource_sharing.status',
    'managed_by_library',
    'managed_by_library_code',
    'managed_by_circulation_desk',
    'managed_by_circulation_desk_code',
  ],
  identifiers: {
    thin: ['request_id', 'user_primary_id', 'mms_id', 'item_id'],
    history: { requestIds: ['request_id'], mmsIds: ['mms_id'], barcodes: ['barcode'] },
  },
  samples: {
    request: ({ id, time, n }) => ({
      ...sampleHead(id, time, 'REQUEST', 'REQUEST_CREATED', 'Request created'),
      user_request: {
        user_primary_id: 'S1004217',
        request_id: `812345${n}`,
        request_type: 'HOLD',
        request_sub_type: { value: 'PATRON_PHYSICAL', desc: 'Patron physical item request' },
        title: 'The politics of light',
        author: 'Lindqvist, Erik',
        mms_id: '991234570000561',
        item_id: '231234570000561',
        pickup_location: 'Main Library',
        pickup_location_type: 'LIBRARY',
        pickup_location_library: 'MAIN',
        material_type: { value: 'BOOK', desc: 'Book' },
        request_status: 'NOT_STARTED',
        place_in_queue: 1,
        request_date: `${time.slice(0, 10)}Z`,
        request_time: time,
        task_name: 'Pickup From Shelf',
      },
    }),
  },
  rules: fieldRules({
    // `request_type`, `request_status`, `pickup_location*` and `managed_by_*` are bare strings.
    codes: ['request_sub_type', 'material_type', 'target_destination'],
    numbers: ['place_in_queue'],
    booleans: ['partial_digitization'],
    objects: { resource_sharing: fieldRules({ codes: ['status'] }) },
  }),
};
