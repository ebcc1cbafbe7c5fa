import type { RequestHandler } from 'express';
import { sendBody, sendList } from '../respond';
import type { SandboxArea, SandboxContext } from '../sandbox-context';
import { badRequest, notFound } from '../sandbox-error';
import { code, textAt, type Body } from './body-fields';
import { codesOf } from './code-table-seed';
import { createKeyedStore, pick, type KeyedStore } from './keyed-store';
import { enumParam, textParam } from './query-rules';
import { matchesSearch, recordValues, searchParam } from './search-query';

const IMPORT_TYPES = ['', 'REPOSITORY', 'NEW_ORDER', 'UPDATE_INVENTORY', 'DIGITAL'] as const;
const IE_TYPES = ['ALL', 'PHYSICAL', 'ELECTRONIC', 'DIGITAL'] as const;
/** spec §4.4: the deprecated run is supported for FTP, OAI and Digital profiles. */
const RUNNABLE_SOURCES = ['FTP', 'OAI', 'DIGITAL'];
const INTEGRATION_SEARCH = ['created_by', 'name'];
const STAFF = ['jsmith', 'acq_admin', 'sysadmin'];

/** Deposit, integration and metadata-import profiles: spec §4.4. */
export const profilesArea: SandboxArea = (router, ctx) => {
  const deposit = createKeyedStore<Body>(
    // spec §4.4 lists no 400 for the read: an unknown id names nothing (404, sandbox-error.ts).
    (id) => notFound(`Deposit profile not found: ${id}`),
    seedDepositProfiles(ctx),
  );
  const integration = createKeyedStore<Body>(
    (id) => badRequest('60304', `Invalid profile id: ${id}`),
    seedIntegrationProfiles(ctx),
  );
  const imports = createKeyedStore<Body>(
    (id) => badRequest('401871', `Profile id not found: ${id}`),
    seedImportProfiles(ctx),
  );

  router.get('/conf/deposit-profiles', (req, res) => {
    const group = textParam(req.query, 'user_group', '40166410');
    const items = deposit
      .list()
      .filter((profile) => group === undefined || textAt(profile, 'user_group') === group);
    sendList(req, res, items, { itemKey: 'deposit_profile' });
  });
  router.get('/conf/deposit-profiles/:id', (req, res) => {
    sendBody(req, res, deposit.get(req.params.id), { xmlRoot: 'deposit_profile' });
  });

  router.get('/conf/integration-profiles', (req, res) => {
    const type = enumParam(req.query, 'type', ['', ...codesOf('IntegrationTypes')], '', '40166404');
    const terms = searchParam(req.query, INTEGRATION_SEARCH, '40166410');
    const items = integration
      .list()
      .filter((profile) => type === '' || textAt(profile, 'type') === type)
      .filter((profile) => matchesSearch(profile, terms, INTEGRATION_SEARCH, recordValues));
    sendList(req, res, items, { itemKey: 'integration_profile' });
  });
  router.get('/conf/integration-profiles/:id', (req, res) => {
    sendBody(req, res, integration.get(req.params.id), { xmlRoot: 'integration_profile' });
  });

  router.get('/conf/md-import-profiles', (req, res) => {
    const type = enumParam(req.query, 'type', IMPORT_TYPES, '', '402123');
    const ieType = enumParam(req.query, 'ie_type', IE_TYPES, 'ALL', '402123');
    const items = imports
      .list()
      .filter((profile) => type === '' || textAt(profile, 'type') === type)
      .filter((profile) => ieType === 'ALL' || textAt(profile, 'ie_type') === ieType);
    sendList(req, res, items, { itemKey: 'import_profile', paged: false });
  });
  router.get('/conf/md-import-profiles/:profile_id', (req, res) => {
    sendBody(req, res, imports.get(req.params.profile_id), { xmlRoot: 'import_profile' });
  });
  // spec §9 rule 3: deprecated in favour of the job submit; kept answering as documented.
  router.post('/conf/md-import-profiles/:profile_id', runImportProfile(imports, ctx.now));
};

function runImportProfile(
  imports: KeyedStore<Body>,
  now: () => Date,
): RequestHandler<{ profile_id: string }> {
  return (req, res) => {
    const profile = imports.get(req.params.profile_id);
    // The row lists 401871 only: a missing or other op is §7 rule 2's invalid parameter value.
    enumParam(req.query, 'op', ['run'], '', '40166410');
    if (textParam(req.query, 'op', '40166410') === undefined) {
      throw badRequest('40166410', 'Parameter op is required (run)');
    }
    const source = textAt(profile, 'source_type') ?? '';
    // The row has no code for a source the run does not support: §7 rule 2's general error.
    if (!RUNNABLE_SOURCES.includes(source)) {
      throw badRequest(
        '402119',
        `Run is supported for FTP, OAI and Digital profiles, not ${source}`,
      );
    }
    profile.last_run = now().toISOString();
    res.setHeader('Deprecation', 'true');
    sendBody(req, res, profile, { xmlRoot: 'import_profile' });
  };
}

function seedDepositProfiles(ctx: SandboxContext): [string, Body][] {
  const groups = ['STAFF', 'FACULTY', 'GRAD', 'UNDERGRAD'];
  return ['Thesis deposit', 'Research data', 'Open access article', 'Conference poster'].map(
    (name, index) => {
      const id = `DP${String(100 + index)}`;
      return [
        id,
        {
          id,
          name,
          description: `${name} profile`,
          user_group: code(pick(ctx.random, groups)),
          active: ctx.random() > 0.2,
          collection: code(`COLL-${String(index + 1)}`),
        },
      ];
    },
  );
}

function seedIntegrationProfiles(ctx: SandboxContext): [string, Body][] {
  const rows: [string, string][] = [
    ['Listener webhooks', 'WEBHOOK'],
    ['Campus SIS', 'SIS'],
    ['Finance ERP', 'ACQUISITION'],
    ['Discovery publishing', 'PUBLISHING'],
    ['Offsite storage', 'REMOTE_STORAGE'],
    ['Bursar export', 'BURSAR'],
  ];
  return rows.map(([name, type], index) => {
    const id = `${String(5000 + index)}0000561`;
    return [
      id,
      {
        id,
        code: type.toLowerCase(),
        name,
        type: code(type),
        created_by: pick(ctx.random, STAFF),
        active: true,
        description: `${name} integration`,
      },
    ];
  });
}

function seedImportProfiles(ctx: SandboxContext): [string, Body][] {
  const rows: [string, string, string, string][] = [
    ['Vendor MARC records', 'REPOSITORY', 'PHYSICAL', 'FTP'],
    ['EOD new orders', 'NEW_ORDER', 'PHYSICAL', 'FTP'],
    ['OAI harvest', 'REPOSITORY', 'ELECTRONIC', 'OAI'],
    ['Inventory update', 'UPDATE_INVENTORY', 'PHYSICAL', 'UPLOAD'],
    ['Digital collection', 'DIGITAL', 'DIGITAL', 'DIGITAL'],
  ];
  return rows.map(([name, type, ieType, source], index) => {
    const id = `${String(6100 + index)}0000561`;
    return [
      id,
      {
        id,
        name,
        type: code(type),
        ie_type: code(ieType),
        source_type: code(source),
        status: code('ACTIVE'),
        created_by: pick(ctx.random, STAFF),
      },
    ];
  });
}
