/** Words that open with a vowel letter but a consonant sound: `a user`, `a unit`, `a URL`. */
const YOU_SOUND = /^(u[bcfhjklmnrstvz][aeiouy]|uni|url|eu|one)/i;

/**
 * A word with its indefinite article, by how it is said: `an object`, `an item`, `a string`,
 * `a user` — for the type names and event actions messages name.
 */
export function withArticle(word: string): string {
  const vowel = /^[aeiou]/i.test(word) && !YOU_SOUND.test(word);
  return `${vowel ? 'an' : 'a'} ${word}`;
}
