import type { Request, RequestHandler, Router } from 'express';
import { sendBody, sendList, sendNoContent } from '../respond';
import { badRequest } from '../sandbox-error';
import { objectBody, textAt, type Body } from './body-fields';
import { enumParam } from './query-rules';

/** Largest attachment content the sandbox takes, decoded (spec §8 leaves it open; 60345 above). */
export const MAX_ATTACHMENT_BYTES = 1024 * 1024;

export type AttachmentAction = 'list' | 'create' | 'get' | 'update' | 'delete';

export interface AttachmentRoutesOptions {
  /** `/acq/invoices/:parent`: the owner's path; `:parent` names it. */
  readonly ownerPath: string;
  /** The owner's key, or the action's error for an unknown or malformed owner id. */
  readonly owner: (req: Request, action: AttachmentAction) => string;
  /** Licenses also update and delete attachments (spec §4.12); invoices do not (§4.11). */
  readonly writable: boolean;
  readonly nextId: () => string;
  readonly now: () => Date;
}

/** Attachments of one kind of owner: who holds which, for an owner's `expand=attachments`. */
export interface AttachmentStore {
  briefOf(owner: string): Body[];
}

/** Attachment routes shared by invoices and licenses, spec §4.11 and §4.12. */
export function attachmentRoutes(
  router: Router,
  options: AttachmentRoutesOptions,
): AttachmentStore {
  const book = attachmentBook(options);
  const path = `${options.ownerPath}/attachments`;

  router.get(path, (req, res) => {
    const items = [...book.attachmentsOf(options.owner(req, 'list')).values()].map(withoutContent);
    sendList(req, res, items, { itemKey: 'attachment' });
  });
  router.post(path, createAttachment(book, options));
  router.get(`${path}/:attachment_id`, (req, res) => {
    const [, , attachment] = book.find(req, 'get');
    const expand = enumParam(req.query, 'expand', ['content', 'none'], 'content', '60322');
    sendBody(req, res, expand === 'content' ? attachment : withoutContent(attachment), {
      xmlRoot: 'attachment',
    });
  });

  if (!options.writable)
    return { briefOf: (owner) => [...book.attachmentsOf(owner).values()].map(withoutContent) };

  router.put(`${path}/:attachment_id`, (req, res) => {
    const [attachments, id, current] = book.find(req, 'update');
    const updated = { ...current, ...validAttachment(req.body, current), id };
    attachments.set(id, updated);
    sendBody(req, res, updated, { xmlRoot: 'attachment' });
  });
  router.delete(`${path}/:attachment_id`, (req, res) => {
    const [attachments, id] = book.find(req, 'delete');
    attachments.delete(id);
    sendNoContent(res);
  });

  return { briefOf: (owner) => [...book.attachmentsOf(owner).values()].map(withoutContent) };
}

interface AttachmentBook {
  /** An owner's attachments by id (an empty map for an owner that has none yet). */
  attachmentsOf(owner: string): Map<string, Body>;
  /** The owner's attachments, the path's attachment id and its attachment (60100, 60321). */
  find(req: Request, action: AttachmentAction): [Map<string, Body>, string, Body];
}

function attachmentBook(options: AttachmentRoutesOptions): AttachmentBook {
  const byOwner = new Map<string, Map<string, Body>>();
  const attachmentsOf = (owner: string): Map<string, Body> => {
    const existing = byOwner.get(owner) ?? new Map<string, Body>();
    byOwner.set(owner, existing);
    return existing;
  };
  const find = (req: Request, action: AttachmentAction): [Map<string, Body>, string, Body] => {
    const attachments = attachmentsOf(options.owner(req, action));
    const id = String(req.params.attachment_id);
    // spec §7 rule 2: 60100 for an id that is not a number above zero.
    if (!/^[1-9]\d*$/.test(id))
      throw badRequest('60100', `Attachment id must be a number above zero: ${id}`);
    const attachment = attachments.get(id);
    if (attachment === undefined) throw badRequest('60321', `Attachment not found: ${id}`);
    return [attachments, id, attachment];
  };
  return { attachmentsOf, find };
}

function createAttachment(book: AttachmentBook, options: AttachmentRoutesOptions): RequestHandler {
  return (req, res) => {
    const attachments = book.attachmentsOf(options.owner(req, 'create'));
    const id = options.nextId();
    const attachment = {
      id,
      ...validAttachment(req.body, undefined),
      creation_date: options.now().toISOString(),
    };
    attachments.set(id, attachment);
    sendBody(req, res, attachment, { xmlRoot: 'attachment' });
  };
}

function withoutContent({ content: _content, ...rest }: Body): Body {
  return rest;
}

/**
 * 60346 content without a file name, 60322 content that is not Base64, 60345 too large. 60345
 * and 60346 are listed for the update only (spec §4.12); a create answers 60322 ("content could
 * not be processed") for both.
 */
function validAttachment(raw: unknown, current: Body | undefined): Body {
  const body = objectBody(raw, '60322');
  const [noFileName, tooLarge] = current === undefined ? ['60322', '60322'] : ['60346', '60345'];
  const fileName =
    textAt(body, 'file_name') ?? (current === undefined ? undefined : textAt(current, 'file_name'));
  const content = body.content;
  if (content !== undefined && typeof content !== 'string') {
    throw badRequest('60322', 'Content could not be processed: it must be a Base64 string');
  }
  if (content !== undefined && fileName === undefined) {
    throw badRequest(noFileName, 'Content is not allowed without a file name');
  }
  if (content === undefined && current === undefined) {
    throw badRequest('60322', 'Content could not be processed: no content');
  }
  if (content !== undefined && !/^[A-Za-z0-9+/]*={0,2}$/.test(content.replace(/\s/g, ''))) {
    throw badRequest('60322', 'Content could not be processed: it is not Base64');
  }
  const size =
    content === undefined ? Number(current?.size ?? 0) : Buffer.from(content, 'base64').length;
  if (size > MAX_ATTACHMENT_BYTES) {
    throw badRequest(
      tooLarge,
      `Content exceeds the allowed size of ${String(MAX_ATTACHMENT_BYTES)} bytes`,
    );
  }
  return {
    file_name: fileName,
    type: textAt(body, 'type') ?? current?.type ?? 'application/octet-stream',
    note: textAt(body, 'note') ?? current?.note,
    size,
    content: content ?? current?.content,
  };
}
