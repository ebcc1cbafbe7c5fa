import { ITEM_SEARCH_LIMIT, poLinesArea } from '../../../src/areas/po-lines';
import { useAreaServer } from './area-server';

type PoLine = {
  number: string;
  po_number: string;
  created_date: string;
  status: { value: string };
  acquisition_method: { value: string };
  resource_metadata: { title: string };
};

describe('PO lines area (spec §4.13)', () => {
  const call = useAreaServer(poLinesArea);
  const list = async (query: string) => {
    const reply = await call('GET', `/acq/po-lines?limit=100&${query}`);
    return {
      lines: (reply.json.po_line ?? []) as PoLine[],
      total: Number(reply.json.total_record_count),
    };
  };
  const byNumber = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true });

  it('excludes CLOSED by default, includes it with ALL_WITH_CLOSED, filters one status', async () => {
    const open = await list('');
    const all = await list('status=ALL_WITH_CLOSED');
    expect(all.total).toBe(30);
    expect(open.lines.some((line) => line.status.value === 'CLOSED')).toBe(false);
    const closed = await list('status=CLOSED');
    expect(closed.total).toBe(all.total - open.total);
    expect(closed.lines.every((line) => line.status.value === 'CLOSED')).toBe(true);
  });

  it('orders by title descending by default, then by number', async () => {
    const { lines } = await list('status=ALL_WITH_CLOSED');
    const keys = lines.map((line) => [line.resource_metadata.title, line.number] as const);
    const expected = [...keys].sort(
      (a, b) => -(a[0].localeCompare(b[0], 'en', { numeric: true }) || byNumber(a[1], b[1])),
    );
    expect(keys).toEqual(expected);
  });

  it('orders by created_date ascending, ties by number', async () => {
    const { lines } = await list('status=ALL_WITH_CLOSED&order_by=created_date&direction=asc');
    const keys = lines.map((line) => `${line.created_date}|${line.number}`);
    expect(keys).toEqual([...keys].sort((a, b) => a.localeCompare(b, 'en', { numeric: true })));
    const po = await list('status=ALL_WITH_CLOSED&order_by=po_number&direction=asc');
    expect(po.lines.slice(0, 3).map((line) => line.number)).toEqual([
      'POL-1001',
      'POL-1002',
      'POL-1003',
    ]);
  });

  it('searches line fields and all, and filters by acquisition method', async () => {
    const nature = await list('status=ALL_WITH_CLOSED&q=title~nature');
    expect(nature.lines.every((line) => line.resource_metadata.title === 'Nature')).toBe(true);
    expect(nature.total).toBe(3);
    expect(
      (await list('status=ALL_WITH_CLOSED&q=all~POL-1007')).lines.map((l) => l.number),
    ).toEqual(['POL-1007']);
    expect((await list('status=ALL_WITH_CLOSED&q=po_number=PO-501')).total).toBe(3);
    const gifts = await list('status=ALL_WITH_CLOSED&acquisition_method=GIFT');
    expect(gifts.lines.every((line) => line.acquisition_method.value === 'GIFT')).toBe(true);
  });

  it('searches item fields, orders by them only then, and limits their results', async () => {
    const items = await list(
      'status=ALL_WITH_CLOSED&q=item_description~copy&order_by=item_description',
    );
    expect(items.total).toBeLessThanOrEqual(ITEM_SEARCH_LIMIT);
    expect(items.total).toBeGreaterThan(0);
    expect((await call('GET', '/acq/po-lines?order_by=enumeration_a')).errorCode).toBe('40166410');
  });

  it.each([
    ['status=OPEN'],
    ['order_by=author'],
    ['direction=sideways'],
    ['acquisition_method=THEFT'],
    ['q=colour~red'],
    ['limit=500'],
  ])('refuses %s with 40166410', async (query) => {
    expect((await call('GET', `/acq/po-lines?${query}`)).errorCode).toBe('40166410');
  });

  it('answers XML when asked', async () => {
    const reply = await call('GET', '/acq/po-lines?limit=1', { accept: 'application/xml' });
    expect(reply.text).toMatch(/<po_lines total_record_count="\d+"><po_line><number>POL-/);
  });
});
