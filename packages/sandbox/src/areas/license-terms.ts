import { sendBody, sendList, sendNoContent } from '../respond';
import type { SandboxArea } from '../sandbox-context';
import { badRequest } from '../sandbox-error';
import { code, objectBody, requiredText, textAt, type Body } from './body-fields';
import { createKeyedStore } from './keyed-store';
import { LICENSE_TERMS, TERM_TYPES } from './license-term-seed';
import { findVendor } from './seed-values';

const notFound = (termCode: string) =>
  badRequest('403400', `License term code not found: ${termCode}`);

/** License term definitions, stateful CRUD: spec §4.7. */
export const licenseTermsArea: SandboxArea = (router) => {
  const terms = createKeyedStore<Body>(
    notFound,
    LICENSE_TERMS.map((term) => [
      term.code,
      { code: term.code, name: term.name, type: code(term.type), description: term.name },
    ]),
  );
  // Seeded licenses use the seeded terms; deleting one of those answers 60200.
  const inUse = new Set(LICENSE_TERMS.map((term) => term.code));

  router.get('/conf/license-terms', (req, res) => {
    sendList(req, res, terms.list(), { itemKey: 'license_term', paged: false });
  });

  router.post('/conf/license-terms', (req, res) => {
    const term = validTerm(objectBody(req.body, '60196'));
    const termCode = String(term.code);
    if (terms.has(termCode)) throw badRequest('60198', `License term code not unique: ${termCode}`);
    sendBody(req, res, terms.put(termCode, term), { xmlRoot: 'license_term' });
  });

  router.get('/conf/license-terms/:code', (req, res) => {
    sendBody(req, res, terms.get(req.params.code), { xmlRoot: 'license_term' });
  });

  router.put('/conf/license-terms/:code', (req, res) => {
    const termCode = req.params.code;
    terms.get(termCode);
    const term = validTerm(objectBody(req.body, '60202'));
    if (term.code !== termCode) {
      if (terms.has(String(term.code)))
        throw badRequest('60198', `License term code not unique: ${String(term.code)}`);
      throw badRequest(
        '60202',
        `License term not updated: a term's code cannot change (${termCode})`,
      );
    }
    sendBody(req, res, terms.put(termCode, term), { xmlRoot: 'license_term' });
  });

  router.delete('/conf/license-terms/:code', (req, res) => {
    const termCode = req.params.code;
    terms.get(termCode);
    if (inUse.has(termCode))
      throw badRequest('60200', `License term ${termCode} is used by licenses`);
    terms.remove(termCode);
    sendNoContent(res);
  });
};

function validTerm(body: Body): Body {
  const termCode = requiredText(body, 'code', '500021');
  const name = requiredText(body, 'name', '500021');
  const type = requiredText(body, 'type', '500021');
  if (!(TERM_TYPES as readonly string[]).includes(type)) {
    throw badRequest('60195', `Term type not valid: ${type} (valid: ${TERM_TYPES.join(', ')})`);
  }
  const licensor = textAt(body, 'licensor');
  if (licensor !== undefined && findVendor(licensor) === undefined) {
    throw badRequest('60190', `Licensor not valid: ${licensor}`);
  }
  return {
    code: termCode,
    name,
    type: code(type),
    description: textAt(body, 'description'),
    licensor: licensor === undefined ? undefined : code(licensor),
  };
}
