import { licenseTermsArea } from '../../../src/areas/license-terms';
import { useAreaServer } from './area-server';

const term = (overrides: Record<string, unknown> = {}) => ({
  code: 'TEXTMINING',
  name: 'Text and data mining',
  type: { value: 'PERMITTED_PROHIBITED' },
  licensor: 'EBSCO',
  ...overrides,
});

describe('license terms area (spec §4.7)', () => {
  const call = useAreaServer(licenseTermsArea);

  it('lists the seeded terms', async () => {
    expect((await call('GET', '/conf/license-terms')).json.total_record_count).toBe(6);
  });

  it('creates, reads, updates and deletes a term', async () => {
    const created = await call('POST', '/conf/license-terms', { body: term() });
    expect(created.json).toMatchObject({ code: 'TEXTMINING', licensor: { value: 'EBSCO' } });
    expect((await call('GET', '/conf/license-terms/TEXTMINING')).json.name).toBe(
      'Text and data mining',
    );
    const updated = await call('PUT', '/conf/license-terms/TEXTMINING', {
      body: term({ name: 'TDM' }),
    });
    expect(updated.json.name).toBe('TDM');
    expect((await call('DELETE', '/conf/license-terms/TEXTMINING')).status).toBe(204);
    expect((await call('GET', '/conf/license-terms/TEXTMINING')).errorCode).toBe('403400');
  });

  it.each([
    ['500021', term({ name: '' })],
    ['500021', { code: 'X1', name: 'x' }],
    ['60198', term({ code: 'WALKIN' })],
    ['60195', term({ code: 'X2', type: 'COLOUR' })],
    ['60190', term({ code: 'X3', licensor: 'NOBODY' })],
    ['60196', ['not', 'a', 'term']],
  ])('refuses a create with %s', async (errorCode, body) => {
    expect((await call('POST', '/conf/license-terms', { body })).errorCode).toBe(errorCode);
  });

  it.each([
    ['403400', 'NOPE', term({ code: 'NOPE' })],
    ['500021', 'ARCHIVE', { code: 'ARCHIVE', type: 'TEXT' }],
    ['60198', 'ARCHIVE', term({ code: 'WALKIN', type: 'TEXT' })],
    ['60195', 'ARCHIVE', term({ code: 'ARCHIVE', type: 'X' })],
    ['60190', 'ARCHIVE', term({ code: 'ARCHIVE', type: 'TEXT', licensor: 'X' })],
    ['60202', 'ARCHIVE', term({ code: 'RENAMED', type: 'TEXT' })],
  ])('refuses an update with %s', async (errorCode, termCode, body) => {
    expect((await call('PUT', `/conf/license-terms/${termCode}`, { body })).errorCode).toBe(
      errorCode,
    );
  });

  it('refuses to delete an unknown term (403400) or one in use (60200)', async () => {
    expect((await call('DELETE', '/conf/license-terms/NOPE')).errorCode).toBe('403400');
    expect((await call('DELETE', '/conf/license-terms/WALKIN')).errorCode).toBe('60200');
  });

  it('answers XML when asked', async () => {
    const reply = await call('GET', '/conf/license-terms/WALKIN', { accept: 'application/xml' });
    expect(reply.text).toContain('<license_term><code>WALKIN</code>');
  });
});
