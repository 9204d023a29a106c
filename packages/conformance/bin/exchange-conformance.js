#!/usr/bin/env node
// A file of its own, present before anything is built: installing the workspace links the
// command to it without a warning, and it runs the built CLI.
import '../dist/cli/cli.js';
