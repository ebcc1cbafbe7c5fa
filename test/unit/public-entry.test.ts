import * as client from '@svcws/client';
import * as product from 'svcws-listener';

describe('the product entry (svcws-listener)', () => {
  it("exports the product's own pieces by name: the listener, events, routing, start-up", () => {
    expect(typeof product.createApp).toBe('function');
    expect(typeof product.parseXmlEvent).toBe('function');
    expect(typeof product.startRouting).toBe('function');
    expect(typeof product.checkChallenge).toBe('function');
    expect(new product.StartupFileError('routes file', ['x'])).toBeInstanceOf(Error);
  });

  it('passes on nothing of the API client: users import @svcws/client itself', () => {
    const exported = Object.keys(product);
    expect(Object.keys(client).length).toBeGreaterThan(0);

    expect(exported.filter((name) => name in client)).toEqual([]);
  });

  it('keeps no deprecated alias', () => {
    expect(Object.keys(product)).not.toContain('RoutesFileError');
  });
});
