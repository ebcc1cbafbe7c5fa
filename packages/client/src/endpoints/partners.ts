import { z } from 'zod';
import { defineArea } from '../endpoint';
import { listParams, noQuery, oneOf } from '../query-params';
import { generalError } from './error-codes';

const partnerSaveCodes = {
  '401664': 'mandatory field missing (the message names the field)',
  '411709': 'a partner with the same ISO symbol exists',
} as const;

/** Resource-sharing partners and lending requests, spec §4.8. */
export const partnersEndpoints = defineArea('partners', [
  {
    route: 'GET /partners',
    operation: 'listPartners',
    // spec §3: partner status ACTIVE or INACTIVE; empty (absent) means all.
    query: z.strictObject({ ...listParams, status: oneOf(['ACTIVE', 'INACTIVE']) }),
    errors: { ...generalError, '401651': 'identifier not found' },
    list: true,
  },
  {
    route: 'POST /partners',
    operation: 'createPartner',
    query: noQuery,
    body: 'required',
    errors: { '402113': 'partner already exists', ...partnerSaveCodes },
  },
  {
    route: 'GET /partners/{partner_code}',
    operation: 'getPartner',
    query: noQuery,
    errors: { '402118': 'partner not found' },
  },
  {
    route: 'PUT /partners/{partner_code}',
    operation: 'updatePartner',
    query: noQuery,
    body: 'required',
    errors: { '402118': 'partner not found', ...partnerSaveCodes },
  },
  {
    route: 'DELETE /partners/{partner_code}',
    operation: 'deletePartner',
    query: noQuery,
    errors: { '401650': 'identifier empty', '401651': 'identifier not found' },
  },
  {
    route: 'POST /partners/{partner_code}/lending-requests',
    operation: 'createLendingRequest',
    query: noQuery,
    body: 'required',
    errors: { '40166411': 'invalid parameter' },
  },
  {
    route: 'GET /partners/{partner_code}/lending-requests/{request_id}',
    operation: 'getLendingRequest',
    query: noQuery,
    errors: { '40166411': 'invalid parameter', '40166412': 'failed to perform action' },
  },
  // spec §5 rule 3: GET checks that the key is configured, POST also its read and write permission.
  {
    route: 'GET /partners/operation/test',
    operation: 'testPartnerKeyRead',
    query: noQuery,
    errors: {},
  },
  {
    route: 'POST /partners/operation/test',
    operation: 'testPartnerKeyWrite',
    query: noQuery,
    errors: {},
  },
]);
