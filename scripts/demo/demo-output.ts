/** How the demo talks: plain lines, timed steps (`+1.20 s  ✓ …`) and the parts' `Name  value` lines. */
export interface DemoOutput {
  print(line?: string): void;
  /** A timed step: `mark` is ✓, ✗, …, • or !. */
  say(mark: string, text: string): void;
  /** One part of the demo, as it comes up: `  Redis     redis://…`. */
  part(name: string, value: string): void;
  /** Milliseconds since the demo started. */
  elapsedMs(): number;
}

export function createDemoOutput(started: number, write: (text: string) => void): DemoOutput {
  const print = (line = ''): void => write(`${line}\n`);
  const elapsedMs = (): number => performance.now() - started;
  return {
    print,
    say: (mark, text) => {
      const at = `+${(elapsedMs() / 1000).toFixed(2)} s`;
      print(`${at.padStart(9)}  ${mark} ${text}`);
    },
    part: (name, value) => print(`  ${name.padEnd(10)}${value}`),
    elapsedMs,
  };
}
