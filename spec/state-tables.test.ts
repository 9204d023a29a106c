import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { checkStateTables, type StateTablesDocument } from './scripts/check-state-tables.js';
import { bundleApis } from './scripts/codegen.js';

let document: StateTablesDocument;
let specs: Record<string, Record<string, unknown>>;

beforeAll(async () => {
  document = parse(await readFile(new URL('./state-tables.yaml', import.meta.url), 'utf8'));
  specs = await bundleApis();
});

const withFirst = (change: (r: StateTablesDocument['requirements'][number]) => void) => {
  const copy: StateTablesDocument = structuredClone(document);
  const first = copy.requirements[0];
  if (!first) throw new Error('state-tables.yaml has no requirement');
  change(first);
  return copy;
};

describe('spec/state-tables.yaml', () => {
  it('names only operations, status codes and states the specs have', () => {
    expect(checkStateTables(document, specs)).toEqual([]);
  });

  it('fails on an operation the specs lack', () => {
    const broken = withFirst((r) => r.operations.push('cancelEverything'));
    expect(checkStateTables(broken, specs)).toEqual([
      'ORDER-CANCEL-LIVE: operation "cancelEverything" is in no spec',
    ]);
  });

  it('fails on a status code the operation does not document', () => {
    const broken = withFirst((r) => {
      r.operations = ['cancelOrder'];
      r.expect.status = 418;
    });
    expect(checkStateTables(broken, specs)).toEqual([
      expect.stringMatching(/^ORDER-CANCEL-LIVE: cancelOrder documents no 418 response/),
    ]);
  });

  it('fails on a state the enum lacks', () => {
    const broken = withFirst((r) => {
      r.expect.next = 'archived';
    });
    expect(checkStateTables(broken, specs)).toEqual([
      'ORDER-CANCEL-LIVE: state "archived" is not a value of OrderStatus',
    ]);
  });

  it('fails on a duplicate id and an unknown level', () => {
    const broken: StateTablesDocument = structuredClone(document);
    const [first, second] = broken.requirements;
    if (!first || !second) throw new Error('need two requirements');
    second.id = first.id;
    second.level = 'MAY';
    expect(checkStateTables(broken, specs)).toEqual(
      expect.arrayContaining([
        `${first.id}: id is used twice`,
        `${first.id}: level "MAY" is neither MUST nor SHOULD`,
      ]),
    );
  });

  it('fails on a state of the enum that has no flags, and on flags of a state it lacks', () => {
    const broken: StateTablesDocument = structuredClone(document);
    const states = broken.tables.transaction?.states;
    if (!states) throw new Error('the transaction table declares no states');
    delete states.flags.PENDING;
    states.flags.SETTLED = ['terminal'];
    expect(checkStateTables(broken, specs)).toEqual([
      'table transaction: state "PENDING" of TransactionStatus has no flags',
      'table transaction: flags name "SETTLED", which is not a value of TransactionStatus',
    ]);
  });

  it('fails on a statement about values without its sentence, of a level its source does not give', () => {
    const broken: StateTablesDocument = structuredClone(document);
    const value = broken.requirements.find((r) => r.check && r.source === 'described');
    if (!value) throw new Error('state-tables.yaml has no statement about values');
    delete value.sentence;
    value.level = 'SHOULD';
    value.check = [{ kind: 'equals', at: ['product_code'] }];
    expect(checkStateTables(broken, specs)).toEqual([
      `${value.id}: quotes no sentence`,
      `${value.id}: a statement from source described is a MUST`,
      `${value.id}: check equals needs \`at\`, JSON pointers starting with /`,
    ]);
  });

  it('fails on a value pointer no successful response of its operations has', () => {
    const broken: StateTablesDocument = structuredClone(document);
    const ladder = broken.requirements.find((r) => r.id === 'VALUE-LADDER-PAIRS-DECIMAL');
    if (!ladder?.check?.[0]) throw new Error('state-tables.yaml lacks VALUE-LADDER-PAIRS-DECIMAL');
    ladder.check[0].at = ['/bids/*/0', '/bid/*/0'];
    expect(checkStateTables(broken, specs)).toEqual([
      'VALUE-LADDER-PAIRS-DECIMAL: no successful response of getLoanBook has /bid/*/0',
    ]);
  });
});
