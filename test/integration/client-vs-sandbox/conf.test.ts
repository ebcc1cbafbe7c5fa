import { createSvcClient, SvcApiError, SvcParamError } from '@svcws/client';
import {
  apiError,
  clientAgainstSandbox,
  expectRefusal,
  isoDay,
  items,
  obj,
  routesOf,
  total,
  valueOf,
} from './client-vs-sandbox';
import type { ClientAgainstSandbox } from './client-vs-sandbox';

/** spec §4.1, §4.2, §4.4–§4.7 through the real client against the real sandbox. */
describe('client against sandbox: configuration (spec §4.1, §4.2, §4.4–§4.7)', () => {
  let env: ClientAgainstSandbox;
  beforeAll(async () => {
    env = await clientAgainstSandbox();
  });
  afterAll(async () => {
    await env.close();
  });

  describe('§4.1 tables, general configuration, open hours, departments', () => {
    it('lists the code tables without the hidden one', async () => {
      const answer = await env.request('GET /conf/code-tables');
      const names = items(answer, 'code_table').map((table) => table.name);
      expect(names).toContain('InvoiceStatus');
      expect(names).not.toContain('InternalRecordLocks');
      expect(total(answer)).toBe(names.length);
    });

    it('reads a code table with its rows, and refuses a malformed lang with 40166411', async () => {
      const table = obj(
        await env.request('GET /conf/code-tables/{codeTableName}', {
          path: { codeTableName: 'InvoiceStatus' },
          query: { lang: 'en' },
        }),
      );
      expect(items(table, 'row').map((row) => row.code)).toContain('InReview');
      await expectRefusal(
        env.request('GET /conf/code-tables/{codeTableName}', {
          path: { codeTableName: 'InvoiceStatus' },
          query: { lang: 'english' },
        }),
        '40166411',
        'parameter value invalid',
      );
    });

    it('updates a customizable code table and refuses a system one with 90123', async () => {
      const updated = await env.request('PUT /conf/code-tables/{codeTableName}', {
        path: { codeTableName: 'ReminderTypes' },
        body: {
          name: 'ReminderTypes',
          row: [
            { code: 'GENERAL', description: 'General', default: true, enabled: true },
            { code: 'REVIEW', description: 'Review again', default: false, enabled: true },
          ],
        },
      });
      expect(items(updated, 'row').map((row) => row.description)).toEqual([
        'General',
        'Review again',
      ]);
      await expectRefusal(
        env.request('PUT /conf/code-tables/{codeTableName}', {
          path: { codeTableName: 'IntegrationTypes' },
          body: { name: 'IntegrationTypes', row: [{ code: 'WEBHOOK', description: 'Hooks' }] },
        }),
        '90123',
        'table not customizable',
      );
    });

    it('lists the mapping tables without the hidden one', async () => {
      const names = items(await env.request('GET /conf/mapping-tables'), 'mapping_table').map(
        (table) => table.name,
      );
      expect(names).toEqual(expect.arrayContaining(['VendorErpMapping', 'SystemLocaleMapping']));
      expect(names).not.toContain('InternalQueueMapping');
    });

    it('reads a mapping table, and refuses an unknown scope with 40166411', async () => {
      const table = await env.request('GET /conf/mapping-tables/{mappingTableName}', {
        path: { mappingTableName: 'VendorErpMapping' },
        query: { scope: 'MAIN' },
      });
      expect(items(table, 'row').map((row) => row.column0)).toContain('HARRASSOWITZ');
      await expectRefusal(
        env.request('GET /conf/mapping-tables/{mappingTableName}', {
          path: { mappingTableName: 'VendorErpMapping' },
          query: { scope: 'NOWHERE' },
        }),
        '40166411',
        'scope not found',
      );
    });

    it('updates a mapping table and refuses a non-customizable one with 90125', async () => {
      const updated = await env.request('PUT /conf/mapping-tables/{mappingTableName}', {
        path: { mappingTableName: 'VendorErpMapping' },
        body: {
          name: 'VendorErpMapping',
          row: [{ column0: 'HARRASSOWITZ', column1: 'ERP-9001', column2: '', enabled: true }],
        },
      });
      expect(items(updated, 'row')).toEqual([expect.objectContaining({ column1: 'ERP-9001' })]);
      await expectRefusal(
        env.request('PUT /conf/mapping-tables/{mappingTableName}', {
          path: { mappingTableName: 'SystemLocaleMapping' },
          body: { name: 'SystemLocaleMapping', row: [] },
        }),
        '90125',
        'table not customizable',
      );
    });

    it('reads the general configuration with the ingest forms expanded', async () => {
      const general = obj(
        await env.request('GET /conf/general', { query: { expand: 'ingest_form' } }),
      );
      expect(valueOf(general.institution)).toBe('01SVC_INST');
      expect(items(general, 'ingest_form').length).toBeGreaterThan(0);
    });

    it('reads the institution open hours, scope left out (the description: optional)', async () => {
      const hours = await env.request('GET /conf/open-hours');
      expect(items(hours, 'open_hour').length).toBeGreaterThanOrEqual(6);
    });

    it('lists departments: DIGI only, brief without operators', async () => {
      const all = await env.request('GET /conf/departments');
      const digi = await env.request('GET /conf/departments', {
        query: { type: 'DIGI', view: 'brief' },
      });
      expect(total(all)).toBe(4);
      expect(total(digi)).toBe(2);
      expect(items(digi, 'department').every((department) => !('operator' in department))).toBe(
        true,
      );
      expect(items(all, 'department').every((department) => 'operator' in department)).toBe(true);
    });
  });

  describe('§4.2 libraries, desks, locations, library open hours', () => {
    it('lists the four libraries', async () => {
      const answer = await env.request('GET /conf/libraries');
      expect(items(answer, 'library').map((library) => library.code)).toEqual([
        'MAIN',
        'LAW',
        'SCI',
        'MUSIC',
      ]);
    });

    it('reads a library, and refuses an unknown one with 402119', async () => {
      const library = obj(
        await env.request('GET /conf/libraries/{libraryCode}', { path: { libraryCode: 'LAW' } }),
      );
      expect(library.name).toBe('Law Library');
      await expectRefusal(
        env.request('GET /conf/libraries/{libraryCode}', { path: { libraryCode: 'NOPE' } }),
        '402119',
        'general error',
      );
    });

    it('lists circulation desks a page at a time, the spec path with its trailing slash', async () => {
      const page = await env.request('GET /conf/libraries/{libraryCode}/circ-desks/', {
        path: { libraryCode: 'MAIN' },
        query: { limit: 1 },
      });
      expect(items(page, 'circ_desk')).toHaveLength(1);
      expect(total(page)).toBeGreaterThanOrEqual(2);
    });

    it('reads a circulation desk, and refuses an unknown desk with 401664', async () => {
      const desk = obj(
        await env.request('GET /conf/libraries/{libraryCode}/circ-desks/{circDeskCode}', {
          path: { libraryCode: 'MAIN', circDeskCode: 'MAIN_DESK1' },
        }),
      );
      expect(desk.primary).toBe(true);
      await expectRefusal(
        env.request('GET /conf/libraries/{libraryCode}/circ-desks/{circDeskCode}', {
          path: { libraryCode: 'MAIN', circDeskCode: 'MAIN_DESK9' },
        }),
        '401664',
        'parameter missing or invalid',
      );
    });

    it('lists and reads locations', async () => {
      const list = await env.request('GET /conf/libraries/{libraryCode}/locations', {
        path: { libraryCode: 'SCI' },
      });
      expect(items(list, 'location').map((location) => location.code)).toContain('SCI_STACKS');
      const location = obj(
        await env.request('GET /conf/libraries/{libraryCode}/locations/{locationCode}', {
          path: { libraryCode: 'SCI', locationCode: 'SCI_STACKS' },
        }),
      );
      expect(location.name).toBe('Stacks');
    });

    it('updates a location, and refuses an unknown location type with 60297', async () => {
      const updated = obj(
        await env.request('PUT /conf/libraries/{libraryCode}/locations/{locationCode}', {
          path: { libraryCode: 'MAIN', locationCode: 'MAIN_REFERENCE' },
          body: { code: 'MAIN_REFERENCE', name: 'Reference room', type: 'CLOSED' },
        }),
      );
      expect([updated.name, valueOf(updated.type)]).toEqual(['Reference room', 'CLOSED']);
      await expectRefusal(
        env.request('PUT /conf/libraries/{libraryCode}/locations/{locationCode}', {
          path: { libraryCode: 'MAIN', locationCode: 'MAIN_REFERENCE' },
          body: { name: 'Reference room', type: 'FLOATING' },
        }),
        '60297',
        'location type invalid',
      );
    });

    it('reads a library open hours: the default week is 8 days, from and to inclusive', async () => {
      const week = await env.request('GET /conf/libraries/{libraryCode}/open-hours', {
        path: { libraryCode: 'MUSIC' },
      });
      const days = items(week, 'day');
      expect(days).toHaveLength(8);
      expect(days[0]?.date).toBe(`${isoDay(0)}Z`);
    });

    // spec §4.2 "one month of days": both sides count at most 31 days (to ≤ from + 30 days).
    it.each([
      ['the 1st of a 31-day month', () => firstOfA31DayMonthAhead()],
      ['a February 1st, past the end of February', () => firstOfFebruaryNextYear()],
    ])('serves 31 days counting both ends from %s', async (_start, start) => {
      const from = start();
      const to = new Date(from.getTime() + 30 * 86_400_000);
      const answer = await env.request('GET /conf/libraries/{libraryCode}/open-hours', {
        path: { libraryCode: 'MAIN' },
        query: { from: iso(from), to: iso(to) },
      });
      expect(items(answer, 'day')).toHaveLength(31);
    });

    it('refuses 32 days (the 1st of a 31-day month to the 1st of the next): the client before the network, the sandbox with 402119', async () => {
      const from = firstOfA31DayMonthAhead();
      const to = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + 1, 1));
      await expect(
        env.client.request('GET /conf/libraries/{libraryCode}/open-hours', {
          path: { libraryCode: 'MAIN' },
          query: { from: iso(from), to: iso(to) },
        }),
      ).rejects.toBeInstanceOf(SvcParamError);
      const raw = await env.sut.api(
        'GET',
        `/conf/libraries/MAIN/open-hours?from=${iso(from)}&to=${iso(to)}`,
      );
      expect([raw.status, raw.errorCode]).toEqual([400, '402119']);
    });
  });

  describe('§4.4 profiles', () => {
    it('lists deposit profiles, filtered by user group', async () => {
      const all = await env.request('GET /conf/deposit-profiles');
      expect(total(all)).toBe(4);
      const group = String(valueOf(items(all, 'deposit_profile')[0]?.user_group));
      const filtered = items(
        await env.request('GET /conf/deposit-profiles', { query: { user_group: group } }),
        'deposit_profile',
      );
      expect(filtered.length).toBeGreaterThan(0);
      expect(filtered.every((profile) => valueOf(profile.user_group) === group)).toBe(true);
    });

    it('reads a deposit profile', async () => {
      const profile = obj(
        await env.request('GET /conf/deposit-profiles/{deposit_profile_id}', {
          path: { deposit_profile_id: 'DP101' },
        }),
      );
      expect(profile.name).toBe('Research data');
    });

    it('lists integration profiles by type and by q, and refuses an unknown type with 40166404', async () => {
      const webhooks = await env.request('GET /conf/integration-profiles', {
        query: { type: 'WEBHOOK' },
      });
      expect(items(webhooks, 'integration_profile').map((profile) => profile.name)).toEqual([
        'Listener webhooks',
      ]);
      const byName = await env.request('GET /conf/integration-profiles', {
        query: { q: 'name~erp' },
      });
      expect(total(byName)).toBe(1);
      await expectRefusal(
        env.request('GET /conf/integration-profiles', { query: { type: 'TELEX' } }),
        '40166404',
        'invalid type',
      );
    });

    it('reads an integration profile, and refuses an unknown id with 60304', async () => {
      const profile = obj(
        await env.request('GET /conf/integration-profiles/{id}', { path: { id: '50010000561' } }),
      );
      expect(valueOf(profile.type)).toBe('SIS');
      await expectRefusal(
        env.request('GET /conf/integration-profiles/{id}', { path: { id: '1' } }),
        '60304',
        'invalid profile id',
      );
    });

    it('lists import profiles by type, and refuses an unknown ie_type with 402123', async () => {
      const all = await env.request('GET /conf/md-import-profiles');
      expect(total(all)).toBe(5);
      const orders = await env.request('GET /conf/md-import-profiles', {
        query: { type: 'NEW_ORDER' },
      });
      expect(items(orders, 'import_profile').map((profile) => profile.name)).toEqual([
        'EOD new orders',
      ]);
      await expectRefusal(
        env.request('GET /conf/md-import-profiles', { query: { ie_type: 'VIRTUAL' } }),
        '402123',
        'invalid parameter value',
      );
    });

    it('reads an import profile, and refuses an unknown id with 401871', async () => {
      const profile = obj(
        await env.request('GET /conf/md-import-profiles/{profile_id}', {
          path: { profile_id: '61000000561' },
        }),
      );
      expect(valueOf(profile.source_type)).toBe('FTP');
      await expectRefusal(
        env.request('GET /conf/md-import-profiles/{profile_id}', { path: { profile_id: '99' } }),
        '401871',
        'profile id not found',
      );
    });

    it('runs an FTP import profile through the deprecated operation', async () => {
      const profile = obj(
        await env.request('POST /conf/md-import-profiles/{profile_id}', {
          path: { profile_id: '61000000561' },
          query: { op: 'run' },
        }),
      );
      expect(typeof profile.last_run).toBe('string');
    });

    it('the deprecated run of an UPLOAD profile is refused with 402119, a code the spec does not list for it, and the client gives §7 general meaning', async () => {
      // spec §4.4 lists only 401871; "supported for FTP, OAI and Digital" gives no code.
      const error = await apiError(
        env.request('POST /conf/md-import-profiles/{profile_id}', {
          path: { profile_id: '61030000561' },
          query: { op: 'run' },
        }),
      );
      expect([error.status, error.code, error.meaning]).toEqual([400, '402119', 'general error']);
    });
  });

  describe('§4.5 letters, printers, reminders', () => {
    it('lists letters (LETTER by default) and components', async () => {
      expect(total(await env.request('GET /conf/letters'))).toBe(4);
      const components = await env.request('GET /conf/letters', { query: { type: 'COMPONENT' } });
      expect(items(components, 'letter').map((letter) => letter.code)).toEqual([
        'header',
        'footer',
      ]);
    });

    it('reads a letter, and refuses an unknown code with 40166411', async () => {
      const letter = obj(
        await env.request('GET /conf/letters/{letterCode}', {
          path: { letterCode: 'OrderListLetter' },
        }),
      );
      expect(letter.name).toBe('Order List Letter');
      await expectRefusal(
        env.request('GET /conf/letters/{letterCode}', { path: { letterCode: 'NoSuchLetter' } }),
        '40166411',
        'letter code not valid',
      );
    });

    it('updates a letter in XML and gets the XML back; JSON is refused with 60105 before the network', async () => {
      const xml = await env.request('PUT /conf/letters/{letterCode}', {
        path: { letterCode: 'FulLoanReceiptLetter' },
        format: 'xml',
        body: '<letter><code>FulLoanReceiptLetter</code><name>Loan receipt</name></letter>',
      });
      expect(xml).toContain('<name>Loan receipt</name>');
      const before = env.client.remaining();
      const refused = await apiError(
        env.client.request('PUT /conf/letters/{letterCode}', {
          path: { letterCode: 'FulLoanReceiptLetter' },
          body: { code: 'FulLoanReceiptLetter', name: 'JSON' },
        }),
      );
      expect([refused.code, refused.meaning, refused.status]).toEqual([
        '60105',
        'JSON not supported',
        undefined,
      ]);
      expect(env.client.remaining()).toBe(before);
    });

    it('lists printers by library, and refuses an unknown library with 402469', async () => {
      expect(total(await env.request('GET /conf/printers'))).toBe(8);
      const law = await env.request('GET /conf/printers', { query: { library: 'LAW' } });
      expect(items(law, 'printer').map((printer) => printer.code)).toEqual([
        'LAW_CIRC',
        'LAW_ACQU',
      ]);
      await expectRefusal(
        env.request('GET /conf/printers', { query: { library: 'MOON' } }),
        '402469',
        'library code not valid',
      );
    });

    it('reads a printer, and refuses an unknown id with 402899', async () => {
      const printer = obj(
        await env.request('GET /conf/printers/{printer_id}', {
          path: { printer_id: '72000000561' },
        }),
      );
      expect(printer.code).toBe('MAIN_CIRC');
      await expectRefusal(
        env.request('GET /conf/printers/{printer_id}', { path: { printer_id: '1' } }),
        '402899',
        'invalid printer id',
      );
    });

    it('creates, reads, lists, updates and deletes a reminder (204), then 60177', async () => {
      const created = obj(
        await env.request('POST /conf/reminders', {
          body: {
            type: 'CATALOGING',
            status: 'NEW',
            reminder_date: isoDay(40),
            entity: { entity_type: 'BIB_MMS', entity_id: '991234563506' },
            text: 'Check the series statement',
          },
        }),
      );
      const id = String(created.id);
      const read = obj(
        await env.request('GET /conf/reminders/{reminder_id}', { path: { reminder_id: id } }),
      );
      expect(read.text).toBe('Check the series statement');
      const listed = await env.request('GET /conf/reminders', {
        query: { from: isoDay(40), to: isoDay(40), entity_id: '991234563506' },
      });
      expect(items(listed, 'reminder').map((reminder) => reminder.id)).toEqual([id]);
      const updated = obj(
        await env.request('PUT /conf/reminders/{reminder_id}', {
          path: { reminder_id: id },
          body: { status: 'DONE' },
        }),
      );
      expect(valueOf(updated.status)).toBe('DONE');
      await expect(
        env.request('DELETE /conf/reminders/{reminder_id}', { path: { reminder_id: id } }),
      ).resolves.toBeUndefined();
      await expectRefusal(
        env.request('GET /conf/reminders/{reminder_id}', { path: { reminder_id: id } }),
        '60177',
        'id not valid',
      );
    });

    it('refuses a reminder of an unknown type with 60178 and a list status outside the table with 40166410', async () => {
      await expectRefusal(
        env.request('POST /conf/reminders', {
          body: {
            type: 'GOSSIP',
            reminder_date: isoDay(1),
            entity: { entity_type: 'BIB_MMS', entity_id: '991234563506' },
          },
        }),
        '60178',
        'type not valid',
      );
      await expectRefusal(
        env.request('GET /conf/reminders', { query: { status: 'SLEEPING' } }),
        '40166410',
        'invalid parameter value',
      );
    });
  });

  describe('§4.6 sets', () => {
    it('lists sets by type and q', async () => {
      const logical = await env.request('GET /conf/sets', { query: { set_type: 'LOGICAL' } });
      expect(total(logical)).toBe(4);
      const named = await env.request('GET /conf/sets', { query: { q: 'name~weeding' } });
      expect(items(named, 'set').map((set) => set.name)).toEqual(['Weeding candidates']);
    });

    it('creates an itemized set, empty (rule 1)', async () => {
      const set = obj(
        await env.request('POST /conf/sets', {
          body: { name: 'Items to repair', content: 'ITEM', type: 'ITEMIZED' },
        }),
      );
      expect([valueOf(set.type), set.number_of_members]).toEqual(['ITEMIZED', { value: 0 }]);
    });
  });

  describe('§4.7 license terms', () => {
    it('lists the six seeded terms', async () => {
      expect(total(await env.request('GET /conf/license-terms'))).toBe(6);
    });

    it('creates, reads, updates and deletes a term (204); a duplicate code is 60198', async () => {
      const term = {
        code: 'TEXTMINING',
        name: 'Text and data mining',
        type: 'PERMITTED_PROHIBITED',
      };
      const created = obj(await env.request('POST /conf/license-terms', { body: term }));
      expect(created.code).toBe('TEXTMINING');
      await expectRefusal(
        env.request('POST /conf/license-terms', { body: term }),
        '60198',
        'code not unique',
      );
      const read = obj(
        await env.request('GET /conf/license-terms/{license_term_code}', {
          path: { license_term_code: 'TEXTMINING' },
        }),
      );
      expect(valueOf(read.type)).toBe('PERMITTED_PROHIBITED');
      const updated = obj(
        await env.request('PUT /conf/license-terms/{license_term_code}', {
          path: { license_term_code: 'TEXTMINING' },
          body: { ...term, name: 'TDM' },
        }),
      );
      expect(updated.name).toBe('TDM');
      await expect(
        env.request('DELETE /conf/license-terms/{license_term_code}', {
          path: { license_term_code: 'TEXTMINING' },
        }),
      ).resolves.toBeUndefined();
      await expectRefusal(
        env.request('GET /conf/license-terms/{license_term_code}', {
          path: { license_term_code: 'TEXTMINING' },
        }),
        '403400',
        'code not found',
      );
    });

    it('refuses to delete a term licenses use with 60200', async () => {
      await expectRefusal(
        env.request('DELETE /conf/license-terms/{license_term_code}', {
          path: { license_term_code: 'WALKIN' },
        }),
        '60200',
        'could not be deleted',
      );
    });
  });

  it('reads X-Svc-Api-Remaining, counted down by the sandbox', async () => {
    const before = env.client.remaining();
    await env.request('GET /conf/libraries');
    expect(before).toBeDefined();
    expect(env.client.remaining()).toBe((before ?? 0) - 1);
  });

  it('refuses a parameter the row does not know before the network (no round trip)', async () => {
    const before = env.client.remaining();
    const error = await env.client
      .call('listDepartments', { query: { view: 'BRIEF' } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SvcParamError);
    expect(error).not.toBeInstanceOf(SvcApiError);
    expect(env.client.remaining()).toBe(before);
  });

  it('parses an XML error body into the same code and meaning (Accept: application/xml)', async () => {
    const error = await expectRefusal(
      env.request('GET /conf/letters/{letterCode}', {
        path: { letterCode: 'NoSuchLetter' },
        format: 'xml',
      }),
      '40166411',
      'letter code not valid',
    );
    expect(error.trackingId).toMatch(/^E01-/);
  });

  it('returns an XML list as the XML string, with its total as an attribute', async () => {
    const xml = await env.request('GET /conf/libraries', { format: 'xml' });
    expect(xml).toMatch(/<libraries total_record_count="4">/);
  });

  it('a wrong API key is a 401 UNAUTHORIZED, not retried, the key redacted from the URL', async () => {
    const stranger = createSvcClient({ baseUrl: env.sut.url, apiKey: 'wrong-key', maxRetries: 3 });
    const error = await apiError(stranger.request('GET /conf/libraries'));
    expect([error.status, error.code, error.retryable, error.attempts]).toEqual([
      401,
      'UNAUTHORIZED',
      false,
      1,
    ]);
    expect(error.url).toContain('apikey=[redacted]');
    expect(JSON.stringify(error)).not.toContain('wrong-key');
  });

  it('called every operation of the configuration part', () => {
    const missing = routesOf('conf').filter((route) => !env.called.has(route));
    expect(missing).toEqual([]);
  });
});

function iso(date: Date): string {
  return date.toISOString().slice(0, 10);
}

function firstOfFebruaryNextYear(): Date {
  return new Date(Date.UTC(new Date().getUTCFullYear() + 1, 1, 1));
}

/** The 1st of the next month that has 31 days, at least a month ahead (inside the 3-year window). */
function firstOfA31DayMonthAhead(): Date {
  const now = new Date();
  for (let ahead = 2; ; ahead += 1) {
    const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + ahead, 1));
    const days = new Date(
      Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0),
    ).getUTCDate();
    if (days === 31) return first;
  }
}
