#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { describeOrigin, requirements } from './requirements.js';

const usage = `Usage: exchange-conformance <command>

Commands:
  list    every requirement id with its level and the table row it comes from
`;

function list(): void {
  const width = Math.max(...requirements.map((r) => r.id.length));
  for (const requirement of requirements) {
    console.log(
      `${requirement.id.padEnd(width)}  ${requirement.level.padEnd(6)}  ${describeOrigin(requirement)}  [${requirement.operations.join(', ')}]`,
    );
  }
}

function main(argv: string[]): number {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { help: { type: 'boolean', short: 'h' } },
    strict: false,
  });
  const [command] = positionals;
  if (values.help || command === undefined) {
    process.stdout.write(usage);
    return command === undefined && !values.help ? 2 : 0;
  }
  if (command === 'list') {
    list();
    return 0;
  }
  process.stderr.write(`exchange-conformance: unknown command "${command}"\n\n${usage}`);
  return 2;
}

process.exitCode = main(process.argv.slice(2));
