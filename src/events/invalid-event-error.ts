import { RefusedDeliveryError } from './refused-delivery-error';

/** A body that can never become an event. `field` names what was wrong, when one thing was. */
export class InvalidEventError extends RefusedDeliveryError {
  readonly field: string | undefined;
  constructor(message: string, field?: string) {
    super('invalid_event', message);
    this.name = 'InvalidEventError';
    this.field = field;
  }
}
