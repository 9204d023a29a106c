/**
 * The console's partner transactions, served as `/console-partner.js`: the demo partner's
 * transactions with their status, read through the console session. No channel carries a
 * transaction, so the view reads them again every two seconds and after its own buttons. With
 * test control on, a transaction not yet in a terminal state gets buttons that end it.
 */
import { statesWith } from '@exchange-kit/contract/state-tables';

const terminal: readonly string[] = statesWith('transaction', 'terminal');

export const consolePartnerScript = `'use strict';
const terminalStatuses = ${JSON.stringify(terminal)};

async function readTransactions() {
  let all = [];
  for (let minTs = 0; ; ) {
    const { transactions } = (await getJson('/console/api/partner/transactions?min_ts=' + minTs)).payload;
    all = all.concat(transactions);
    if (transactions.length < 100) break;
    minTs = Number(transactions[transactions.length - 1].created_at) + 1;
  }
  const end = (transaction, status) => [status, async () => {
    await postJson('/test/transactions/' + transaction.transaction_id + '/status', { status });
    await readTransactions();
  }];
  showRows('transactions', all.reverse(), ['transaction_id', 'status', 'created_at'], (transaction) =>
    testControl && !terminalStatuses.includes(transaction.status)
      ? terminalStatuses.map((status) => end(transaction, status))
      : []);
}

async function followTransactions() {
  await readTransactions().catch(showError);
  setTimeout(followTransactions, 2000);
}
followTransactions();
`;
