import { z } from 'zod';
import { ruleOfIssue } from '../../src/startup/rule-of-issue';
import { withArticle } from '../../src/with-article';

describe('a word with its indefinite article', () => {
  it.each([
    ['object', 'an object'],
    ['array', 'an array'],
    ['int', 'an int'],
    ['item', 'an item'],
    ['undefined', 'an undefined'],
    ['unknown', 'an unknown'],
    ['string', 'a string'],
    ['loan', 'a loan'],
    ['job_end', 'a job_end'],
    ['user', 'a user'],
    ['unit', 'a unit'],
    ['URL', 'a URL'],
  ])('%s: %s', (word, said) => {
    expect(withArticle(word)).toBe(said);
  });

  it('words a start-up file’s wrong type with it: "an object", "an array", "a string"', () => {
    const issueOf = (schema: z.ZodType, value: unknown) => {
      const [issue] = schema.safeParse(value).error?.issues ?? [];
      if (issue === undefined) throw new Error('no issue');
      return ruleOfIssue(issue);
    };
    expect(issueOf(z.object({}), 'text')).toBe('an object');
    expect(issueOf(z.array(z.string()), 'text')).toBe('an array');
    expect(issueOf(z.string(), 1)).toBe('a string');
  });
});
