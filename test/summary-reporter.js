// Prints the run's wall time and its slowest suites, appends them to .tmp/test-runs.jsonl (one
// line a run, to see the suite's drift), then one plain closing line that CI reads:
// "tests: N passed, N failed, N skipped".
const { appendFileSync, mkdirSync } = require('node:fs');
const path = require('node:path');

const SLOWEST = 10;

class SummaryReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }

  onRunComplete(_contexts, results) {
    // From jest's own start: the private servers' set-up counts too.
    const wallSeconds = (Date.now() - performance.timeOrigin) / 1000;
    const testSeconds = (Date.now() - results.startTime) / 1000;
    const suites = results.testResults
      .map((suite) => ({
        file: path.relative(this.rootDir, suite.testFilePath),
        seconds: (suite.perfStats.end - suite.perfStats.start) / 1000,
      }))
      .sort((a, b) => b.seconds - a.seconds);
    const lines = suites
      .slice(0, SLOWEST)
      .map(({ file, seconds }) => `  ${seconds.toFixed(1).padStart(6)} s  ${file}`);
    process.stdout.write(`\nslowest suites:\n${lines.join('\n')}\n`);
    process.stdout.write(
      `wall time: ${wallSeconds.toFixed(1)} s (tests ${testSeconds.toFixed(1)} s), ${suites.length} suites\n`,
    );
    this.record({ wallSeconds, testSeconds }, results, suites);
    process.stdout.write(
      `tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${results.numPendingTests} skipped\n`,
    );
  }

  record({ wallSeconds, testSeconds }, results, suites) {
    try {
      const dir = path.join(this.rootDir, '.tmp');
      mkdirSync(dir, { recursive: true });
      const line = {
        at: new Date().toISOString(),
        wallSeconds,
        testSeconds,
        passed: results.numPassedTests,
        failed: results.numFailedTests,
        suites: Object.fromEntries(suites.map(({ file, seconds }) => [file, seconds])),
      };
      appendFileSync(path.join(dir, 'test-runs.jsonl'), `${JSON.stringify(line)}\n`);
    } catch {
      // a record that cannot be written does not change the run's result
    }
  }
}
module.exports = SummaryReporter;
