// Prints one plain closing line that CI reads: "tests: N passed, N failed, N skipped".
class SummaryReporter {
  onRunComplete(_contexts, results) {
    process.stdout.write(
      `tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${results.numPendingTests} skipped\n`,
    );
  }
}
module.exports = SummaryReporter;
