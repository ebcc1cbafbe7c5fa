/** A body that can never become an event (→ 400). `field` names what was wrong, when one thing was. */
export class InvalidEventError extends Error {
  readonly field: string | undefined;
  constructor(message: string, field?: string) {
    super(message);
    this.name = 'InvalidEventError';
    this.field = field;
  }
}
