/**
 * Keys that hold a whole person wherever they stand in the subject of an event about a patron:
 * the patron, a requester, a letter's receivers and the copy of the user printed on it, a proxy.
 * Each as `**.key` (at any depth), for a kind's file to spread into its personal paths: what is
 * inside (ids, names, PIN, addresses, e-mails, phones, identifiers, notes) goes with it.
 */
export const PERSON_ANYWHERE: readonly string[] = [
  'user',
  'users',
  'patron',
  'borrower',
  'requester',
  'receiver',
  'receivers',
  'recipient',
  'recipients',
  'proxy_for_user',
  'user_for_printing',
].map((key) => `**.${key}`);

/** The keys of a user record that are the person themselves: ids, names, birth date, PIN. */
export const USER_RECORD_KEYS: readonly string[] = [
  'primary_id',
  'external_id',
  'linking_id',
  'first_name',
  'middle_name',
  'last_name',
  'full_name',
  'preferred_first_name',
  'preferred_middle_name',
  'preferred_last_name',
  'pref_first_name',
  'pref_middle_name',
  'pref_last_name',
  'birth_date',
  'pin_number',
  'password',
  'job_description',
];

/**
 * Inside a field that holds a whole person, the keys whose text is the person's own (an id, a
 * name, the PIN, an address, an e-mail, a phone, a note): the values masked wherever else the
 * event embeds them. The rest of such a field (codes such as a user group or a phone type, a
 * language) leaves with it but is no one's, so `home` or `en` is not masked across the event.
 */
export const PERSON_VALUE_KEYS: ReadonlySet<string> = new Set([
  ...USER_RECORD_KEYS,
  'user_id',
  'user_primary_id',
  'user_name',
  'name',
  'line1',
  'line2',
  'line3',
  'line4',
  'line5',
  'address1',
  'address2',
  'address3',
  'address4',
  'address5',
  'street',
  'city',
  'state_province',
  'postal_code',
  'zip',
  'zip_code',
  'address_note',
  'email',
  'email_address',
  'phone',
  'phone_number',
  'mobile',
  'fax',
  'description',
  'note',
  'note_text',
  'block_note',
  'comment',
  'content',
]);

/** Lists of a person's identifiers (library cards, student ids): each one's `value` is theirs. */
export const PERSON_IDENTIFIER_LISTS: ReadonlySet<string> = new Set([
  'user_identifier',
  'identifier',
  'identifiers',
]);
