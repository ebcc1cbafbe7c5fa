import { code } from './body-fields';
import { randomInt } from './keyed-store';

export const WEEK_DAYS = [
  'SUNDAY',
  'MONDAY',
  'TUESDAY',
  'WEDNESDAY',
  'THURSDAY',
  'FRIDAY',
  'SATURDAY',
] as const;

export interface OpenHours {
  readonly from: string;
  readonly to: string;
}

/** Index = `Date#getUTCDay()`; an empty list is a closed day. */
export type WeekSchedule = readonly (readonly OpenHours[])[];

const clock = (hour: number) => `${String(hour).padStart(2, '0')}:00`;

/** Weekdays open all day, Saturday shorter, Sunday closed in half the seeds. */
export function seedWeekSchedule(random: () => number): WeekSchedule {
  const opens = randomInt(random, 7, 9);
  const closes = randomInt(random, 18, 22);
  const weekday = [{ from: clock(opens), to: clock(closes) }];
  const saturday = [{ from: clock(opens + 1), to: clock(randomInt(random, 14, 17)) }];
  const sunday = random() < 0.5 ? [] : [{ from: '12:00', to: '18:00' }];
  return WEEK_DAYS.map((_, day) => (day === 0 ? sunday : day === 6 ? saturday : weekday));
}

/** The open-hours configuration: one `open_hour` entry per open weekday. */
export function scheduleBody(schedule: WeekSchedule): Record<string, unknown> {
  return {
    open_hour: WEEK_DAYS.flatMap((day, index) => {
      const hours = schedule[index] ?? [];
      return hours.length === 0
        ? []
        : [{ type: code('WEEK', 'Week'), day: code(day), hour: hours.map((h) => ({ ...h })) }];
    }),
  };
}
