#!/usr/bin/env node
// The `sas` command: everything lives in dist/main.js (built from src/ with `tsc -p packages/cli`).
import '../dist/main.js';
