import type { RequestHandler, Router } from 'express';
import { sendBody, sendList, sendNoContent } from '../respond';
import type { SandboxContext } from '../sandbox-context';
import { badRequest } from '../sandbox-error';
import { code, objectBody, textAt, type Body } from './body-fields';
import { codesOf } from './code-table-seed';
import {
  createIdSequence,
  createKeyedStore,
  pick,
  randomInt,
  type KeyedStore,
} from './keyed-store';
import {
  addDays,
  dateParam,
  dayText,
  enumParam,
  parseDay,
  startOfDay,
  textParam,
} from './query-rules';
import { sortedBy } from './sort-order';

const INVALID = '40166410';
const ORDER_FIELDS = ['type', 'status', 'reminder_date'] as const;
/** spec §4.5: BIB_MMS is the only entity type. */
const ENTITY_TYPE = 'BIB_MMS';

const notFound = (id: string) => badRequest('60177', `Reminder id not valid: ${id}`);

/** Reminders, stateful CRUD: spec §4.5. */
export function reminderRoutes(router: Router, ctx: SandboxContext): void {
  const nextId = createIdSequence(ctx.random, '0781');
  const today = startOfDay(ctx.now());
  const reminders = createKeyedStore<Body>(notFound, seedReminders(ctx, nextId, today));

  router.get('/conf/reminders', listReminders(reminders, today));
  router.post('/conf/reminders', (req, res) => {
    const id = nextId();
    const reminder = reminders.put(id, {
      id,
      ...validReminder(objectBody(req.body, '60180'), '60180'),
    });
    sendBody(req, res, reminder, { xmlRoot: 'reminder' });
  });
  router.get('/conf/reminders/:reminder_id', (req, res) => {
    sendBody(req, res, reminders.get(req.params.reminder_id), { xmlRoot: 'reminder' });
  });
  router.put('/conf/reminders/:reminder_id', updateReminder(reminders));
  router.delete('/conf/reminders/:reminder_id', (req, res) => {
    reminders.remove(req.params.reminder_id);
    sendNoContent(res);
  });
}

function seedReminders(
  ctx: SandboxContext,
  nextId: () => string,
  today: Date,
): (readonly [string, Body])[] {
  return Array.from({ length: 10 }, () => {
    const id = nextId();
    const reminder = validReminder(
      {
        type: pick(ctx.random, codesOf('ReminderTypes')),
        status: pick(ctx.random, codesOf('ReminderStatuses')),
        reminder_date: dayText(
          addDays(today, randomInt(ctx.random, -2, 5) * (ctx.random() < 0.4 ? 0 : 1)),
        ),
        entity: {
          entity_type: ENTITY_TYPE,
          entity_id: `99${String(randomInt(ctx.random, 10_000, 99_999))}3506`,
        },
        text: pick(ctx.random, [
          'Check the holdings',
          'Claim the missing issue',
          'Review the record',
        ]),
      },
      '60180',
    );
    return [id, { id, ...reminder }] as const;
  });
}

function listReminders(reminders: KeyedStore<Body>, today: Date): RequestHandler {
  return (req, res) => {
    const type = enumParam(req.query, 'type', ['', ...codesOf('ReminderTypes')], '', INVALID);
    const status = enumParam(
      req.query,
      'status',
      ['', ...codesOf('ReminderStatuses')],
      '',
      INVALID,
    );
    const from = dateParam(req.query, 'from', INVALID) ?? today;
    const to = dateParam(req.query, 'to', INVALID) ?? from;
    const orderBy = enumParam(req.query, 'order_by', ORDER_FIELDS, 'type', INVALID);
    const direction = enumParam(req.query, 'direction', ['asc', 'desc'], 'asc', INVALID);
    const entityId = textParam(req.query, 'entity_id', INVALID);
    enumParam(req.query, 'entity_type', [ENTITY_TYPE], ENTITY_TYPE, INVALID);
    const [fromText, toText] = [dayText(from), dayText(to)];
    const items = reminders.list().filter((reminder) => {
      const date = String(reminder.reminder_date);
      return (
        (type === '' || textAt(reminder, 'type') === type) &&
        (status === '' || textAt(reminder, 'status') === status) &&
        (entityId === undefined || textAt(reminder, 'entity.entity_id') === entityId) &&
        date >= fromText &&
        date <= toText
      );
    });
    const ordered = sortedBy(
      items,
      direction,
      (r) => textAt(r, orderBy) ?? '',
      (r) => String(r.id),
    );
    sendList(req, res, ordered, { itemKey: 'reminder' });
  };
}

function updateReminder(reminders: KeyedStore<Body>): RequestHandler<{ reminder_id: string }> {
  return (req, res) => {
    const id = req.params.reminder_id;
    const current = reminders.get(id);
    const body = objectBody(req.body, '60181');
    if (textAt(body, 'id') !== undefined && textAt(body, 'id') !== id) {
      throw badRequest(
        '60181',
        `Reminder not updated: body id ${String(textAt(body, 'id'))} is not ${id}`,
      );
    }
    const reminder = reminders.put(id, { id, ...validReminder({ ...current, ...body }, '60181') });
    sendBody(req, res, reminder, { xmlRoot: 'reminder' });
  };
}

/**
 * spec §4.5 reminder save codes, in the order a reader checks the body. 60182–60185 are listed
 * for the create only; the update answers an invalid entity id or type with 40166410 (invalid
 * value) and a missing entity id or date with 60181 (not updated).
 */
function validReminder(body: Body, notSaved: string): Body {
  const create = notSaved === '60180';
  const [typeCode, idCode, idMissing, dateMissing] = create
    ? ['60183', '60182', '60184', '60185']
    : [INVALID, INVALID, notSaved, notSaved];
  const entityType = textAt(body, 'entity.entity_type') ?? ENTITY_TYPE;
  if (entityType !== ENTITY_TYPE)
    throw badRequest(typeCode, `Entity type not valid: ${entityType}`);
  const entityId = textAt(body, 'entity.entity_id');
  if (entityId === undefined) throw badRequest(idMissing, 'Entity id is required');
  if (!/^99\d{4,}$/.test(entityId)) throw badRequest(idCode, `Entity id not valid: ${entityId}`);
  const type = textAt(body, 'type') ?? '';
  if (!codesOf('ReminderTypes').includes(type))
    throw badRequest('60178', `Type not valid: ${type}`);
  const status = textAt(body, 'status') ?? 'NEW';
  if (!codesOf('ReminderStatuses').includes(status)) {
    throw badRequest('60179', `Status not valid: ${status}`);
  }
  const dateText = textAt(body, 'reminder_date');
  if (dateText === undefined) throw badRequest(dateMissing, 'Reminder date is required');
  const date = parseDay(dateText);
  if (date === undefined) throw badRequest(INVALID, `Invalid reminder_date: ${dateText}`);
  const text = textAt(body, 'text');
  if (text !== undefined && text.length > 4000) throw badRequest(notSaved, 'Text is too long');
  return {
    entity: { entity_type: code(ENTITY_TYPE, 'Bibliographic record'), entity_id: entityId },
    type: code(type),
    status: code(status),
    text,
    reminder_date: dayText(date),
  };
}
