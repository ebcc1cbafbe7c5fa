/** Which bodies the history keeps (HISTORY_BODIES). */
export type HistoryBodies = 'all' | 'non-patron' | 'none';
