import { parseInstitutionsFile } from '../../src/institutions/load-institutions-file';
import { StartupFileError } from '../../src/startup/startup-file-error';

const env = {
  ABC_WEBHOOK_SECRET: 'abc-secret-XYZ-0123456',
  ABC_API_KEY: 'abc-key-XYZ',
  DEF_WEBHOOK_SECRET: 'def-secret-XYZ-0123456',
  DEF_API_KEY: 'def-key-XYZ',
};

const FILE = `
institutions:
  - code: 01ABC_INST
    webhookSecret: \${ABC_WEBHOOK_SECRET}
    webhookSecretPrevious: \${ABC_WEBHOOK_SECRET_OLD}
    apiKey: \${ABC_API_KEY}
    baseUrl: https://api-eu.example.org
    ratePerSecond: 10
  - code: 01DEF_INST
    webhookSecret: \${DEF_WEBHOOK_SECRET}
    apiKey: \${DEF_API_KEY}
    baseUrl: https://api-na.example.org
    remainingFloor: 500
    downloadFormat: BINARY
`;

function problemsOf(text: string, values: Record<string, string> = env): string {
  try {
    parseInstitutionsFile(text, values);
  } catch (error) {
    expect(error).toBeInstanceOf(StartupFileError);
    const message = (error as Error).message;
    expect(message).not.toContain('XYZ');
    return message;
  }
  throw new Error('the file was accepted');
}

describe('the institutions file', () => {
  it('reads each member with its secrets from the environment; an unset previous secret is absent', () => {
    const { institutions } = parseInstitutionsFile(FILE, env);
    expect(institutions).toEqual([
      {
        code: '01ABC_INST',
        webhookSecret: env.ABC_WEBHOOK_SECRET,
        apiKey: env.ABC_API_KEY,
        baseUrl: 'https://api-eu.example.org',
        ratePerSecond: 10,
      },
      {
        code: '01DEF_INST',
        webhookSecret: env.DEF_WEBHOOK_SECRET,
        apiKey: env.DEF_API_KEY,
        baseUrl: 'https://api-na.example.org',
        remainingFloor: 500,
        downloadFormat: 'BINARY',
      },
    ]);
    const rotating = parseInstitutionsFile(FILE, {
      ...env,
      ABC_WEBHOOK_SECRET_OLD: 'abc-old-secret-0123456',
    });
    expect(rotating.institutions[0]?.webhookSecretPrevious).toBe('abc-old-secret-0123456');
  });

  it('reads the same shape as JSON', () => {
    const json = JSON.stringify({
      institutions: [
        { code: 'X1', webhookSecret: 'x'.repeat(16), apiKey: 'k', baseUrl: 'http://127.0.0.1:1' },
      ],
    });
    expect(parseInstitutionsFile(json, {}).institutions[0]?.code).toBe('X1');
  });

  it('names the institution and the field of an unset variable, never a value', () => {
    const { DEF_API_KEY: _unset, ...rest } = env;
    expect(problemsOf(FILE, rest)).toContain(
      'institution "01DEF_INST": apiKey: environment variable DEF_API_KEY is not set',
    );
  });

  it('refuses a short secret, a bad address, a bad code, a duplicate code and an unknown field', () => {
    const message = problemsOf(`
institutions:
  - code: 01ABC_INST
    webhookSecret: short-XYZ
    apiKey: k
    baseUrl: ftp://example.org
  - code: 01ABC_INST
    webhookSecret: ${'y'.repeat(16)}
    apiKey: k
    baseUrl: https://example.org
    colour: red
  - code: "01 ABC/INST"
    webhookSecret: ${'z'.repeat(16)}
    apiKey: k
    baseUrl: https://example.org
`);
    expect(message).toContain('institution "01ABC_INST": webhookSecret: at least 16 characters');
    expect(message).toContain('institution "01ABC_INST": baseUrl: a valid url');
    expect(message).toContain('institution "01ABC_INST": unknown field colour');
    expect(message).toContain('institution #3 (institutions[2]): code: letters, digits, _ and -');
    expect(message).toContain('code: the same code as an institution above');
  });

  it('refuses a file without institutions', () => {
    expect(problemsOf('institutions: []')).toContain('institutions: at least one institution');
  });
});
