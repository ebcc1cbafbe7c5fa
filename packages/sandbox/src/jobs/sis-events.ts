import { countersOf, stateAt } from './job-instance';
import type { JobInstance } from './job-instance';

const EVENT_TYPES: Record<string, readonly [string, string]> = {
  USERS_CREATED: ['USER_CREATED', 'User created'],
  USERS_UPDATED: ['USER_UPDATED', 'User updated'],
  USERS_REJECTED: ['USER_REJECTED', 'User rejected: the primary identifier is missing'],
};

/** The events of a USERS/SIS run: one per user its counters report, in order of time. */
export function sisEventsOf(instance: JobInstance, now: Date): Record<string, unknown>[] {
  const state = stateAt(instance, now);
  const events: Record<string, unknown>[] = [];
  const start = (state.startTime ?? instance.submitTime).getTime();
  for (const counter of countersOf(instance, state.progress)) {
    const eventType = EVENT_TYPES[counter.type];
    if (!eventType) continue;
    for (let index = 0; index < counter.value; index += 1) {
      const userId = `S${String(100000 + events.length)}`;
      events.push({
        id: `${instance.id}-${String(events.length + 1)}`,
        type: { value: eventType[0], desc: eventType[1] },
        description: `${eventType[1]}: ${userId}`,
        user_primary_id: userId,
        time: new Date(start + events.length * 10).toISOString(),
      });
    }
  }
  return events;
}
