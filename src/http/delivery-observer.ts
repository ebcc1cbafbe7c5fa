/** Called once per webhook delivery after the answer is sent (metrics hang on this). */
export type DeliveryObserver = (delivery: {
  outcome: string;
  status: number;
  durationMs: number;
  action: string | undefined;
}) => void;
