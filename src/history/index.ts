export { createHistoryRecorder } from './create-history-recorder';
export type {
  AttemptInput,
  AuditInput,
  HistoryRecorder,
  HistoryRecorderOptions,
  JobEndInput,
} from './create-history-recorder';
export { createHistoryWriter, outboxBacklog } from './create-history-writer';
export type { HistoryWriter, HistoryWriterOptions } from './create-history-writer';
export { forgetPerson } from './forget-person';
export type { ForgetOptions, ForgetReport } from './forget-person';
export type { HistoryBodies } from './history-bodies';
export { historyBody } from './history-body';
export type { HistoryFilters } from './history-filters';
export { historyJourney } from './history-journey';
export type { JourneyStep } from './history-journey';
export { deriveHistoryKeys } from './history-keys';
export type { HistoryKeys } from './history-keys';
export { registerHistoryMetrics } from './history-metrics';
export { historyStreamKey } from './history-stream-key';
export { migrateHistory } from './migrate-history';
export { openHistoryDatabase } from './open-history-database';
export type { OpenHistoryDatabaseOptions } from './open-history-database';
export { pruneHistory } from './prune-history';
export { previewReplay, replayHistory } from './replay-history';
export type { ReplayOptions, ReplayResult } from './replay-history';
export { auditPersonSearch, countHistory, searchHistory } from './search-history';
export type { HistoryContext, HistoryEventSummary, HistoryPage } from './search-history';
export type { SqlExecutor } from './sql-executor';
export { listAudit } from './list-audit';
export type { AuditEntry, AuditPage, AuditQuery } from './list-audit';
export { writeAudit } from './write-audit';
export { startHistory } from './start-history';
export type { HistoryRuntime, HistoryTuning, StartHistoryOptions } from './start-history';
export type { OutcomesOf } from './with-outcomes-recorded';
export { countSetAside, listSetAside } from './list-set-aside';
export type { SetAsideEntry, SetAsidePage, SetAsideQuery } from './list-set-aside';
export { previewRecovery, recoveryFilters } from './recovery-candidates';
export type { RecoveryCandidate, RecoveryPreview, RecoveryWindow } from './recovery-candidates';
