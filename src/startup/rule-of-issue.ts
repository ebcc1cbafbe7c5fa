import type { z } from 'zod';
import { withArticle } from '../with-article';

/**
 * The rule a zod issue says was broken, in words that never quote the value: the value may be a
 * secret (an env key, or a `${VAR}` substituted into the routes or institutions file). One wording
 * for every start-up check, so the same mistake reads the same in each.
 */
export function ruleOfIssue(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'unrecognized_keys':
      return `unknown field ${issue.keys.join(', ')}`;
    case 'invalid_type':
      // zod's message ends with what it received (a type name, never the value).
      return issue.message.endsWith('received undefined')
        ? 'required'
        : withArticle(issue.expected);
    case 'invalid_value':
      return `one of ${issue.values.map(String).join(', ')}`;
    case 'invalid_format':
      return issue.format === 'regex' || issue.format === 'starts_with'
        ? issue.message
        : `a valid ${issue.format}`;
    case 'too_small':
      if (issue.origin === 'string') return `at least ${String(issue.minimum)} characters`;
      // A list's minimum is worded by its schema ("at least one institution").
      return issue.origin === 'array' ? issue.message : `at least ${String(issue.minimum)}`;
    case 'too_big':
      return `at most ${String(issue.maximum)}`;
    default:
      return issue.message;
  }
}
