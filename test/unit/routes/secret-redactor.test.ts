import { SHORTEST_SECRET, createSecretRedactor } from '../../../src/routes/create-secret-redactor';
import { parseRoutesFile } from '../../../src/routes/load-routes-file';

describe('the values substituted into the routes file are masked', () => {
  it('masks each substituted value as *** and keeps the rest of a URL as written', () => {
    const { redactSecrets } = parseRoutesFile(
      'routes:\n  - name: chat\n' +
        '    to: { http: { url: "https://chat.example.org:8443/hooks/${CHAT_TOKEN}?key=${CHAT_KEY}&lang=en" } }\n',
      { CHAT_TOKEN: 'T0k3n-abc.XYZ', CHAT_KEY: 'k3y-0f-the-room' },
    );

    expect(
      redactSecrets(
        'POST https://chat.example.org:8443/hooks/T0k3n-abc.XYZ?key=k3y-0f-the-room&lang=en: HTTP 500',
      ),
    ).toBe('POST https://chat.example.org:8443/hooks/***?key=***&lang=en: HTTP 500');
  });

  it('masks a value as a URL parser or JSON escapes it, in any case', () => {
    const redact = createSecretRedactor(['a b/c"d', 'Host.Example.ORG']);

    expect(redact('path a%20b/c%22d and a%20b%2Fc%22d, json "a b/c\\"d"')).toBe(
      'path *** and ***, json "***"',
    );
    expect(redact('getaddrinfo ENOTFOUND host.example.org')).toBe('getaddrinfo ENOTFOUND ***');
  });

  it('masks a longer value whole where it holds a shorter one', () => {
    const redact = createSecretRedactor(['abcd', 'xxabcdyy']);

    expect(redact('/xxabcdyy/abcd')).toBe('/***/***');
  });

  it(`leaves values shorter than ${String(SHORTEST_SECRET)} characters, and still hides URL passwords`, () => {
    const redact = createSecretRedactor(['1', '443', 'on']);

    expect(redact('amqp://app:pw@mq:443/v1 attempt 1 on')).toBe(
      'amqp://app:***@mq:443/v1 attempt 1 on',
    );
  });

  it('masks only URL passwords for a routes file without ${VAR}', () => {
    const plain = parseRoutesFile(
      'routes:\n  - name: a\n    to: { http: { url: "https://example.org/hooks/abcdef" } }\n',
      { UNUSED: 'abcdef' },
    );

    expect(plain.redactSecrets('https://u:pw@example.org/hooks/abcdef')).toBe(
      'https://u:***@example.org/hooks/abcdef',
    );
  });
});
