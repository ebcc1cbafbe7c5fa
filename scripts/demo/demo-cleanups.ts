type Cleanup = () => Promise<void>;

/** What the demo opened, closed in reverse order; a step that fails is reported and skipped. */
export interface DemoCleanups {
  push(step: Cleanup): void;
  run(): Promise<void>;
}

export function createDemoCleanups(report: (message: string) => void): DemoCleanups {
  const steps: Cleanup[] = [];
  return {
    push: (step) => {
      steps.push(step);
    },
    run: async () => {
      for (const step of steps.reverse()) {
        await step().catch((error: unknown) => {
          report(`  (cleanup: ${error instanceof Error ? error.message : String(error)})`);
        });
      }
      steps.length = 0;
    },
  };
}
