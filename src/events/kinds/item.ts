import { z } from 'zod';
import { CodeValue } from '../canonical-event';
import type { EventKind, SampleSeed } from './event-kind';
import { fieldRules } from './field-rules';
import { SAMPLE_BASE, SAMPLE_LIBRARY, sampleHead } from './sample-parts';

/** The item kind's subject, `item`: the item with its bib and holding as the platform nests them. */
export const ItemSubject = z.looseObject({
  bib_data: z.looseObject({ mms_id: z.string().optional() }).optional(),
  holding_data: z.looseObject({ holding_id: z.string().optional() }).optional(),
  item_data: z
    .looseObject({
      pid: z.string().optional(),
      barcode: z.string().optional(),
      base_status: CodeValue.optional(),
    })
    .optional(),
});
export type ItemSubject = z.infer<typeof ItemSubject>;

function itemSample({ id, time, n }: SampleSeed): Record<string, unknown> {
  const bibLink = `${SAMPLE_BASE}/bibs/991234560000561`;
  const holdingLink = `${bibLink}/holdings/221234560000561`;
  return {
    ...sampleHead(id, time, 'ITEM', 'ITEM_UPDATED', 'Item updated'),
    item: {
      bib_data: {
        mms_id: '991234560000561',
        title: 'A history of rivers',
        author: 'Okafor, Amara',
        network_number: ['(OCoLC)987654321'],
        link: bibLink,
      },
      holding_data: {
        holding_id: '221234560000561',
        call_number: 'GB1201 .O43 2019',
        in_temp_location: false,
        link: holdingLink,
      },
      item_data: {
        pid: `231234${n}`,
        barcode: '39000123456',
        modification_date: `${time.slice(0, 10)}Z`,
        base_status: { value: '1', desc: 'Item in place' },
        physical_material_type: { value: 'BOOK', desc: 'Book' },
        policy: { value: '01', desc: 'Regular loan' },
        library: SAMPLE_LIBRARY,
        location: { value: 'STACKS', desc: 'Main stacks' },
        requested: false,
      },
      link: `${holdingLink}/items/231234${n}`,
    },
  };
}

export const item: EventKind = {
  name: 'item',
  subject: 'item',
  schema: ItemSubject,
  // An item names no patron; a loan or request of it is its own kind.
  patron: false,
  personal: [],
  // The item, its holding and bib; not its notes (free text).
  safe: [
    ...['mms_id', 'title', 'author', 'issn', 'isbn', 'network_number', 'link'].map(
      (key) => `bib_data.${key}`,
    ),
    ...[
      'holding_id',
      'call_number_type',
      'call_number',
      'permanent_call_number_type',
      'permanent_call_number',
      'in_temp_location',
      'temp_library',
      'temp_location',
      'temp_call_number_type',
      'temp_call_number',
      'temp_policy',
      'link',
    ].map((key) => `holding_data.${key}`),
    ...[
      'pid',
      'barcode',
      'creation_date',
      'modification_date',
      'base_status',
      'awaiting_reshelving',
      'physical_material_type',
      'policy',
      'provenance',
      'is_magnetic',
      'library',
      'location',
      'pages',
      'pieces',
      'requested',
      'physical_condition',
      'description',
      'process_type',
      'work_order_type',
    ].map((key) => `item_data.${key}`),
    'link',
  ],
  identifiers: {
    thin: ['bib_data.mms_id', 'holding_data.holding_id', 'item_data.pid'],
    history: { mmsIds: ['bib_data.mms_id'], barcodes: ['item_data.barcode'] },
  },
  samples: { item: itemSample },
  rules: fieldRules({
    objects: {
      bib_data: fieldRules({ lists: ['network_number'] }),
      holding_data: fieldRules({
        codes: [
          'permanent_call_number_type',
          'call_number_type',
          'temp_library',
          'temp_location',
          'temp_call_number_type',
          'temp_policy',
        ],
        booleans: ['in_temp_location'],
      }),
      item_data: fieldRules({
        codes: [
          'base_status',
          'physical_material_type',
          'policy',
          'provenance',
          'library',
          'location',
          'process_type',
          'work_order_type',
          'work_order_at',
          'break_indicator',
          'pattern_type',
          'alternative_call_number_type',
          'physical_condition',
          'committed_to_retain',
          'retention_reason',
        ],
        booleans: ['awaiting_reshelving', 'is_magnetic', 'requested'],
      }),
    },
  }),
};
