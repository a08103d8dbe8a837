#!/usr/bin/env node
// Runs the built CLI; in a development checkout without a build, runs the TypeScript sources.
const { existsSync } = require('node:fs');
const path = require('node:path');

const built = path.join(__dirname, '..', 'dist', 'cli', 'main.js');
if (existsSync(built)) {
  require(built).main();
} else {
  require('tsx/cjs');
  require(path.join(__dirname, '..', 'src', 'cli', 'main.ts')).main();
}
