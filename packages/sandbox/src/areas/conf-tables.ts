import { sendBody, sendList } from '../respond';
import type { SandboxArea, SandboxContext } from '../sandbox-context';
import { badRequest } from '../sandbox-error';
import { code, type Body } from './body-fields';
import { CODE_TABLES } from './code-table-seed';
import {
  CODE_TABLE_KIND,
  MAPPING_TABLE_KIND,
  tableRoutes,
  type StoredTable,
} from './conf-table-routes';
import { createKeyedStore, pick } from './keyed-store';
import { scheduleBody, seedWeekSchedule } from './open-hours';
import { enumParam, textParam } from './query-rules';
import { LIBRARIES, LIBRARY_CODES } from './seed-values';

const notFound = (name: string) => badRequest('402119', `No such table: ${name}`);

/** Code tables, mapping tables, general configuration, open hours, departments: spec §4.1. */
export const confTablesArea: SandboxArea = (router, ctx) => {
  const scopes = [ctx.institution.code, ...LIBRARY_CODES];
  const codeTables = createKeyedStore<StoredTable>(
    notFound,
    CODE_TABLES.map((seed) => [
      seed.name,
      {
        ...seed,
        rows: seed.rows.map((row, index) => ({
          code: row.code,
          description: row.description,
          default: index === 0,
          enabled: true,
        })),
        deleted: new Set<string>(),
      },
    ]),
  );
  const mappingTables = createKeyedStore<StoredTable>(notFound, seedMappingTables());
  tableRoutes(router, CODE_TABLE_KIND, codeTables, scopes);
  tableRoutes(router, MAPPING_TABLE_KIND, mappingTables, scopes);

  router.get('/conf/general', (req, res) => {
    const expand = enumParam(req.query, 'expand', ['', 'ingest_form'], '', '402119');
    sendBody(req, res, generalConfiguration(ctx, expand === 'ingest_form'), { xmlRoot: 'general' });
  });

  const schedule = seedWeekSchedule(ctx.random);
  router.get('/conf/open-hours', (req, res) => {
    // spec §4.1 lists no code: an unknown scope is §7 rule 2's invalid parameter value.
    const scope = textParam(req.query, 'scope', '40166410') ?? ctx.institution.code;
    if (!scopes.includes(scope)) throw badRequest('40166410', `Scope not found: ${scope}`);
    sendBody(req, res, scheduleBody(schedule), { xmlRoot: 'open_hours' });
  });

  const departments = seedDepartments(ctx);
  router.get('/conf/departments', (req, res) => {
    const type = enumParam(req.query, 'type', ['ALL', 'DIGI'], 'ALL', '402119');
    const view = enumParam(req.query, 'view', ['FULL', 'brief'], 'FULL', '402119');
    const items = departments
      .filter((department) => type === 'ALL' || department.type.value === type)
      .map(({ operator, ...rest }) => (view === 'brief' ? rest : { ...rest, operator }));
    sendList(req, res, items, { itemKey: 'department', paged: false });
  });
};

function seedMappingTables(): [string, StoredTable][] {
  const table = (
    name: string,
    description: string,
    rows: Body[],
    flags: { hidden?: boolean; customizable?: boolean } = {},
  ): [string, StoredTable] => [
    name,
    {
      name,
      description,
      subSystem: 'ACQ',
      hidden: flags.hidden ?? false,
      customizable: flags.customizable ?? true,
      rows,
      deleted: new Set<string>(),
    },
  ];
  return [
    table('VendorErpMapping', 'Vendor codes in the ERP system', [
      { column0: 'HARRASSOWITZ', column1: 'ERP-1001', column2: '', enabled: true },
      { column0: 'EBSCO', column1: 'ERP-1002', column2: '', enabled: true },
    ]),
    table(
      'SystemLocaleMapping',
      'System locales',
      [{ column0: 'en', column1: 'en_US', column2: '', enabled: true }],
      { customizable: false },
    ),
    table('InternalQueueMapping', 'Internal queues', [], { hidden: true }),
  ];
}

function generalConfiguration(ctx: SandboxContext, withIngestForm: boolean): Body {
  return {
    institution: code(ctx.institution.code, ctx.institution.name),
    time_zone: 'Europe/Berlin',
    default_language: code('en', 'English'),
    currency: code('USD', 'US Dollar'),
    library_count: LIBRARIES.length,
    ingest_form: withIngestForm
      ? [
          { code: 'DEFAULT', name: 'Default deposit form', enabled: true },
          { code: 'THESIS', name: 'Thesis deposit form', enabled: true },
        ]
      : undefined,
  };
}

interface Department {
  readonly code: string;
  readonly name: string;
  readonly type: { value: string; desc: string };
  readonly owner: { value: string; desc: string };
  readonly operator: Body[];
}

function seedDepartments(ctx: SandboxContext): Department[] {
  const people = ['Ada Byron', 'Alan Turing', 'Grace Hopper', 'Edsger Dijkstra', 'Barbara Liskov'];
  const operators = (): Body[] =>
    [pick(ctx.random, people), pick(ctx.random, people)].map((person, index) => {
      const [first = '', last = ''] = person.split(' ');
      return {
        primary_id: `${last.toLowerCase()}${String(index)}`,
        first_name: first,
        last_name: last,
      };
    });
  const department = (
    deptCode: string,
    name: string,
    type: string,
    library: string,
  ): Department => ({
    code: deptCode,
    name,
    type: code(type),
    owner: code(library),
    operator: operators(),
  });
  return [
    department('DIGI_MAIN', 'Digitization – Main', 'DIGI', 'MAIN'),
    department('DIGI_MUSIC', 'Digitization – Music', 'DIGI', 'MUSIC'),
    department('ACQ_DEPT', 'Acquisitions Department', 'ACQ', 'MAIN'),
    department('CAT_DEPT', 'Cataloging Department', 'CATALOGING', 'LAW'),
  ];
}
