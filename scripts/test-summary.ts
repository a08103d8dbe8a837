// Reads vitest's own JSON results and prints the one line CI closes on:
// "N passed, N failed" (", N skipped" when any were), alone on its line.
// Exits non-zero when a test failed, a file failed to load, or nothing ran at all.
import { readFileSync } from 'node:fs';

interface FileResult {
  name?: string;
  status?: string;
  message?: string;
  assertionResults?: { status?: string }[];
}
interface VitestJson {
  numPassedTests?: number;
  numFailedTests?: number;
  numPendingTests?: number;
  numTodoTests?: number;
  testResults?: FileResult[];
}

const path = process.argv[2] ?? 'test-output/vitest.json';
let results: VitestJson;
try {
  results = JSON.parse(readFileSync(path, 'utf8')) as VitestJson;
} catch (error) {
  console.error(`no test results at ${path}: ${(error as Error).message}`);
  console.log('0 passed, 0 failed');
  process.exit(1);
}

// A file that fails to load (or in a hook) has no failed test in it, but it did fail: one each.
const brokenFiles = (results.testResults ?? []).filter(
  (file) => file.status === 'failed' && !(file.assertionResults ?? []).some((test) => test.status === 'failed'),
);
for (const file of brokenFiles) console.error(`failed outside a test: ${file.name}: ${(file.message ?? '').split('\n')[0]}`);

const passed = results.numPassedTests ?? 0;
const failed = (results.numFailedTests ?? 0) + brokenFiles.length;
const skipped = (results.numPendingTests ?? 0) + (results.numTodoTests ?? 0);
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
