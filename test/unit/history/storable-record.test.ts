import { createHash } from 'node:crypto';
import type { EventRecord } from '../../../src/history/history-record';
import {
  storableIdentifier,
  storableJsonText,
  storableRecord,
  storableText,
} from '../../../src/history/storable-record';

const EVENT: EventRecord = {
  type: 'event',
  patron: false,
  receivedAt: '2024-11-06T10:15:30.000Z',
  institution: '01SVC_INST',
  eventId: '7101',
  action: 'item',
  userKeys: [],
  barcodes: ['39000123456'],
  mmsIds: [],
  loanIds: [],
  requestIds: [],
  jobInstanceIds: [],
  body: { id: '7101', title: 'Les Misérables — 東京 😀' },
};

describe('values made storable for PostgreSQL', () => {
  it('replaces NUL and lone surrogates, and keeps a surrogate pair (an emoji) whole', () => {
    expect(storableText('a\u0000b\ud800c\udc00d😀')).toBe('a\uFFFDb\uFFFDc\uFFFDd😀');
    expect(storableText('東京 😀')).toBe('東京 😀');
  });

  it('keeps an identifier of 512 UTF-8 bytes, and hashes one of 513 with a marker', () => {
    const at = 'é'.repeat(256);
    const past = `${at}x`;
    expect(Buffer.byteLength(at)).toBe(512);
    expect(storableIdentifier(at)).toBe(at);
    const hashed = storableIdentifier(past);
    expect(hashed).toBe(`sha256:${createHash('sha256').update(past).digest('hex')}`);
    expect(storableIdentifier(hashed)).toBe(hashed);
  });

  it('returns an ordinary record itself, and a hostile one with its keys made storable', () => {
    expect(storableRecord(EVENT)).toBe(EVENT);
    const hostile = storableRecord({ ...EVENT, eventId: 'x\u0000', barcodes: ['b\ud800'] });
    expect(hostile).toMatchObject({ eventId: 'x\uFFFD', barcodes: ['b\uFFFD'] });
  });

  it('writes ordinary JSON as JSON.stringify does, and cleans keys and values when it must', () => {
    expect(storableJsonText([EVENT])).toBe(JSON.stringify([EVENT]));
    const text = storableJsonText({ ['k\u0000']: ['v\udfff', { n: 1 }] });
    expect(JSON.parse(text)).toEqual({ ['k\uFFFD']: ['v\uFFFD', { n: 1 }] });
  });
});
