/** Called once per webhook delivery after the answer is sent (metrics hang on this). */
export type DeliveryObserver = (delivery: {
  outcome: string;
  status: number;
  durationMs: number;
  action: string | undefined;
  /** A signed delivery that could not become an event: why (an answer code), and if it was kept. */
  rejected?: { reason: string; kept: boolean };
  /** The institution code of the path (INSTITUTIONS_FILE only; a configured code, never a guess). */
  institution?: string;
  /** The event's own `institution.value` (spec §6.2), when it was parsed and carries one. */
  eventInstitution?: string;
}) => void;
