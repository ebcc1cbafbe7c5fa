/**
 * A call refused before it left the client because a parameter breaks a rule of the spec (§2, §4,
 * §8). The message names the operation, the parameter and the rule, never a value: a value could be
 * the API key passed by mistake, or data that does not belong in a log line (secrets never reach a log).
 */
export class SvcParamError extends Error {
  readonly operation: string;
  readonly parameter: string;
  readonly rule: string;

  constructor(details: { operation: string; parameter: string; rule: string }) {
    super(`${details.operation}: parameter ${details.parameter}: ${details.rule}`);
    this.name = 'SvcParamError';
    this.operation = details.operation;
    this.parameter = details.parameter;
    this.rule = details.rule;
  }
}
