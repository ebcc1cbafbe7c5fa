import * as product from 'svcws-listener';

describe('the product entry (svcws-listener)', () => {
  it('exports the API client by name: the client, its errors and its operation table', () => {
    expect(typeof product.createSvcClient).toBe('function');
    expect(
      new product.SvcParamError({ operation: 'getJob', parameter: 'op', rule: 'x' }),
    ).toBeInstanceOf(Error);
    expect(Object.keys(product.endpoints)).toHaveLength(94);
  });

  it("does not pass on the client's internals", () => {
    const exported = Object.keys(product);

    for (const internal of ['isRecord', 'pipeCountingBytes', 'TEMPORARY_FILE_PATTERN']) {
      expect(exported).not.toContain(internal);
    }
  });
});
