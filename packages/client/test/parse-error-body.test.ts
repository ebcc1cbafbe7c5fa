import { parseErrorBody } from '../src/parse-error-body';

describe('parseErrorBody', () => {
  it('reads several errors in order and numeric codes as strings', () => {
    const body = JSON.stringify({
      errorsExist: true,
      errorList: {
        error: [
          { errorCode: 60233, errorMessage: 'Invoice number missing' },
          { errorCode: '60234', errorMessage: 'Invoice date missing', trackingId: 'T2' },
        ],
      },
    });

    const parsed = parseErrorBody(body, 'application/json');

    expect(parsed).toEqual({
      form: 'json',
      errors: [
        { code: '60233', message: 'Invoice number missing', trackingId: undefined },
        { code: '60234', message: 'Invoice date missing', trackingId: 'T2' },
      ],
    });
  });

  it('reads an XML body even when labelled text/plain', () => {
    const xml =
      '<web_service_result><errorList><error><errorCode>60105</errorCode>' +
      '<errorMessage>JSON not supported</errorMessage></error></errorList></web_service_result>';

    expect(parseErrorBody(xml, 'text/plain').errors[0]?.code).toBe('60105');
  });

  it('leaves entities unexpanded', () => {
    const xml =
      '<web_service_result><errorList><error><errorCode>1</errorCode>' +
      '<errorMessage>a &amp; b</errorMessage></error></errorList></web_service_result>';

    expect(parseErrorBody(xml, 'application/xml').errors[0]?.message).toBe('a &amp; b');
  });

  it.each([
    ['null', 'null'],
    ['an array', '[1,2]'],
    ['an error without a code', '{"errorList":{"error":[{"errorMessage":"x"}]}}'],
    ['a list that is a string', '{"errorList":"oops"}'],
    ['broken XML', '<web_service_result><errorList><error>'],
    ['plain text', 'Service Unavailable'],
  ])('finds no error in %s without throwing', (_case, body) => {
    expect(parseErrorBody(body, undefined)).toEqual({ form: 'unreadable', errors: [] });
  });
});
