import { SAMPLE_KINDS } from '../../../src/cli/sample-events';
import { USAGE_TEXT } from '../../../src/cli/usage-text';

describe('the CLI help', () => {
  it('lists every sample kind send-test-event and routes test accept', () => {
    const kindsLine = /kinds: ([\s\S]*?) \(a fresh id each time\)/.exec(USAGE_TEXT)?.[1] ?? '';
    const listed = kindsLine.split(/,\s*/).map((kind) => kind.trim());
    expect(listed).toEqual([...SAMPLE_KINDS]);
  });
});
