/** The ingress stages in pipeline order; a server built with stage N runs stages 1..N. */
export const INGRESS_STAGES = ['signature', 'parse', 'normalize', 'log'] as const;
export type IngressStage = (typeof INGRESS_STAGES)[number];
