#!/usr/bin/env node
import { main } from './main.js';

// A reader that leaves early (`| head`) closes the pipe: what is left to print is dropped, and
// the run still ends as it would, cleaning up what it made and writing its reports.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
});

process.exitCode = await main(process.argv.slice(2));
