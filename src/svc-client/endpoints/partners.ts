import { z } from 'zod';
import { defineEndpoint } from '../endpoint';
import { listParams, noQuery, oneOf } from '../query-params';
import { generalError } from './error-codes';

const partnerSaveCodes = {
  '401664': 'mandatory field missing (the message names the field)',
  '411709': 'a partner with the same ISO symbol exists',
} as const;

/** Resource-sharing partners and lending requests, spec §4.8. */
export const partnersEndpoints = {
  'GET /partners': defineEndpoint('GET /partners', {
    operation: 'listPartners',
    area: 'partners',
    // spec §3: partner status ACTIVE or INACTIVE; empty (absent) means all.
    query: z.strictObject({ ...listParams, status: oneOf(['ACTIVE', 'INACTIVE']) }),
    errors: { ...generalError, '401651': 'identifier not found' },
    list: true,
  }),
  'POST /partners': defineEndpoint('POST /partners', {
    operation: 'createPartner',
    area: 'partners',
    query: noQuery,
    body: 'required',
    errors: { '402113': 'partner already exists', ...partnerSaveCodes },
  }),
  'GET /partners/{partner_code}': defineEndpoint('GET /partners/{partner_code}', {
    operation: 'getPartner',
    area: 'partners',
    query: noQuery,
    errors: { '402118': 'partner not found' },
  }),
  'PUT /partners/{partner_code}': defineEndpoint('PUT /partners/{partner_code}', {
    operation: 'updatePartner',
    area: 'partners',
    query: noQuery,
    body: 'required',
    errors: { '402118': 'partner not found', ...partnerSaveCodes },
  }),
  'DELETE /partners/{partner_code}': defineEndpoint('DELETE /partners/{partner_code}', {
    operation: 'deletePartner',
    area: 'partners',
    query: noQuery,
    errors: { '401650': 'identifier empty', '401651': 'identifier not found' },
  }),
  'POST /partners/{partner_code}/lending-requests': defineEndpoint(
    'POST /partners/{partner_code}/lending-requests',
    {
      operation: 'createLendingRequest',
      area: 'partners',
      query: noQuery,
      body: 'required',
      errors: { '40166411': 'invalid parameter' },
    },
  ),
  'GET /partners/{partner_code}/lending-requests/{request_id}': defineEndpoint(
    'GET /partners/{partner_code}/lending-requests/{request_id}',
    {
      operation: 'getLendingRequest',
      area: 'partners',
      query: noQuery,
      errors: { '40166411': 'invalid parameter', '40166412': 'failed to perform action' },
    },
  ),
  // spec §5 rule 3: GET checks that the key is configured, POST also its read and write permission.
  'GET /partners/operation/test': defineEndpoint('GET /partners/operation/test', {
    operation: 'testPartnerKeyRead',
    area: 'partners',
    query: noQuery,
    errors: {},
  }),
  'POST /partners/operation/test': defineEndpoint('POST /partners/operation/test', {
    operation: 'testPartnerKeyWrite',
    area: 'partners',
    query: noQuery,
    errors: {},
  }),
} as const;
