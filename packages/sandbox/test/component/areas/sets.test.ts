import { setsArea } from '../../../src/areas/sets';
import { useAreaServer } from './area-server';

type SetReply = {
  id: string;
  name: string;
  type: { value: string };
  number_of_members: { value: number };
};

describe('sets area (spec §4.6)', () => {
  const call = useAreaServer(setsArea);
  const listSets = async (query: string) =>
    ((await call('GET', `/conf/sets?limit=100&${query}`)).json.set ?? []) as SetReply[];

  it('lists UI sets by default and filters by content_type, set_type, q and set_origin', async () => {
    expect(await listSets('')).toHaveLength(7);
    expect((await listSets('content_type=ITEM')).map((s) => s.name)).toEqual([
      'Damaged items',
      'Weeding candidates',
    ]);
    expect((await listSets('set_type=LOGICAL')).every((s) => s.type.value === 'LOGICAL')).toBe(
      true,
    );
    expect((await listSets('q=name~books')).map((s) => s.name)).toEqual(['New books 2025']);
    expect((await listSets('set_origin=UI_CZ')).map((s) => s.name)).toEqual([
      'Community zone titles',
    ]);
  });

  it.each([
    ['40166410', 'content_type=SHOES'],
    ['40166410', 'set_type=RANDOM'],
    ['40166410', 'set_origin=CZ'],
    ['60106', 'q=name'],
    ['60106', 'q=owner~x'],
  ])('answers %s for %s', async (errorCode, query) => {
    expect((await call('GET', `/conf/sets?${query}`)).errorCode).toBe(errorCode);
  });

  it('creates an empty itemized set (rule 1) and a logical user set (rule 2)', async () => {
    const itemized = await call('POST', '/conf/sets', {
      body: { name: 'Mine', content: 'ITEM', type: 'ITEMIZED' },
    });
    expect(itemized.json).toMatchObject({
      type: { value: 'ITEMIZED' },
      number_of_members: { value: 0 },
    });
    const logical = await call('POST', '/conf/sets', {
      body: {
        name: 'Users',
        content: { value: 'USER' },
        type: 'LOGICAL',
        query: 'USER where name CONTAINS a',
      },
    });
    expect(logical.json.query).toBe('USER where name CONTAINS a');
    const listed = await listSets('q=name=Mine');
    expect(listed.map((s) => s.id)).toEqual([itemized.json.id]);
  });

  it('refuses a logical PO line set and a logical set without a query', async () => {
    const poLines = await call('POST', '/conf/sets', {
      body: { name: 'x', content: 'PO_LINE', type: 'LOGICAL', query: 'q' },
    });
    expect(poLines.errorCode).toBe('40166410');
    const noQuery = await call('POST', '/conf/sets', {
      body: { name: 'x', content: 'USER', type: 'LOGICAL' },
    });
    expect(noQuery.errorCode).toBe('40166410');
  });

  it('fills an itemized set from a logical set (rule 3), refusing an itemized source with 40166410 (the create shows no codes, spec §4.6)', async () => {
    const [logical] = await listSets('set_type=LOGICAL&content_type=BIB_MMS');
    const [itemized] = await listSets('set_type=ITEMIZED&content_type=ITEM');
    const filled = await call('POST', '/conf/sets', {
      body: { name: 'Copy', content: 'BIB_MMS', from_logical_set: logical?.id },
    });
    expect(filled.json.number_of_members).toEqual(logical?.number_of_members);
    const wrong = await call('POST', '/conf/sets', {
      body: { name: 'x', content: 'ITEM', from_logical_set: itemized?.id },
    });
    expect(wrong.errorCode).toBe('40166410');
  });

  it('bases a BIB_MMS set on a job instance with a population (rule 4)', async () => {
    const ok = await call('POST', '/conf/sets?population=NEW_RECORDS', {
      body: { name: 'Imported', content: 'BIB_MMS', job_instance: '5871043560000561' },
    });
    expect(ok.status).toBe(200);
    const noPopulation = await call('POST', '/conf/sets', {
      body: { name: 'Imported', content: 'BIB_MMS', job_instance: '5871043560000561' },
    });
    expect(noPopulation.errorCode).toBe('40166410');
  });

  it('combines two sets (rule 5); an unknown set is 40166410', async () => {
    const [first, second] = await listSets('content_type=ITEM');
    const combined = await call('POST', '/conf/sets', {
      body: { name: 'Both', content: 'ITEM', set1: first?.id, set2: second?.id },
    });
    expect(combined.json.number_of_members).toEqual({
      value: (first?.number_of_members.value ?? 0) + (second?.number_of_members.value ?? 0),
    });
    const unknown = await call('POST', '/conf/sets', {
      body: { name: 'x', content: 'ITEM', set1: first?.id, set2: '1' },
    });
    expect(unknown.errorCode).toBe('40166410');
  });

  it('answers XML when asked', async () => {
    const reply = await call('GET', '/conf/sets?set_origin=UI_CZ', { accept: 'application/xml' });
    expect(reply.text).toContain('<sets total_record_count="1"><set>');
  });
});
