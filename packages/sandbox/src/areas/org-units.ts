import type { RequestHandler } from 'express';
import { sendBody, sendList } from '../respond';
import type { SandboxArea, SandboxContext } from '../sandbox-context';
import { badRequest } from '../sandbox-error';
import { checkedText, code, objectBody, textAt, type Body } from './body-fields';
import { pick, randomInt } from './keyed-store';
import { seedWeekSchedule, WEEK_DAYS, type WeekSchedule } from './open-hours';
import { addDays, addYears, dateParam, dayText, startOfDay } from './query-rules';
import { LIBRARIES } from './seed-values';

const LOCATION_TYPES = ['OPEN', 'CLOSED', 'REMOTE'];
const REMOTE_STORAGE_CODES = ['OFFSITE-A', 'OFFSITE-B'];
const FULFILLMENT_UNITS = ['GENERAL', 'RESERVES', 'NON_CIRC'];
const ACCESSION_PLACEMENTS = ['NONE', 'LIBRARY', 'LOCATION'];
const CALL_NUMBER_TYPES = ['0', '1', '2', '3', '4', '5', '6', '7', '8'];
/**
 * spec §4.2: one request covers at most one month of days, counted as 31 with both ends
 * (`to` ≤ `from` + 30 days), the same count as the client's open-hours-query.ts.
 */
const MAX_DAYS = 31;

interface Library {
  readonly body: Body;
  readonly circDesks: Body[];
  readonly locations: Map<string, Body>;
  readonly schedule: WeekSchedule;
}

/** Libraries, circulation desks, physical locations and library open hours: spec §4.2. */
export const orgUnitsArea: SandboxArea = (router, ctx) => {
  const libraries = new Map(
    LIBRARIES.map((seed) => [seed.code, seedLibrary(ctx, seed.code, seed.name)]),
  );
  const libraryOf: LibraryOf = (libraryCode, errorCode = '402119') => {
    const library = libraries.get(libraryCode);
    if (library === undefined) throw badRequest(errorCode, `Library not found: ${libraryCode}`);
    return library;
  };
  const link = (path: string) => `${ctx.publicBaseUrl()}/svcws/v1/conf/libraries/${path}`;

  router.get('/conf/libraries', (req, res) => {
    const items = [...libraries.values()].map(({ body }) => ({
      ...body,
      link: link(String(body.code)),
    }));
    sendList(req, res, items, { itemKey: 'library', paged: false });
  });

  router.get('/conf/libraries/:libraryCode', (req, res) => {
    const { body } = libraryOf(req.params.libraryCode);
    sendBody(req, res, { ...body, link: link(String(body.code)) }, { xmlRoot: 'library' });
  });

  router.get(
    ['/conf/libraries/:libraryCode/circ-desks', '/conf/libraries/:libraryCode/circ-desks/'],
    (req, res) => {
      sendList(req, res, libraryOf(String(req.params.libraryCode)).circDesks, {
        itemKey: 'circ_desk',
      });
    },
  );

  router.get('/conf/libraries/:libraryCode/circ-desks/:circDeskCode', readCircDesk(libraryOf));
  router.get('/conf/libraries/:libraryCode/locations', (req, res) => {
    const items = [...libraryOf(req.params.libraryCode).locations.values()];
    sendList(req, res, items, { itemKey: 'location', paged: false });
  });
  router.get('/conf/libraries/:libraryCode/locations/:locationCode', readLocation(libraryOf));
  router.put('/conf/libraries/:libraryCode/locations/:locationCode', updateLocation(libraryOf));
  router.get('/conf/libraries/:libraryCode/open-hours', readOpenHours(libraryOf, ctx.now));
};

/** The library of a path code; `errorCode` (402119 unless the row says otherwise) when unknown. */
type LibraryOf = (libraryCode: string, errorCode?: string) => Library;
type LibraryHandler<P = object> = RequestHandler<P & { libraryCode: string }>;

function readCircDesk(libraryOf: LibraryOf): LibraryHandler<{ circDeskCode: string }> {
  return (req, res) => {
    const desk = libraryOf(req.params.libraryCode).circDesks.find(
      (candidate) => candidate.code === req.params.circDeskCode,
    );
    if (desk === undefined) {
      throw badRequest('401664', `Parameter invalid: circDeskCode ${req.params.circDeskCode}`);
    }
    sendBody(req, res, desk, { xmlRoot: 'circ_desk' });
  };
}

function readLocation(libraryOf: LibraryOf): LibraryHandler<{ locationCode: string }> {
  return (req, res) => {
    const location = libraryOf(req.params.libraryCode).locations.get(req.params.locationCode);
    if (location === undefined) {
      throw badRequest('402119', `Location not found: ${req.params.locationCode}`);
    }
    sendBody(req, res, location, { xmlRoot: 'location' });
  };
}

function updateLocation(libraryOf: LibraryOf): LibraryHandler<{ locationCode: string }> {
  return (req, res) => {
    const { locations } = libraryOf(req.params.libraryCode, '401664');
    const locationCode = req.params.locationCode;
    const current = locations.get(locationCode);
    if (current === undefined)
      throw badRequest('401664', `Parameter invalid: locationCode ${locationCode}`);
    const body = objectBody(req.body, '60302');
    const bodyCode = textAt(body, 'code') ?? locationCode;
    if (bodyCode !== locationCode) {
      throw badRequest(
        '401664',
        `Parameter invalid: code ${bodyCode} does not match ${locationCode}`,
      );
    }
    const updated = { ...current, ...body, code: locationCode };
    if (textAt(updated, 'name') === undefined)
      throw badRequest('60302', 'Update failed: name is empty');
    checkedText(updated, 'type', (v) => LOCATION_TYPES.includes(v), '60297');
    checkedText(updated, 'remote_storage', (v) => REMOTE_STORAGE_CODES.includes(v), '60298');
    checkedText(updated, 'fulfillment_unit', (v) => FULFILLMENT_UNITS.includes(v), '60299');
    checkedText(updated, 'accession_placement', (v) => ACCESSION_PLACEMENTS.includes(v), '60300');
    checkedText(updated, 'call_number_type', (v) => CALL_NUMBER_TYPES.includes(v), '60301');
    locations.set(locationCode, updated);
    sendBody(req, res, updated, { xmlRoot: 'location' });
  };
}

function readOpenHours(libraryOf: LibraryOf, now: () => Date): LibraryHandler {
  return (req, res) => {
    const { schedule } = libraryOf(req.params.libraryCode);
    const today = startOfDay(now());
    const from = dateParam(req.query, 'from', '402119') ?? today;
    const to = dateParam(req.query, 'to', '402119') ?? addDays(from, 7);
    checkOpenHoursRange(from, to, today);
    const days: Body[] = [];
    for (let day = from; day <= to; day = addDays(day, 1)) {
      const hours = schedule[day.getUTCDay()] ?? [];
      days.push({
        date: dayText(day),
        day_of_week: code(WEEK_DAYS[day.getUTCDay()] ?? ''),
        hour: hours.length === 0 ? undefined : hours.map((h) => ({ ...h })),
      });
    }
    sendBody(req, res, { day: days }, { xmlRoot: 'open_hours' });
  };
}

/** spec §4.2 and §8: at most one month of days, between one year back and three years ahead. */
function checkOpenHoursRange(from: Date, to: Date, today: Date): void {
  if (to < from) throw badRequest('402119', 'The to date is before the from date');
  if ((to.getTime() - from.getTime()) / 86_400_000 + 1 > MAX_DAYS) {
    throw badRequest('402119', `One request covers at most ${String(MAX_DAYS)} days`);
  }
  if (from < addYears(today, -1) || to > addYears(today, 3)) {
    throw badRequest('402119', 'The days must lie between one year back and three years ahead');
  }
}

function seedLibrary(ctx: SandboxContext, libraryCode: string, name: string): Library {
  const deskCount = randomInt(ctx.random, 2, 4);
  const deskNames = ['Loan Desk', 'Reserves Desk', 'Information Desk', 'Media Desk'];
  const circDesks = deskNames.slice(0, deskCount).map((deskName, index) => ({
    code: `${libraryCode}_DESK${String(index + 1)}`,
    name: `${name} ${deskName}`,
    primary: index === 0,
  }));
  const locationNames = ['Stacks', 'Reference', 'Periodicals', 'Reserves', 'Offsite Storage'];
  const locations = locationNames.slice(0, randomInt(ctx.random, 3, 5)).map((locationName) => {
    const locationCode = `${libraryCode}_${locationName.split(' ')[0]?.toUpperCase() ?? ''}`;
    const remote = locationName === 'Offsite Storage';
    const location: Body = {
      code: locationCode,
      name: locationName,
      external_name: `${name} – ${locationName}`,
      type: code(remote ? 'REMOTE' : pick(ctx.random, ['OPEN', 'CLOSED'])),
      remote_storage: remote ? code(pick(ctx.random, REMOTE_STORAGE_CODES)) : undefined,
      fulfillment_unit: code(locationName === 'Reserves' ? 'RESERVES' : 'GENERAL'),
      accession_placement: code('LIBRARY'),
      call_number_type: code(pick(ctx.random, ['0', '1', '4'])),
      suppress_from_publishing: false,
    };
    return [locationCode, location] as const;
  });
  return {
    body: {
      code: libraryCode,
      name,
      description: `${name} of the university`,
      resource_sharing: ctx.random() > 0.3,
      campus: code('MAIN_CAMPUS', 'Main campus'),
      default_location: code(locations[0]?.[0] ?? ''),
    },
    circDesks,
    locations: new Map(locations),
    schedule: seedWeekSchedule(ctx.random),
  };
}
