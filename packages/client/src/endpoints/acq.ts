import { z } from 'zod';
import { defineArea } from '../endpoint';
import {
  calendarDate,
  flag,
  isoDate,
  listParams,
  noQuery,
  oneOf,
  requiredOp,
  text,
} from '../query-params';
import { searchFieldOf, searchQuery } from '../search-query';
import { vatBodyRule } from '../vat-body-rule';
import {
  generalError,
  invoiceLineSaveCodes,
  invoiceSaveCodes,
  licenseAdministratorCode,
  licenseSaveCodes,
} from './error-codes';

/**
 * spec §4.9 GET /acq/currencies. The schema marks source_currency, target_currency and
 * exchange_date required; the rules say only exchange_date is required in Ratio mode. We follow
 * the rules. The three "apply to Ratio mode only": in another mode they are sent as given and the
 * platform ignores them (the spec names no refusal of them).
 */
const CurrencyListQuery = z
  .strictObject({
    ...listParams,
    mode: oneOf(['ALL', 'Subset', 'Ratio']),
    source_currency: text,
    target_currency: text,
    exchange_date: calendarDate('YYYYMMDD'),
  })
  .superRefine((query, ctx) => {
    if (query.mode === 'Ratio' && query.exchange_date === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['exchange_date'],
        message: 'is required when mode is Ratio',
      });
    }
  });

/** spec §4.10: what q may search in the default mode POL. */
const FUND_POL_SEARCH_RULE =
  'may search only fund_code, or all (which then searches fund_code), when mode is POL (the default; spec §4.10); set mode=ALL to search another field';

/** spec §4.10 "Fund list parameters". */
const FundListQuery = z
  .strictObject({
    ...listParams,
    q: searchQuery(['all', 'fund_code', 'description', 'external_id', 'name']),
    library: text,
    view: oneOf(['full', 'brief']),
    mode: oneOf(['POL', 'ALL']),
    status: oneOf(['ALL', 'ACTIVE', 'INACTIVE']),
    entity_type: oneOf(['ALL', 'LEDGER', 'SUMMARY', 'ALLOCATED']),
    fiscal_period: text,
    parent_id: text,
    owner: text,
  })
  .superRefine((query, ctx) => {
    // spec §4.10: "When mode=POL only fund_code is searched"; POL is also the default mode. We
    // read it as a description: fund_code, and all (which then searches fund_code), pass; another
    // field would be searched as fund_code or refused (the sandbox: 401873), so it is refused here.
    if (query.q !== undefined && (query.mode ?? 'POL') === 'POL') {
      const field = searchFieldOf(query.q);
      if (field !== 'fund_code' && field !== 'all') {
        ctx.addIssue({
          code: 'custom',
          path: ['q'],
          message: FUND_POL_SEARCH_RULE,
        });
      }
    }
  });

/** spec §4.13 order_by: the item fields a PO line list can also be sorted by. */
const PO_LINE_SORT_ITEM_FIELDS = [
  'enumeration_a',
  'enumeration_b',
  'enumeration_c',
  'chronology_i',
  'chronology_j',
  'chronology_k',
  'item_description',
] as const;

/** spec §4.13 q: related-item fields; searching them limits the records returned (§8). */
const PO_LINE_ITEM_FIELDS = [...PO_LINE_SORT_ITEM_FIELDS, 'item_library'] as const;

/** spec §4.13 "PO line list parameters". */
const PoLineListQuery = z
  .strictObject({
    ...listParams,
    q: searchQuery([
      'title',
      'author',
      'mms_id',
      'publisher',
      'publication_year',
      'publication_place',
      'issn_isbn',
      'shelving_location',
      'vendor_code',
      'vendor_name',
      'vendor_account',
      'fund_code',
      'fund_name',
      'number',
      'po_number',
      'invoice_reference',
      'all',
      ...PO_LINE_ITEM_FIELDS,
    ]),
    status: oneOf(['ALL', 'ACTIVE', 'CLOSED', 'CANCELLED', 'ALL_WITH_CLOSED']),
    order_by: oneOf(['number', 'title', 'created_date', 'po_number', ...PO_LINE_SORT_ITEM_FIELDS]),
    direction: oneOf(['asc', 'desc']),
    acquisition_method: text,
  })
  .superRefine((query, ctx) => {
    // spec §4.13 order_by: the item fields "also work when the query used item fields".
    const itemFields: readonly string[] = PO_LINE_ITEM_FIELDS;
    const searchesItems =
      query.q !== undefined && itemFields.includes(searchFieldOf(query.q) ?? '');
    if (query.order_by !== undefined && itemFields.includes(query.order_by) && !searchesItems) {
      ctx.addIssue({
        code: 'custom',
        path: ['order_by'],
        message: 'may name an item field only when q searches an item field',
      });
    }
  });

const fundWriteCodes = {
  '410873': 'request failed',
  '40166410': 'parameter invalid',
  '40166404': 'invalid field',
} as const;

/** rules_level (spec §4.10): whether rules are defined in the parent or in the fund. */
const fundWriteQuery = z.strictObject({ rules_level: oneOf(['fund', 'parent']) });

/** Invoice and invoice-line create/update: a body that keeps the vat rule (spec §4.11, 60252). */
const vatCheckedWrite = { query: noQuery, body: 'required', bodyRule: vatBodyRule } as const;

const invoiceReadCodes = {
  ...generalError,
  '412400': 'invoice not found',
  '402459': 'error retrieving the invoice',
  '60100': 'parameter must be a number above zero',
} as const;

/**
 * spec §4.11: view "brief returns the invoice without lines"; expand "default none; attachments",
 * so none, the default written out, is accepted too (the list: "as in the single-invoice read").
 */
const invoiceViewParams = { view: oneOf(['brief']), expand: oneOf(['none', 'attachments']) };

/** spec §4.12 license reads: expand "default none; attachments". */
const licenseExpand = oneOf(['none', 'attachments']);

const attachmentCodes = {
  '60100': 'id or number not a number above zero',
  '60321': 'attachment not found',
  '60322': 'content could not be processed',
} as const;

/** spec §4.11 and §4.12: an attachment read's expand, "its default is given as content". */
const attachmentReadQuery = z.strictObject({ expand: oneOf(['content']) });

const licenseReadCodes = {
  ...generalError,
  '403401': 'retrieval failed',
  '403400': 'not found',
} as const;

const licenseDeleteCodes = { ...generalError, '60200': 'could not be deleted' } as const;

/** Acquisitions area, spec §4.9–§4.13. */
export const acqEndpoints = defineArea('acq', [
  // §4.9 currencies and fiscal periods
  {
    route: 'GET /acq/currencies',
    operation: 'listCurrencies',
    query: CurrencyListQuery,
    errors: {
      '40166410': 'currency parameter not valid',
      '401666': 'parameter not valid',
      '60348': 'exchange rate cannot be determined',
    },
    list: true,
  },
  {
    route: 'GET /acq/fiscal-periods',
    operation: 'listFiscalPeriods',
    query: z.strictObject({ mode: oneOf(['ALL', 'Current']) }),
    errors: { '401873': 'no current fiscal period', '401666': 'mode not valid' },
  },

  // §4.10 funds
  {
    route: 'GET /acq/funds',
    operation: 'listFunds',
    query: FundListQuery,
    errors: {
      ...generalError,
      '40166410': 'parameter invalid',
      '40166419': 'parameter has no valid options',
      '401873': 'filter not supported when mode=POL',
    },
    list: true,
  },
  {
    route: 'POST /acq/funds',
    operation: 'createFund',
    query: fundWriteQuery,
    body: 'required',
    errors: fundWriteCodes,
  },
  {
    route: 'GET /acq/funds/{fund_id}',
    operation: 'getFund',
    query: z.strictObject({ view: oneOf(['full', 'brief']) }),
    errors: {},
  },
  {
    route: 'PUT /acq/funds/{fund_id}',
    operation: 'updateFund',
    query: fundWriteQuery,
    body: 'required',
    errors: fundWriteCodes,
  },
  {
    route: 'POST /acq/funds/{fund_id}',
    operation: 'runFundOperation',
    // spec §3 and §4.10: op is required, activate or deactivate.
    query: z.strictObject({ op: requiredOp(['activate', 'deactivate']) }),
    errors: fundWriteCodes,
  },
  {
    route: 'DELETE /acq/funds/{fund_id}',
    operation: 'deleteFund',
    query: noQuery,
    errors: fundWriteCodes,
  },
  {
    route: 'GET /acq/funds/{fund_id}/transactions',
    operation: 'listFundTransactions',
    query: z.strictObject({
      ...listParams,
      q: searchQuery(['amount', 'po_line', 'invoice_number', 'borrowing_request_id']),
      filter: oneOf([
        'ALL',
        'ALLOCATION',
        'EXPENDITURE',
        'ENCUMBRANCE',
        'DISENCUMBRANCE',
        'TRANSFER',
      ]),
    }),
    errors: {
      ...generalError,
      '40166410': 'parameter invalid',
      '401873': 'fund id not valid',
      '40166404': 'filter not valid',
      '60106': 'query not valid',
    },
    list: true,
  },

  // §4.11 invoices
  {
    route: 'POST /acq/invoices',
    operation: 'createInvoice',
    ...vatCheckedWrite,
    errors: { ...invoiceSaveCodes, '60256': 'invoice not created' },
  },
  {
    route: 'GET /acq/invoices/',
    operation: 'listInvoices',
    query: z.strictObject({
      ...listParams,
      // spec §4.11 "q (default all)": the bare value all is the default written out.
      q: searchQuery(
        [
          'invoice_number',
          'vendor_code',
          'additional_pol_reference',
          'invoice_reference_number',
          'pol_number',
          'pol_title',
          'po_number',
          'vendor_name',
          'all',
        ],
        { bareAll: true },
      ),
      ...invoiceViewParams,
      base_status: oneOf(['ACTIVE', 'CLOSED']),
      invoice_workflow_status: text,
      owner: text,
      creation_form: text,
    }),
    errors: { ...generalError, '412400': 'invoice not found', '401873': 'request failed' },
    list: true,
  },
  {
    route: 'GET /acq/invoices/{invoice_id}',
    operation: 'getInvoice',
    query: z.strictObject(invoiceViewParams),
    errors: invoiceReadCodes,
  },
  {
    route: 'PUT /acq/invoices/{invoice_id}',
    operation: 'updateInvoice',
    ...vatCheckedWrite,
    errors: {
      ...invoiceSaveCodes,
      '60285': 'invoice not valid',
      '60290': 'task status not valid',
      '60291': 'update not allowed due to status',
      '60256': 'invoice not updated',
    },
  },
  {
    route: 'POST /acq/invoices/{invoice_id}',
    operation: 'runInvoiceOperation',
    // spec §3 and §4.11: op is required, one of four.
    query: z.strictObject({
      op: requiredOp(['mark_in_erp', 'paid', 'process_invoice', 'rejected']),
    }),
    body: 'required',
    errors: {
      '40166410': 'op not valid',
      '412400': 'invoice not found',
      '60260': 'failed to start invoice process and workflow',
      '60267': 'failed to process in the ERP system',
      '60268': 'invoice note mandatory',
    },
  },
  {
    route: 'GET /acq/invoices/{invoice_id}/lines',
    operation: 'listInvoiceLines',
    query: z.strictObject({ ...listParams, q: searchQuery(['invoice_line_number']) }),
    errors: { ...invoiceReadCodes, '401873': 'search query not valid' },
    list: true,
  },
  {
    route: 'POST /acq/invoices/{invoice_id}/lines',
    operation: 'createInvoiceLine',
    ...vatCheckedWrite,
    errors: {
      ...invoiceLineSaveCodes,
      '60255': 'line not created',
      '60306': 'line number not valid',
    },
  },
  {
    route: 'GET /acq/invoices/{invoice_id}/lines/{invoice_line_id}',
    operation: 'getInvoiceLine',
    query: noQuery,
    errors: generalError,
  },
  {
    route: 'PUT /acq/invoices/{invoice_id}/lines/{invoice_line_id}',
    operation: 'updateInvoiceLine',
    ...vatCheckedWrite,
    errors: {
      ...invoiceLineSaveCodes,
      '60284': 'line not valid',
      '60285': 'invoice not valid',
      '60286': 'line update not allowed',
      '60287': 'line not valid for the invoice',
    },
  },
  {
    route: 'GET /acq/invoices/{invoice_id}/attachments',
    operation: 'listInvoiceAttachments',
    query: z.strictObject(listParams),
    errors: {
      '60323': 'search failed',
      '60100': 'id or number not a number above zero',
      '412400': 'invoice not found',
    },
    list: true,
  },
  {
    route: 'POST /acq/invoices/{invoice_id}/attachments',
    operation: 'createInvoiceAttachment',
    query: noQuery,
    body: 'required',
    errors: {
      '60100': 'id or number not a number above zero',
      '402401': 'invoice not found',
      '60322': 'content could not be processed',
    },
  },
  {
    route: 'GET /acq/invoices/{invoice_id}/attachments/{attachment_id}',
    operation: 'getInvoiceAttachment',
    query: attachmentReadQuery,
    errors: { ...attachmentCodes, '402401': 'invoice not found' },
  },

  // §4.12 licenses
  {
    route: 'POST /acq/licenses',
    operation: 'createLicense',
    query: noQuery,
    body: 'required',
    errors: { ...licenseSaveCodes, ...licenseAdministratorCode, '60196': 'not created' },
  },
  {
    route: 'GET /acq/licenses/',
    operation: 'listLicenses',
    query: z.strictObject({
      ...listParams,
      // spec §4.12 "q (default all; searches name, code, licensor)": all as a search field, and
      // the bare value all, the default written out.
      q: searchQuery(['all', 'name', 'code', 'licensor'], { bareAll: true }),
      status: oneOf(['ACTIVE', 'DELETED', 'DRAFT', 'EXPIRED', 'RETIRED', 'ALL']),
      type: oneOf(['LICENSE', 'NEGOTIATION', 'ADDENDUM', 'ALL']),
      review_status: text,
      expand: licenseExpand,
      create_date_from: isoDate,
      create_date_to: isoDate,
      modify_date_from: isoDate,
      modify_date_to: isoDate,
    }),
    errors: {
      ...generalError,
      '40166411': 'parameter value invalid',
      '40166404': 'field has an invalid value',
      '401873': 'request failed',
    },
    list: true,
  },
  {
    route: 'GET /acq/licenses/{license_code}',
    operation: 'getLicense',
    query: z.strictObject({ expand: licenseExpand, include_blank_terms: flag }),
    errors: licenseReadCodes,
  },
  {
    route: 'PUT /acq/licenses/{license_code}',
    operation: 'updateLicense',
    query: noQuery,
    body: 'required',
    errors: {
      ...licenseSaveCodes,
      ...licenseAdministratorCode,
      ...generalError,
      '60202': 'not updated',
    },
  },
  {
    route: 'DELETE /acq/licenses/{license_code}',
    operation: 'deleteLicense',
    query: noQuery,
    errors: licenseDeleteCodes,
  },
  {
    route: 'GET /acq/licenses/{license_code}/attachments',
    operation: 'listLicenseAttachments',
    query: z.strictObject(listParams),
    errors: { '60323': 'search failed', '60100': 'id or number not a number above zero' },
    list: true,
  },
  {
    route: 'POST /acq/licenses/{license_code}/attachments',
    operation: 'createLicenseAttachment',
    query: noQuery,
    body: 'required',
    errors: {
      '60100': 'id or number not a number above zero',
      '60322': 'content could not be processed',
    },
  },
  {
    route: 'GET /acq/licenses/{license_code}/attachments/{attachment_id}',
    operation: 'getLicenseAttachment',
    query: attachmentReadQuery,
    errors: attachmentCodes,
  },
  {
    route: 'PUT /acq/licenses/{license_code}/attachments/{attachment_id}',
    operation: 'updateLicenseAttachment',
    query: noQuery,
    body: 'required',
    errors: {
      '60345': 'content exceeds the allowed size',
      '60346': 'content not allowed without a file name',
      ...attachmentCodes,
    },
  },
  {
    route: 'DELETE /acq/licenses/{license_code}/attachments/{attachment_id}',
    operation: 'deleteLicenseAttachment',
    query: noQuery,
    errors: attachmentCodes,
  },
  {
    route: 'GET /acq/licenses/{license_code}/amendments',
    operation: 'listLicenseAmendments',
    query: noQuery,
    errors: licenseReadCodes,
  },
  // spec §4.12: 60220 (administrator) is not listed for amendments; 402119 is an update code.
  {
    route: 'POST /acq/licenses/{license_code}/amendments',
    operation: 'createLicenseAmendment',
    query: noQuery,
    body: 'required',
    errors: { ...licenseSaveCodes, '60196': 'not created' },
  },
  {
    route: 'GET /acq/licenses/{license_code}/amendments/{amendment_code}',
    operation: 'getLicenseAmendment',
    query: noQuery,
    errors: licenseReadCodes,
  },
  {
    route: 'PUT /acq/licenses/{license_code}/amendments/{amendment_code}',
    operation: 'updateLicenseAmendment',
    query: noQuery,
    body: 'required',
    errors: { ...licenseSaveCodes, ...generalError, '60202': 'amendment not updated' },
  },
  {
    route: 'DELETE /acq/licenses/{license_code}/amendments/{amendment_code}',
    operation: 'deleteLicenseAmendment',
    query: noQuery,
    errors: licenseDeleteCodes,
  },

  // §4.13 purchase-order lines
  {
    route: 'GET /acq/po-lines',
    operation: 'listPoLines',
    query: PoLineListQuery,
    errors: {},
    list: true,
  },
]);
