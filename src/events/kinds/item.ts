import { z } from 'zod';
import { CodeValue } from '../canonical-event';
import type { EventKind } from './event-kind';
import { fieldRules } from './field-rules';

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

export const item: EventKind = {
  name: 'item',
  subject: 'item',
  schema: ItemSubject,
  // An item names no patron; a loan or request of it is its own kind.
  personal: [],
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
