import type { RequestHandler, Router } from 'express';
import { sendBody, sendList } from '../respond';
import { badRequest } from '../sandbox-error';
import { code, objectBody, textAt, textOf, type Body } from './body-fields';
import type { KeyedStore } from './keyed-store';
import { textParam, type Query } from './query-rules';

/** A code table or mapping table as the sandbox keeps it. */
export interface StoredTable {
  readonly name: string;
  readonly description: string;
  readonly subSystem: string;
  readonly hidden: boolean;
  readonly customizable: boolean;
  rows: Body[];
  /** Keys of rows a PUT dropped: spec §4.1, a later update does not restore them. */
  readonly deleted: Set<string>;
}

/** The codes that differ between the code-table and mapping-table updates (spec §4.1). */
export interface TableKind {
  readonly path: 'code-tables' | 'mapping-tables';
  readonly xmlRoot: 'code_table' | 'mapping_table';
  readonly nameEmpty: string;
  readonly scopeIllegal: string;
  readonly notCustomizable: string;
  /** Which row field keys a row; code tables also take `lang` and refuse two default rows. */
  readonly rowKey: 'code' | 'column0';
  readonly withLang: boolean;
}

export const CODE_TABLE_KIND: TableKind = {
  path: 'code-tables',
  xmlRoot: 'code_table',
  nameEmpty: '90100',
  scopeIllegal: '90121',
  notCustomizable: '90123',
  rowKey: 'code',
  withLang: true,
};

export const MAPPING_TABLE_KIND: TableKind = {
  path: 'mapping-tables',
  xmlRoot: 'mapping_table',
  nameEmpty: '90126',
  scopeIllegal: '90127',
  notCustomizable: '90125',
  rowKey: 'column0',
  withLang: false,
};

/** GET list, GET one and PUT of one kind of table, spec §4.1. */
export function tableRoutes(
  router: Router,
  kind: TableKind,
  tables: KeyedStore<StoredTable>,
  scopes: readonly string[],
): void {
  router.get(`/conf/${kind.path}`, (req, res) => {
    const scope = readScope(req.query, '40166411', scopes);
    const items = tables
      .list()
      .filter((table) => !table.hidden)
      .map((table) => ({ ...tableBrief(table), scope: scopeBody(scope, scopes) }));
    sendList(req, res, items, { itemKey: kind.xmlRoot, paged: false });
  });

  router.get(`/conf/${kind.path}/:name`, (req, res) => {
    const lang = kind.withLang ? readLang(req.query, '40166411', '') : '';
    const scope = readScope(req.query, '40166411', scopes);
    const table = tables.find(req.params.name);
    if (table === undefined || table.hidden) {
      throw badRequest('402119', `No such table: ${req.params.name}`);
    }
    sendBody(req, res, tableBody(table, scope, scopes, lang), { xmlRoot: kind.xmlRoot });
  });

  router.put(`/conf/${kind.path}/:name`, updateTable(kind, tables, scopes));
}

function readScope(query: Query, code: string, scopes: readonly string[]): string {
  const scope = textParam(query, 'scope', code) ?? scopes[0] ?? '';
  if (!scopes.includes(scope)) throw badRequest(code, `Scope not found: ${scope}`);
  return scope;
}

function readLang(query: Query, code: string, fallback: string): string {
  const lang = textParam(query, 'lang', code);
  if (lang === undefined) return fallback;
  if (!/^[a-z]{2}$/.test(lang)) throw badRequest(code, `Parameter value invalid: lang ${lang}`);
  return lang;
}

function updateTable(
  kind: TableKind,
  tables: KeyedStore<StoredTable>,
  scopes: readonly string[],
): RequestHandler<{ name: string }> {
  return (req, res) => {
    const lang = kind.withLang ? readLang(req.query, '402119', 'en') : '';
    const body = objectBody(req.body, '402119');
    const bodyName = textAt(body, 'name');
    if (bodyName === undefined) throw badRequest(kind.nameEmpty, 'Table name is empty');
    if (bodyName !== req.params.name) {
      throw badRequest('402119', `Table name ${bodyName} does not match ${req.params.name}`);
    }
    const table = tables.get(bodyName, (name) =>
      badRequest('90101', `Table does not exist: ${name}`),
    );
    if (table.hidden) throw badRequest('90102', `Table is hidden: ${bodyName}`);
    if (!table.customizable)
      throw badRequest(kind.notCustomizable, `Table is not customizable: ${bodyName}`);
    const scope =
      textAt(body, 'scope.library_id') ?? textAt(body, 'scope.institution_id') ?? scopes[0] ?? '';
    if (!scopes.includes(scope))
      throw badRequest(kind.scopeIllegal, `Scope is not legal: ${scope}`);
    table.rows = updatedRows(table, body, kind);
    sendBody(req, res, tableBody(table, scope, scopes, lang), { xmlRoot: kind.xmlRoot });
  };
}

function updatedRows(table: StoredTable, body: Body, kind: TableKind): Body[] {
  const given = Array.isArray(body.row) ? (body.row as unknown[]) : [];
  const rows = given.filter(
    (row): row is Body => row !== null && typeof row === 'object' && !Array.isArray(row),
  );
  if (kind.rowKey === 'code' && rows.filter((row) => textOf(row.default) === 'true').length > 1) {
    throw badRequest('90122', 'More than one default code');
  }
  const keyOf = (row: Body) => textAt(row, kind.rowKey) ?? '';
  const kept = rows.filter((row) => keyOf(row) !== '' && !table.deleted.has(keyOf(row)));
  for (const old of table.rows) {
    if (!kept.some((row) => keyOf(row) === keyOf(old))) table.deleted.add(keyOf(old));
  }
  return kept.map((row) => ({ ...row }));
}

function tableBrief(table: StoredTable): Body {
  return {
    name: table.name,
    description: table.description,
    sub_system: code(table.subSystem),
  };
}

function scopeBody(scope: string, scopes: readonly string[]): Body {
  return scope === scopes[0]
    ? { institution_id: code(scope) }
    : { institution_id: code(scopes[0] ?? ''), library_id: code(scope) };
}

function tableBody(
  table: StoredTable,
  scope: string,
  scopes: readonly string[],
  lang: string,
): Body {
  return {
    ...tableBrief(table),
    patron_facing: false,
    language: lang === '' ? undefined : code(lang),
    scope: scopeBody(scope, scopes),
    row: table.rows,
  };
}
